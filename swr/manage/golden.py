"""The golden (preset) questions of a knowledge base as rows: list, add, delete. No Streamlit.

One set per knowledge base, ``SWR_HOME/golden/<kb>.csv`` (header ``question, expected_answer,
source`` and any extra columns, such as ``origin``), the bundled ``samples/golden.csv`` for the
sample knowledge base until it is first changed. The same file the preset-questions panel edits
(:mod:`swr.manage.presets`), Tune sweeps and demo mode shows; ``python -m swr golden`` and the
feedback that turns into a test (:mod:`swr.manage.feedback`) change it through here.

A row's ``id`` is not stored: it is the first 10 hex digits of the SHA-1 of its question, so it
survives edits of the other columns and is the same in the app, the CLI and the feedback log.
``origin`` says where a row came from: ``feedback`` (an answer marked not helpful with the right
sentence chosen), ``cli``, or empty (typed into the panel, or bundled); ``by`` who made it (a
user name; empty for bundled rows and the panel's table). Writes are atomic (a
temporary file renamed over the set), so a reader never sees half a set.
"""
from __future__ import annotations

import csv
import hashlib
import io
import re
import threading
from pathlib import Path

from swr.core.errors import BadRequest, NotFound
from swr.core.files import write_text_atomic

ROOT = Path(__file__).resolve().parents[2]  # the repository
SAMPLE_GOLDEN = ROOT / "samples" / "golden.csv"
COLUMNS = ["question", "expected_answer", "source"]
ORIGINS = ("", "feedback", "cli", "panel")
_LOCK = threading.Lock()


def golden_path(settings, kb: str) -> Path:
    """``SWR_HOME/golden/<kb>.csv`` (a name that is safe as a file name)."""
    return settings.home / "golden" / f"{safe_name(kb)}.csv"


def safe_name(kb: str) -> str:
    """``kb`` as a file name: itself when it is one already, else a cleaned prefix and a hash."""
    safe = re.sub(r"[^\w.-]", "_", kb).lstrip(".")
    if safe != kb or not safe:
        safe = f"{safe[:40]}-{hashlib.sha1(kb.encode()).hexdigest()[:8]}"
    return safe


def row_id(question: str) -> str:
    """The id of a golden row: the first 10 hex digits of the SHA-1 of its stripped question."""
    return hashlib.sha1((question or "").strip().encode("utf-8")).hexdigest()[:10]


def _source_file(settings, kb: str) -> Path | None:
    path = golden_path(settings, kb)
    if path.is_file():
        return path
    if kb == getattr(settings, "sample_kb", None) and SAMPLE_GOLDEN.is_file():
        return SAMPLE_GOLDEN
    return None


def read_rows(settings, kb: str) -> tuple[list[str], list[dict]]:
    """(columns, rows) of ``kb``'s golden set; rows are dicts of strings (empty set: no rows)."""
    src = _source_file(settings, kb)
    if src is None:
        return list(COLUMNS), []
    with src.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        cols = [c for c in (reader.fieldnames or []) if c]
        rows = [{c: (r.get(c) or "") for c in cols} for r in reader]
    cols = COLUMNS + [c for c in cols if c not in COLUMNS]
    return cols, [{c: r.get(c, "") for c in cols} for r in rows]


def write_rows(settings, kb: str, columns: list[str], rows: list[dict]) -> Path:
    """Write the set atomically (rows without a question are dropped); returns the path."""
    path = golden_path(settings, kb)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        if str(r.get("question") or "").strip():
            w.writerow({c: "" if r.get(c) is None else str(r.get(c)) for c in columns})
    return write_text_atomic(path, buf.getvalue(), mode=None)


def list_golden(settings, kb: str) -> list[dict]:
    """The rows of ``kb``'s golden set, each with its ``id`` and ``origin`` (empty when none)."""
    _, rows = read_rows(settings, kb)
    return [{"id": row_id(r["question"]), **r, "origin": r.get("origin", "")} for r in rows
            if r["question"].strip()]


def add_golden(settings, kb: str, question: str, expected: str, source: str = "", origin: str = "cli",
               **extra) -> dict:
    """Add a golden question (or update the one with the same question: one row per question).

    ``expected`` is the expected answer snippet (a question is a hit in Tune when it occurs in the
    context); ``extra`` columns (``by``: the user who made it, ``doc_id``, ``sentence``, ...) are
    kept. Returns the row."""
    question, expected = (question or "").strip(), (expected or "").strip()
    if not question:
        raise BadRequest("A golden question needs the question.")
    if not expected:
        raise BadRequest("A golden question needs the expected answer snippet (text the context must contain).")
    if "\n" in question or len(question) > 4000:
        raise BadRequest("A golden question is one line of at most 4,000 characters.")
    row = {"question": question, "expected_answer": " ".join(expected.split()), "source": (source or "").strip(),
           "origin": origin or "", **{k: "" if v is None else str(v) for k, v in extra.items()}}
    with _LOCK:
        cols, rows = read_rows(settings, kb)
        cols = cols + [c for c in row if c not in cols]
        rid = row_id(question)
        kept = [r for r in rows if row_id(r["question"]) != rid]
        write_rows(settings, kb, cols, kept + [row])
    return {"id": rid, **{c: row.get(c, "") for c in cols}}


def delete_golden(settings, kb: str, ids: list[str]) -> list[dict]:
    """Delete the rows with these ids (or question texts); returns the deleted rows. Unknown ids:
    :class:`NotFound`, nothing deleted."""
    with _LOCK:
        cols, rows = read_rows(settings, kb)
        want = {i.strip() for i in ids if i and i.strip()}
        want |= {row_id(i) for i in list(want)}  # a question text also names its row
        gone = [r for r in rows if row_id(r["question"]) in want]
        found = {row_id(r["question"]) for r in gone}
        missing = [i for i in ids if i.strip() not in found and row_id(i) not in found]
        if missing:
            raise NotFound(f"No golden question {', '.join(map(repr, missing))} in knowledge base {kb!r} "
                           "(see `python -m swr golden list --kb KB`).")
        write_rows(settings, kb, cols, [r for r in rows if row_id(r["question"]) not in want])
    return [{"id": row_id(r["question"]), **r} for r in gone]
