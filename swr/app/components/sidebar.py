"""The sidebar: navigation, knowledge base, demo switch and the retrieval knobs, which keep their
values across pages (:mod:`swr.app.state`) and become one :class:`swr.core.params.RetrievalParams`."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from swr.app import base, history, state
from swr.app.components import published
from swr.app.components.errors import md
from swr.app.state import CHAT, KEYS
from swr.core.errors import SwrError
from swr.core.params import (
    FUSIONS,
    MAX_BUDGET_CHARS,
    MAX_WINDOW,
    MIN_BUDGET_CHARS,
    WINDOW_MODES,
    RetrievalParams,
)
from swr.engine import Engine
from swr.manage import presets

MODES = ["hybrid", "dense", "sparse"]  # the order the radios show
MAX_SIDEBAR_TOP_K = 20


@dataclass
class Controls:
    """What the sidebar says: knowledge base, the chat's retrieval parameters, demo mode."""

    kb: str | None
    params: RetrievalParams
    demo: bool = False
    error: str | None = None  # the store failed while drawing the sidebar (shown there)

    @property
    def window(self) -> int:
        return self.params.window_size


def nav(admin: bool = False) -> None:
    st.sidebar.page_link(base.CHAT_PAGE, label="Chat", icon=base.ICONS[base.CHAT_PAGE])
    st.sidebar.page_link(base.KB_PAGE, label="Knowledge bases", icon=base.ICONS[base.KB_PAGE])
    st.sidebar.page_link(base.TUNE_PAGE, label="Tune", icon=base.ICONS[base.TUNE_PAGE])
    if (base.ROOT / base.VERIFY_PAGE).is_file():
        st.sidebar.page_link(base.VERIFY_PAGE, label="Verify", icon=base.ICONS[base.VERIFY_PAGE])
    st.sidebar.page_link(base.COMPARE_PAGE, label="Compare", icon=base.ICONS[base.COMPARE_PAGE])
    st.sidebar.page_link(base.FEEDBACK_PAGE, label="Feedback", icon=base.ICONS[base.FEEDBACK_PAGE])
    if admin:  # admins only (the page and the engine refuse others anyway)
        st.sidebar.page_link(base.USERS_PAGE, label="Users", icon=base.ICONS[base.USERS_PAGE])


def keep_kb() -> None:
    """Keep the selected knowledge base across a page switch; call before :func:`kb_selector`.

    A widget's id includes its page, so the sidebar's knowledge-base select box (drawn on every
    page) would fall back to the first knowledge base on the next page although ``w_kb`` still
    holds the selection. Re-setting ``w_kb`` from its kept copy makes the new page's box take it;
    when the two differ the user has just picked another one in this page's box, which is left alone.
    """
    if CHAT.kb.has() and CHAT.kb.widget_value(CHAT.kb.get()) == CHAT.kb.get():
        st.session_state[CHAT.kb.key] = CHAT.kb.get()


def kb_selector(engine: Engine) -> str | None:
    """The knowledge-base select box (shared by the pages); None when there is none."""
    kbs = {k["kb"]: k for k in engine.kbs()}
    if not kbs:
        st.sidebar.info("No knowledge base yet: create one on the Knowledge bases page.")
        return None
    names = sorted(kbs)
    if CHAT.kb.get() not in kbs:
        if CHAT.kb.has():  # it was there: deleted elsewhere (this session's own delete forgets it first)
            state.KB_GONE.set(CHAT.kb.get())
        sample = engine.settings.sample_kb
        st.session_state[CHAT.kb.kept_key] = sample if sample in kbs else names[0]
        CHAT.kb.forget_widget()
    if CHAT.kb.widget_value() not in kbs:
        CHAT.kb.forget_widget()

    # the name alone in the box (a long label was cut off there); the counts on their own line,
    # read in this run (the knowledge-bases page reruns after indexing, so they are never stale)
    kb = CHAT.kb.keep(st.sidebar.selectbox("Knowledge base", names, key=CHAT.kb.widget(CHAT.kb.get())))
    k = kbs[kb]
    st.sidebar.caption(f"{k['documents']:,} document{'s' * (k['documents'] != 1)} · {k['sentences']:,} sentences",
                       help=kb)
    return kb


