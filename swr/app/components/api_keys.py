"""The Users page's API keys panel (admins): create a key for a user (narrowed to knowledge bases,
read-only), shown once; list and revoke keys. Through the checked view, which audits each change."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from swr.app.components.errors import flash, md
from swr.app.state import Slot
from swr.core.errors import SwrError

ONE_TIME_KEY = Slot[tuple]("users_one_time_key")  # (key id, secret): shown once, then popped


def panel(engine, users: list[dict]) -> None:
    st.markdown("##### API keys")
    st.caption("For Dify, OpenAI clients, MCP agents and scripts (see docs/api.md): a key acts as its user, "
               "narrowed to the knowledge bases and access chosen here.")
    pending = ONE_TIME_KEY.pop()
    if pending:
        with st.container(key="one_time_key", border=True):
            st.success(md(f"API key {pending[0]}, shown this once (only its SHA-256 is stored): copy it now."))
            st.code(pending[1], language=None)
    try:
        keys = engine.api_keys()
    except SwrError as exc:
        st.error(md(exc.message))
        return
    if keys:
        rows = [{"id": k["id"], "user": k["user"], "name": k["name"], "knowledge bases": ", ".join(k["kbs"]) or "*",
                 "read-only": k["read_only"], "created": k["created_at"][:16].replace("T", " "),
                 "revoked": (k.get("revoked_at") or "")[:16].replace("T", " ")} for k in keys]
        with st.container(key="api_keys_table"):
            st.table(pd.DataFrame(rows))
    _create_form(engine, users)
    live = [k["id"] for k in keys if not k.get("revoked_at")]
    if live:
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        kid = c1.selectbox("Revoke key", live, key="revoke_key_id")
        if c2.button("Revoke", key="revoke_key_go"):
            _run(lambda: engine.revoke_api_key(kid), f"Revoked key {kid}.")


def _create_form(engine, users: list[dict]) -> None:
    kbs = [k["kb"] for k in engine.kbs()]
    with st.expander("Create an API key", key="create_key_box"):
        with st.form("create_key", clear_on_submit=True, border=False):
            c1, c2 = st.columns(2)
            user = c1.selectbox("User", [u["name"] for u in users], key="new_key_user")
            name = c2.text_input("What it is for", key="new_key_name", placeholder="dify-prod")
            only = c1.multiselect("Only these knowledge bases (empty: all the user may read)", kbs, key="new_key_kbs")
            read_only = c2.checkbox("Read-only", key="new_key_read_only", value=True)
            go = st.form_submit_button("Create key", type="primary")
        if go and user:
            _run(lambda: engine.create_api_key(user, kbs=only, read_only=read_only, name=name),
                 f"Created a key for {user}.")


def _run(action, ok: str) -> None:
    try:
        out = action()
    except SwrError as exc:
        flash("error", exc.message)
    else:
        if isinstance(out, tuple):
            ONE_TIME_KEY.set((out[0]["id"], out[1]))
        flash("success", ok)
    st.rerun()
