"""The audit trail for admins (a tab of the Knowledge bases page): who uploaded, deleted, changed
preset questions or users, when, in which knowledge base. Names and counts only (swr.manage.access.audit)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from swr.manage.access import AuditLog, GuardedEngine

AUDIT_ROWS = 200
COLUMNS = ["time", "user", "role", "action", "kb", "object", "doc_id", "count", "ok", "detail"]


def audit_panel(engine: GuardedEngine) -> None:
    if not engine.actor.is_admin:
        return
    log = AuditLog.for_settings(engine.settings)
    entries = log.entries(limit=AUDIT_ROWS)
    st.caption(f"The last {len(entries):,} entries of {log.path}, newest first.")
    if not entries:
        st.info("Nothing recorded yet.")
        return
    # st.table: plain text cells in the page (a data grid draws on a canvas), escaped by Streamlit
    with st.container(key="audit_table", height=480):
        st.table(pd.DataFrame(entries, columns=COLUMNS).astype(str).replace({"None": "", "nan": ""}))