def sidebar(engine: Engine, *, knobs: bool = True) -> Controls:
    """Navigation, knowledge base, demo switch and (unless demo mode or ``knobs=False``) the
    retrieval knobs. Every page gets the chat's parameters in ``Controls.params``.

    When the store fails (the Qdrant server went away) the sidebar shows the message and the page
    goes on with the kept settings: a question typed now still reaches the chat, which shows the
    failure with the question kept.
    """
    try:
        return _sidebar(engine, knobs=knobs)
    except SwrError as exc:
        st.sidebar.error(md(exc.message))
        return Controls(CHAT.kb.get(), state.chat_params(engine.default_params()), bool(CHAT.demo.get(False)),
                        error=exc.message)


def _sidebar(engine: Engine, *, knobs: bool) -> Controls:
    history.restore(engine.settings.home)  # a reload (same ?s= in the URL) brings the conversation back
    keep_kb()  # the select box would otherwise fall back to the first KB after a page switch
    nav(admin=getattr(engine, "actor", None) is not None and engine.actor.is_admin)
    kb = kb_selector(engine)
    defaults = published.follow(engine, kb)  # the knowledge base's published knobs (or the defaults)
    if not knobs:
        return Controls(kb, state.chat_params(defaults))
    sb = st.sidebar
    c1, c2 = sb.columns([3, 2], vertical_alignment="center")
    if getattr(engine, "actor", None) is not None and engine.actor.demo_only:  # viewers: demo mode only
        demo = CHAT.demo.keep(True)
        c1.caption("Demo mode (viewer)")
    else:
        demo = CHAT.demo.keep(c1.toggle("Demo mode", key=CHAT.demo.widget(False),
                                        help="Hide the knobs and show preset questions as buttons."))
    c2.button("Clear", key=KEYS.clear_chat, icon=":material/delete_sweep:", help="Clear the chat history",
              on_click=_clear_history, args=(engine.settings.home,), width="stretch")
    if demo:
        filter_options(engine, kb)
        params = state.chat_params(defaults)
        sb.caption(f"Window {params.window_size} · top-k {params.top_k} · {params.mode}")
        _sidebar_presets(engine, kb)
        return Controls(kb, params, True)
    wmode = CHAT.window_mode.keep(sb.radio(
        "Window mode", list(WINDOW_MODES), horizontal=True, key=CHAT.window_mode.widget(defaults.window_mode),
        help="fixed: ± sentences; section: the hit's list of steps, table or paragraph, never across a heading; "
             "budget: grow toward the neighbours most similar to the question until the budget is spent."))
    if wmode == "fixed":
        CHAT.window.keep(sb.slider(
            "Window (sentences each side of a hit)", 0, MAX_WINDOW, key=CHAT.window.widget(defaults.window_size),
            help="Moving it re-renders the last answer's evidence at once (no re-embedding); "
                 "then regenerate the answer with the new context if you like."))
    else:
        CHAT.budget.keep(sb.number_input(
            "Context budget (characters)", MIN_BUDGET_CHARS, MAX_BUDGET_CHARS, step=100,
            key=CHAT.budget.widget(defaults.budget_chars),
            help="All windows of one answer together stay within it; changing it re-renders the evidence."))
    CHAT.top_k.keep(sb.slider(
        "Top-k hits", 1, MAX_SIDEBAR_TOP_K, key=CHAT.top_k.widget(defaults.top_k),
        help="The sentences the search returns. In a knowledge base of Chinese and English documents, "
             "cross-lingual search keeps them and adds up to as many of the other language's most likely."))
    with sb.expander("Retrieval", expanded=False):
        _retrieval_knobs(engine, defaults)
    if kb:
        _filters(engine, kb)
    params = state.chat_params(defaults)
    published.panel(engine, kb, params)
    return Controls(kb, params, False)


