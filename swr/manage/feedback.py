"""Feedback on answers and hits, per knowledge base, and the golden questions it turns into.

Stored in ``SWR_HOME/feedback/<kb>.json`` next to the knowledge base's golden set (one JSON
document, rewritten atomically: a temporary file renamed over it), so it survives restarts; it
goes into the trash with its knowledge base (:mod:`swr.manage.trash`) and comes back on restore.

Three kinds of entry, each naming the answer it is about (``answer``: a key the caller chooses,
unique per answer, e.g. the chat session and answer number):

- ``answer``: ``verdict`` ``helpful`` or ``not_helpful``, with the answer's ``settings`` (window,
  top-k, mode, fusion...) and its text;
- ``wrong_hit``: a hit sentence that should not have been retrieved (``doc_id``, ``i``,
  ``source``, ``sentence``, ``page``);
- ``right_sentence``: the sentence that does answer the question (same fields), chosen in a
  passage or in the document view.

When an answer's latest verdict is ``not_helpful`` and a right sentence was chosen for it, the
question becomes a golden question of the knowledge base (:func:`swr.manage.golden.add_golden`: the
question, the right sentence as the expected snippet, its source, ``origin=feedback``), so the
next Tune sweep measures whether a setting finds that sentence. The entry that completed the pair
gets the golden row's id (``golden``).
"""
from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import threading
import uuid
from pathlib import Path

from swr.core.errors import BadRequest
from swr.core.files import write_json_atomic
from swr.manage import golden

KINDS = ("answer", "wrong_hit", "right_sentence")
VERDICTS = ("helpful", "not_helpful")
MAX_ENTRIES = 20_000  # per knowledge base; the oldest go first
MAX_TEXT = 4000
_LOCK = threading.Lock()
_SENTENCE_FIELDS = ("doc_id", "i", "source", "sentence", "page")
CSV_COLUMNS = ["time", "user", "kind", "verdict", "question", "answer_key", "source", "doc_id", "i", "page",
               "sentence", "golden", "window_size", "window_mode", "top_k", "mode", "fusion", "dense_weight",
               "dense_k", "sparse_k", "min_score", "stages", "settings"]


def feedback_path(settings, kb: str) -> Path:
    """``SWR_HOME/feedback/<kb>.json`` (the golden set's safe file name)."""
    return settings.home / "feedback" / f"{golden.safe_name(kb)}.json"


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _clip(v, n: int = MAX_TEXT):
    return v[:n] if isinstance(v, str) else v


