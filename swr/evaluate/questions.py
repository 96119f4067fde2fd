"""Question sets: SQuAD-format JSON (CMRC 2018, SQuAD, XQuAD, ExpMRC), CSV and JSONL.

A SQuAD article becomes one document: its paragraphs joined by blank lines; all questions run
against the whole corpus.
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Question:
    question: str
    answers: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    source: str | None = None
    id: str = ""


def _safe_title(title: str) -> str:
    return re.sub(r"[^\w\-.]+", "_", title).strip("_")[:80] or "article"


def load_squad(path: str | Path, max_articles: int | None = None) -> tuple[list[tuple[str, str]], list[Question]]:
    """(documents as (file name, text), questions) from a SQuAD-format JSON file."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    docs, qs = [], []
    for a in data["data"][:max_articles]:
        name = _safe_title(a.get("title") or a.get("id") or f"article{len(docs)}") + ".txt"
        docs.append((name, "\n\n".join(p["context"].strip() for p in a["paragraphs"])))
        for p in a["paragraphs"]:
            for qa in p["qas"]:
                answers = list(dict.fromkeys(x["text"] for x in qa.get("answers", []) if x.get("text")))
                evidence = qa.get("evidences") or qa.get("evidence") or []
                if isinstance(evidence, str):
                    evidence = [evidence]
                if answers:
                    qs.append(Question(qa["question"], answers, list(evidence), name, str(qa.get("id", ""))))
    return docs, qs


def load_table(path: str | Path) -> list[Question]:
    """Questions from CSV (header: question, expected_answer[s], [evidence], [source]) or JSONL."""
    path = Path(path)
    rows: list[dict]
    if path.suffix.lower() in (".jsonl", ".json"):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
    out = []
    for r in rows:
        answers = r.get("answers") or r.get("expected_answers") or r.get("expected_answer") or r.get("answer") or []
        evidence = r.get("evidence") or r.get("expected_evidence") or []
        out.append(Question(str(r["question"]).strip(), _listify(answers), _listify(evidence), r.get("source") or None,
                            str(r.get("id", ""))))
    return out


def _listify(v) -> list[str]:
    if isinstance(v, list):
        return [str(x) for x in v if str(x).strip()]
    v = str(v).strip()
    return [x.strip() for x in v.split("|") if x.strip()] if v else []
