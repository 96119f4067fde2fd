"""Knowledge-base page: create/delete knowledge bases, upload and index files, list and delete
documents, preview a document's sentence split, edit preset questions, system information."""
import streamlit as st

from swr import ui

ui.setup_page("Knowledge bases", "📚")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine, knobs=False)

st.markdown("#### 📚 Knowledge bases")
ui.kb_manager(engine, ctl.kb)
if ctl.kb:
    upload, documents, golden, system = st.tabs(["Upload", "Documents", "Preset questions", "System"])
    with upload:
        ui.upload_panel(engine, ctl.kb)
    with documents:
        ui.documents_panel(engine, ctl.kb)
    with golden:
        ui.golden_editor(engine, ctl.kb)
    with system:
        ui.system_panel(engine)
else:
    ui.system_panel(engine)