def _retrieval_knobs(engine: Engine, d: RetrievalParams) -> None:
    mode = CHAT.mode.keep(st.radio("Mode", MODES, horizontal=True, key=CHAT.mode.widget(d.mode)))
    if mode == "hybrid":
        fusion = CHAT.fusion.keep(st.radio(
            "Fusion", list(FUSIONS), horizontal=True, key=CHAT.fusion.widget(d.fusion),
            help="DBSF: scores normalised per list then summed (the default: best on CMRC 2018 and SQuAD "
                 "here); RRF: reciprocal-rank fusion; weighted: RRF with a dense weight."))
        if fusion == "weighted":
            CHAT.dense_weight.keep(st.slider("Dense weight", 0.0, 1.0, step=0.05,
                                             key=CHAT.dense_weight.widget(d.dense_weight)))
    c1, c2 = st.columns(2)
    CHAT.dense_k.keep(c1.number_input("Dense cand.", 1, 1000, step=10, key=CHAT.dense_k.widget(d.dense_k)))
    CHAT.sparse_k.keep(c2.number_input("Sparse cand.", 1, 1000, step=10, key=CHAT.sparse_k.widget(d.sparse_k)))
    if CHAT.cutoff.keep(st.checkbox("Score cutoff", key=CHAT.cutoff.widget(False),
                                    help="Drop hits scoring below a minimum (the score of the mode that ranked "
                                         "them: RRF ≈ 0.01–0.03, weighted/dense 0–1, sparse BM25 unbounded), "
                                         "before any reranking.")):
        CHAT.min_score.keep(st.number_input("Minimum score", step=0.001, format="%.4f",
                                            key=CHAT.min_score.widget(0.0)))
    if engine.reranker is not None:
        CHAT.rerank.keep(st.toggle("Rerank with the cross-encoder", key=CHAT.rerank.widget(False),
                                   help=f"Re-score the candidates with {engine.settings.rerank_model}."))


def filter_options(engine: Engine, kb: str | None) -> tuple[list[str], list[str]]:
    """The files and tags of ``kb``; drops kept filter values that are not among them (they come
    from another knowledge base and would filter everything out)."""
    docs = [d for d in engine.docs(kb) if d.complete] if kb else []
    sources = sorted({d.source for d in docs})
    tags = sorted({t for d in docs for t in d.tags})
    ss = st.session_state
    for knob, options in ((CHAT.sources, sources), (CHAT.tags, tags)):
        ss[knob.kept_key] = [v for v in knob.get([]) if v in options]
        if knob.key in ss:
            ss[knob.key] = [v for v in ss[knob.key] if v in options]
    return sources, tags


def _clear_history(home) -> None:
    state.HISTORY.set([])
    state.FAILED.pop()
    history.save(home)


def _filters(engine: Engine, kb: str) -> None:
    sources, tags = filter_options(engine, kb)
    n_active = len(CHAT.sources.get([])) + len(CHAT.tags.get([])) + (CHAT.lang.get("any") != "any")
    # a key keeps the panel one element although its label counts the filters; open while one is on
    with st.sidebar.expander(f"Filters ({n_active} active)" if n_active else "Filters", expanded=n_active > 0,
                             key=KEYS.filters_box):
        CHAT.sources.keep(st.multiselect("Source files", sources, key=CHAT.sources.widget([]),
                                         placeholder="all files"))
        if tags:
            CHAT.tags.keep(st.multiselect("Tags", tags, key=CHAT.tags.widget([]), placeholder="any tag"))
        CHAT.lang.keep(st.selectbox("Language", ["any", "zh", "en"], key=CHAT.lang.widget("any")))


def _sidebar_presets(engine: Engine, kb: str | None) -> None:
    """Demo mode: the knowledge base's golden questions as buttons; one click asks."""
    questions = presets.preset_questions(engine.settings, kb)
    st.sidebar.caption("Preset questions (edit them on the Knowledge bases page)")
    if not questions:
        st.sidebar.info("No preset questions for this knowledge base yet.")
        return
    with st.sidebar.container(key=KEYS.presets_box):
        for k, q in enumerate(questions):
            st.button(q, key=KEYS.preset(k), on_click=state.queue_question, args=(q,), width="stretch")


def require_kb(ctl: Controls) -> str:
    """The selected knowledge base; else the page stops with the store's error, or with a
    pointer to create a knowledge base when there is none yet."""
    if not ctl.kb:
        if ctl.error:  # the store failed before any knowledge base was known (also in the sidebar)
            st.error(md(ctl.error))
        else:
            st.info("There is no knowledge base yet.")
            st.page_link(base.KB_PAGE, label="Create one and upload files", icon=base.ICONS[base.KB_PAGE])
        st.stop()
    return ctl.kb
