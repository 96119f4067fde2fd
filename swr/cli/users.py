"""``python -m swr users add|list|reset|role|delete|grant``: the users file under SWR_HOME.

Passwords come from ``--password-stdin`` (the first line of stdin) or a prompt (twice, not echoed);
never from an argument (it would sit in the shell history and the process list). No output ever
contains a password or a hash. Every change is appended to the audit trail as the operating-system
user who ran it (``cli:<login>``).
"""
from __future__ import annotations

import getpass
import os
import sys

from swr.core.errors import BadRequest
from swr.manage.access.audit import AuditLog
from swr.manage.access.session_token import SessionTokens
from swr.manage.access.users import ROLES, UserStore, missing_message, unknown_kbs


def add_parser(sub) -> None:
    us = sub.add_parser("users", help="create, list, reset, delete users and grant knowledge-base access")
    act = us.add_subparsers(dest="users_cmd", required=True)
    add = act.add_parser("add", help="create a user")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    add.add_argument("--read", action="append", default=[], help="knowledge base it may read (repeatable; * = all)")
    add.add_argument("--edit", action="append", default=[], help="knowledge base it may edit (repeatable; * = all)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin's first line")
    add.add_argument("--json", action="store_true")
    ls = act.add_parser("list", help="list users, roles and grants (never a password or hash)")
    ls.add_argument("--json", action="store_true")
    rs = act.add_parser("reset", help="a new password and/or role")
    rs.add_argument("name")
    rs.add_argument("--role", choices=ROLES, default=None)
    rs.add_argument("--keep-password", action="store_true", help="only change the role")
    rs.add_argument("--password-stdin", action="store_true")
    rs.add_argument("--json", action="store_true")
    ro = act.add_parser("role", help="change a user's role (the password stays)")
    ro.add_argument("name")
    ro.add_argument("role", choices=ROLES)
    ro.add_argument("--json", action="store_true")
    de = act.add_parser("delete", help="delete a user")
    de.add_argument("name")
    de.add_argument("--json", action="store_true")
    gr = act.add_parser("grant", help="grant read or edit access to a knowledge base (none: revoke)")
    gr.add_argument("name")
    gr.add_argument("--kb", required=True, help="knowledge base name, or * for all")
    gr.add_argument("--access", choices=["read", "edit", "none"], required=True)
    gr.add_argument("--json", action="store_true")


def _password(a) -> str:
    if a.password_stdin:
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise BadRequest("No terminal to prompt for a password: pass --password-stdin and pipe it in.")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise BadRequest("The two passwords differ.")
    return first


def _operator() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return f"cli:{os.getuid()}"


def _require_kbs(settings, kbs) -> None:
    """:class:`BadRequest` for a knowledge base that does not exist. When the store is held by the
    running app it cannot be read here: say so on stderr and go on (the Users page checks)."""
    if not unknown_kbs(kbs, []):
        return
    from swr.core.errors import SwrError
    from swr.store import open_store

    try:
        store = open_store(settings)
    except SwrError as exc:
        print(f"warning: knowledge-base names not checked ({exc.message})", file=sys.stderr)
        return
    try:
        missing = unknown_kbs(kbs, store.kbs())
    finally:
        store.close()
    if missing:
        raise BadRequest(missing_message(missing))


def cmd_users(a, settings) -> dict:
    store, audit = UserStore.for_settings(settings), AuditLog.for_settings(settings)
    op = _operator()
    if a.users_cmd == "list":
        return {"users": store.list()}
    if a.users_cmd == "add":
        _require_kbs(settings, [*a.read, *a.edit])
        user = store.add(a.name, a.role, _password(a), read=a.read, edit=a.edit)
        audit.append(op, "admin", "user_add", object=user["name"], detail=user["role"])
        return {"user": user}
    if a.users_cmd == "reset":
        user = store.reset(a.name, None if a.keep_password else _password(a), a.role)
        if not a.keep_password:
            SessionTokens.for_settings(settings).revoke_user(a.name)
        audit.append(op, "admin", "user_reset", object=a.name,
                     detail=("role" if a.keep_password else "password") + (f", role {a.role}" if a.role else ""))
        return {"user": user}
    if a.users_cmd == "role":
        user = store.reset(a.name, role=a.role)
        audit.append(op, "admin", "user_role", object=a.name, detail=a.role)
        return {"user": user}
    if a.users_cmd == "delete":
        user = store.delete(a.name)
        SessionTokens.for_settings(settings).revoke_user(a.name)
        audit.append(op, "admin", "user_delete", object=a.name)
        return {"deleted": user}
    if a.access != "none":
        _require_kbs(settings, [a.kb])
    user = store.grant(a.name, a.kb, a.access)
    audit.append(op, "admin", "user_grant", kb=a.kb, object=a.name, detail=a.access)
    return {"user": user}


def print_human(out: dict) -> None:
    users = out.get("users") or [out.get("user") or out.get("deleted")]
    for u in users:
        grants = ", ".join([f"read {k}" for k in u["read"]] + [f"edit {k}" for k in u["edit"]]) or "no grants"
        print(f"{u['name']}: {u['role']} ({grants})")
    if "deleted" in out:
        print(f"deleted {out['deleted']['name']}")
