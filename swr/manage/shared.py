"""Shared answers (permalinks): one answer a user chose to share, kept under
``SWR_HOME/shared/<id>.json`` with an unguessable id (128 random bits, URL-safe).

The record holds what the answer showed (question, answer, evidence, settings), its knowledge
base, who shared it and when. Who may open it is decided when it is opened, by the checked engine
view (:meth:`swr.manage.access.GuardedEngine.shared_answer`): whoever may read its knowledge base at that
moment; for anyone else it does not exist.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
import secrets
from pathlib import Path

from swr.core.files import write_json_atomic

_ID = re.compile(r"[A-Za-z0-9_-]{22}")


def valid_id(answer_id: str | None) -> bool:
    return isinstance(answer_id, str) and _ID.fullmatch(answer_id) is not None


class SharedAnswers:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    @classmethod
    def for_settings(cls, settings) -> "SharedAnswers":
        return cls(settings.home / "shared")

    def save(self, kb: str, by: str, answer: dict) -> str:
        """Keep ``answer`` (a JSON-ready dict) of ``kb`` shared by ``by``; returns its new id."""
        answer_id = secrets.token_urlsafe(16)
        record = {"id": answer_id, "kb": kb, "by": by, "answer": answer,
                  "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        write_json_atomic(self.folder / f"{answer_id}.json", record, ensure_ascii=False, default=str)
        return answer_id

    def load(self, answer_id: str | None) -> dict | None:
        """The record of ``answer_id``; None for an unknown, malformed or damaged one."""
        if not valid_id(answer_id):
            return None
        try:
            return json.loads((self.folder / f"{answer_id}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
