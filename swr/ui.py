"""Streamlit glue shared by the pages: the cached engine, the sidebar knobs, rendering an answer
with its evidence, the knowledge-base panels. The only swr module that imports Streamlit.

Document text, file names, knowledge-base names, questions and answers are untrusted: they reach
the page only as escaped HTML from :mod:`swr.render` (``st.html``), through :func:`md` (escaped
Markdown) or as plain widget/table text.
"""
from __future__ import annotations

import contextlib
import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from swr import render
from swr.answer import context_text, count_tokens, safe_url
from swr.engine import AskResult, Engine, Retrieval
from swr.errors import LLMUnavailable, StoreUnavailable, SwrError
from swr.load import SUPPORTED, safe_name
from swr.settings import Settings
from swr.types import FileResult, Passage

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_GOLDEN = ROOT / "samples" / "golden.csv"
GOLDEN_COLUMNS = ["question", "expected_answer", "source"]
CHAT_PAGE = "app.py"
KB_PAGE = "pages/1_Knowledge_bases.py"
MAX_PREVIEW_SENTENCES = 400
UPLOAD_TYPES = [ext.lstrip(".") for ext in SUPPORTED]

_EXTRA_CSS = """
.swr-passage{margin:.45em 0;padding:.5em .75em;font-size:.93rem}
.swr-passage:target{outline:2px solid #0969da;outline-offset:1px}
.swr-answer{font-size:1rem}
.swr-q{white-space:pre-wrap;overflow-wrap:anywhere;font-weight:600}
.swr-note{font-size:.8em;color:#57606a;font-weight:400}
.swr-kind{display:inline-block;font-size:.75em;color:#57606a;border:1px solid #d0d7de;
 border-radius:10px;padding:0 .55em;margin-bottom:.35em;background:#f6f8fa}
.swr-kind.llm{color:#1a7f37;border-color:#aceebb;background:#dafbe1}
.swr-stamp{font-size:.75em;color:#57606a;line-height:1.5;margin-top:.5em;overflow-wrap:anywhere}
.swr-stamp b{color:#1f2328;font-weight:600}
.swr-evhead{font-size:.85em;color:#57606a;margin:.1em 0 .2em 0}
.swr-evhead b{color:#1f2328}
.swr-preview{font-size:.85em;color:#9a6700;background:#fff8c5;border:1px solid #eac54f;
 border-radius:6px;padding:.35em .6em;margin:.2em 0 .4em 0}
.swr-empty{color:#57606a;font-size:.95em}
.swr-sys td{padding:.15em .8em .15em 0;vertical-align:top;overflow-wrap:anywhere}
.swr-sys td:first-child{color:#57606a;white-space:nowrap}
section[data-testid="stSidebar"] div[data-testid="stSidebarUserContent"]{padding-top:1.2rem}
div.block-container{padding-top:2.2rem;padding-bottom:2rem}
.st-key-presets button{justify-content:flex-start;text-align:left;min-height:2.1rem;padding:.2rem .65rem}
.st-key-presets button > div{justify-content:flex-start;width:100%}
.st-key-presets button p{white-space:normal;text-align:left;font-size:.9rem}
.st-key-presets{gap:.4rem}
div[data-testid="stMetricValue"]{font-size:1.6rem}
div[class*="st-key-ev-"]{max-height:min(44vh,440px);overflow-y:auto;padding-right:.35em;
 scrollbar-width:thin}
"""


# --------------------------------------------------------------------------------------------
# page setup, engine


def setup_page(title: str, icon: str) -> None:
    """Page config (wide layout) and the evidence CSS; call first on every page."""
    st.set_page_config(page_title=f"{title} · swr", page_icon=icon, layout="wide",
                       initial_sidebar_state="expanded")
    st.html(f"<style>{render.CSS}{_EXTRA_CSS}</style>")


@st.cache_resource(show_spinner="Starting: loading the embedding model and indexing the sample "
                                "knowledge base (first start only)…")
def get_engine() -> Engine:
    """The one engine of this process (the embedded store opens once per process), shared by
    every browser session. A fresh SWR_HOME gets the bundled sample knowledge base."""
    engine = Engine(Settings.from_env())
    engine.ensure_sample()
    return engine


def engine_or_stop() -> Engine:
    """The engine, or a clear error on the page (store locked, model missing) and stop."""
    try:
        return get_engine()
    except SwrError as exc:
        st.error(md(exc.message))
        st.stop()
        raise  # unreachable: st.stop raises


def require_kb(ctl: "Controls") -> str:
    """The selected knowledge base; else the page stops with the store's error, or with a
    pointer to create a knowledge base when there is none yet."""
    if not ctl.kb:
        if ctl.error:  # the store failed before any knowledge base was known (also in the sidebar)
            st.error(md(ctl.error))
        else:
            st.info("There is no knowledge base yet.")
            st.page_link(KB_PAGE, label="Create one and upload files", icon="📚")
        st.stop()
    return ctl.kb


@contextlib.contextmanager
def errors_shown():
    """Show a swr error raised inside (e.g. the Qdrant server went away) as ``st.error`` and go
    on with the rest of the page, instead of a traceback."""
    try:
        yield
    except SwrError as exc:
        st.error(md(exc.message))


def md(text: object) -> str:
    """Untrusted text as inert Markdown (shown verbatim: no HTML, links or LaTeX)."""
    return render.esc(text)


def _html_text(cls: str, text: str) -> str:
    return f'<div class="{cls}">{render.esc(text)}</div>'


def _flash() -> None:
    """Show (once) the message a callback left for this run."""
    msg = st.session_state.pop("flash", None)
    if msg:
        kind, text = msg
        getattr(st, kind)(md(text))


# --------------------------------------------------------------------------------------------
# sidebar: knowledge base, demo switch, knobs (they keep their values across pages)


def _persist(key: str, default):
    """Widget key for a knob whose value lives in ``cfg_<key>``: Streamlit drops the state of a
    widget that a run does not draw (another page, demo mode), the ``cfg_`` copy survives."""
    ss = st.session_state
    perm, wk = f"cfg_{key}", f"w_{key}"
    if perm not in ss:
        ss[perm] = default
    if wk not in ss:
        ss[wk] = ss[perm]
    return wk


def _keep(key: str, value):
    st.session_state[f"cfg_{key}"] = value
    return value


@dataclass
class Controls:
    """What the sidebar says: knowledge base, window, retrieval parameters, demo mode."""

    kb: str | None
    window: int
    params: dict = field(default_factory=dict)
    demo: bool = False
    error: str | None = None  # the store failed while drawing the sidebar (shown there)


def nav() -> None:
    st.sidebar.page_link(CHAT_PAGE, label="Chat", icon="💬")
    st.sidebar.page_link(KB_PAGE, label="Knowledge bases", icon="📚")
    st.sidebar.page_link(TUNE_PAGE, label="Tune", icon="🎛️")
    if (ROOT / VERIFY_PAGE).is_file():
        st.sidebar.page_link(VERIFY_PAGE, label="Verify", icon="✅")
    st.sidebar.page_link(COMPARE_PAGE, label="Compare", icon="⚖️")


def kb_selector(engine: Engine) -> str | None:
    """The knowledge-base select box (shared by the pages); None when there is none."""
    kbs = {k["kb"]: k for k in engine.kbs()}
    if not kbs:
        st.sidebar.info("No knowledge base yet: create one on the Knowledge bases page.")
        return None
    ss = st.session_state
    names = sorted(kbs)
    if ss.get("cfg_kb") not in kbs:
        sample = engine.settings.sample_kb
        ss["cfg_kb"] = sample if sample in kbs else names[0]
        ss.pop("w_kb", None)
    if ss.get("w_kb") not in kbs:
        ss.pop("w_kb", None)

    def label(kb: str) -> str:
        k = kbs[kb]
        return f"{kb} — {k['documents']} docs · {k['sentences']:,} sentences"

    return _keep("kb", st.sidebar.selectbox("Knowledge base", names, format_func=label,
                                            key=_persist("kb", ss["cfg_kb"])))


def sidebar(engine: Engine, *, knobs: bool = True) -> Controls:
    """Navigation, knowledge base, demo switch and (unless demo mode) the retrieval knobs.

    When the store fails (the Qdrant server went away) the sidebar shows the message and the page
    goes on with the kept settings: a question typed now still reaches :func:`ask`, which shows
    the failure with the question kept.
    """
    try:
        return _sidebar(engine, knobs=knobs)
    except SwrError as exc:
        st.sidebar.error(md(exc.message))
        ss, s = st.session_state, engine.settings
        return Controls(ss.get("cfg_kb"), int(ss.get("cfg_window", s.window_size)), _params_from_cfg(s),
                        bool(ss.get("cfg_demo", False)), error=exc.message)


