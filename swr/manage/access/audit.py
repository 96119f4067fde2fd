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
import threading
from pathlib import Path

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
        line = json.dumps(entry, ensure_ascii=False)
        with _LOCK:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:  # one write per line: appends stay whole
                fh.write(line + "\n")
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
