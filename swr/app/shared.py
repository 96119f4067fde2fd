"""Shared answers in the chat: "Copy link" under an answer keeps that one answer (question,
answer, evidence, settings) and shows its permalink (``?a=<id>``); opening a permalink draws that
answer alone, for whoever may read its knowledge base at that moment (:mod:`swr.manage.shared`,
checked and audited by the engine view). Anyone else, and an unknown id, get the same "not found".
"""
from __future__ import annotations

import streamlit as st

from swr.app import history, state
from swr.app.components import evidence as ev, passages as cards
from swr.app.components.answer import answer_card
from swr.app.components.errors import md
from swr.core.errors import NotFound, SwrError
from swr.manage.access import GuardedEngine as Engine
from swr.manage.render import esc

QUERY_KEY = "a"
LINKS = state.Slot[dict]("shared_links", dict)  # entry id -> the permalink made for it


def _share(engine: Engine, entry: dict) -> None:
    """Button callback: keep the answer, remember its link for this session's page."""
    try:
        answer_id = engine.share_answer(entry["kb"], history.entry_to_json(entry))
    except SwrError as exc:
        LINKS.get()[entry["id"]] = {"error": exc.message}
        return
    LINKS.get()[entry["id"]] = {"id": answer_id}


def link(answer_id: str) -> str:
    """The permalink: this app's address with ``?a=<id>`` (relative when the address is unknown)."""
    try:
        url = st.context.url
    except Exception:
        url = None
    base = url.split("?")[0] if isinstance(url, str) and url else ""
    return f"{base}?{QUERY_KEY}={answer_id}"


def share_button(engine: Engine, entry: dict) -> None:
    """"Copy link" under an answer, and the link once made (a code box: its copy button copies it)."""
    if engine.actor.demo_only:
        return
    st.button("Copy link", key=state.KEYS.share(entry["id"]), icon=":material/link:", on_click=_share,
              args=(engine, entry), help="Share this one answer: anyone who may read this knowledge base can open it")
    made = LINKS.get().get(entry["id"])
    if made and made.get("id"):
        st.code(link(made["id"]), language=None)
    elif made:
        st.error(md(made["error"]))


def requested() -> str | None:
    """The permalink id this page was opened with, if any."""
    value = st.query_params.get(QUERY_KEY)
    return value if isinstance(value, str) and value else None


def render_shared(engine: Engine, answer_id: str) -> None:
    """The shared answer alone (or the one "not found"), and a way back to the chat."""
    try:
        record = engine.shared_answer(answer_id)
        entry = history.entry_from_json(record["answer"])
    except NotFound as exc:
        st.error(md(exc.message), icon=":material/link_off:")
        record = None
    except (KeyError, TypeError, ValueError):  # a damaged record reads as a missing one
        from swr.manage.access.guard import SHARED_NOT_FOUND

        st.error(md(SHARED_NOT_FOUND), icon=":material/link_off:")
        record = None
    if record is not None:
        st.caption(f"Shared answer · knowledge base “{record['kb']}” · shared by {record.get('by', '?')} "
                   f"on {str(record.get('created_at', ''))[:10]}")
        result = entry["result"]
        with st.chat_message("user"):
            st.html(f'<div class="swr-q">{esc(entry["question"])}</div>')
        with st.chat_message("assistant"):
            left, right = st.columns([5, 7], gap="medium")
            with left:
                answer_card(result, cards.anchor("shared"), export_key="shared", engine=engine)
            with right:
                ev.evidence("shared", cards.anchor("shared"), result.passages, result.context_chars,
                            result.context_tokens, engine=engine, kb=record["kb"])
    st.button("Back to the chat", key="shared-back", icon=":material/chat:", on_click=_back)


def _back() -> None:
    try:
        del st.query_params[QUERY_KEY]
    except KeyError:
        pass