def _sidebar(engine: Engine, *, knobs: bool) -> Controls:
    s = engine.settings
    keep_kb()  # the select box would otherwise fall back to the first KB after a page switch
    nav()
    kb = kb_selector(engine)
    if not knobs:
        return Controls(kb, int(st.session_state.get("cfg_window", s.window_size)))
    sb = st.sidebar
    ss = st.session_state
    c1, c2 = sb.columns([3, 2], vertical_alignment="center")
    demo = _keep("demo", c1.toggle("Demo mode", key=_persist("demo", False),
                                   help="Hide the knobs and show preset questions as buttons."))
    c2.button("Clear", key="clear-chat", icon=":material/delete_sweep:", help="Clear the chat history",
              on_click=_clear_history, use_container_width=True)
    if demo:
        _filter_options(engine, kb)
        window = int(ss.get("cfg_window", s.window_size))
        params = _params_from_cfg(s)
        sb.caption(f"Window {window} · top-k {params['top_k']} · {params['mode']}")
        _sidebar_presets(engine, kb)
    else:
        window = _keep("window", sb.slider(
            "Window (sentences each side of a hit)", 0, 10, key=_persist("window", s.window_size),
            help="Moving it re-renders the last answer's evidence at once (no re-embedding); "
                 "then regenerate the answer with the new context if you like."))
        top_k = _keep("top_k", sb.slider("Top-k hits", 1, 20, key=_persist("top_k", s.top_k)))
        with sb.expander("Retrieval", expanded=False):
            mode = _keep("mode", st.radio("Mode", ["hybrid", "dense", "sparse"], horizontal=True,
                                          key=_persist("mode", s.mode)))
            if mode == "hybrid":
                fusion = _keep("fusion", st.radio("Fusion", ["dbsf", "rrf", "weighted"], horizontal=True,
                                                  key=_persist("fusion", s.fusion),
                                                  help="DBSF: scores normalised per list then summed (the "
                                                       "default: best on CMRC 2018 and SQuAD here); RRF: "
                                                       "reciprocal-rank fusion; weighted: RRF with a dense weight."))
                if fusion == "weighted":
                    _keep("dense_weight", st.slider("Dense weight", 0.0, 1.0, step=0.05,
                                                    key=_persist("dense_weight", 0.5)))
            c1, c2 = st.columns(2)
            _keep("dense_k", c1.number_input("Dense cand.", 1, 1000, step=10, key=_persist("dense_k", s.dense_k)))
            _keep("sparse_k", c2.number_input("Sparse cand.", 1, 1000, step=10, key=_persist("sparse_k", s.sparse_k)))
            if _keep("cutoff", st.checkbox("Score cutoff", key=_persist("cutoff", False),
                                           help="Drop hits scoring below a minimum (the score of the mode "
                                                "that ranked them: RRF ≈ 0.01–0.03, weighted/dense 0–1, "
                                                "sparse BM25 unbounded), before any reranking.")):
                _keep("min_score", st.number_input("Minimum score", step=0.001, format="%.4f",
                                                   key=_persist("min_score", 0.0)))
            if engine.reranker is not None:
                _keep("rerank", st.toggle("Rerank with the cross-encoder", key=_persist("rerank", False),
                                          help=f"Re-score the candidates with {engine.settings.rerank_model}."))
        if kb:
            _filters(engine, kb)
        params = _params_from_cfg(s)
        params["top_k"] = int(top_k)
    return Controls(kb, int(window), params, bool(demo))


def _filter_options(engine: Engine, kb: str | None) -> tuple[list[str], list[str]]:
    """The files and tags of ``kb``; drops kept filter values that are not among them (they come
    from another knowledge base and would filter everything out)."""
    docs = [d for d in engine.docs(kb) if d.complete] if kb else []
    sources = sorted({d.source for d in docs})
    tags = sorted({t for d in docs for t in d.tags})
    ss = st.session_state
    for key, options in (("sources", sources), ("tags", tags)):
        ss[f"cfg_{key}"] = [v for v in ss.get(f"cfg_{key}", []) if v in options]
        if f"w_{key}" in ss:
            ss[f"w_{key}"] = [v for v in ss[f"w_{key}"] if v in options]
    return sources, tags


def _clear_history() -> None:
    st.session_state["history"] = []
    st.session_state.pop("failed", None)


def _filters(engine: Engine, kb: str) -> None:
    sources, tags = _filter_options(engine, kb)
    ss = st.session_state
    n_active = len(ss["cfg_sources"]) + len(ss["cfg_tags"]) + (ss.get("cfg_lang", "any") != "any")
    with st.sidebar.expander(f"Filters ({n_active} active)" if n_active else "Filters"):
        _keep("sources", st.multiselect("Source files", sources, key=_persist("sources", []),
                                        placeholder="all files"))
        if tags:
            _keep("tags", st.multiselect("Tags", tags, key=_persist("tags", []), placeholder="any tag"))
        _keep("lang", st.selectbox("Language", ["any", "zh", "en"], key=_persist("lang", "any")))


def _params_from_cfg(s: Settings) -> dict:
    """The retrieval parameters, in the very shape of ``Retrieval.params``."""
    ss = st.session_state
    mode = ss.get("cfg_mode", s.mode)
    fusion = ss.get("cfg_fusion", s.fusion) if mode == "hybrid" else s.fusion
    lang = ss.get("cfg_lang", "any")
    min_score = ss.get("cfg_min_score") if ss.get("cfg_cutoff") else None
    stages = (["cutoff"] if min_score is not None else []) + (["rerank"] if ss.get("cfg_rerank") else [])
    return {"top_k": int(ss.get("cfg_top_k", s.top_k)), "mode": mode, "fusion": fusion,
            "dense_weight": float(ss.get("cfg_dense_weight", 0.5)) if fusion == "weighted" else 0.5,
            "dense_k": int(ss.get("cfg_dense_k", s.dense_k)), "sparse_k": int(ss.get("cfg_sparse_k", s.sparse_k)),
            "sources": list(ss.get("cfg_sources", [])), "tags": list(ss.get("cfg_tags", [])),
            "lang": None if lang == "any" else lang,
            "min_score": None if min_score is None else float(min_score), "stages": stages}


# --------------------------------------------------------------------------------------------
# chat: history, asking, rendering an answer with its evidence


def history() -> list[dict]:
    return st.session_state.setdefault("history", [])


def queue_question(question: str, **extra) -> None:
    """Ask ``question`` in the coming run (button callbacks: presets, regenerate)."""
    st.session_state["pending"] = {"question": question, **extra}


def take_pending(prompt: str | None) -> dict | None:
    """The question to ask in this run: typed into the chat input, or queued by a button."""
    pending = st.session_state.pop("pending", None)
    if prompt and prompt.strip():
        pending = {"question": prompt}
    if pending:
        st.session_state.pop("failed", None)  # a new question replaces the one that failed
    return pending


def render_history(engine: Engine, ctl: Controls, *, live: bool) -> None:
    """Every question and answer; the last one follows the current window and knobs when ``live``.
    Then the last question if it failed (kept with its error until the next question)."""
    items = history()
    for k, entry in enumerate(items):
        _render_entry(engine, entry, ctl if live and k == len(items) - 1 else None)
    failed = st.session_state.get("failed")
    if failed:
        with st.chat_message("user"):
            _user_bubble(failed["question"], failed.get("note"))
        with st.chat_message("assistant"):
            _failure(failed)


def _failure(failed: dict) -> None:
    """A question's error; "Ask again" when it may pass later (the store was unreachable)."""
    st.error(md(failed["error"]))
    if failed.get("retry"):
        st.button("Ask again", key="retry-failed", icon=":material/refresh:", on_click=queue_question,
                  args=(failed["question"],))


def _next_id() -> int:
    n = st.session_state.get("entry_seq", 0) + 1
    st.session_state["entry_seq"] = n
    return n


def _columns():
    return st.columns([5, 7], gap="medium")


def _user_bubble(question: str, note: str | None) -> None:
    extra = f' <span class="swr-note">· {render.esc(note)}</span>' if note else ""
    st.html(f'<div class="swr-q">{render.esc(question)}{extra}</div>')


def ask(engine: Engine, ctl: Controls, pending: dict) -> None:
    """Retrieve, show the evidence at once, stream the answer, keep it in the history."""
    question = pending["question"]
    with st.chat_message("user"):
        _user_bubble(question, pending.get("note"))
    with st.chat_message("assistant"):
        try:
            retrieval = pending.get("retrieval") or engine.retrieve(question, ctl.kb, **ctl.params)
            window = int(pending.get("window", ctl.window))
            result, stream = engine.ask_stream(question, retrieval.kb, window_size=window,
                                               retrieval=retrieval)
        except SwrError as exc:
            failed = {"question": question, "note": pending.get("note"), "error": exc.message,
                      "retry": isinstance(exc, StoreUnavailable)}
            st.session_state["failed"] = failed  # kept (with its error) until the next question
            _failure(failed)
            return
        entry = {"id": _next_id(), "question": question, "kb": retrieval.kb, "result": result,
                 "retrieval": retrieval, "note": pending.get("note")}
        left, right = _columns()
        with right:
            _evidence(entry, result.passages, result.context_chars, result.context_tokens)
        with left:
            if stream is not None:
                slot = st.empty()
                with slot.container():
                    _stream_answer(engine, result, stream)
                slot.empty()
            _answer(entry)
    history().append(entry)


def _stream_answer(engine: Engine, result: AskResult, stream) -> None:
    """``st.write_stream`` the LLM's deltas (escaped), then let ``engine.finish`` record the answer
    or, on an LLM failure, fall back to the extractive answer with ``llm_error`` set."""
    parts: list[str] = []
    failure: list[LLMUnavailable] = []

    def deltas():
        try:
            for delta in stream:
                parts.append(delta)
                yield render.esc(delta).replace("&#10;", "  \n")
        except LLMUnavailable as exc:
            failure.append(exc)

    t0 = time.perf_counter()
    st.html('<span class="swr-kind llm">LLM answer · streaming…</span>')
    st.write_stream(deltas())

    def replay():
        yield from parts
        if failure:
            raise failure[0]

    engine.finish(result, replay())
    result.timings["llm_ms"] = round((time.perf_counter() - t0) * 1000, 2)


