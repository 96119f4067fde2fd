"""Knowledge-base page: create/delete knowledge bases, upload and index files, list and delete
documents, preview a document's sentence split, edit preset questions, system information."""
import streamlit as st

from swr import ui

ui.setup_page("Knowledge bases", "📚")
engine = ui.engine_or_stop()
ctl = ui.sidebar(engine, knobs=False)

st.markdown("#### 📚 Knowledge bases")
with ui.errors_shown():  # e.g. the Qdrant server went away: a message, not a traceback
    ui.kb_manager(engine, ctl.kb)
if ctl.kb:
    upload, documents, golden, system = st.tabs(["Upload", "Documents", "Preset questions", "System"])
    with upload, ui.errors_shown():
        ui.upload_panel(engine, ctl.kb)
    with documents, ui.errors_shown():
        ui.documents_panel(engine, ctl.kb)
    with golden, ui.errors_shown():
        ui.golden_editor(engine, ctl.kb)
    with system, ui.errors_shown():
        ui.system_panel(engine)
else:
    with ui.errors_shown():
        ui.system_panel(engine)
