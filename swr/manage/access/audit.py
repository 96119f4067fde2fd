"""The audit trail: ``SWR_HOME/audit.jsonl``, one JSON object a line, appended.

Each entry: ``time`` (UTC ISO), ``user``, ``role``, ``action`` (``upload``, ``delete_doc``,
``create_kb``, ``delete_kb``, ``golden``, ``golden_add``, ``golden_delete``, ``user_add``,
``user_reset`` (a new password), ``user_role``, ``user_delete``, ``user_grant``, ``sign_in``,
``sign_in_failed`` (the name tried as ``user``), ``share`` and ``open_shared`` (a permalink made
and opened, ``ok`` false when refused), ``restore``, ``publish``, ``key_create``, ``key_revoke``, ``key_use``,
``refused``), ``kb``, ``object`` (a file name, a document id, a user name, a golden question's id, a
published version, a key's id) and a few counts. Never document text, passwords, hashes or keys: callers pass names
and numbers only, and :meth:`AuditLog.append` drops any field that is not one of :data:`FIELDS`.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path

_OPEN: OrderedDict[Path, tuple[int, int]] = OrderedDict()  # path -> (descriptor, inode), under _LOCK
KEPT_OPEN = 8  # size: audit logs kept open at once (one per SWR_HOME in use; the oldest is closed)


def _appender(path: Path) -> int:
    """A descriptor appending to ``path``, kept open between entries (every API request appends one:
    opening the file each time was a tenth of a request's CPU under load). Opened again when the
    file was removed or replaced (a new inode), so a rotated or deleted log starts afresh."""
    try:
        ino = os.stat(path).st_ino
    except FileNotFoundError:
        ino = None
    kept = _OPEN.pop(path, None)
    if kept is not None and kept[1] == ino:
        _OPEN[path] = kept  # the most recently used last
        return kept[0]
    if kept is not None:
        os.close(kept[0])
    while len(_OPEN) >= KEPT_OPEN:
        os.close(_OPEN.popitem(last=False)[1][0])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    _OPEN[path] = (fd, os.fstat(fd).st_ino)
    return fd


FIELDS = ("time", "user", "role", "action", "kb", "object", "doc_id", "count", "ok", "detail")
_LOCK = threading.Lock()


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def for_settings(cls, settings) -> "AuditLog":
        return cls(settings.home / "audit.jsonl")

    def append(self, user: str, role: str, action: str, *, kb: str | None = None, object: str | None = None,
               **extra) -> dict:
        entry = {"time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "user": user,
                 "role": role, "action": action, "kb": kb, "object": object}
        entry.update({k: v for k, v in extra.items() if k in FIELDS and v is not None})
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with _LOCK:
            os.write(_appender(self.path), line)  # one O_APPEND write per line: appends stay whole
        return entry

    def entries(self, limit: int | None = None) -> list[dict]:
        """The entries, newest first (a torn last line is skipped)."""
        if not self.path.is_file():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        out.reverse()
        return out[:limit] if limit else out
