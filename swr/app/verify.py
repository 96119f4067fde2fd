"""The Verify page: check claims against the selected knowledge base. Paste one claim (or one per
line) or upload a list; each gets a verdict (supported / contradicted / not found, with reasons) and its
best windows, highlighted inside their chunks. The work is :func:`swr.verify.verify.verify_many` (the
windows of every claim embedded in one batched call), its knobs a :class:`swr.core.params.VerifyParams`.

Document text and claims are untrusted: they reach the page only escaped (swr.manage.render) or as
plain table text.
"""
from __future__ import annotations

import json

import pandas as pd
import streamlit as st

import swr.verify.verify as vf
from swr.app import base, state
from swr.app.components.errors import md
from swr.app.components.sidebar import MODES, require_kb, sidebar
from swr.app.state import VERIFY
from swr.core.errors import SwrError
from swr.core.params import VerifyParams
from swr.engine import Engine
from swr.manage.render import esc, passage_html
from swr.verify.claim_io import read_claims
from swr.verify.results import SupportEntry


def render() -> None:
    """The whole page (``pages/3_Verify.py``)."""
    base.setup_page("Verify", base.TAB_ICONS[base.VERIFY_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine, knobs=False)
    st.markdown(f"#### {base.ICONS[base.VERIFY_PAGE]} Verify claims")
    kb = require_kb(ctl)
    st.caption("Similarity picks candidate windows; the verdict then checks numbers with their units, model "
               "numbers and error codes, negation, and the product a window is about (a fact about the rice "
               "cooker does not support a claim about the kettle). Supported: a window says the same and nothing "
               "differs. Contradicted: a window on the same subject states another number, unit or code, or the "
               "opposite. Not found: neither. A score is the cosine between the claim and the window in the "
               "embedding model, never a fused retrieval score; the threshold is the support cosine.")
    left, right = st.columns([3, 2], gap="medium")
    with left:
        text = st.text_area("Claims, one per line", key=VERIFY.claims, height=120, max_chars=20000,
                            placeholder="the warranty covers the heating element for two years")
        upload = st.file_uploader("…or upload a list (.txt one per line, .csv with a 'claim' column, .jsonl)",
                                  type=["txt", "csv", "jsonl"], key=VERIFY.file)
    with right:
        params = settings_panel(engine)
        go = st.button("Verify", type="primary", key=VERIFY.go, icon=":material/fact_check:",
                       width="stretch")
    if go:
        run_verify(engine, kb, text, upload, params)
    kept = state.VERIFY_RESULTS.get()
    if kept and kept[0] == kb:
        results_view(kept[1])


def settings_panel(engine: Engine) -> VerifyParams:
    """The verification knobs, defaults from :class:`VerifyParams` (the CLI's very defaults)."""
    d = VerifyParams.from_settings(engine.settings)
    name = engine.embedder.name
    with st.expander("Settings", expanded=False):
        default_t = d.threshold if d.threshold is not None else vf.default_threshold(name)
        threshold = st.slider("Threshold", 0.0, 1.0, float(default_t), 0.01, key=VERIFY.threshold,
                              help=f"The support cosine (default {default_t} for {name}): a window whose cosine "
                              "to the claim reaches it, and that states most of the claim's facts with no "
                              "differing number, code, polarity or product, supports the claim. A cosine of "
                              "this model, never a fused retrieval score (DBSF and RRF scores are relative to "
                              "one result list). Calibrated on bench/verdicts.py (bench/README.md, under verdicts.py).")
        c1, c2 = st.columns(2)
        window = c1.number_input("Window (sentences)", 1, 10, d.window, key=VERIFY.window)
        step = c2.number_input("Step", 1, 10, d.step, key=VERIFY.step)
        candidates = c1.number_input("Candidates", 1, 50, d.candidates, key=VERIFY.candidates,
                                     help="Sentences retrieved per claim; each becomes a chunk.")
        use_top = c2.number_input("Slide over top", 1, 20, d.use_top, key=VERIFY.use_top,
                                  help="The windows slide over this many best chunks.")
        passage_window = c1.number_input("Chunk ± sentences", 0, 10, d.passage_window, key=VERIFY.passage_window)
        top_k = c2.number_input("Entries per claim", 1, 10, d.top_k, key=VERIFY.top_k)
        mode = st.radio("Retrieval", MODES, index=MODES.index(d.mode), horizontal=True, key=VERIFY.mode)
    return d.with_(threshold=float(threshold), window=int(window), step=int(step), candidates=int(candidates),
                   use_top=int(use_top), passage_window=int(passage_window), top_k=int(top_k), mode=mode)


def verify_claims(engine: Engine, claims: list[str], kb: str, p: VerifyParams):
    """:func:`swr.verify.verify.verify_many` with these params."""
    return vf.verify_many(engine, claims, kb, candidates=p.candidates, use_top=p.use_top, window=p.window,
                          step=p.step, passage_window=p.passage_window, threshold=p.threshold, top_k=p.top_k,
                          mode=p.mode, fusion=p.fusion)


def run_verify(engine: Engine, kb: str, text: str, upload, params: VerifyParams) -> None:
    claims = read_claims("claims.txt", (text or "").encode("utf-8"))
    try:
        if upload is not None:
            claims += read_claims(upload.name, upload.getvalue())
        if not claims:
            st.warning("Type a claim or upload a list first.")
            return
        if len(claims) > params.max_claims:
            st.warning(f"Only the first {params.max_claims} of {len(claims)} claims are verified here; use "
                       "`python -m swr verify --file` for more.")
            claims = claims[:params.max_claims]
        with st.spinner(f"Verifying {len(claims)} claim(s)…"):
            with engine.batch("verify"):  # the whole run: one question of the user's rate limit
                state.VERIFY_RESULTS.set((kb, verify_claims(engine, claims, kb, params)))
    except SwrError as exc:
        st.error(md(exc.message))


def results_view(results: list) -> None:
    c = st.columns(5)
    c[0].metric("Claims", len(results))
    c[1].metric("Supported", sum(r.verdict == "supported" for r in results))
    c[2].metric("Contradicted", sum(r.verdict == "contradicted" for r in results))
    c[3].metric("Not found", sum(r.verdict == "not found" for r in results))
    r0 = results[0]
    c[4].metric("Embedding", f"{r0.counts['encoded_texts']} windows",
                help=f"{r0.counts['encode_calls']} model call(s), {r0.counts['stored_vectors']} stored vectors "
                     f"reused, {r0.timings.get('total_ms', 0):,.0f} ms in all.")
    rows = []
    for r in results:
        b = r.best
        rows.append({"claim": r.claim, "verdict": r.verdict, "best score": round(b.score, 4) if b else None,
                     "because": "; ".join(r.reasons),
                     "path": b.path if b else "", "source": b.source if b else "",
                     "sentences": f"{b.window_first + 1}–{b.window_last + 1}" if b else "",
                     "window": b.text if b else ""})
    table = pd.DataFrame(rows)
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"claim": st.column_config.TextColumn(width="medium"),
                                "window": st.column_config.TextColumn(width="large")})
    d1, d2 = st.columns(2)
    d1.download_button("Download CSV", table.to_csv(index=False).encode("utf-8"), "verify.csv", "text/csv",
                       key=VERIFY.csv, on_click="ignore", icon=":material/download:")
    d2.download_button("Download JSON", json.dumps([r.to_dict() for r in results], ensure_ascii=False, indent=1),
                       "verify.json", "application/json", key=VERIFY.json, on_click="ignore",
                       icon=":material/download:")
    for k, r in enumerate(results, 1):
        label = f"Claim {k}: {r.verdict}" + (f" ({r.best.score:.4f})" if r.best else "")
        with st.expander(label, expanded=len(results) <= 5):
            st.html(claim_html(k, r))


