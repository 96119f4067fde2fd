"""The users page (admins only): add a user with a role, reset a password, change a role, remove a
user, grant read or edit access per knowledge base. Every change goes through the checked engine
view (:class:`swr.access.GuardedEngine`, which refuses non-admins itself and writes the audit trail);
a generated password is shown once to the admin (from session state, popped when shown) and never
logged or audited."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from . import base
from .components.errors import errors_shown, flash, md, show_flash
from .components.sidebar import sidebar
from .state import Slot
from swr.access import ROLES, GuardedEngine
from swr.errors import SwrError

ADMINS_ONLY = "👥 Users are managed by admins only: ask an admin to add users, change roles or grant access."
ALL_KBS = "*"
ACCESS = ("read", "edit", "none")
ONE_TIME = Slot[tuple]("users_one_time_password")  # (user name, password): shown once, then popped


def render() -> None:
    """The whole page (``pages/6_Users.py``)."""
    base.setup_page("Users", "👥")
    engine = base.engine_or_stop()
    sidebar(engine, knobs=False)
    st.markdown("#### 👥 Users")
    if not engine.actor.is_admin:
        st.info(ADMINS_ONLY)
        return
    show_flash()
    _show_one_time_password()
    with errors_shown():
        users = engine.users()
        if engine.actor.local:
            st.warning("Open local mode: the first user you add turns sign-in on for every session, this "
                       "one included. Add yourself as an admin first.")
        users_table(users)
        add_user_form(engine)
        if users:
            change_user_panel(engine, users)


def _show_one_time_password() -> None:
    pending = ONE_TIME.pop()
    if pending:
        name, password = pending
        with st.container(key="one_time_password", border=True):
            st.success(md(f"The new password of {name}, shown this once (it is stored only as a bcrypt hash): "
                          "copy it now and hand it over safely."))
            st.code(password, language=None)


def users_table(users: list[dict]) -> None:
    if not users:
        st.info("No users yet.")
        return
    rows = [{"user": u["name"], "role": u["role"], "read": ", ".join(u["read"]), "edit": ", ".join(u["edit"]),
             "changed": (u.get("changed_at") or "")[:16].replace("T", " ")} for u in users]
    with st.container(key="users_table"):
        st.table(pd.DataFrame(rows))  # plain text cells, escaped by Streamlit


def _kb_choices(engine: GuardedEngine) -> list[str]:
    return [ALL_KBS] + [k["kb"] for k in engine.kbs()]


def _done(action, ok: str, *args, **kw):
    """Run one change; a flash message for the next run, and the password (if any) kept to show once."""
    try:
        out = action(*args, **kw)
    except SwrError as exc:
        flash("error", exc.message)
        return None
    user, password = out if isinstance(out, tuple) else (out, None)
    if password:
        ONE_TIME.set((user["name"], password))
    flash("success", ok)
    return user


def add_user_form(engine: GuardedEngine) -> None:
    kbs = _kb_choices(engine)
    with st.expander("Add a user", expanded=False, key="add_user_box"):
        with st.form("add_user", clear_on_submit=True, border=False):
            c1, c2 = st.columns(2)
            name = c1.text_input("User name (or the e-mail address of the identity provider)", key="new_user_name")
            role = c2.selectbox("Role", ROLES, index=ROLES.index("agent"), key="new_user_role")
            read = c1.multiselect("May read", kbs, key="new_user_read", help="* = every knowledge base")
            edit = c2.multiselect("May edit (editors)", kbs, key="new_user_edit")
            password = st.text_input("Password (empty: generate one, shown once)", type="password",
                                     key="new_user_password")
            go = st.form_submit_button("Add user", type="primary")
        if go:
            name = (name or "").strip()
            _done(engine.add_user, f"Added {name} ({role}).", name, role, password or None, read=read, edit=edit)
            st.rerun()


def change_user_panel(engine: GuardedEngine, users: list[dict]) -> None:
    names = [u["name"] for u in users]
    st.markdown("##### Change a user")
    name = st.selectbox("User", names, key="pick_user")
    user = next(u for u in users if u["name"] == name)
    role_col, grant_col = st.columns(2)
    with role_col, st.form("user_role", border=True):
        role = st.selectbox("Role", ROLES, index=ROLES.index(user["role"]), key="user_role_pick")
        if st.form_submit_button("Change role"):
            _done(engine.set_role, f"{name} is now {role}.", name, role)
            st.rerun()
    with grant_col, st.form("user_grant", border=True):
        c1, c2 = st.columns(2)
        kb = c1.selectbox("Knowledge base", _kb_choices(engine), key="grant_kb")
        access = c2.selectbox("Access", ACCESS, key="grant_access", help="edit implies read; none revokes")
        if st.form_submit_button("Set access"):
            _done(engine.grant, f"{name}: {access} on {kb}.", name, kb, access)
            st.rerun()
    pw_col, rm_col = st.columns(2)
    with pw_col, st.form("user_password", clear_on_submit=True, border=True):
        password = st.text_input("New password (empty: generate one, shown once)", type="password",
                                 key="reset_password")
        if st.form_submit_button("Reset password"):
            _done(engine.reset_password, f"New password set for {name}.", name, password or None)
            st.rerun()
    with rm_col, st.container(border=True):
        confirm = st.checkbox(f"Yes, remove {name}", key=f"confirm_remove_{name}")
        if st.button("Remove user", key="remove_user", disabled=not confirm):
            if _done(engine.delete_user, f"Removed {name}.", name) is not None:
                st.session_state.pop("pick_user", None)
            st.rerun()