def _render_entry(engine: Engine, entry: dict, ctl: Controls | None) -> None:
    result: AskResult = entry["result"]
    with st.chat_message("user"):
        _user_bubble(entry["question"], entry.get("note"))
    with st.chat_message("assistant"):
        left, right = _columns()
        with left:
            _answer(entry)
        with right:
            view = _live_view(engine, entry, ctl) if ctl else None
            if view is None:
                _evidence(entry, result.passages, result.context_chars, result.context_tokens)
            else:
                _preview(entry, view)


@dataclass
class LiveView:
    retrieval: Retrieval
    window: int
    passages: list[Passage]
    changes: list[str]


_PARAM_LABELS = {"top_k": "top-k", "mode": "mode", "fusion": "fusion", "dense_weight": "dense weight",
                 "dense_k": "dense candidates", "sparse_k": "sparse candidates", "sources": "files",
                 "tags": "tags", "lang": "language", "min_score": "min score", "stages": "stages"}


def _live_view(engine: Engine, entry: dict, ctl: Controls) -> LiveView | None:
    """The last answer's evidence at the current window and knobs, when they differ from the
    ones it was made with: re-windowed without embedding, re-ranked from the cached query vector."""
    result: AskResult = entry["result"]
    retrieval: Retrieval = entry["retrieval"]
    if ctl.kb != entry["kb"]:
        return None
    changes = []
    if any(retrieval.params.get(k) != v for k, v in ctl.params.items()):
        key = repr(sorted(ctl.params.items()))
        cached = entry.get("_rerank")
        if not cached or cached[0] != key:
            try:
                cached = (key, engine.retrieve(retrieval.question, retrieval.kb, **ctl.params))
            except SwrError as exc:
                st.error(md(exc.message))
                return None
            entry["_rerank"] = cached
        changes += [f"{_PARAM_LABELS.get(k, k)} {_short(retrieval.params.get(k), k)} → {_short(v, k)}"
                    for k, v in ctl.params.items() if retrieval.params.get(k) != v]
        retrieval = cached[1]
    if ctl.window != result.settings.get("window_size"):
        changes.insert(0, f"window {result.settings.get('window_size')} → {ctl.window}")
    if not changes:
        return None
    try:
        passages = engine.passages(retrieval, ctl.window)
    except SwrError as exc:
        st.error(md(exc.message))
        return None
    return LiveView(retrieval, ctl.window, passages, changes)


def _short(v, key: str = "") -> str:
    if v is None or v == []:
        return "none" if key in ("min_score", "stages") else "any"
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return str(v)


def _anchored(html: str, entry_id: int, tag: str = "") -> str:
    """Make ``#passage-n`` anchors unique per answer (several answers on one page)."""
    pfx = f"a{entry_id}{tag}-"
    return (html.replace('id="passage-', f'id="{pfx}passage-')
            .replace('href="#passage-', f'href="#{pfx}passage-'))


def _cards(entry_id: int, passages: list[Passage], tag: str = "") -> str:
    if not passages:
        return '<div class="swr-empty">No passage found (check the filters).</div>'
    return _anchored("".join(render.passage_html(p, n) for n, p in enumerate(passages, 1)), entry_id, tag)


def _evidence_head(passages: list[Passage], chars: int, tokens: int, what: str) -> str:
    hits = sum(len(p.hits) for p in passages)
    merged = sum(1 for p in passages if len(p.hits) > 1)
    extra = f" ({merged} merged)" if merged else ""
    return (f'<div class="swr-evhead"><b>Evidence</b> · {len(passages)} passage{"s" * (len(passages) != 1)}'
            f"{extra} · {hits} hit{'s' * (hits != 1)} · {what} <b>{chars:,}</b> chars / "
            f"<b>{tokens:,}</b> tokens</div>")


def _scroll_cards(key: str, html: str) -> None:
    """Passage cards in a box that scrolls past a maximum height (CSS on ``st-key-ev-*``)."""
    with st.container(key=f"ev-{key}"):
        st.html(html)


def _evidence(entry: dict, passages: list[Passage], chars: int, tokens: int) -> None:
    st.html(_evidence_head(passages, chars, tokens, "context"))
    _scroll_cards(str(entry["id"]), _cards(entry["id"], passages))


def _preview(entry: dict, view: LiveView) -> None:
    result: AskResult = entry["result"]
    chars = sum(len(p.text) for p in view.passages)
    tokens = count_tokens(context_text(view.passages))
    st.html(f'<div class="swr-preview"><b>Preview</b> · {render.esc("; ".join(view.changes))} · '
            "not yet used by the answer</div>")
    st.button("Regenerate answer with this context", key=f"regen-{entry['id']}", type="primary",
              icon=":material/refresh:", on_click=queue_question,
              args=(entry["question"],),
              kwargs={"retrieval": view.retrieval, "window": view.window,
                      "note": "regenerated: " + "; ".join(view.changes)})
    st.html(_evidence_head(view.passages, chars, tokens, "would send"))
    _scroll_cards(f"{entry['id']}-preview", _cards(entry["id"], view.passages, "p"))
    with st.expander(f"Evidence the answer was made with (window {result.settings.get('window_size')})"):
        _scroll_cards(f"{entry['id']}-made", _cards(entry["id"], result.passages))


def stamp_text(result: AskResult) -> str:
    """The settings an answer was made with, one line."""
    s = result.settings
    mode = s.get("mode", "")
    if mode == "hybrid":
        mode += f"/{s.get('fusion')}"
        if s.get("fusion") == "weighted":
            mode += f" dense {s.get('dense_weight')}"
    parts = [f"window {s.get('window_size')}", f"top-k {s.get('top_k')}", mode,
             f"candidates {s.get('dense_k')}/{s.get('sparse_k')}"]
    if s.get("min_score") is not None:
        parts.append(f"min score {s.get('min_score')}")
    if "rerank" in (s.get("stages") or []):
        parts.append("reranked")
    filters = [f"{k} {_short(s.get(k))}" for k in ("sources", "tags", "lang") if s.get(k)]
    if filters:
        parts.append("filters: " + "; ".join(filters))
    parts.append(f"{s.get('embed_model')} ({s.get('embed_runtime')})")
    parts.append(f"LLM {s.get('llm_model')}" if s.get("llm_model") else "no LLM")
    t = result.timings
    ms = sum(v for k, v in t.items() if k.endswith("_ms") and isinstance(v, (int, float)))
    parts.append(f"{ms:,.0f} ms")
    parts.append(result.created_at.replace("T", " ")[:19])
    return " · ".join(str(p) for p in parts)


def _answer(entry: dict) -> None:
    result: AskResult = entry["result"]
    if result.answer_kind == "llm":
        kind = f'<span class="swr-kind llm">LLM answer · {render.esc(result.settings.get("llm_model") or "")}</span>'
    else:
        kind = '<span class="swr-kind">Extractive answer (best passage, no LLM)</span>'
    st.html(kind + _anchored(render.answer_html(result.answer, len(result.passages)), entry["id"])
            + _html_text("swr-stamp", stamp_text(result)))
    if result.llm_error:
        st.error(md(f"The LLM failed, so this is the extractive answer instead. {result.llm_error}"))
    st.download_button("Export evidence card", data=evidence_card(result), file_name=f"evidence-{entry['id']}.html",
                       mime="text/html", key=f"dl-{entry['id']}", icon=":material/download:",
                       on_click="ignore")


def evidence_card(result: AskResult) -> str:
    """The standalone HTML evidence card of an answer."""
    return render.evidence_card_html(result.question, result.answer, result.answer_kind, result.passages,
                                     {**result.settings, "kb": result.kb, "context_chars": result.context_chars,
                                      "context_tokens": result.context_tokens}, result.created_at)


def empty_state(engine: Engine, ctl: Controls) -> None:
    """What a first-time visitor sees: what to do and a few questions to click."""
    if ctl.demo:
        tip = ("Click a preset question in the sidebar, or type your own below. Each answer shows its "
               "evidence beside it: the hit sentences highlighted inside their window.")
    else:
        tip = ("Ask a question about the documents of this knowledge base. Each answer shows its evidence "
               "beside it: the hit sentences highlighted inside their window. Move the <b>window</b> slider "
               "to see more or less context at once, without re-embedding anything.")
    st.html(f'<div class="swr-empty">{tip}</div>')
    if not ctl.demo:
        questions = preset_questions(engine, ctl.kb)[:4]
        if questions:
            st.caption("Try one of these")
            cols = st.columns(2)
            for k, q in enumerate(questions):
                cols[k % 2].button(q, key=f"try-{k}", on_click=queue_question, args=(q,), use_container_width=True)


def preset_questions(engine: Engine, kb: str | None) -> list[str]:
    if not kb:
        return []
    return [q for q in load_golden(engine.settings, kb)["question"].tolist() if q.strip()]


def _sidebar_presets(engine: Engine, kb: str | None) -> None:
    """Demo mode: the knowledge base's golden questions as buttons; one click asks."""
    questions = preset_questions(engine, kb)
    st.sidebar.caption("Preset questions (edit them on the Knowledge bases page)")
    if not questions:
        st.sidebar.info("No preset questions for this knowledge base yet.")
        return
    with st.sidebar.container(key="presets"):
        for k, q in enumerate(questions):
            st.button(q, key=f"preset-{k}", on_click=queue_question, args=(q,), use_container_width=True)


