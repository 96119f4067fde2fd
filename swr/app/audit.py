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
        st.table(audit_frame(entries))


def count_text(v) -> str:
    """A count as people write it: ``3``, never ``3.0`` (a column with a missing count is read as
    floats); empty when missing."""
    if v is None or v != v or v == "":  # None, NaN, ""
        return ""
    try:
        return str(int(float(v)))
    except (TypeError, ValueError):
        return str(v)


def audit_frame(entries: list[dict]) -> pd.DataFrame:
    """The entries as plain text cells, counts as integers."""
    df = pd.DataFrame(entries, columns=COLUMNS)
    counts = [count_text(v) for v in df["count"]]
    df = df.astype(object).where(df.notna(), "").astype(str).replace({"None": "", "nan": ""})
    df["count"] = counts
    return df
