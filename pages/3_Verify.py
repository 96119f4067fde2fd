"""Verify page: check claims against the selected knowledge base. Paste one claim (or one per
line) or upload a list; each gets a verdict (supported / not found, by the threshold) and its
best windows, highlighted inside their chunks. The work is swr.verify.verify_many: the windows of
every claim are embedded in one batched call.

Document text and claims are untrusted: they reach the page only escaped (swr.render) or as
plain table text.
"""
import json

import pandas as pd
import streamlit as st

from swr import render, ui, verify as vf
from swr.errors import SwrError

MAX_CLAIMS = 200

ui.setup_page("Verify", "✅")
st.html("""<style>
.swr-vclaim{white-space:pre-wrap;overflow-wrap:anywhere;font-weight:600;margin:.2em 0}
.swr-verdict{display:inline-block;font-size:.78em;font-weight:600;border-radius:10px;padding:0 .6em;margin-right:.4em}
.swr-verdict.yes{color:#1a7f37;background:#dafbe1;border:1px solid #aceebb}
.swr-verdict.no{color:#9a6700;background:#fff8c5;border:1px solid #eac54f}
.swr-ventry{font-size:.85em;color:#57606a;margin:.6em 0 -.3em 0;overflow-wrap:anywhere}
.swr-ventry b{color:#1f2328}
.swr-warn{color:#bc4c00;font-weight:600}
</style>""")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine, knobs=False)
ss = st.session_state

st.markdown("#### ✅ Verify claims")
ui.require_kb(ctl)

st.caption("Each claim is checked three ways: semantic retrieval (hybrid), literal containment of its key terms, "
           "and windows of a few sentences sliding over the best chunks (all windows of all claims embedded in "
           "one batch). The best window per chunk counts; a score at or above the threshold supports the claim. "
           "A high score means the window says nearly the same thing, not that it entails the claim: read it "
           "(a warning marks a negation or a number that differs).")

left, right = st.columns([3, 2], gap="medium")
with left:
    text = st.text_area("Claims, one per line", key="verify_claims", height=120, max_chars=20000,
                        placeholder="the warranty covers the heating element for two years")
    upload = st.file_uploader("…or upload a list (.txt one per line, .csv with a 'claim' column, .jsonl)",
                              type=["txt", "csv", "jsonl"], key="verify_file")
with right:
    with st.expander("Settings", expanded=False):
        default_t = vf.default_threshold(engine.embedder.name)
        threshold = st.slider("Threshold", 0.0, 1.0, float(default_t), 0.01, key="verify_threshold",
                              help=f"Default {default_t} for {engine.embedder.name}: see swr/verify.py.")
        c1, c2 = st.columns(2)
        window = c1.number_input("Window (sentences)", 1, 10, 2, key="verify_window")
        step = c2.number_input("Step", 1, 10, 1, key="verify_step")
        candidates = c1.number_input("Candidates", 1, 50, 5, key="verify_candidates",
                                     help="Sentences retrieved per claim; each becomes a chunk.")
        use_top = c2.number_input("Slide over top", 1, 20, 2, key="verify_use_top",
                                  help="The windows slide over this many best chunks.")
        passage_window = c1.number_input("Chunk ± sentences", 0, 10, 3, key="verify_passage_window")
        top_k = c2.number_input("Entries per claim", 1, 10, 3, key="verify_top_k")
        mode = st.radio("Retrieval", ["hybrid", "dense", "sparse"], horizontal=True, key="verify_mode")
    go = st.button("Verify", type="primary", key="verify_go", icon=":material/fact_check:",
                   use_container_width=True)

