"""Users, roles and knowledge-base grants: ``SWR_HOME/users.json``, passwords bcrypt-hashed.

Roles (what each may do; grants say *where*):

- ``admin``: everything, on every knowledge base (create/delete knowledge bases, users, the audit
  trail); grants are not needed.
- ``editor``: read the knowledge bases granted ``read`` or ``edit``; upload and delete documents and
  edit preset questions where granted ``edit``.
- ``agent``: ask (any knobs), export, feedback on the knowledge bases granted ``read``/``edit``;
  writes nothing.
- ``viewer``: demo mode only: the preset questions of the granted knowledge bases with the default
  knobs; writes nothing.

A grant of ``*`` means every knowledge base. Hidden knowledge bases (``~chunks:<kb>:...``, the
chunk baselines of the Tune page) follow the knowledge base they were built from.

The file never leaves this module's hands with a hash in it: :meth:`UserStore.list` and
:meth:`Actor.public` carry names, roles and grants only.
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path

import bcrypt

from swr.core.errors import BadRequest, NotFound
from swr.core.files import read_json_cached, write_json_atomic

ROLES = ("admin", "editor", "agent", "viewer")
WRITERS = ("admin", "editor")
ALL = "*"
MIN_PASSWORD = 8
_NAME = re.compile(r"^[\w.@+-]{1,64}$")
BCRYPT_ROUNDS = 12  # bcrypt's default cost; every hash of the file and the dummy below use it


@functools.cache
def _dummy_hash() -> bytes:
    """Checked against when the user name is unknown, so a wrong name costs the same bcrypt time as a
    wrong password (same cost factor as real hashes: a cheaper dummy would be a timing hint)."""
    return bcrypt.hashpw(b"not-a-password", bcrypt.gensalt(rounds=BCRYPT_ROUNDS))


def base_kb(kb: str) -> str:
    """The knowledge base a hidden one was built from (``~chunks:faq:256:32`` -> ``faq``)."""
    if kb.startswith("~chunks:"):
        rest = kb[len("~chunks:"):]
        parts = rest.rsplit(":", 2)
        return parts[0] if len(parts) == 3 else kb
    return kb


@dataclass(frozen=True)
class Actor:
    """The acting user: name, role and the knowledge bases it may read and edit."""

    name: str
    role: str
    read: frozenset = field(default_factory=frozenset)
    edit: frozenset = field(default_factory=frozenset)
    local: bool = False  # the unauthenticated single-user local mode (no users configured)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise BadRequest(f"Unknown role {self.role!r}; one of: {', '.join(ROLES)}.")

    @classmethod
    def local_user(cls) -> "Actor":
        """Open mode: no users configured, loopback bind: the one local user may do everything."""
        return cls("local", "admin", frozenset({ALL}), frozenset({ALL}), local=True)

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def can_read(self, kb: str) -> bool:
        kb = base_kb(kb)
        return self.is_admin or bool({ALL, kb} & (self.read | self.edit))

    def can_edit(self, kb: str) -> bool:
        """Upload/delete documents and edit preset questions in ``kb``."""
        kb = base_kb(kb)
        return self.is_admin or (self.role == "editor" and bool({ALL, kb} & self.edit))

    @property
    def can_write(self) -> bool:
        return self.role in WRITERS

    @property
    def demo_only(self) -> bool:
        return self.role == "viewer"

    def public(self) -> dict:
        return {"name": self.name, "role": self.role, "read": sorted(self.read), "edit": sorted(self.edit),
                "local": self.local}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class UserStore:
    """The users file. Thread-safe; every change is written atomically (temp file + rename, mode 0600)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings) -> "UserStore":
        return cls(settings.home / "users.json")

    # -- file --------------------------------------------------------------------------------
    def _load(self) -> dict:
        if not self.path.is_file():
            return {}
        data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        return data.get("users", {})

    def _view(self) -> dict:
        """The users as last written, for reading only (parsed again only when the file changed)."""
        return (read_json_cached(self.path, {}) or {}).get("users", {})

    def _save(self, users: dict) -> None:
        write_json_atomic(self.path, {"version": 1, "users": users}, indent=1, ensure_ascii=False)

    def configured(self) -> bool:
        """True once at least one user exists (then sign-in is required)."""
        return bool(self._view())

    # -- reading -----------------------------------------------------------------------------
    def list(self) -> list[dict]:
        """Every user: name, role, grants, dates. Never a hash."""
        return [_public(name, rec) for name, rec in sorted(self._load().items())]

    def actor(self, name: str) -> Actor:
        rec = self._view().get(name)
        if rec is None:
            raise NotFound(f"No user named {name!r}.")
        return _actor(name, rec)

    def authenticate(self, name: str, password: str) -> Actor | None:
        """The actor when ``name`` and ``password`` match, else None (no hint which was wrong)."""
        name = (name or "").strip()
        rec = self._load().get(name)
        hashed = rec["hash"].encode() if rec else _dummy_hash()
        ok = bcrypt.checkpw((password or "").encode("utf-8")[:72], hashed)  # bcrypt compares in constant time
        return _actor(name, rec) if ok and rec else None

    # -- changes -----------------------------------------------------------------------------
    def add(self, name: str, role: str, password: str, *, read=(), edit=()) -> dict:
        name = _check_name(name)
        if role not in ROLES:
            raise BadRequest(f"Unknown role {role!r}; one of: {', '.join(ROLES)}.")
        with self._lock:
            users = self._load()
            if name in users:
                raise BadRequest(f"User {name!r} exists already (use `users reset` for a new password).")
            users[name] = {"role": role, "hash": _hash(password), "read": sorted(set(read)),
                           "edit": sorted(set(edit)), "created_at": _now(), "changed_at": _now()}
            self._save(users)
            return _public(name, users[name])

    def reset(self, name: str, password: str | None = None, role: str | None = None) -> dict:
        """A new password and/or role."""
        with self._lock:
            users = self._load()
            rec = users.get(name)
            if rec is None:
                raise NotFound(f"No user named {name!r}.")
            if role is not None:
                if role not in ROLES:
                    raise BadRequest(f"Unknown role {role!r}; one of: {', '.join(ROLES)}.")
                rec["role"] = role
            if password is not None:
                rec["hash"] = _hash(password)
            rec["changed_at"] = _now()
            self._save(users)
            return _public(name, rec)

    def delete(self, name: str) -> dict:
        with self._lock:
            users = self._load()
            if name not in users:
                raise NotFound(f"No user named {name!r}.")
            rec = users.pop(name)
            self._save(users)
            return _public(name, rec)

    def grant(self, name: str, kb: str, access: str) -> dict:
        """``access``: ``read``, ``edit`` (implies read) or ``none`` (revoke) on ``kb`` (``*``: all)."""
        if access not in ("read", "edit", "none"):
            raise BadRequest("Access must be read, edit or none.")
        kb = (kb or "").strip()
        if not kb:
            raise BadRequest("Name the knowledge base (or * for all).")
        with self._lock:
            users = self._load()
            rec = users.get(name)
            if rec is None:
                raise NotFound(f"No user named {name!r}.")
            read, edit = set(rec.get("read", [])) - {kb}, set(rec.get("edit", [])) - {kb}
            if access == "read":
                read.add(kb)
            elif access == "edit":
                edit.add(kb)
            rec["read"], rec["edit"], rec["changed_at"] = sorted(read), sorted(edit), _now()
            self._save(users)
            return _public(name, rec)


