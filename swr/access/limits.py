"""Per-user limits: questions per minute and megabytes uploaded per hour (sliding windows, kept in
this process: a restart forgets them). ``0`` turns a limit off."""
from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

from ..errors import BadRequest


class LimitReached(BadRequest):
    """A per-user limit was reached; the message says which and when it frees up."""

    kind = "limit"


class Limits:
    def __init__(self, questions_per_min: int = 0, upload_mb_per_hour: float = 0.0, clock=time.monotonic) -> None:
        self.questions_per_min = int(questions_per_min or 0)
        self.upload_mb_per_hour = float(upload_mb_per_hour or 0)
        self._clock = clock
        self._questions: dict[str, deque] = defaultdict(deque)
        self._uploads: dict[str, deque] = defaultdict(deque)
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings) -> "Limits":
        return cls(settings.user_questions_per_min, settings.user_upload_mb_per_hour)

    def question(self, user: str) -> None:
        """Count one question of ``user``; :class:`LimitReached` when over the rate."""
        if self.questions_per_min <= 0:
            return
        now = self._clock()
        with self._lock:
            q = self._questions[user]
            while q and now - q[0] >= 60:
                q.popleft()
            if len(q) >= self.questions_per_min:
                wait = max(1, int(60 - (now - q[0])) + 1)
                raise LimitReached(f"Question limit reached: {self.questions_per_min} per minute per user "
                                   f"(SWR_USER_QUESTIONS_PER_MIN). Try again in {wait} s.")
            q.append(now)

    def upload(self, user: str, nbytes: int) -> None:
        """Count ``nbytes`` uploaded by ``user``; :class:`LimitReached` (nothing counted) when the hour's
        total would pass the limit."""
        if self.upload_mb_per_hour <= 0:
            return
        now = self._clock()
        cap = self.upload_mb_per_hour * 1024 * 1024
        with self._lock:
            q = self._uploads[user]
            while q and now - q[0][0] >= 3600:
                q.popleft()
            used = sum(n for _, n in q)
            if used + nbytes > cap:
                raise LimitReached(
                    f"Upload limit reached: {self.upload_mb_per_hour:g} MB per hour per user "
                    f"(SWR_USER_UPLOAD_MB_PER_HOUR); this upload is {nbytes / 1048576:.1f} MB and "
                    f"{used / 1048576:.1f} MB were uploaded in the last hour. Nothing was indexed.")
            q.append((now, nbytes))