if go:
    claims = vf.read_claims("claims.txt", (text or "").encode("utf-8"))
    try:
        if upload is not None:
            claims += vf.read_claims(upload.name, upload.getvalue())
        if not claims:
            st.warning("Type a claim or upload a list first.")
        else:
            if len(claims) > MAX_CLAIMS:
                st.warning(f"Only the first {MAX_CLAIMS} of {len(claims)} claims are verified here; use "
                           "`python -m swr verify --file` for more.")
                claims = claims[:MAX_CLAIMS]
            with st.spinner(f"Verifying {len(claims)} claim(s)…"):
                results = vf.verify_many(engine, claims, ctl.kb, candidates=int(candidates), use_top=int(use_top),
                                         window=int(window), step=int(step), passage_window=int(passage_window),
                                         threshold=float(threshold), top_k=int(top_k), mode=mode)
            ss["verify_results"] = (ctl.kb, results)
    except SwrError as exc:
        st.error(ui.md(exc.message))

kept = ss.get("verify_results")
if not kept or kept[0] != ctl.kb:
    st.stop()
results = kept[1]
supported = sum(r.verdict == "supported" for r in results)
c = st.columns(4)
c[0].metric("Claims", len(results))
c[1].metric("Supported", supported)
c[2].metric("Not found", len(results) - supported)
r0 = results[0]
c[3].metric("Embedding", f"{r0.counts['encoded_texts']} windows",
            help=f"{r0.counts['encode_calls']} model call(s), {r0.counts['stored_vectors']} stored vectors "
                 f"reused, {r0.timings.get('total_ms', 0):,.0f} ms in all.")

rows = []
for r in results:
    b = r.best
    rows.append({"claim": r.claim, "verdict": r.verdict, "best score": round(b.score, 4) if b else None,
                 "check": "⚠ " + "; ".join(b.warnings) if b and b.warnings else "",
                 "path": b.path if b else "", "source": b.source if b else "",
                 "sentences": f"{b.window_first + 1}–{b.window_last + 1}" if b else "",
                 "window": b.text if b else ""})
table = pd.DataFrame(rows)
st.dataframe(table, hide_index=True, use_container_width=True,
             column_config={"claim": st.column_config.TextColumn(width="medium"),
                            "window": st.column_config.TextColumn(width="large")})
d1, d2 = st.columns(2)
d1.download_button("Download CSV", table.to_csv(index=False).encode("utf-8"), "verify.csv", "text/csv",
                   key="verify_csv", on_click="ignore", icon=":material/download:")
d2.download_button("Download JSON", json.dumps([r.to_dict() for r in results], ensure_ascii=False, indent=1),
                   "verify.json", "application/json", key="verify_json", on_click="ignore",
                   icon=":material/download:")


def _entry_head(n: int, e: vf.SupportEntry, threshold: float) -> str:
    paths = " · ".join(f"{p} {v:.4f}" for p, v in e.paths.items())
    state = "supports" if e.supported else f"below {threshold:g}"
    warn = "".join(f' <span class="swr-warn">⚠ {render.esc(w)}</span>' for w in e.warnings)
    terms = f" · terms: {render.esc(', '.join(e.terms))}" if e.terms else ""
    return (f'<div class="swr-ventry"><b>[{n}] {e.score:.4f}</b> by <b>{render.esc(e.path)}</b> ({state}) · '
            f"window {render.esc(f'{e.window_first + 1}–{e.window_last + 1}')}, position {e.position + 1} in its "
            f"chunk · {render.esc(paths)}{terms}{warn}</div>")


for k, r in enumerate(results, 1):
    yes = r.verdict == "supported"
    label = f"Claim {k}: {r.verdict}" + (f" ({r.best.score:.4f})" if r.best else "")
    with st.expander(label, expanded=len(results) <= 5):
        parts = [f'<span class="swr-verdict {"yes" if yes else "no"}">{render.esc(r.verdict)}</span>',
                 f'<span class="swr-vclaim">{render.esc(r.claim)}</span>',
                 f'<div class="swr-ventry">threshold {r.threshold:g} · key terms: '
                 f'{render.esc(", ".join(r.key_terms) or "none")}</div>']
        if not r.entries:
            parts.append('<div class="swr-ventry">No candidate chunk was retrieved.</div>')
        for n, e in enumerate(r.entries, 1):
            card = render.passage_html(e.chunk, n, show_scores=False).replace(
                'id="passage-', f'id="v{k}-passage-')
            parts.append(_entry_head(n, e, r.threshold) + card)
        st.html("".join(parts))