# --------------------------------------------------------------------------------------------
# golden (preset) questions per knowledge base


def golden_path(settings: Settings, kb: str) -> Path:
    """``SWR_HOME/golden/<kb>.csv`` (a name that is safe as a file name)."""
    safe = re.sub(r"[^\w.-]", "_", kb).lstrip(".")
    if safe != kb or not safe:
        safe = f"{safe[:40]}-{hashlib.sha1(kb.encode()).hexdigest()[:8]}"
    return settings.home / "golden" / f"{safe}.csv"


def load_golden(settings: Settings, kb: str) -> pd.DataFrame:
    """The golden questions of ``kb``: its saved file, the bundled file for the sample KB, or none."""
    path = golden_path(settings, kb)
    if not path.is_file() and kb == settings.sample_kb and SAMPLE_GOLDEN.is_file():
        path = SAMPLE_GOLDEN
    if path.is_file():
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    else:
        df = pd.DataFrame(columns=GOLDEN_COLUMNS)
    for c in GOLDEN_COLUMNS:
        if c not in df.columns:
            df[c] = ""
    return df[GOLDEN_COLUMNS + [c for c in df.columns if c not in GOLDEN_COLUMNS]].astype(str)


def save_golden(settings: Settings, kb: str, df: pd.DataFrame) -> Path:
    path = golden_path(settings, kb)
    path.parent.mkdir(parents=True, exist_ok=True)
    df = df.fillna("").astype(str)
    df = df[df["question"].str.strip() != ""]
    df.to_csv(path, index=False)
    return path


def golden_editor(engine: Engine, kb: str) -> None:
    st.caption("The preset questions demo mode shows as buttons (question, expected answer, source "
               "file). Saved to " + str(golden_path(engine.settings, kb)))
    edited = st.data_editor(load_golden(engine.settings, kb), num_rows="dynamic", use_container_width=True,
                            hide_index=True, key=f"golden-{kb}")
    if st.button("Save preset questions", key="golden-save", type="primary"):
        path = save_golden(engine.settings, kb, edited)
        st.success(md(f"Saved {len(load_golden(engine.settings, kb))} questions to {path}."))


# --------------------------------------------------------------------------------------------
# knowledge bases: create, delete, upload, documents, system


def _create_kb(engine: Engine) -> None:
    name = (st.session_state.get("new_kb") or "").strip()
    try:
        engine.create_kb(name)
    except SwrError as exc:
        st.session_state["flash"] = ("error", exc.message)
        return
    st.session_state["cfg_kb"] = name
    st.session_state["w_kb"] = name
    st.session_state["flash"] = ("success", f"Created knowledge base {name!r}.")


def _delete_kb(engine: Engine, kb: str) -> None:
    try:
        n = engine.delete_kb(kb)
    except SwrError as exc:
        st.session_state["flash"] = ("error", exc.message)
        return
    st.session_state.pop("cfg_kb", None)
    st.session_state.pop("w_kb", None)
    st.session_state["flash"] = ("success", f"Deleted knowledge base {kb!r} ({n:,} points).")


def kb_manager(engine: Engine, kb: str | None) -> None:
    """Create a knowledge base; delete the selected one (after a confirmation)."""
    _flash()
    c1, c2 = st.columns(2, gap="large")
    with c1.form("create-kb", clear_on_submit=True, border=True):
        st.text_input("New knowledge base", key="new_kb", placeholder="e.g. kettles-2025", max_chars=64)
        st.form_submit_button("Create", icon=":material/add:", on_click=_create_kb, args=(engine,))
    if kb:
        with c2.container(border=True):
            st.text(f"Selected: {kb}")
            sure = st.checkbox("Delete it with all its documents", key="confirm_delete_kb")
            st.button("Delete knowledge base", key="delete-kb", disabled=not sure, icon=":material/delete:",
                      on_click=_delete_kb, args=(engine, kb))


def index_uploads(engine: Engine, kb: str, files: list, tags: list[str]) -> list[FileResult]:
    """Index uploaded files with a progress bar (sentences/s); one result per file."""
    bar = st.progress(0.0, text=f"Indexing {len(files)} file(s)…")
    n = max(1, len(files))

    def progress(p: dict) -> None:
        frac = (p["file_no"] + p["done"] / max(1, p["total"])) / n
        rate = p.get("sentences_per_s")
        speed = f" · {rate:,.0f} sentences/s" if rate else ""
        bar.progress(min(1.0, frac), text=f"File {p['file_no'] + 1}/{p['files']}: {p['file']} · "
                                          f"{p['done']:,}/{p['total']:,} sentences{speed}")

    t0 = time.perf_counter()
    # getbuffer(): no copy of the upload; a file above SWR_MAX_FILE_MB is refused before any is made
    results = engine.index_files(kb, [(f.name, f.getbuffer()) for f in files], tags=tags, progress=progress)
    total = sum(r.sentences for r in results if r.ok and not r.skipped)
    skipped = sum(1 for r in results if r.skipped)
    failed = sum(1 for r in results if not r.ok)
    el = time.perf_counter() - t0
    rate = f" · {total / el:,.0f} sentences/s" if total >= 50 and el > 0 else ""
    extra = "".join([f" · {skipped} unchanged" if skipped else "", f" · {failed} failed" if failed else ""])
    bar.progress(1.0, text=f"Done: {total:,} new sentences in {el:.1f} s{rate}{extra}")
    return results


def file_results(results: list[FileResult]) -> None:
    """One row per file: sentences indexed, skipped (unchanged), or the error for that file."""
    rows = []
    for r in results:
        if not r.ok:
            status, detail = "error", (r.error or {}).get("message", "failed")
        elif r.skipped:
            status, detail = "unchanged", "already indexed: skipped"
        else:
            status, detail = "indexed", "replaced the previous version" if r.replaced else ""
        rows.append({"file": safe_name(r.source), "status": status, "sentences": r.sentences, "seconds": r.seconds,
                     "detail": detail})
    for r in results:
        if not r.ok:
            st.error(md((r.error or {}).get("message") or f"{r.source}: indexing failed"))
    st.dataframe(pd.DataFrame(rows), hide_index=True, use_container_width=True,
                 column_config={"detail": st.column_config.TextColumn(width="large")})


def upload_panel(engine: Engine, kb: str) -> None:
    st.caption("Upload many files at once: " + ", ".join(UPLOAD_TYPES) + f", up to "
               f"{engine.settings.max_file_mb:g} MB each. An unchanged file is skipped at once; a changed "
               "file replaces its previous version.")
    files = st.file_uploader("Files", type=UPLOAD_TYPES, accept_multiple_files=True, key="uploads",
                             label_visibility="collapsed")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    tags_text = c1.text_input("Tags (comma-separated, optional)", key="upload_tags")
    go = c2.button(f"Index {len(files or [])} file(s)", type="primary", disabled=not files,
                   icon=":material/upload:", use_container_width=True, key="index")
    if go and files:
        tags = [t.strip() for t in tags_text.split(",") if t.strip()]
        st.session_state["index_results"] = (kb, index_uploads(engine, kb, files, tags))
    last = st.session_state.get("index_results")
    if last and last[0] == kb:
        file_results(last[1])


def _delete_doc(engine: Engine, kb: str, doc_id: str, source: str) -> None:
    try:
        n = engine.delete_doc(kb, doc_id)
        st.session_state["flash"] = ("success", f"Deleted {source} ({n:,} sentences).")
    except SwrError as exc:
        st.session_state["flash"] = ("error", exc.message)


def documents_panel(engine: Engine, kb: str) -> None:
    """The documents with sentence counts; delete one; preview its sentence split."""
    docs = engine.docs(kb)
    if not docs:
        st.info("No documents yet: upload some in the Upload tab.")
        return
    st.dataframe(pd.DataFrame([{"file": d.source, "sentences": d.sentences, "characters": d.chars,
                                "format": d.format, "tags": ", ".join(d.tags),
                                "indexed": d.indexed_at.replace("T", " ")[:19],
                                "status": "complete" if d.complete else "INCOMPLETE"} for d in docs]),
                 hide_index=True, use_container_width=True)
    by_id = {d.doc_id: d for d in docs}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    doc_id = c1.selectbox("Document", list(by_id), key="doc_pick",
                          format_func=lambda i: f"{by_id[i].source} ({by_id[i].sentences:,} sentences)")
    c2.button("Delete document", key="delete-doc", icon=":material/delete:", use_container_width=True,
              on_click=_delete_doc, args=(engine, kb, doc_id, by_id[doc_id].source))
    split_preview(engine, kb, doc_id)


def split_preview(engine: Engine, kb: str, doc_id: str) -> None:
    """How the document was cut into sentences: each one numbered on its own background."""
    sentences = engine.doc_sentences(kb, doc_id)
    text, spans, pos = [], [], 0
    for s in sentences:
        text.append(s.text)
        spans.append((pos, pos + len(s.text)))
        pos += len(s.text)
    shown = min(len(spans), MAX_PREVIEW_SENTENCES)
    st.caption(f"Sentence split: {len(spans):,} sentences"
               + (f" (first {shown:,} shown)" if shown < len(spans) else "")
               + ". Alternating colours mark the boundaries; the small numbers are sentence numbers.")
    with st.container(height=420, border=True):
        st.html(render.split_preview_html("".join(text), spans, max_sentences=MAX_PREVIEW_SENTENCES))