class FeedbackLog:
    """The feedback of one knowledge base."""

    def __init__(self, settings, kb: str) -> None:
        self.settings, self.kb = settings, kb
        self.path = feedback_path(settings, kb)

    # -- reading ---------------------------------------------------------------------------
    def entries(self) -> list[dict]:
        """Every entry, oldest first (a damaged file reads as empty, and is left on disk)."""
        if not self.path.is_file():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [e for e in data.get("entries", []) if isinstance(e, dict)]

    def answers(self) -> list[dict]:
        """One row per answer that got feedback (:func:`fold`)."""
        return fold(self.entries())

    def not_helpful(self) -> list[dict]:
        """The answers whose latest verdict is not helpful, newest first."""
        return sorted((a for a in self.answers() if a["verdict"] == "not_helpful"),
                      key=lambda a: a["time"] or "", reverse=True)

    def report(self, user: str | None = None) -> dict:
        """``summary``, ``answers``, ``not_helpful``, ``csv`` and ``users`` (everyone who gave
        feedback) from one read of the file; with ``user``, of that user's entries only."""
        es = self.entries()
        users = sorted({e["user"] for e in es if e.get("user")})
        if user is not None:
            es = [e for e in es if e.get("user") == user]
        answers = fold(es)
        nh = sorted((a for a in answers if a["verdict"] == "not_helpful"), key=lambda a: a["time"] or "", reverse=True)
        return {"summary": self.summary(es, answers), "answers": answers, "not_helpful": nh, "csv": self.to_csv(es),
                "users": users}

    def summary(self, es: list[dict] | None = None, answers: list[dict] | None = None) -> dict:
        """Counts: answers helpful / not helpful (latest verdict per answer), wrong hits, right
        sentences, golden questions made from feedback."""
        es = self.entries() if es is None else es
        answers = fold(es) if answers is None else answers
        return {"kb": self.kb, "entries": len(es),
                "helpful": sum(a["verdict"] == "helpful" for a in answers),
                "not_helpful": sum(a["verdict"] == "not_helpful" for a in answers),
                "wrong_hits": sum(e["kind"] == "wrong_hit" for e in es),
                "right_sentences": sum(e["kind"] == "right_sentence" for e in es),
                "golden": len({a["golden"] for a in answers if a["golden"]})}

    def to_csv(self, es: list[dict] | None = None) -> str:
        """Every entry as CSV (one row each; the settings flattened, and whole as JSON)."""
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for e in self.entries() if es is None else es:
            s = e.get("settings") or {}
            row = {**{k: s.get(k) for k in CSV_COLUMNS if k in s}, **e,
                   "answer_key": e.get("answer"),
                   "stages": "+".join(s.get("stages") or []), "settings": json.dumps(s, ensure_ascii=False)}
            w.writerow({k: "" if row.get(k) is None else row.get(k) for k in CSV_COLUMNS})
        return buf.getvalue()

    # -- writing ---------------------------------------------------------------------------
    def _write(self, entries: list[dict]) -> None:
        write_json_atomic(self.path, {"kb": self.kb, "entries": entries[-MAX_ENTRIES:]}, mode=None,
                          ensure_ascii=False)

    def record(self, kind: str, *, question: str, answer: str, user: str | None = None, verdict: str | None = None,
               settings: dict | None = None, answer_text: str | None = None, doc_id: str | None = None,
               i: int | None = None, source: str | None = None, sentence: str | None = None,
               page: int | None = None) -> dict:
        """Append one entry (see the module doc); returns it, with ``golden`` set to the golden row
        (a dict) when this entry completed a not-helpful answer with its right sentence."""
        if kind not in KINDS:
            raise BadRequest(f"Unknown feedback kind {kind!r}: use one of {', '.join(KINDS)}.")
        if kind == "answer" and verdict not in VERDICTS:
            raise BadRequest(f"An answer's feedback is {' or '.join(VERDICTS)}, not {verdict!r}.")
        if kind != "answer" and (not doc_id or i is None or not (sentence or "").strip()):
            raise BadRequest("Feedback on a sentence needs its document, number and text.")
        if not (question or "").strip() or not (answer or "").strip():
            raise BadRequest("Feedback needs the question and the answer it is about.")
        entry = {"id": uuid.uuid4().hex[:12], "time": _now(), "user": user, "kind": kind,
                 "answer": _clip(str(answer), 200), "question": _clip(question.strip()), "verdict": verdict,
                 "settings": dict(settings or {}), "answer_text": _clip(answer_text),
                 "doc_id": doc_id, "i": None if i is None else int(i), "source": source,
                 "sentence": _clip((sentence or "").strip()) or None, "page": page}
        entry = {k: v for k, v in entry.items() if v is not None and v != {}}
        with _LOCK:
            entries = self.entries() + [entry]
            pair = next((a for a in fold(entries) if a["answer"] == entry["answer"]), None)
            made = None
            if pair and pair["verdict"] == "not_helpful" and pair["right_sentence"] and kind != "wrong_hit":
                rs = pair["right_sentence"]
                made = golden.add_golden(self.settings, self.kb, pair["question"], rs["sentence"],
                                         rs.get("source") or "", origin="feedback", by=user or "",
                                         doc_id=rs.get("doc_id") or "",
                                         sentence_i="" if rs.get("i") is None else rs["i"])
                entry["golden"] = made["id"]
            self._write(entries)
        return {**entry, "golden": made}


def fold(entries: list[dict]) -> list[dict]:
    """One row per answer that got feedback: its question, latest verdict, settings, the wrong
    hits and the right sentence (the latest) marked on it, the golden row it made."""
    by: dict[str, dict] = {}
    for e in entries:
        key = e.get("answer") or e["id"]
        a = by.setdefault(key, {"answer": key, "question": e.get("question", ""), "verdict": None, "settings": {},
                                "wrong_hits": [], "right_sentence": None, "golden": None, "user": e.get("user"),
                                "time": e.get("time"), "answer_text": ""})
        a["time"] = e.get("time") or a["time"]
        if e["kind"] == "answer":
            a["verdict"], a["user"] = e.get("verdict"), e.get("user")
            a["settings"] = e.get("settings") or a["settings"]
            a["answer_text"] = e.get("answer_text", "")
        elif e["kind"] == "wrong_hit":
            a["wrong_hits"].append({k: e.get(k) for k in _SENTENCE_FIELDS})
        else:
            a["right_sentence"] = {k: e.get(k) for k in _SENTENCE_FIELDS}
        if e.get("settings") and not a["settings"]:
            a["settings"] = e["settings"]
        if e.get("golden"):
            a["golden"] = e["golden"]
    return list(by.values())
