"""Page setup and the one engine of the process (``st.cache_resource``)."""
from __future__ import annotations

import importlib
from pathlib import Path

import streamlit as st

from swr.app import state
from swr.app.components import signin
from swr.core.errors import SwrError
from swr.core.settings import Settings
from swr.engine import Engine
from swr.manage import render
from swr.manage.access import GuardedEngine, Limits

ROOT = Path(__file__).resolve().parent.parent.parent
CSS_FILE = Path(__file__).with_name("style.css")

# page files (their names are the URLs: keep them)
CHAT_PAGE = "app.py"
KB_PAGE = "pages/1_Knowledge_bases.py"
TUNE_PAGE = "pages/2_Tune.py"
VERIFY_PAGE = "pages/3_Verify.py"
COMPARE_PAGE = "pages/4_Compare.py"
FEEDBACK_PAGE = "pages/5_Feedback.py"
USERS_PAGE = "pages/6_Users.py"  # admins only (swr.app.users)
PAGE_MODULES = {CHAT_PAGE: "chat", KB_PAGE: "knowledge_bases", TUNE_PAGE: "tune", VERIFY_PAGE: "verify",
                COMPARE_PAGE: "compare", FEEDBACK_PAGE: "feedback"}
PAGE_MODULES[USERS_PAGE] = "users"
# each page's icon (navigation, browser tab, heading): Material Symbols, which Streamlit ships, so
# they draw in any browser (emoji were empty boxes where the system has no emoji font)
ICONS = {CHAT_PAGE: ":material/chat:", KB_PAGE: ":material/library_books:", TUNE_PAGE: ":material/tune:",
         VERIFY_PAGE: ":material/fact_check:", COMPARE_PAGE: ":material/balance:",
         FEEDBACK_PAGE: ":material/how_to_vote:", USERS_PAGE: ":material/group:"}
# the browser tab's: an emoji (a Material page icon makes the browser fetch the favicon from
# fonts.gstatic.com: the offline browser tests refuse any request outside the app)
TAB_ICONS = {CHAT_PAGE: "💬", KB_PAGE: "📚", TUNE_PAGE: "🎛️", VERIFY_PAGE: "✅", COMPARE_PAGE: "⚖️",
             FEEDBACK_PAGE: "🗳️", USERS_PAGE: "👥"}


def run_page(file: str) -> None:
    """Draw the page whose shell is ``file`` (``app.py``, ``pages/2_Tune.py``...): the shells are
    identical, the file name picks the module (and is the page's URL)."""
    path = Path(file)
    rel = f"pages/{path.name}" if path.parent.name == "pages" else path.name
    importlib.import_module(f"swr.app.{PAGE_MODULES[rel]}").render()


@st.cache_data
def _css() -> str:
    return render.CSS + CSS_FILE.read_text(encoding="utf-8")


def setup_page(title: str, icon: str) -> None:
    """Page config (wide layout) and the app's CSS; call first on every page."""
    st.set_page_config(page_title=f"{title} · swr", page_icon=icon, layout="wide",
                       initial_sidebar_state="expanded")
    st.html(f"<style>{_css()}</style>")


@st.cache_resource(show_spinner="Starting: loading the embedding model and indexing the sample "
                                "knowledge base (first start only)…")
def get_engine() -> Engine:
    """The one engine of this process (the embedded store opens once per process), shared by
    every browser session. A fresh SWR_HOME gets the bundled sample knowledge base."""
    engine = Engine(Settings.from_env())
    engine.ensure_sample()
    return engine


@st.cache_resource
def _limits(settings: Settings) -> Limits:
    """The per-user limits of this process (shared by every session)."""
    return Limits.for_settings(settings)


def engine_or_stop() -> GuardedEngine:
    """The checked engine view for the signed-in user (the sign-in form, and stop, when nobody is);
    or a clear error on the page (store locked, model missing) and stop. Pages hold only this view:
    every call checks the user's role and knowledge-base grants (:mod:`swr.manage.access`)."""
    try:
        engine = get_engine()
    except SwrError as exc:
        st.error(render.esc(exc.message))
        st.stop()
        raise  # unreachable: st.stop raises
    actor = signin.gate(engine.settings)
    state.own_session(actor.name)  # another user's things in this session are forgotten first
    state.forget_unreadable(actor.can_read)  # and results of knowledge bases no longer granted
    return engine.as_user(actor, limits=Limits() if actor.local else _limits(engine.settings))
