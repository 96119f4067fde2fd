"""Chat page: ask the selected knowledge base; every answer shows its evidence beside it.

Thin on purpose: session state and rendering live in swr.ui, the work in swr.engine.
Run: ``streamlit run app.py``.
"""
import streamlit as st

from swr import ui

ui.setup_page("Chat", "💬")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine)

st.markdown("#### 💬 Ask your documents")
ui.require_kb(ctl)

prompt = st.chat_input("Ask a question about the selected knowledge base…", max_chars=4000, key="chat")
pending = ui.take_pending(prompt)
if not ui.history() and not pending:
    ui.empty_state(engine, ctl)
ui.render_history(engine, ctl, live=pending is None)
if pending:
    ui.ask(engine, ctl, pending)
