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
if not ctl.kb:
    if ctl.error:  # the store failed before any knowledge base was known (message in the sidebar too)
        st.error(ui.md(ctl.error))
        st.stop()
    st.info("There is no knowledge base yet.")
    st.page_link(ui.KB_PAGE, label="Create one and upload files", icon="📚")
    st.stop()

prompt = st.chat_input("Ask a question about the selected knowledge base…", max_chars=4000, key="chat")
pending = ui.take_pending(prompt)
if not ui.history() and not pending:
    ui.empty_state(engine, ctl)
ui.render_history(engine, ctl, live=pending is None)
if pending:
    ui.ask(engine, ctl, pending)