def system_panel(engine: Engine) -> None:
    """Embedding model/runtime/device and measured throughput, store, LLM, points per KB."""
    info = engine.system_info()
    emb, store, llm = info["embedding"], info["store"], info["llm"]
    rate = emb.get("sentences_per_s")
    c = st.columns(4)
    c[0].metric("Embedding runtime", str(emb.get("runtime")))
    c[1].metric("Device", str(emb.get("device")))
    c[2].metric("Throughput", f"{rate:,.0f} sent/s" if rate else "—",
                help="Measured in this process while indexing (blank until something was embedded).")
    c[3].metric("Points", f"{sum(k['sentences'] for k in info['kbs']):,}")
    rows = [("Embedding model", f"{emb.get('model')} ({emb.get('dim')} dimensions)"),
            ("Store", f"{store.get('backend')} at {store.get('location')}"),
            ("LLM", (f"{llm.get('model')} at {safe_url(llm.get('base_url') or '')}" if llm.get("configured")
                     else "not configured: answers are extractive (set OPENAI_BASE_URL and SWR_LLM_MODEL)")),
            ("Collection", ", ".join(f"{k}={v}" for k, v in (info.get("collection") or {}).items()))]
    st.html('<table class="swr-sys">' + "".join(f"<tr><td>{render.esc(k)}</td><td>{render.esc(v)}</td></tr>"
                                                for k, v in rows) + "</table>")
    st.caption("Points per knowledge base")
    st.dataframe(pd.DataFrame(info["kbs"], columns=["kb", "documents", "sentences"]), hide_index=True,
                 use_container_width=True)




# --------------------------------------------------------------------------------------------
# Tune (pages/2_Tune.py) and Compare (pages/4_Compare.py): sweeps of the user's own questions,
# two configurations side by side, and "why was this sentence not retrieved?"

TUNE_PAGE = "pages/2_Tune.py"
VERIFY_PAGE = "pages/3_Verify.py"  # written separately: linked only once the file exists
COMPARE_PAGE = "pages/4_Compare.py"
MODES = ["hybrid", "dense", "sparse"]
TUNE_WINDOWS = list(range(0, 11))
TUNE_TOP_KS = list(range(1, 21))
TUNE_CHUNK_SIZES = [128, 256, 512, 1024]
TUNE_METRICS = {"hit_rate": "Hit rate", "mrr": "MRR", "evidence_recall": "Evidence recall"}

_COMPARE_CSS = """
.swr-passage.swr-only{border:2px solid var(--swr-side);box-shadow:inset 5px 0 0 var(--swr-side)}
.swr-passage.swr-only-a{--swr-side:#0969da}
.swr-passage.swr-only-b{--swr-side:#8250df}
.swr-onlybadge{display:inline-block;font-size:.75em;font-weight:600;color:#fff;background:var(--swr-side);
 border-radius:10px;padding:0 .6em;margin-bottom:.4em}
.swr-cmphead{font-size:.85em;color:#57606a;margin:.2em 0 .4em 0;overflow-wrap:anywhere}
.swr-cmphead b{color:#1f2328}
.swr-side-a{color:#0969da;font-weight:700}
.swr-side-b{color:#8250df;font-weight:700}
.swr-probe-text{white-space:pre-wrap;overflow-wrap:anywhere;border-left:3px solid #d0d7de;padding:.3em .7em;
 margin:.3em 0;background:#f6f8fa}
.swr-probe-reason{font-weight:600;margin:.4em 0}
"""


def keep_kb() -> None:
    """Keep the selected knowledge base across a page switch; call before :func:`sidebar`.

    A widget's id includes its page, so the sidebar's knowledge-base select box (drawn on every
    page) would fall back to the first knowledge base on the next page although ``w_kb`` still
    holds the selection. Re-setting ``w_kb`` from its kept copy makes the new page's box take it;
    when the two differ the user has just picked another one in this page's box, which is left alone.
    """
    ss = st.session_state
    if "cfg_kb" in ss and ss.get("w_kb", ss["cfg_kb"]) == ss["cfg_kb"]:
        ss["w_kb"] = ss["cfg_kb"]


def _style(css: str) -> None:
    st.html(f"<style>{css}</style>")


def _ranges(ns: list[int]) -> str:
    """``3–5, 9`` from 0-based sentence numbers (shown 1-based)."""
    out: list[str] = []
    for n in sorted(set(ns)):
        if out and n == int(out[-1].split("–")[-1]):
            a = out[-1].split("–")[0]
            out[-1] = f"{a}–{n + 1}"
        else:
            out.append(str(n + 1))
    return ", ".join(out)


def sweep_knobs(settings: Settings) -> tuple[dict, list[str]]:
    """The chat's knobs besides window/top_k/mode, as ``engine.retrieve`` arguments for a sweep,
    and notes on what a sweep leaves out (the reranker: a smaller top-k is no prefix then)."""
    p = _params_from_cfg(settings)
    knobs = {k: p[k] for k in ("fusion", "dense_weight", "dense_k", "sparse_k", "sources", "tags", "lang",
                               "min_score")}
    knobs["fusion"] = st.session_state.get("cfg_fusion", settings.fusion)  # the chat's, whatever its mode
    knobs["dense_weight"] = float(st.session_state.get("cfg_dense_weight", 0.5)) if knobs["fusion"] == "weighted" else 0.5
    knobs["stages"] = [s for s in p["stages"] if s != "rerank"]
    notes = ["the cross-encoder reranker is left out (applying a configuration switches it off)"] \
        if "rerank" in p["stages"] else []
    return knobs, notes


def knobs_text(knobs: dict) -> str:
    """One line: the knobs a sweep ran with besides window, top-k and mode."""
    fusion = knobs.get("fusion")
    parts = [f"fusion {fusion}" + (f" (dense {knobs.get('dense_weight')})" if fusion == "weighted" else ""),
             f"candidates {knobs.get('dense_k')}/{knobs.get('sparse_k')}"]
    if knobs.get("min_score") is not None:
        parts.append(f"min score {knobs['min_score']}")
    filters = [f"{k} {_short(knobs.get(k))}" for k in ("sources", "tags", "lang") if knobs.get(k)]
    parts.append("filters: " + "; ".join(filters) if filters else "no filters")
    return " · ".join(parts)


def _questions_from_file(name: str, data: bytes, fmt: str):
    """Questions from CSV/JSONL bytes, parsed by the same loader as ``swr eval``."""
    import csv
    import tempfile

    from swr import evaluate

    suffix = ".jsonl" if fmt == "jsonl" else ".csv"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"questions{suffix}"
        path.write_bytes(data)
        try:
            return evaluate.load_set(path, fmt)[1]
        except (KeyError, TypeError, ValueError, csv.Error) as exc:
            what = f"column/field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            raise SwrError(f"{name}: not a question set ({what}). Expected CSV with a header "
                           "question,expected_answer[,evidence,source] or JSONL with those fields.") from exc


def golden_questions(settings: Settings, kb: str):
    """The knowledge base's preset (golden) questions as :class:`swr.questions.Question`."""
    df = load_golden(settings, kb)
    return _questions_from_file("preset questions", df.to_csv(index=False).encode("utf-8"), "csv")


def tune_questions(engine: Engine, kb: str) -> tuple[list, str | None]:
    """The question-set picker: the knowledge base's preset questions or an uploaded CSV/JSONL file.
    Returns (usable questions, a label of where they come from)."""
    src = st.radio("Question set", ["Preset questions of this knowledge base", "Upload a file"], horizontal=True,
                   key="tune_src", label_visibility="collapsed")
    if src.startswith("Preset"):
        path = golden_path(engine.settings, kb)
        where = str(path) if path.is_file() else ("the bundled samples/golden.csv"
                                                  if kb == engine.settings.sample_kb else None)
        if where is None:
            st.info("This knowledge base has no preset questions yet: add some (question, expected answer) on "
                    "the Knowledge bases page, or upload a question set.")
            return [], None
        label = f"preset questions of {kb}"
        try:
            qs = golden_questions(engine.settings, kb)
        except SwrError as exc:
            st.error(md(exc.message))
            return [], None
        note = f"From {where} (edit them on the Knowledge bases page)."
    else:
        up = st.file_uploader("Question set: CSV (question, expected_answer — several separated by |, optional "
                              "evidence, source) or JSONL with the same fields", type=["csv", "jsonl"],
                              key="tune_upload")
        if not up:
            return [], None
        fmt = "jsonl" if up.name.lower().endswith(".jsonl") else "csv"
        try:
            qs = _questions_from_file(up.name, up.getvalue(), fmt)
        except SwrError as exc:
            st.error(md(exc.message))
            return [], None
        label, note = up.name, f"Uploaded {up.name}."
    usable = [q for q in qs if q.question.strip() and (q.answers or q.evidence)]
    skipped = len(qs) - len(usable)
    st.caption(md(f"{note} {len(usable)} usable question{'s' * (len(usable) != 1)}"
                  + (f" ({skipped} without an expected answer skipped)" if skipped else "") + "."))
    if not usable:
        st.warning("No usable question: each needs a question and an expected answer snippet.")
    return usable, label


