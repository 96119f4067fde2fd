"""Sign-in tokens: what keeps a user signed in across a reload (the app's cookie; an HTTP client
may carry the same token), checked on the server on every use.

A token is ``<id>.<mac>``: ``id`` is 32 random bytes (URL-safe), ``mac`` the HMAC-SHA256 of the id
under a secret of this ``SWR_HOME`` (``auth/sign_in.key``, 32 random bytes, mode 0600, made on
first use). The server keeps a record of every live token (``auth/sign_ins.json``, mode 0600:
the SHA-256 of the id, never the token, with its user and expiry), so a token works only while its
record is there: sign-out (:meth:`SessionTokens.revoke`), removing the user
(:meth:`SessionTokens.revoke_user`) and expiry end it. No password is ever in a token.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from swr.core.files import write_json_atomic

KEY_FILE = "sign_in.key"
RECORDS_FILE = "sign_ins.json"
COOKIE = "swr_signin"  # the name of the app's cookie that carries the token


@dataclass(frozen=True)
class TokenRules:
    """How long a sign-in lasts (a policy, not calibrated on data)."""

    lifetime_s: int = 12 * 3600  # a sign-in ends 12 h after it was made: a working day with overtime
    max_per_user: int = 20  # live sign-ins kept per user (browsers, devices); the oldest ends first


_LOCK = threading.Lock()


def _hash(token_id: str) -> str:
    return hashlib.sha256(token_id.encode("ascii")).hexdigest()


class SessionTokens:
    """Issue, check and end sign-in tokens of one ``SWR_HOME``. Thread-safe; files written atomically."""

    def __init__(self, folder: Path, rules: TokenRules = TokenRules(), clock=time.time) -> None:
        self.folder, self.rules, self._clock = Path(folder), rules, clock

    @classmethod
    def for_settings(cls, settings, rules: TokenRules = TokenRules()) -> "SessionTokens":
        return cls(settings.home / "auth", rules)

    # -- files -------------------------------------------------------------------------------
    def _key(self) -> bytes:
        path = self.folder / KEY_FILE
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            return path.read_bytes()
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
        return path.read_bytes()

    def _load(self) -> dict:
        path = self.folder / RECORDS_FILE
        try:
            return json.loads(path.read_text(encoding="utf-8") or "{}")
        except FileNotFoundError:
            return {}
        except ValueError:  # a damaged file ends every sign-in (they sign in again), never crashes
            return {}

    def _save(self, records: dict) -> None:
        write_json_atomic(self.folder / RECORDS_FILE, records)

    def _mac(self, token_id: str) -> str:
        return hmac.new(self._key(), token_id.encode("ascii"), hashlib.sha256).hexdigest()

    # -- use ---------------------------------------------------------------------------------
    def issue(self, user: str) -> str:
        """A new token for ``user`` (valid for :attr:`TokenRules.lifetime_s`)."""
        token_id = secrets.token_urlsafe(32)
        now = self._clock()
        with _LOCK:
            records = {h: r for h, r in self._load().items() if r["expires"] > now}
            mine = sorted((r["expires"], h) for h, r in records.items() if r["user"] == user)
            for _, h in mine[:max(0, len(mine) - self.rules.max_per_user + 1)]:
                records.pop(h)
            records[_hash(token_id)] = {"user": user, "expires": now + self.rules.lifetime_s}
            self._save(records)
        return f"{token_id}.{self._mac(token_id)}"

    def check(self, token: str | None) -> str | None:
        """The user a live token belongs to; None for anything else (forged, ended, expired, junk)."""
        if not isinstance(token, str) or len(token) > 200:
            return None
        token_id, _, mac = token.partition(".")
        if not token_id or not mac:
            return None
        try:
            good = hmac.compare_digest(self._mac(token_id), mac)
        except (UnicodeEncodeError, TypeError):
            return None
        if not good:
            return None
        rec = self._load().get(_hash(token_id))
        if not rec or rec["expires"] <= self._clock():
            return None
        return rec["user"]

    def revoke(self, token: str | None) -> None:
        """End one token (sign-out); unknown tokens are ignored."""
        token_id = (token or "").partition(".")[0]
        if not token_id:
            return
        with _LOCK:
            records = self._load()
            if records.pop(_hash(token_id), None) is not None:
                self._save(records)

    def revoke_user(self, user: str) -> int:
        """End every token of ``user`` (removed, or a new password); returns how many."""
        with _LOCK:
            records = self._load()
            keep = {h: r for h, r in records.items() if r["user"] != user}
            if len(keep) != len(records):
                self._save(keep)
            return len(records) - len(keep)
