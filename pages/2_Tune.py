"""Tune page: sweep windows x top-k x modes (and the plain-chunk baseline) over a question set with
expected answers, see hit rate against context size, and apply the best configuration to the chat.

Thin on purpose: session state, widgets and charts live in swr.ui, the sweep in swr.evaluate.
"""
import streamlit as st

from swr import ui

ui.setup_page("Tune", "🎛️")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine, knobs=False)

st.markdown("#### 🎛️ Tune retrieval on your own questions")
ui.require_kb(ctl)

st.caption("Each question needs expected answer snippets; a question is a hit when one of them occurs in the "
           "context that would be sent to the LLM. Every window x top-k is derived from one search per "
           "question and mode, so large grids stay cheap.")
questions, source = ui.tune_questions(engine, ctl.kb)
grid = ui.tune_grid(engine, len(questions))
if grid is not None and questions:
    ui.run_tune(engine, ctl.kb, questions, source, grid)
ui.tune_results(engine, ctl.kb)
