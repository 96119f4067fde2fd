"""``python -m swr serve|keys|publish``, and the other commands through a running server.

- ``serve``: the HTTP API alone (:mod:`swr.api`, uvicorn), no pages.
- ``keys create|list|revoke``: API keys (:mod:`swr.manage.access.keys`); the secret is printed once.
- ``publish show|set|restore --kb KB``: a knowledge base's published settings (:mod:`swr.manage.published`);
  ``set --words FILE`` publishes its own words (:mod:`swr.text.kb_words`).

Changes are audited as the operating-system user who ran them (``cli:<login>``), as ``swr users``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from swr.core.errors import BadRequest


def add_parsers(sub) -> None:
    sv = sub.add_parser("serve", help="serve the HTTP API alone (Dify, OpenAI-compatible, MCP; no pages)")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--json", action="store_true")

    ks = sub.add_parser("keys", help="create, list and revoke API keys")
    act = ks.add_subparsers(dest="keys_cmd", required=True)
    cr = act.add_parser("create", help="a new key for a user (the secret is shown once)")
    cr.add_argument("--user", required=True, help="the user the key acts as (swr users list)")
    cr.add_argument("--kb", action="append", default=[], help="only this knowledge base (repeatable)")
    cr.add_argument("--read-only", action="store_true", help="no uploads or deletions even for a writer")
    cr.add_argument("--name", default="", help="what the key is for (e.g. dify-prod)")
    cr.add_argument("--questions-per-min", type=int, default=None)
    cr.add_argument("--upload-mb-per-hour", type=float, default=None)
    cr.add_argument("--json", action="store_true")
    ls = act.add_parser("list", help="list keys (never a secret)")
    ls.add_argument("--user", default=None)
    ls.add_argument("--json", action="store_true")
    rv = act.add_parser("revoke", help="revoke a key by its id")
    rv.add_argument("id")
    rv.add_argument("--json", action="store_true")

    pb = sub.add_parser("publish", help="show, set or restore a knowledge base's published settings")
    pb.add_argument("action", choices=["show", "set", "restore"])
    pb.add_argument("--kb", required=True)
    pb.add_argument("--version", type=int, default=None, help="restore: the version to publish again")
    for flag, kind in (("--window-size", int), ("--top-k", int), ("--mode", str), ("--fusion", str),
                       ("--window-mode", str), ("--budget", int), ("--dense-weight", float),
                       ("--min-score", float)):
        pb.add_argument(flag, type=kind, default=None)
    pb.add_argument("--words", default=None, metavar="FILE",
                    help="set: the knowledge base's own words, one 'english<TAB>中文' a line (an empty file: none)")
    pb.add_argument("--note", default="")
    pb.add_argument("--json", action="store_true")


def cmd_serve(a, cli_commands=None) -> dict:
    """``python -m swr serve``; ``cli_commands`` runs a local command line's commands here."""
    from swr.api.serve import run

    run(a.host, a.port, cli_commands=cli_commands)
    return {"stopped": True}


def cmd_keys(a) -> dict:
    from swr.cli.users import _operator
    from swr.core.settings import Settings
    from swr.manage.access import AuditLog, UserStore
    from swr.manage.access.keys import KeyStore

    settings = Settings.from_env()
    keys, audit, op = KeyStore.for_settings(settings), AuditLog.for_settings(settings), _operator()
    if a.keys_cmd == "list":
        return {"keys": keys.list(a.user)}
    if a.keys_cmd == "revoke":
        key = keys.revoke(a.id)
        audit.append(op, "admin", "key_revoke", object=a.id, detail=key["user"])
        return {"revoked": key}
    key, secret = keys.create(a.user, UserStore.for_settings(settings), kbs=a.kb, read_only=a.read_only,
                              name=a.name, questions_per_min=a.questions_per_min,
                              upload_mb_per_hour=a.upload_mb_per_hour)
    audit.append(op, "admin", "key_create", object=key["id"], detail=key["user"])
    return {"key": key, "secret": secret}


def read_words(path: str) -> str:
    """The text of a words file (UTF-8; a clear error for a missing or undecodable one)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadRequest(f"Cannot read the words file {path}: {exc}.") from exc


def cmd_publish(a) -> dict:
    from swr.cli.users import _operator
    from swr.core.settings import Settings
    from swr.engine import Engine
    from swr.text import kb_words

    eng = Engine(Settings.from_env())
    try:
        if a.action == "show":
            return {"kb": a.kb, "versions": [p.to_dict() for p in eng.published_versions(a.kb)]}
        if a.action == "restore":
            if a.version is None:
                raise BadRequest("`publish restore` needs --version (see `publish show`).")
            pub = eng.restore_published(a.kb, a.version, _operator())
        else:
            words = None if a.words is None else kb_words.parse(read_words(a.words))
            params = eng.kb_params(a.kb, window_size=a.window_size, top_k=a.top_k, mode=a.mode, fusion=a.fusion,
                                   window_mode=a.window_mode, budget_chars=a.budget, dense_weight=a.dense_weight,
                                   glossary=words, **({"min_score": a.min_score} if a.min_score is not None else {}))
            pub = eng.publish(a.kb, params, _operator(), origin="cli", note=a.note)
        from swr.manage.access import AuditLog

        AuditLog.for_settings(eng.settings).append(_operator(), "admin", "publish", kb=a.kb,
                                                   object=f"v{pub.version}", detail=pub.origin)
        return {"kb": a.kb, "published": pub.to_dict()}
    finally:
        eng.close()


HANDLERS = {"serve": cmd_serve, "keys": cmd_keys, "publish": cmd_publish}


def through_server(a, locked):
    """The command run by the server holding the store (:mod:`swr.api.client`), or ``locked`` again."""
    from swr.core.settings import Settings

    try:
        from swr.api.client import run_remote
    except ImportError:  # the API's packages are not installed
        raise locked from None
    return run_remote(a, Settings.from_env(), locked)


def namespace(cmd: str, args: dict) -> argparse.Namespace:
    """The arguments a client sent, as the parser would have made them (paths as Paths)."""
    from pathlib import Path

    ns = argparse.Namespace(**args)
    ns.cmd = cmd
    if cmd == "index":
        ns.paths = [Path(p) for p in args.get("paths", [])]
    if cmd == "ask" and args.get("history"):
        ns.history = Path(args["history"])
    return ns


def print_human(cmd: str, out: dict) -> None:
    if cmd == "keys":
        if "secret" in out:
            k = out["key"]
            print(f"key {k['id']} for {k['user']} (shown once, keep it now):\n{out['secret']}")
            return
        for k in out.get("keys") or [out.get("revoked")]:
            scope = ", ".join(k["kbs"]) or "every readable knowledge base"
            state = f"revoked {k['revoked_at']}" if k.get("revoked_at") else "active"
            print(f"{k['id']}  {k['user']}  {k.get('name') or '-'}  {scope}{' (read-only)' * k['read_only']}  {state}")
    elif cmd == "publish":
        for p in out.get("versions") or [out.get("published")]:
            if p:
                knobs = ", ".join(f"{k} {v}" for k, v in p["params"].items() if v not in (None, [], ()))
                print(f"v{p['version']} by {p['by']} at {p['at']} ({p['origin']}): {knobs}")
        if not out.get("versions") and not out.get("published"):
            print(f"nothing published for {out['kb']}: every consumer uses the defaults")

