"""API keys: ``SWR_HOME/keys.json`` (mode 0600), for the HTTP API, Dify, OpenAI clients and MCP.

A key belongs to a user (its role and grants, :mod:`.users`) and may be narrowed to some knowledge
bases and to read-only: it never allows more than its user may do. The secret
(``swr_<id>_<43 random characters>``, 256 bits) is shown once, when created; the file keeps its
SHA-256 only (a key is random, not a password: one fast hash is enough and checks stay cheap under
load). Keys are listed (never a secret or hash) and revoked; each has its own question and upload
limits. Creating, revoking and every use are audited (by the API, :mod:`swr.api`).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from swr.core.errors import BadRequest, NotFound
from swr.core.files import read_json_cached, write_json_atomic
from swr.manage.access.users import ALL, WRITERS, Actor, UserStore

_SECRET = re.compile(r"^swr_([0-9a-f]{12})_[A-Za-z0-9_-]{20,}$")


@dataclass(frozen=True)
class KeyRules:
    """Per-key limits when a key is created without its own (0 turns a limit off). Chosen for a
    helpdesk integration asking a few questions a second at peak, not calibrated on a measurement."""

    questions_per_min: int = 600  # one key's questions (searches and answers) per minute
    upload_mb_per_hour: float = 200.0  # one key's uploads per hour


RULES = KeyRules()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def narrowed(actor: Actor, kbs=(), read_only: bool = False) -> Actor:
    """``actor`` as a key narrowed to ``kbs`` (empty: every one it may read) and/or read-only."""
    kbs = frozenset(k for k in kbs if k)
    if not kbs and not read_only:
        return actor
    role = actor.role
    if kbs:
        read = frozenset(k for k in kbs if actor.can_read(k))
        edit = frozenset() if read_only else frozenset(k for k in kbs if actor.can_edit(k))
        if role == "admin":
            role = "editor" if edit else "agent"
    else:
        read = frozenset({ALL}) if actor.is_admin else actor.read | actor.edit
        edit = frozenset()
    if read_only and role in WRITERS:
        role, edit = "agent", frozenset()
    return Actor(actor.name, role, read, edit)


class KeyStore:
    """The keys file. Thread-safe; every change written atomically (temp file + rename, mode 0600)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings) -> "KeyStore":
        return cls(settings.home / "keys.json")

    def _load(self) -> dict:
        if not self.path.is_file():
            return {}
        return json.loads(self.path.read_text(encoding="utf-8") or "{}").get("keys", {})

    def _view(self) -> dict:
        """The keys as last written, for reading only (parsed again only when the file changed)."""
        return (read_json_cached(self.path, {}) or {}).get("keys", {})

    def _save(self, keys: dict) -> None:
        write_json_atomic(self.path, {"version": 1, "keys": keys}, indent=1, ensure_ascii=False)

    def create(self, user: str, users: UserStore, *, kbs=(), read_only: bool = False, name: str = "",
               questions_per_min: int | None = None, upload_mb_per_hour: float | None = None) -> tuple[dict, str]:
        """A new key of ``user`` (who must exist); returns its public record and the secret (once)."""
        users.actor(user)  # NotFound for an unknown user
        kbs = sorted({(k or "").strip() for k in kbs if (k or "").strip()})
        key_id = secrets.token_hex(6)
        secret = f"swr_{key_id}_{secrets.token_urlsafe(32)}"
        rec = {"user": user, "name": (name or "")[:100], "kbs": kbs, "read_only": bool(read_only),
               "questions_per_min": RULES.questions_per_min if questions_per_min is None else int(questions_per_min),
               "upload_mb_per_hour": RULES.upload_mb_per_hour if upload_mb_per_hour is None
               else float(upload_mb_per_hour),
               "hash": _digest(secret), "created_at": _now(), "revoked_at": None}
        if rec["questions_per_min"] < 0 or rec["upload_mb_per_hour"] < 0:
            raise BadRequest("Key limits must be 0 (off) or more.")
        with self._lock:
            keys = self._load()
            keys[key_id] = rec
            self._save(keys)
        return _public(key_id, rec), secret

    def list(self, user: str | None = None) -> list[dict]:
        """Every key (of ``user``), newest first: never a secret or a hash."""
        rows = [_public(k, r) for k, r in self._load().items() if user is None or r["user"] == user]
        return sorted(rows, key=lambda r: r["created_at"], reverse=True)

    def revoke(self, key_id: str) -> dict:
        with self._lock:
            keys = self._load()
            rec = keys.get(key_id)
            if rec is None:
                raise NotFound(f"No API key with id {key_id!r}.")
            rec["revoked_at"] = rec.get("revoked_at") or _now()
            self._save(keys)
            return _public(key_id, rec)

    def authenticate(self, secret: str | None) -> dict | None:
        """The key's public record (with ``id``) when ``secret`` is a live key, else None."""
        m = _SECRET.match((secret or "").strip())
        if not m:
            return None
        rec = self._view().get(m.group(1))
        if rec is None or rec.get("revoked_at"):
            return None
        if not hmac.compare_digest(rec["hash"], _digest(secret.strip())):
            return None
        return _public(m.group(1), rec)

    def actor(self, key: dict, users: UserStore) -> Actor:
        """The acting user of a key: its user's role and grants, narrowed by the key."""
        return narrowed(users.actor(key["user"]), key["kbs"], key["read_only"])


def _public(key_id: str, rec: dict) -> dict:
    return {"id": key_id, **{k: v for k, v in rec.items() if k != "hash"}}