def _entry_head(n: int, e: SupportEntry, threshold: float) -> str:
    paths = " · ".join(f"{p} {v:.4f}" for p, v in e.paths.items())
    state_ = e.role
    warn = "".join(f' <span class="swr-warn">⚠ {esc(w)}</span>' for w in e.warnings)
    terms = f" · terms: {esc(', '.join(e.terms))}" if e.terms else ""
    return (f'<div class="swr-ventry"><b>[{n}] {e.score:.4f}</b> by <b>{esc(e.path)}</b> ({state_}) · '
            f"window {esc(f'{e.window_first + 1}–{e.window_last + 1}')}, position {e.position + 1} in its "
            f"chunk · {esc(paths)}{terms}{warn}</div>")


def claim_html(k: int, r) -> str:
    """One claim: verdict, claim, key terms, then each entry's head and its chunk (anchors ``v{k}-``)."""
    yes = r.verdict == "supported"
    parts = [f'<span class="swr-verdict {"yes" if yes else "no"}">{esc(r.verdict)}</span>',
             f'<span class="swr-vclaim">{esc(r.claim)}</span>',
             "".join(f'<div class="swr-ventry">because: {esc(w)}</div>' for w in r.reasons),
             (f'<div class="swr-ventry">threshold {r.threshold:g} · key terms: '
              f'{esc(", ".join(r.key_terms) or "none")}</div>')]
    if not r.entries:
        parts.append('<div class="swr-ventry">No candidate chunk was retrieved.</div>')
    for n, e in enumerate(r.entries, 1):
        parts.append(_entry_head(n, e, r.threshold) + passage_html(e.chunk, n, show_scores=False, anchor=f"v{k}-"))
    return "".join(parts)
