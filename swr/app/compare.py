"""The Compare page: one question, two configurations side by side (answers and evidence, the
sentences only one side sent marked), and the probe that says why a sentence was not retrieved.

Both sides start from the chat's :class:`swr.core.params.RetrievalParams` and change only window,
top-k, mode, fusion and dense weight; candidates, filters, cutoff and reranker stay the chat's.
"""
from __future__ import annotations

import streamlit as st

from swr.answer.result import AskResult
from swr.app import base, probe, state
from swr.app.components import docview, evidence as ev, published
from swr.app.components.answer import answer_card, mode_text
from swr.app.components.errors import md
from swr.app.components.passages import EMPTY, anchor
from swr.app.components.sidebar import MAX_SIDEBAR_TOP_K, MODES, require_kb, sidebar
from swr.app.state import COMPARE, KEYS
from swr.core.errors import SwrError
from swr.core.params import FUSIONS, MAX_QUESTION_CHARS, MAX_WINDOW, RetrievalParams
from swr.core.types import Passage
from swr.engine import Engine
from swr.manage import presets
from swr.manage.render import esc, passage_html

SIDE_FIELDS = ("window_size", "top_k", "mode", "fusion", "dense_weight")  # what a side may change
PRESETS = {
    "window 1 vs window 3": ({"window_size": 1}, {"window_size": 3}),
    "window 0 vs window 5": ({"window_size": 0}, {"window_size": 5}),
    "hybrid vs dense": ({"mode": "hybrid"}, {"mode": "dense"}),
    "dense vs sparse": ({"mode": "dense"}, {"mode": "sparse"}),
    "top-k 3 vs top-k 8": ({"top_k": 3}, {"top_k": 8}),
    "DBSF vs RRF fusion": ({"mode": "hybrid", "fusion": "dbsf"}, {"mode": "hybrid", "fusion": "rrf"}),
    "RRF vs weighted fusion": ({"mode": "hybrid", "fusion": "rrf"},
                               {"mode": "hybrid", "fusion": "weighted", "dense_weight": 0.7}),
}
_KNOB = {"window_size": "window"}  # the kept-state name of a side's field (``cmp_a_window``)


