"""Question-set files for a sweep: format guess, loading, seeded sampling."""
from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from swr.core.errors import BadRequest
from swr.evaluate.questions import Question, load_squad, load_table


def guess_format(path: str | Path) -> str:
    """``squad`` for a .json object with a ``data`` list, ``jsonl`` for .jsonl, ``csv`` otherwise."""
    p = Path(path)
    suf = p.suffix.lower()
    if suf == ".jsonl":
        return "jsonl"
    if suf == ".json":
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "jsonl"
        return "squad" if isinstance(data, dict) and isinstance(data.get("data"), list) else "jsonl"
    return "csv"


def load_set(path: str | Path, fmt: str | None = None,
             max_articles: int | None = None) -> tuple[list[tuple[str, str]], list[Question]]:
    """(documents as (name, text) — only for SQuAD — , questions) from a question-set file."""
    fmt = fmt or guess_format(path)
    if fmt == "squad":
        return load_squad(path, max_articles=max_articles)
    if fmt in ("csv", "jsonl"):
        return [], load_table(path)
    raise BadRequest(f"Unknown question-set format {fmt!r}: use squad, csv or jsonl.")


def sample(questions: Sequence[Question], n: int | None, seed: int = 0) -> list[Question]:
    """At most ``n`` questions, a seeded random sample (all of them, in order, when n is None)."""
    qs = list(questions)
    if n is None or n >= len(qs):
        return qs
    idx = sorted(random.Random(seed).sample(range(len(qs)), n))
    return [qs[i] for i in idx]