def unknown_kbs(kbs, known) -> list[str]:
    """The names in ``kbs`` that are neither ``*`` nor among ``known``."""
    known = set(known)
    return sorted({(k or "").strip() for k in kbs} - known - {ALL})


def missing_message(missing: list[str]) -> str:
    return (f"No knowledge base named {', '.join(map(repr, missing))}: create it first (or grant * for "
            "every knowledge base).")


def new_password() -> str:
    """A random password for an admin to hand over (16 URL-safe characters, 96 bits)."""
    return secrets.token_urlsafe(12)


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not _NAME.match(name):
        raise BadRequest("A user name is 1 to 64 letters, digits or . _ @ + - (an e-mail address works).")
    return name


def _hash(password: str) -> str:
    if not password or len(password) < MIN_PASSWORD:
        raise BadRequest(f"A password needs at least {MIN_PASSWORD} characters.")
    raw = password.encode("utf-8")
    if len(raw) > 72:  # bcrypt reads 72 bytes; refuse rather than silently ignore the rest
        raise BadRequest("A password may be at most 72 bytes (bcrypt's limit).")
    return bcrypt.hashpw(raw, bcrypt.gensalt(rounds=BCRYPT_ROUNDS)).decode("ascii")


def _actor(name: str, rec: dict) -> Actor:
    return Actor(name, rec["role"], frozenset(rec.get("read", [])), frozenset(rec.get("edit", [])))


def _public(name: str, rec: dict) -> dict:
    return {"name": name, "role": rec["role"], "read": list(rec.get("read", [])), "edit": list(rec.get("edit", [])),
            "created_at": rec.get("created_at"), "changed_at": rec.get("changed_at")}
