"""Per-user limits: questions per minute and megabytes uploaded per hour (sliding windows, kept
under ``SWR_HOME/auth/limits.json``: a restart keeps them). ``0`` turns a limit off.

``shared=True`` (the users' limits; the API keys', in ``auth/key_limits/<key id>.json``) makes every
process on one ``SWR_HOME`` count into the same windows: each count takes the file's lock
(``flock``, a ``.lock`` file beside it), reads the file, counts and writes it back. Only on one
machine's disk (several machines behind one ``QDRANT_URL`` count apart: docs/deploy.md).

What counts as a question (:class:`swr.manage.access.GuardedEngine` decides): every answer (chat, preset
questions, Compare), every search of a question not searched in the last minute (re-searching the
same question with other knobs is free), and a whole batch run (a Tune sweep, a Verify run, a
Compare of two configurations) as one."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections import defaultdict, deque
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: one process per SWR_HOME counts on its own
    fcntl = None

from swr.core.errors import BadRequest
from swr.core.files import write_json_atomic

log = logging.getLogger("swr.manage.access.limits")


class LimitReached(BadRequest):
    """A per-user limit was reached; the message says which and when it frees up."""

    kind = "limit"
    retry_after: int = 60  # seconds until the limit frees up (the HTTP API's Retry-After)


class Limits:
    def __init__(self, questions_per_min: int = 0, upload_mb_per_hour: float = 0.0, clock=time.time,
                 path: Path | None = None, shared: bool = False) -> None:
        self.questions_per_min = int(questions_per_min or 0)
        self.upload_mb_per_hour = float(upload_mb_per_hour or 0)
        self._clock, self._path = clock, path
        self._shared = bool(shared and path is not None)  # re-read under the file's lock at each count
        self._load(_read(path) if path else {})
        self._lock = threading.Lock()

    def _load(self, kept: dict) -> None:
        self._questions: dict[str, deque] = defaultdict(deque, {u: deque(v) for u, v in
                                                                kept.get("questions", {}).items()})
        # user -> question -> when it was last searched
        self._searched: dict[str, dict[str, float]] = defaultdict(dict, kept.get("searched", {}))
        self._uploads: dict[str, deque] = defaultdict(deque, {u: deque(tuple(x) for x in v) for u, v in
                                                              kept.get("uploads", {}).items()})

    @contextlib.contextmanager
    def _turn(self):
        """This process's lock; shared, also the file's lock, with the counts re-read from the file
        (another process may have counted since)."""
        with self._lock:
            if not self._shared:
                yield
                return
            with _file_lock(self._path):
                self._load(_read(self._path))
                yield

    @classmethod
    def for_settings(cls, settings) -> "Limits":
        return cls(settings.user_questions_per_min, settings.user_upload_mb_per_hour,
                   path=settings.home / "auth" / "limits.json", shared=True)

    def _save(self) -> None:
        if self._path is not None:
            _write(self._path, {"questions": {u: list(q) for u, q in self._questions.items() if q},
                                "searched": {u: d for u, d in self._searched.items() if d},
                                "uploads": {u: [list(x) for x in q] for u, q in self._uploads.items() if q}})

    def question(self, user: str, key: str | None = None) -> bool:
        """Count one question of ``user``; :class:`LimitReached` when over the rate. With ``key`` (the
        question's text) a question counted in the last minute is not counted again (returns False)."""
        if self.questions_per_min <= 0:
            return False
        now = self._clock()
        key = " ".join(key.split()).casefold() if key else None
        with self._turn():
            seen = self._searched[user]
            for k in [k for k, t in seen.items() if now - t >= 60]:
                del seen[k]
            if key is not None and key in seen:
                return False
            q = self._questions[user]
            while q and now - q[0] >= 60:
                q.popleft()
            if len(q) >= self.questions_per_min:
                wait = max(1, int(60 - (now - q[0])) + 1)
                exc = LimitReached(f"Question limit reached: {self.questions_per_min} per minute per user "
                                   f"(SWR_USER_QUESTIONS_PER_MIN). Try again in {wait} s.")
                exc.retry_after = wait
                raise exc
            q.append(now)
            if key is not None:
                seen[key] = now
            self._save()
            return True

    def upload(self, user: str, nbytes: int) -> None:
        """Count ``nbytes`` uploaded by ``user``; :class:`LimitReached` (nothing counted) when the hour's
        total would pass the limit."""
        if self.upload_mb_per_hour <= 0:
            return
        now = self._clock()
        cap = self.upload_mb_per_hour * 1024 * 1024
        with self._turn():
            q = self._uploads[user]
            while q and now - q[0][0] >= 3600:
                q.popleft()
            used = sum(n for _, n in q)
            if used + nbytes > cap:
                exc = LimitReached(
                    f"Upload limit reached: {self.upload_mb_per_hour:g} MB per hour per user "
                    f"(SWR_USER_UPLOAD_MB_PER_HOUR); this upload is {nbytes / 1048576:.1f} MB and "
                    f"{used / 1048576:.1f} MB were uploaded in the last hour. Nothing was indexed.")
                exc.retry_after = max(1, int(3600 - (now - q[0][0])) + 1) if q else 3600
                raise exc
            q.append((now, nbytes))
            self._save()


class SignInThrottle:
    """Repeated failed sign-ins: after ``max_failures`` failures for one typed user name from one
    client address within ``window_s`` seconds, that pair is refused without checking the password
    until the oldest of them is ``window_s`` old; then one try is let through, so after the wait
    one correct password always works. The same name from another address is not slowed (nobody
    can keep a known user out), known and unknown names count alike (the refusal is no hint that a
    name exists), a success clears the pair. With ``path`` the failures are kept in that file
    (mode 0600) and survive a restart; at most ``max_names`` pairs are tracked (the stalest dropped)."""

    def __init__(self, max_failures: int = 5, window_s: float = 300.0, clock=time.time,
                 max_names: int = 10_000, path: Path | None = None) -> None:
        self.max_failures, self.window_s, self.max_names = int(max_failures), float(window_s), int(max_names)
        self._clock, self._path = clock, path
        self._fails: dict[str, deque] = {k: deque(v) for k, v in _read(path).items()} if path else {}
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings) -> "SignInThrottle":
        return cls(path=settings.home / "auth" / "sign_in_failures.json")

    @staticmethod
    def _key(name: str | None, client: str = "") -> str:
        """The typed name (trimmed, case-folded) and the client's address."""
        return f"{(name or '').strip().casefold()}\x00{client or ''}"

    def _recent(self, key: str, now: float) -> deque:
        """The failures of ``key`` within the window (older ones dropped)."""
        q = self._fails.get(key) or deque()
        while q and now - q[0] >= self.window_s:
            q.popleft()
        return q

    def _save(self) -> None:
        if self._path is not None:
            _write(self._path, {k: list(q) for k, q in self._fails.items() if q})

    def wait_s(self, name: str | None, client: str = "") -> int:
        """Seconds until ``name`` may try again from ``client`` (0: it may now)."""
        now = self._clock()
        with self._lock:
            q = self._recent(self._key(name, client), now)
            if len(q) < self.max_failures:
                return 0
            return max(1, int(self.window_s - (now - q[0])) + 1)

    def failed(self, name: str | None, client: str = "") -> None:
        """Count one failed sign-in for ``name`` from ``client``."""
        now, key = self._clock(), self._key(name, client)
        with self._lock:
            q = self._recent(key, now)
            q.append(now)
            self._fails[key] = q
            if len(self._fails) > self.max_names:
                stalest = min(self._fails, key=lambda k: self._fails[k][-1] if self._fails[k] else -1.0)
                self._fails.pop(stalest, None)
            self._save()

    def succeeded(self, name: str | None, client: str = "") -> None:
        """A successful sign-in clears the pair's failures."""
        with self._lock:
            if self._fails.pop(self._key(name, client), None) is not None:
                self._save()

    def message(self, wait_s: int) -> str:
        """The refusal while a name is throttled (the same for every name)."""
        return (f"Too many failed sign-ins with this user name: try again in {wait_s} s "
                f"(after {self.max_failures} failures within {self.window_s / 60:g} minutes).")


@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive ``flock`` on ``<path>.lock`` (mode 0600) for every process on this machine; none
    where ``fcntl`` is missing or the file cannot be opened (counted in this process only, logged)."""
    lock = Path(path).with_name(Path(path).name + ".lock")
    fd = None
    if fcntl is not None:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            log.warning("limits counted in this process only: %s", exc)
            if fd is not None:
                os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _read(path: Path | None) -> dict:
    """A JSON object kept by :func:`_write`; empty when missing or damaged (never a crash)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write(path: Path, data: dict) -> None:
    """Write atomically (temp file + rename), mode 0600; a failure to write is logged, not raised."""
    try:
        write_json_atomic(path, data)
    except OSError as exc:
        log.warning("limits not saved: %s", exc)