def tune_grid(engine: Engine, n_questions: int) -> dict | None:
    """The sweep grid (a form: nothing runs until submitted); the grid when submitted, else None."""
    s = engine.settings
    with st.form("tune-grid", border=True):
        c1, c2, c3 = st.columns([3, 3, 2])
        windows = c1.multiselect("Windows (sentences each side)", TUNE_WINDOWS,
                                 key=_persist("tune_windows", [0, 1, 2, 3, 5]))
        top_ks = c2.multiselect("Top-k", TUNE_TOP_KS, key=_persist("tune_top_ks", [1, 3, 5, 10]))
        modes = c3.multiselect("Modes", MODES, key=_persist("tune_modes", [st.session_state.get("cfg_mode", s.mode)]))
        c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
        chunks = c1.toggle("Chunk baseline", key=_persist("tune_chunks", True),
                           help="Also measure plain fixed-size chunks (llama-index SentenceSplitter, same "
                                "embedder and store). The first run per size indexes the chunks once.")
        sizes = c2.multiselect("Chunk sizes (tokens)", TUNE_CHUNK_SIZES, key=_persist("tune_chunk_sizes", [256, 512]))
        overlap = c3.number_input("Chunk overlap", 0, 100, step=10, key=_persist("tune_overlap", 20))
        limit = c4.number_input("Questions (0 = all)", 0, None, step=5,
                                key=_persist("tune_limit", 0),
                                help="A seeded random sample of the question set, for a quick first look.")
        go = st.form_submit_button("Run sweep", type="primary", icon=":material/play_arrow:",
                                   disabled=not n_questions)
    for key, value in (("tune_windows", windows), ("tune_top_ks", top_ks), ("tune_modes", modes),
                       ("tune_chunks", chunks), ("tune_chunk_sizes", sizes), ("tune_overlap", overlap),
                       ("tune_limit", limit)):
        _keep(key, value)
    if not go:
        return None
    return {"windows": sorted(windows), "top_ks": sorted(top_ks), "modes": [m for m in MODES if m in modes],
            "chunk_sizes": sorted(sizes) if chunks else [], "chunk_overlap": int(overlap),
            "limit": int(limit) or None}


def run_tune(engine: Engine, kb: str, questions: list, source: str, grid: dict) -> None:
    """Run the sweep with a progress bar; keep the result in session state (``tune_result``)."""
    from swr import evaluate

    if not grid["windows"] or not grid["top_ks"] or not grid["modes"]:
        st.error("Pick at least one window, one top-k and one mode.")
        return
    qs = evaluate.sample(questions, grid["limit"])
    knobs, notes = sweep_knobs(engine.settings)
    n_cfg = len(grid["modes"]) * len(grid["top_ks"]) * (len(grid["windows"]) + len(grid["chunk_sizes"]))
    bar = st.progress(0.0, text=f"Sweeping {n_cfg} configurations over {len(qs)} questions…")

    def progress(p: dict) -> None:
        if p.get("stage") == "chunks":
            size = str(p.get("kb") or "").rsplit(":", 2)
            what = f"{size[-2]}-token chunks" if len(size) == 3 else "chunks"
            docs = p.get("documents") or p.get("files")
            bar.progress(min(1.0, p.get("done", 0) / max(1, p.get("total") or 1)),
                         text=f"Chunk baseline: indexing {what}" + (f" of {docs} documents" if docs else "")
                              + f" · {p.get('done', 0):,}/{p.get('total', 0):,} (once per size)")
        else:
            rate = p.get("questions_per_s")
            bar.progress(min(1.0, p["done"] / max(1, p["total"])),
                         text=f"Question {p['done']}/{p['total']}" + (f" · {rate:,.1f} questions/s" if rate else ""))

    t0 = time.perf_counter()
    try:
        rows = evaluate.sweep(engine, kb, qs, windows=grid["windows"], top_ks=grid["top_ks"], modes=grid["modes"],
                              chunk_sizes=grid["chunk_sizes"], chunk_overlap=grid["chunk_overlap"], progress=progress,
                              details=True, **knobs)
    except SwrError as exc:
        bar.empty()
        st.error(md(exc.message))
        return
    el = time.perf_counter() - t0
    bar.progress(1.0, text=f"Done: {len(rows)} configurations × {len(qs)} questions in {el:.1f} s")
    st.session_state["tune_result"] = {"kb": kb, "source": source, "questions": len(qs), "rows": rows,
                                       "knobs": knobs, "notes": notes, "grid": grid, "seconds": round(el, 1)}


def series_name(method: str, mode: str, chunk_size, modes: int) -> str:
    name = "sentence windows" if method == "window" else f"chunks {int(chunk_size)}"
    return f"{name} · {mode}" if modes > 1 else name


def tune_frame(rows) -> pd.DataFrame:
    """The sweep as a table: one row per configuration, with its label and chart series."""
    df = pd.DataFrame([{"configuration": r.config.label(), **r.to_dict(), "questions": r.questions} for r in rows])
    if df.empty:
        return df
    for c in ("window_size", "chunk_size"):  # None for the other method: integers with gaps, not floats
        df[c] = df[c].astype("Int64")
    n_modes = df["mode"].nunique()
    df["series"] = [series_name(m, mo, c, n_modes) for m, mo, c in zip(df["method"], df["mode"], df["chunk_size"])]
    return df


def pareto(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Each series' Pareto frontier: no other configuration of it scores higher with less context."""
    keep = []
    for _, g in df.dropna(subset=[metric]).groupby("series", sort=False):
        best = None
        for idx, r in g.sort_values(["context_chars", metric], ascending=[True, False]).iterrows():
            if best is None or r[metric] > best:
                keep.append(idx)
                best = r[metric]
    return df.loc[keep].sort_values(["series", "context_chars"])


def frontier_chart(df: pd.DataFrame, metric: str = "hit_rate"):
    """Metric against mean context size: every configuration a point, each series' frontier a line."""
    import altair as alt

    title = TUNE_METRICS.get(metric, metric)
    d = df.dropna(subset=[metric]).copy()
    d["on_frontier"] = d.index.isin(pareto(d, metric).index)
    color = alt.Color("series:N", title="Method", legend=alt.Legend(orient="bottom", columns=3))
    tooltip = [alt.Tooltip("configuration:N"), alt.Tooltip(f"{metric}:Q", title=title, format=".3f"),
               alt.Tooltip("mrr:Q", title="MRR", format=".3f"),
               alt.Tooltip("context_chars:Q", title="context chars", format=",.0f"),
               alt.Tooltip("context_tokens:Q", title="context tokens", format=",.0f"),
               alt.Tooltip("latency_ms:Q", title="p50 ms", format=".1f")]
    x = alt.X("context_chars:Q", title="Mean context size (characters sent to the LLM)")
    y = alt.Y(f"{metric}:Q", title=title, scale=alt.Scale(domain=[0, 1]))
    points = alt.Chart(d).mark_point(filled=True, size=70).encode(
        x=x, y=y, color=color, tooltip=tooltip,
        opacity=alt.condition("datum.on_frontier", alt.value(1.0), alt.value(0.35)),
        shape=alt.Shape("on_frontier:N", title="On the frontier",
                        scale=alt.Scale(domain=[True, False], range=["circle", "triangle"]), legend=None))
    line = alt.Chart(d[d["on_frontier"]]).mark_line(strokeWidth=2).encode(
        x=x, y=y, color=color, order="context_chars:Q", tooltip=tooltip)
    return (line + points).properties(height=360, title=f"{title} against context size (lines: the frontier)")


def heatmap_chart(df: pd.DataFrame, mode: str, metric: str = "hit_rate"):
    """Window x top-k grid of the metric for the sentence windows of one mode."""
    import altair as alt

    title = TUNE_METRICS.get(metric, metric)
    d = df[(df["method"] == "window") & (df["mode"] == mode)].dropna(subset=[metric]).copy()
    d["window_size"] = d["window_size"].astype(int)
    base = alt.Chart(d).encode(x=alt.X("window_size:O", title="Window (sentences each side)"),
                               y=alt.Y("top_k:O", title="Top-k", sort="descending"))
    rect = base.mark_rect().encode(
        color=alt.Color(f"{metric}:Q", title=title, scale=alt.Scale(domain=[0, 1], scheme="blues")),
        tooltip=[alt.Tooltip("configuration:N"), alt.Tooltip(f"{metric}:Q", title=title, format=".3f"),
                 alt.Tooltip("context_chars:Q", title="context chars", format=",.0f")])
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text(f"{metric}:Q", format=".2f"),
        color=alt.condition(f"datum.{metric} > 0.6", alt.value("white"), alt.value("#1f2328")))
    return (rect + text).properties(height=max(160, 34 * d["top_k"].nunique()),
                                    title=f"{title} by window and top-k ({mode})")


def best_window_row(rows):
    """The best sentence-window configuration: the highest hit rate (then evidence recall) for the
    smallest context, then the higher MRR: the cheapest configuration at the top of the frontier."""
    cands = [r for r in rows if r.config.method == "window"]
    return max(cands, key=lambda r: (r.hit_rate if r.hit_rate is not None else -1.0, r.evidence_recall or 0.0,
                                     -r.context_chars, r.mrr or 0.0), default=None)


def apply_config(window: int, top_k: int, mode: str, knobs: dict) -> dict:
    """Set the chat's knobs (the very session-state keys the sidebar widgets read) to a tested
    configuration: window, top-k, mode and the other knobs the sweep ran with. Returns them."""
    fusion = knobs["fusion"]
    vals = {"window": int(window), "top_k": int(top_k), "mode": mode, "fusion": fusion,
            "dense_weight": float(knobs.get("dense_weight", 0.5)), "dense_k": int(knobs["dense_k"]),
            "sparse_k": int(knobs["sparse_k"]), "sources": list(knobs.get("sources") or []),
            "tags": list(knobs.get("tags") or []), "lang": knobs.get("lang") or "any",
            "cutoff": knobs.get("min_score") is not None, "rerank": False}
    if knobs.get("min_score") is not None:
        vals["min_score"] = float(knobs["min_score"])
    ss = st.session_state
    for k, v in vals.items():
        ss[f"cfg_{k}"] = v
        ss[f"w_{k}"] = v
    return vals


