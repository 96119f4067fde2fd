"""Metrics of one question and rows of one configuration.

A question is a *hit* when one of its expected answers occurs, after whitespace normalisation
(:func:`normalize`: runs of whitespace become one space, none is kept next to a CJK character),
in the context that would be sent to the LLM: the concatenated passage texts. Its reciprocal
rank is 1/n for the first passage (in the order sent to the LLM) containing an answer. Evidence
recall is the share of its expected evidence sentences contained in the context. Context size is
the mean of the passages' characters and of the tokens of the numbered context block
(:func:`swr.answer.llm.context_text`, cl100k). Latency is the p50 of search + window building per
question (the query embedding, identical for every configuration and cached after the first, is
excluded).
"""
from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from swr.answer.prompt import context_text
from swr.core.lang import drop_cjk_spaces
from swr.core.tokens import count_tokens
from swr.evaluate.questions import Question

METHODS = ("window", "chunks")
ROW_KEYS = ("method", "mode", "window_size", "top_k", "chunk_size", "hit_rate", "mrr", "evidence_recall",
            "context_chars", "context_tokens", "latency_ms", "window_mode", "budget_chars")


@dataclass(frozen=True)
class Config:
    """One retrieval configuration: sentence windows, or plain chunks of one size."""

    method: str = "window"  # "window" | "chunks"
    mode: str = "hybrid"
    window_size: int | None = 0  # None for chunks
    top_k: int = 3
    chunk_size: int | None = None  # None for windows
    chunk_overlap: int | None = None
    window_mode: str | None = "fixed"  # windows: fixed | section | budget (swr/retrieve/expand.py); None for chunks
    budget_chars: int | None = None  # section and budget windows: their context budget

    def label(self) -> str:
        if self.method == "chunks":
            return f"chunks {self.chunk_size}/{self.chunk_overlap} {self.mode} k={self.top_k}"
        if self.window_mode in ("section", "budget"):
            return f"window {self.window_mode} {self.budget_chars} chars {self.mode} k={self.top_k}"
        return f"window w={self.window_size} {self.mode} k={self.top_k}"


@dataclass
class Row:
    """The metrics of one configuration over a question set."""

    config: Config
    questions: int
    hit_rate: float | None
    mrr: float | None
    evidence_recall: float | None
    context_chars: float
    context_tokens: float
    latency_ms: float
    outcomes: list[dict] = field(default_factory=list, repr=False)  # per question (details=True), in order

    @classmethod
    def from_dict(cls, d: dict) -> "Row":
        """A row back from its JSON form (``questions`` and outcomes are not in it)."""
        cfg = Config(d["method"], d["mode"], d.get("window_size"), d["top_k"], d.get("chunk_size"),
                     d.get("chunk_overlap"), d.get("window_mode", "fixed" if d["method"] == "window" else None),
                     d.get("budget_chars"))
        return cls(cfg, d.get("questions", 0), d.get("hit_rate"), d.get("mrr"), d.get("evidence_recall"),
                   d["context_chars"], d["context_tokens"], d["latency_ms"])

    def to_dict(self) -> dict:
        c = self.config
        return {"method": c.method, "mode": c.mode, "window_size": c.window_size, "top_k": c.top_k,
                "chunk_size": c.chunk_size, "hit_rate": self.hit_rate, "mrr": self.mrr,
                "evidence_recall": self.evidence_recall, "context_chars": self.context_chars,
                "context_tokens": self.context_tokens, "latency_ms": self.latency_ms,
                "window_mode": c.window_mode, "budget_chars": c.budget_chars}


_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Whitespace normalisation for matching: runs of whitespace become one space (so "cats" does
    not match "cat sat"), and a space next to a CJK character is dropped (a line break inside
    Chinese text is no word boundary)."""
    return drop_cjk_spaces(_WS.sub(" ", text or "").strip())


@dataclass
class Outcome:
    """One question under one configuration."""

    hit: bool | None  # None when the question has no expected answer
    rr: float | None
    evidence: float | None  # None when the question has no expected evidence
    chars: int
    tokens: int
    ms: float


def judge(answers: Sequence[str], evidence: Sequence[str], passages, ms: float = 0.0) -> Outcome:
    """Score the passages that would be sent to the LLM against normalised answers/evidence."""
    texts = [normalize(p.text) for p in passages]
    ctx = "\n".join(texts)  # no normalised answer holds a line break: nothing matches across passages
    answers = [a for a in answers if a]
    evidence = [e for e in evidence if e]
    hit = rr = ev = None
    if answers:
        hit = any(a in ctx for a in answers)
        first = next((n for n, t in enumerate(texts, 1) if any(a in t for a in answers)), None)
        rr = 1.0 / first if first else 0.0
    if evidence:
        ev = sum(e in ctx for e in evidence) / len(evidence)
    return Outcome(hit, rr, ev, sum(len(p.text) for p in passages),
                   count_tokens(context_text(passages)) if passages else 0, ms)


def _mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def make_row(config: Config, pairs: list[tuple[Question, Outcome]], details: bool) -> Row:
    """The row of one configuration from its questions' outcomes."""
    outs = [o for _, o in pairs]
    row = Row(config=config, questions=len(outs),
              hit_rate=_mean([None if o.hit is None else float(o.hit) for o in outs]),
              mrr=_mean([o.rr for o in outs]), evidence_recall=_mean([o.evidence for o in outs]),
              context_chars=round(sum(o.chars for o in outs) / len(outs), 1) if outs else 0.0,
              context_tokens=round(sum(o.tokens for o in outs) / len(outs), 1) if outs else 0.0,
              latency_ms=round(statistics.median(o.ms for o in outs), 2) if outs else 0.0)
    if details:
        row.outcomes = [{"question": q.question, "id": q.id, **asdict(o)} for q, o in pairs]
    return row
