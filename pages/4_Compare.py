"""Compare page: one question, two configurations side by side (answers and evidence, the sentences
only one side sent marked), and a probe that says why a sentence was not retrieved.

Thin on purpose: session state and rendering live in swr.ui, the work in swr.engine/swr.evaluate.
"""
import streamlit as st

from swr import ui

ui.setup_page("Compare", "⚖️")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine, knobs=False)

st.markdown("#### ⚖️ Compare two configurations")
ui.require_kb(ctl)

question = ui.compare_question(engine, ctl.kb)
left, right = st.columns(2, gap="medium")
sides = {}
for col, side in ((left, "a"), (right, "b")):
    with col.container(border=True):
        st.html(f'<span class="swr-side-{side}">{side.upper()}</span>')
        sides[side] = ui.side_controls(engine, side)
st.caption("Candidates, filters, score cutoff and reranker: the chat's settings, the same for both sides.")
if st.button("Compare", type="primary", key="cmp-go", icon=":material/compare_arrows:",
             disabled=not question.strip()):
    ui.run_compare(engine, ctl.kb, question, sides)
ui.compare_results(ctl.kb)

st.markdown("##### Why not retrieved?")
st.caption("Pick a sentence you expected: its dense and sparse rank and score for the question, and which "
           "limit cut it (top-k, candidate pool, filter).")
ui.probe_panel(engine, ctl.kb, question, sides)