def _picked() -> tuple | None:
    """(window, top_k, mode, knobs) of the configuration picked in the Tune results (read in the
    callback, so it is the selection of this very click)."""
    res = st.session_state.get("tune_result")
    label = st.session_state.get("tune_pick")
    row = next((r for r in (res or {}).get("rows", []) if r.config.method == "window" and r.config.label() == label),
               None)
    return None if row is None else (row.config.window_size, row.config.top_k, row.config.mode, res["knobs"])


def _apply_and_flash() -> None:
    picked = _picked()
    if picked is None:
        return
    window, top_k, mode, knobs = picked
    apply_config(window, top_k, mode, knobs)
    st.session_state["flash"] = ("success", f"Applied to the chat: window {window} · top-k {top_k} · {mode} "
                                            f"({knobs_text(knobs)}).")


def tune_results(engine: Engine, kb: str) -> None:
    """The kept sweep: table, charts, budget table, missed questions, apply to chat, export."""
    from swr import evaluate

    res = st.session_state.get("tune_result")
    _flash()
    if not res:
        return
    if res["kb"] != kb:
        st.info(md(f"The last sweep ran on knowledge base {res['kb']}; run one for {kb}."))
        return
    rows = res["rows"]
    df = tune_frame(rows)
    st.markdown("##### Results")
    st.caption(md(f"{res['questions']} questions ({res['source']}) · {len(rows)} configurations · "
                  f"{res['seconds']} s · other knobs as in the chat: {knobs_text(res['knobs'])}"
                  + ("".join(f" · {n}" for n in res["notes"]))))
    metrics = [m for m in TUNE_METRICS if df[m].notna().any()] or ["hit_rate"]
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    metric = c1.radio("Metric", metrics, format_func=TUNE_METRICS.get, horizontal=True, key="tune_metric")
    modes = [m for m in MODES if m in set(df.loc[df["method"] == "window", "mode"])]
    mode = c2.selectbox("Heatmap mode", modes, key="tune_heat_mode") if len(modes) > 1 else modes[0]
    left, right = st.columns([3, 2], gap="medium")
    left.altair_chart(frontier_chart(df, metric), width="stretch", height=380)
    right.altair_chart(heatmap_chart(df, mode, metric), width="stretch",
                       height=max(220, 34 * int(df["top_k"].nunique()) + 120))

    table = df.drop(columns=["series"])
    shown = table.dropna(axis=1, how="all")  # e.g. no chunk size without the chunk baseline
    st.dataframe(shown, hide_index=True, width="stretch", key="tune_table",
                 column_config={"configuration": st.column_config.TextColumn(width="medium"),
                                **{m: st.column_config.NumberColumn(TUNE_METRICS[m], format="%.3f")
                                   for m in TUNE_METRICS},
                                "context_chars": st.column_config.NumberColumn("ctx chars", format="%.0f"),
                                "context_tokens": st.column_config.NumberColumn("ctx tokens", format="%.0f"),
                                "latency_ms": st.column_config.NumberColumn("p50 ms", format="%.1f")})
    c1, c2 = st.columns([1, 3])
    c1.download_button("Export CSV", data=table.to_csv(index=False).encode("utf-8"), file_name=f"sweep-{kb}.csv",
                       mime="text/csv", key="tune-csv", icon=":material/download:", on_click="ignore")
    with c2.expander("Best configuration under a context budget"):
        st.dataframe(pd.DataFrame(evaluate.budget_table(rows)), hide_index=True, width="stretch")

    st.markdown("##### Use a configuration in the chat")
    windows = [r for r in rows if r.config.method == "window"]
    best = best_window_row(rows)
    labels = [r.config.label() for r in windows]
    c1, c2, c3 = st.columns([4, 1, 1], vertical_alignment="bottom")
    pick = c1.selectbox("Configuration", labels, index=labels.index(best.config.label()) if best else 0,
                        key="tune_pick", help="Preselected: the best sentence-window configuration (the highest hit "
                                              "rate and evidence recall with the smallest context).",
                        format_func=lambda lab: _pick_label(windows[labels.index(lab)]))
    row = windows[labels.index(pick)]
    c2.button("Apply to chat", key="tune-apply", on_click=_apply_and_flash, width="stretch",
              icon=":material/check:")
    if c3.button("Apply and chat", key="tune-apply-go", type="primary", width="stretch",
                 icon=":material/chat:"):
        apply_config(row.config.window_size, row.config.top_k, row.config.mode, res["knobs"])
        st.switch_page(CHAT_PAGE)
    missed = [o for o in row.outcomes if o.get("hit") is False]
    with st.expander(f"Questions this configuration misses ({len(missed)})"):
        if missed:
            st.dataframe(pd.DataFrame([{"question": o["question"], "context chars": o["chars"]} for o in missed]),
                         hide_index=True, width="stretch")
            st.caption("Open the Compare page to see why: two configurations side by side, and a probe that "
                       "says which limit cut a sentence.")
        else:
            st.caption("None.")


def _pick_label(row) -> str:
    f = (lambda v: "–" if v is None else f"{v:.2f}")
    return (f"{row.config.label()} · hit {f(row.hit_rate)} · MRR {f(row.mrr)} · "
            f"{row.context_chars:,.0f} chars")


# -- Compare ----------------------------------------------------------------------------------

COMPARE_PRESETS = {
    "window 1 vs window 3": ({"window": 1}, {"window": 3}),
    "window 0 vs window 5": ({"window": 0}, {"window": 5}),
    "hybrid vs dense": ({"mode": "hybrid"}, {"mode": "dense"}),
    "dense vs sparse": ({"mode": "dense"}, {"mode": "sparse"}),
    "top-k 3 vs top-k 8": ({"top_k": 3}, {"top_k": 8}),
    "DBSF vs RRF fusion": ({"mode": "hybrid", "fusion": "dbsf"}, {"mode": "hybrid", "fusion": "rrf"}),
    "RRF vs weighted fusion": ({"mode": "hybrid", "fusion": "rrf"},
                               {"mode": "hybrid", "fusion": "weighted", "dense_weight": 0.7}),
}


def _chat_side(settings: Settings) -> dict:
    ss = st.session_state
    return {"window": int(ss.get("cfg_window", settings.window_size)), "top_k": int(ss.get("cfg_top_k", settings.top_k)),
            "mode": ss.get("cfg_mode", settings.mode), "fusion": ss.get("cfg_fusion", settings.fusion),
            "dense_weight": float(ss.get("cfg_dense_weight", 0.5))}


def set_side(side: str, values: dict) -> None:
    """Set one side's knobs (``cmp_a_*`` / ``cmp_b_*``: the widget and its kept copy)."""
    ss = st.session_state
    for k, v in values.items():
        ss[f"cfg_cmp_{side}_{k}"] = v
        ss[f"w_cmp_{side}_{k}"] = v


def load_preset(settings: Settings, name: str) -> None:
    """Both sides from the chat's settings with the preset's differences."""
    a, b = COMPARE_PRESETS[name]
    base = _chat_side(settings)
    set_side("a", {**base, **a})
    set_side("b", {**base, **b})


def _on_preset(settings: Settings) -> None:
    name = st.session_state.get("cmp_preset")
    if name in COMPARE_PRESETS:
        load_preset(settings, name)


def compare_question(engine: Engine, kb: str) -> str:
    """The Compare page's CSS, question box (first preset question by default) and preset picker."""
    from swr import engine as engine_module

    _style(_COMPARE_CSS)
    ss = st.session_state
    presets = preset_questions(engine, kb)
    filled = ss.get("cmp_q_for")  # (kb, question) the box was last filled with
    if filled is None or (filled[0] != kb and ss.get("cfg_cmp_q", "") in ("", filled[1])):
        # first visit, or another KB while the box holds the previous KB's default: its first preset
        default = presets[0] if presets else ""
        ss["cfg_cmp_q"] = ss["w_cmp_q"] = default
        ss["cmp_q_for"] = (kb, default)
    question = _keep("cmp_q", st.text_input("Question", key=_persist("cmp_q", ""),
                                            max_chars=engine_module.MAX_QUESTION_CHARS))
    st.selectbox("Preset", list(COMPARE_PRESETS), index=None, key="cmp_preset",
                 placeholder="Load a preset (both sides start from the chat's settings)…",
                 on_change=_on_preset, args=(engine.settings,))
    return question