def render() -> None:
    """The whole page (``pages/4_Compare.py``)."""
    base.setup_page("Compare", base.TAB_ICONS[base.COMPARE_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine, knobs=False)
    st.markdown(f"#### {base.ICONS[base.COMPARE_PAGE]} Compare two configurations")
    kb = require_kb(ctl)
    question = compare_question(engine, kb, ctl.params)
    left, right = st.columns(2, gap="medium")
    sides = {}
    for col, side in ((left, "a"), (right, "b")):
        with col.container(border=True):
            st.html(f'<span class="swr-side-{side}">{side.upper()}</span>')
            sides[side] = side_controls(side, ctl.params)
    st.caption("Candidates, filters, score cutoff and reranker: the chat's settings, the same for both sides.")
    if st.button("Compare", type="primary", key=KEYS.compare_go, icon=":material/compare_arrows:",
                 disabled=not question.strip()):
        run_compare(engine, kb, question, sides)
    compare_results(engine, kb)
    st.markdown("##### Why not retrieved?")
    st.caption("Pick a sentence you expected: its dense and sparse rank and score for the question, and which "
               "limit cut it (top-k, candidate pool, filter).")
    probe.probe_panel(engine, kb, question, sides)


def _knob(side: str, field: str) -> state.Kept:
    return COMPARE.side(side, _KNOB.get(field, field))


def set_side(side: str, params: RetrievalParams) -> None:
    """Set one side's knobs (kept copies and widgets) from ``params``."""
    for f in SIDE_FIELDS:
        _knob(side, f).set(getattr(params, f))


def load_preset(chat: RetrievalParams, name: str) -> None:
    """Both sides from the chat's params with the preset's differences."""
    a, b = PRESETS[name]
    set_side("a", chat.with_(**a))
    set_side("b", chat.with_(**b))


def _on_preset(chat: RetrievalParams) -> None:
    name = st.session_state.get(COMPARE.preset)
    if name in PRESETS:
        load_preset(chat, name)


def compare_question(engine: Engine, kb: str, chat: RetrievalParams) -> str:
    """The question box (first preset question of the knowledge base by default) and preset picker."""
    q = COMPARE.question
    choices = presets.preset_questions(engine.settings, kb)
    filled = state.CMP_Q_FOR.get()  # (kb, question) the box was last filled with
    if filled is None or (filled[0] != kb and q.get("") in ("", filled[1])):
        # first visit, or another KB while the box holds the previous KB's default: its first preset
        default = choices[0] if choices else ""
        q.set(default)
        state.CMP_Q_FOR.set((kb, default))
    question = q.keep(st.text_input("Question", key=q.widget(""), max_chars=MAX_QUESTION_CHARS))
    st.selectbox("Preset", list(PRESETS), index=None, key=COMPARE.preset,
                 placeholder="Load a preset (both sides start from the chat's settings)…",
                 on_change=_on_preset, args=(chat,))
    return question


def side_controls(side: str, chat: RetrievalParams) -> RetrievalParams:
    """One side's window, top-k, mode, fusion and dense weight: the chat's params with those."""
    if not _knob(side, "window_size").has():  # first visit: the first preset
        load_preset(chat, next(iter(PRESETS)))
    k = {f: _knob(side, f) for f in SIDE_FIELDS}
    window = k["window_size"].keep(st.slider("Window", 0, MAX_WINDOW, key=k["window_size"].widget(chat.window_size)))
    top_k = k["top_k"].keep(st.slider("Top-k", 1, MAX_SIDEBAR_TOP_K, key=k["top_k"].widget(chat.top_k)))
    mode = k["mode"].keep(st.radio("Mode", MODES, horizontal=True, key=k["mode"].widget(chat.mode)))
    fusion, weight = chat.fusion, chat.dense_weight
    if mode == "hybrid":
        c1, c2 = st.columns(2)
        fusion = k["fusion"].keep(c1.radio("Fusion", list(FUSIONS), horizontal=True,
                                           key=k["fusion"].widget(chat.fusion)))
        if fusion == "weighted":
            weight = k["dense_weight"].keep(c2.slider("Dense weight", 0.0, 1.0, step=0.05,
                                                      key=k["dense_weight"].widget(chat.dense_weight)))
    return chat.with_(window_size=int(window), top_k=int(top_k), mode=mode, fusion=fusion,
                      dense_weight=float(weight))


def side_label(params: RetrievalParams) -> str:
    return (f"window {params.window_size} · top-k {params.top_k} · "
            f"{mode_text(params.mode, params.fusion, params.dense_weight)}")


def run_compare(engine: Engine, kb: str, question: str, sides: dict[str, RetrievalParams]) -> None:
    """Ask the question with both configurations (the chat's own retrieve → windows → answer path);
    keep both results (``CMP_RESULT``)."""
    out = {}
    try:
        # one question of the user's rate limit for both sides
        with engine.batch("compare"), st.spinner("Asking with both configurations…"):
            for side, params in sides.items():
                try:
                    out[side] = {"params": params, "result": engine.ask(question, kb, params)}
                except SwrError as exc:
                    st.error(md(f"{side.upper()}: {exc.message}"))
                    return
    except SwrError as exc:  # the rate limit, before either side ran
        st.error(md(exc.message))
        return
    state.CMP_RESULT.set({"kb": kb, "question": question, "sides": out})


def context_sentences(passages: list[Passage]) -> set[tuple[str, int]]:
    """(doc_id, sentence number) of every sentence in the context of these passages."""
    return {(p.doc_id, i) for p in passages for i in range(p.first, p.last + 1)}


def ranges(ns: list[int]) -> str:
    """``3–5, 9`` from 0-based sentence numbers (shown 1-based)."""
    runs: list[list[int]] = []
    for n in sorted(set(ns)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a + 1}" if a == b else f"{a + 1}–{b + 1}" for a, b in runs)


def marked_cards(passages: list[Passage], other: set[tuple[str, int]], side: str, other_side: str) -> str:
    """Passage cards (escaped by :func:`swr.manage.render.passage_html`); a card holding sentences the other
    side did not send gets a coloured border and a badge naming them (and its hits the other side missed)."""
    if not passages:
        return EMPTY
    out = []
    for n, p in enumerate(passages, 1):
        only = [i for i in range(p.first, p.last + 1) if (p.doc_id, i) not in other]
        extra, badge = "", None
        if only:
            hits = [h.i for h in p.hits if (p.doc_id, h.i) not in other]
            total = p.last - p.first + 1
            badge = (f"only in {side.upper()}: {'all' if len(only) == total else len(only)} of {total} sentences"
                     f" (sentence{'s' * (len(only) > 1)} {ranges(only)})"
                     + (f" · hit{'s' * (len(hits) > 1)} {ranges(hits)} not in {other_side.upper()}" if hits else ""))
            extra = f"swr-only swr-only-{side}"
        out.append(passage_html(p, n, anchor=anchor("c", side), extra_class=extra, badge=badge))
    return "".join(out)


def compare_results(engine, kb: str) -> None:
    """Both answers and both evidence lists side by side, sentences unique to one side marked, each
    side's hits openable in their documents."""
    res = state.CMP_RESULT.get()
    if not res or res["kb"] != kb:
        return
    sides = res["sides"]
    sets = {k: context_sentences(v["result"].passages) for k, v in sides.items()}
    a, b = sets["a"], sets["b"]
    st.html(f'<div class="swr-cmphead">Question: <b>{esc(res["question"])}</b> · context sentences: '
            f'<span class="swr-side-a">A</span> {len(a)} · <span class="swr-side-b">B</span> {len(b)} · shared '
            f'{len(a & b)} · only in <span class="swr-side-a">A</span> <b>{len(a - b)}</b> · only in '
            f'<span class="swr-side-b">B</span> <b>{len(b - a)}</b></div>')
    cols = st.columns(2, gap="medium")
    for col, side, other in ((cols[0], "a", "b"), (cols[1], "b", "a")):
        v = sides[side]
        result: AskResult = v["result"]
        with col:
            st.html(f'<div class="swr-cmphead"><span class="swr-side-{side}">{side.upper()}</span> · '
                    f'{esc(side_label(v["params"]))}</div>')
            answer_card(result, anchor("c", side))
            st.html(ev.head(result.passages, result.context_chars, result.context_tokens))
            ev.scroll_cards(f"cmp-{side}", marked_cards(result.passages, sets[other], side, other))
            docview.controls(engine, kb, f"cmp-{side}", result.passages)
            if published.can_publish(engine, kb) and st.button(
                    f"Publish {side.upper()} for this knowledge base", key=f"cmp_publish_{side}",
                    icon=":material/publish:"):
                published.publish(engine, kb, v["params"], origin="compare",
                                  evidence={"side": side, "question": res["question"][:200],
                                            "context_sentences": len(sets[side])})