def side_controls(engine: Engine, side: str) -> tuple[int, dict]:
    """One side's window, top-k, mode, fusion and dense weight; (window, retrieval params). The other
    knobs (candidates, filters, cutoff, reranker) are the chat's, the same for both sides."""
    s = engine.settings
    if f"cfg_cmp_{side}_window" not in st.session_state:  # first visit: the first preset
        load_preset(s, next(iter(COMPARE_PRESETS)))
    default = _chat_side(s)

    def key(k):
        return _persist(f"cmp_{side}_{k}", default[k])

    window = _keep(f"cmp_{side}_window", st.slider("Window", 0, 10, key=key("window")))
    top_k = _keep(f"cmp_{side}_top_k", st.slider("Top-k", 1, 20, key=key("top_k")))
    mode = _keep(f"cmp_{side}_mode", st.radio("Mode", MODES, horizontal=True, key=key("mode")))
    fusion, weight = s.fusion, 0.5  # as the chat's parameters outside hybrid mode
    if mode == "hybrid":
        c1, c2 = st.columns(2)
        fusion = _keep(f"cmp_{side}_fusion", c1.radio("Fusion", ["dbsf", "rrf", "weighted"], horizontal=True,
                                                      key=key("fusion")))
        if fusion == "weighted":
            weight = _keep(f"cmp_{side}_dense_weight", c2.slider("Dense weight", 0.0, 1.0, step=0.05,
                                                                 key=key("dense_weight")))
    params = {**_params_from_cfg(s), "top_k": int(top_k), "mode": mode, "fusion": fusion,
              "dense_weight": float(weight)}
    return int(window), params


def side_label(window: int, params: dict) -> str:
    mode = params["mode"]
    if mode == "hybrid":
        mode += f"/{params['fusion']}" + (f" dense {params['dense_weight']}" if params["fusion"] == "weighted" else "")
    return f"window {window} · top-k {params['top_k']} · {mode}"


def run_compare(engine: Engine, kb: str, question: str, sides: dict[str, tuple[int, dict]]) -> None:
    """Ask the question with both configurations (the chat's own retrieve → windows → answer path);
    keep both results in session state (``cmp_result``)."""
    out = {}
    with st.spinner("Asking with both configurations…"):
        for side, (window, params) in sides.items():
            try:
                out[side] = {"window": window, "params": params,
                             "result": engine.ask(question, kb, window_size=window, **params)}
            except SwrError as exc:
                st.error(md(f"{side.upper()}: {exc.message}"))
                return
    st.session_state["cmp_result"] = {"kb": kb, "question": question, "sides": out}


def context_sentences(passages: list[Passage]) -> set[tuple[str, int]]:
    """(doc_id, sentence number) of every sentence in the context of these passages."""
    return {(p.doc_id, i) for p in passages for i in range(p.first, p.last + 1)}


def marked_cards(passages: list[Passage], other: set[tuple[str, int]], side: str, other_side: str) -> str:
    """Passage cards (escaped by :func:`render.passage_html`); a card holding sentences the other side
    did not send gets a coloured border and a badge naming them (and its hits the other side missed)."""
    if not passages:
        return '<div class="swr-empty">No passage found (check the filters).</div>'
    out = []
    for n, p in enumerate(passages, 1):
        card = render.passage_html(p, n)
        only = [i for i in range(p.first, p.last + 1) if (p.doc_id, i) not in other]
        if only:
            hits = [h.i for h in p.hits if (p.doc_id, h.i) not in other]
            total = p.last - p.first + 1
            badge = (f"only in {side.upper()}: {'all' if len(only) == total else len(only)} of {total} sentences"
                     f" (sentence{'s' * (len(only) > 1)} {_ranges(only)})"
                     + (f" · hit{'s' * (len(hits) > 1)} {_ranges(hits)} not in {other_side.upper()}" if hits else ""))
            card = card.replace('<div class="swr-passage"', f'<div class="swr-passage swr-only swr-only-{side}"', 1)
            card = card.replace(f'id="passage-{n}">', f'id="passage-{n}"><div class="swr-onlybadge">'
                                                       f"{render.esc(badge)}</div>", 1)
        out.append(card)
    return _anchored("".join(out), "c", side)


def compare_results(kb: str) -> None:
    """Both answers and both evidence lists side by side, sentences unique to one side marked."""
    res = st.session_state.get("cmp_result")
    if not res or res["kb"] != kb:
        return
    sides = res["sides"]
    sets = {k: context_sentences(v["result"].passages) for k, v in sides.items()}
    a, b = sets["a"], sets["b"]
    st.html(f'<div class="swr-cmphead">Question: <b>{render.esc(res["question"])}</b> · context sentences: '
            f'<span class="swr-side-a">A</span> {len(a)} · <span class="swr-side-b">B</span> {len(b)} · shared '
            f'{len(a & b)} · only in <span class="swr-side-a">A</span> <b>{len(a - b)}</b> · only in '
            f'<span class="swr-side-b">B</span> <b>{len(b - a)}</b></div>')
    cols = st.columns(2, gap="medium")
    for col, side, other in ((cols[0], "a", "b"), (cols[1], "b", "a")):
        v = sides[side]
        result: AskResult = v["result"]
        with col:
            st.html(f'<div class="swr-cmphead"><span class="swr-side-{side}">{side.upper()}</span> · '
                    f'{render.esc(side_label(v["window"], v["params"]))}</div>')
            if result.answer_kind == "llm":
                kind = f'<span class="swr-kind llm">LLM answer · {render.esc(result.settings.get("llm_model") or "")}</span>'
            else:
                kind = '<span class="swr-kind">Extractive answer (best passage, no LLM)</span>'
            st.html(kind + _anchored(render.answer_html(result.answer, len(result.passages)), "c", side)
                    + _html_text("swr-stamp", stamp_text(result)))
            if result.llm_error:
                st.error(md(f"The LLM failed, so this is the extractive answer instead. {result.llm_error}"))
            st.html(_evidence_head(result.passages, result.context_chars, result.context_tokens, "context"))
            _scroll_cards(f"cmp-{side}", marked_cards(result.passages, sets[other], side, other))


# -- why not retrieved? -----------------------------------------------------------------------

_CUT_LABELS = {None: "nothing (retrieved)", "top_k": "top-k", "candidates": "candidate pool", "filter": "filter",
               "no_shared_terms": "no shared term (BM25)", "missing": "not in the KB", "cutoff": "score cutoff"}


def _short_text(text: str, n: int = 110) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[:n - 1] + "…"


def probe_panel(engine: Engine, kb: str, question: str, sides: dict[str, tuple[int, dict]]) -> None:
    """Pick a document and one of its sentences; show why it was (not) retrieved for the question."""
    from swr import evaluate

    docs = [d for d in engine.docs(kb) if d.complete]
    if not docs:
        st.info("No documents in this knowledge base.")
        return
    by_id = {d.doc_id: d for d in docs}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    doc_id = c1.selectbox("Document", list(by_id), key="probe_doc",
                          format_func=lambda i: f"{by_id[i].source} ({by_id[i].sentences:,} sentences)")
    side = c2.radio("With the settings of", ["a", "b"], format_func=str.upper, horizontal=True, key="probe_side")
    sentences = engine.doc_sentences(kb, doc_id)
    if not sentences:
        st.info("This document has no sentences.")
        return
    by_i = {s.i: s for s in sentences}
    i = st.selectbox("Sentence (type to search)", list(by_i), key=f"probe_sent_{doc_id}",
                     format_func=lambda i: f"{i + 1}: {_short_text(by_i[i].text)}")
    params = sides[side][1]
    go = st.button("Why (not) retrieved?", key="probe-go", icon=":material/search:", disabled=not question.strip())
    if go:
        try:
            st.session_state["probe_result"] = {"side": side, "probe": evaluate.probe(engine, params, question, kb,
                                                                                      doc_id, i)}
        except SwrError as exc:
            st.error(md(exc.message))
    got = st.session_state.get("probe_result")
    if got and got["probe"]["kb"] == kb:
        probe_view(got["probe"], got["side"], params)


def probe_view(p: dict, side: str, params: dict | None = None) -> None:
    """The probe's answer: the sentence, its ranks and scores, and which limit cut it."""
    def rank(r):
        return "–" if r is None else f"#{r}"

    def score(x):
        return "–" if x is None else f"{x:.4g}"

    pp = p["params"]
    st.html(f'<div class="swr-cmphead">Sentence {p["i"] + 1} of <b>{render.esc(p.get("source") or p["doc_id"])}</b>'
            f' for <b>{render.esc(p["question"])}</b> with the settings of {side.upper()} ({render.esc(pp["mode"])}, '
            f'top-k {pp["top_k"]}, candidates {pp["dense_k"]}/{pp["sparse_k"]})</div>'
            + (f'<div class="swr-probe-text">{render.esc(p["text"])}</div>' if p.get("text") else "")
            + f'<div class="swr-probe-reason">{render.esc(p["reason"])}</div>')
    c = st.columns([2, 1, 1, 1, 1, 1])
    c[0].metric("Cut by", _CUT_LABELS.get(p["cut_by"], str(p["cut_by"])))
    c[1].metric(f"Rank ({pp['mode']})", rank(p["rank"]), help=f"Ranks are looked up to {p['probe_limit']}.")
    c[2].metric("Dense rank", rank(p["dense_rank"]), help=f"In the dense candidates (dense_k {pp['dense_k']}): "
                                                           f"{'yes' if p['in_dense_candidates'] else 'no'}")
    c[3].metric("Dense score", score(p["dense_score"]))
    c[4].metric("Sparse rank", rank(p["sparse_rank"]), help=f"In the sparse candidates (sparse_k {pp['sparse_k']}): "
                                                             f"{'yes' if p['in_sparse_candidates'] else 'no'}")
    c[5].metric("Sparse score", score(p["sparse_score"]), help=f"{p['shared_terms']} term(s) shared with the question")
    if p.get("cutoff_score") is not None:
        st.caption(f"The top-{pp['top_k']} list ends at score {p['cutoff_score']:.4g}.")
    if params and (params.get("min_score") is not None or "rerank" in (params.get("stages") or [])):
        st.caption("Note: the probe ranks before the score cutoff and the reranker of the chat's settings.")
