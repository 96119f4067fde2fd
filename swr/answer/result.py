"""What a user sees for one question (:class:`AskResult`), and the finishing touch of an LLM's
bare yes/no answer (:func:`with_fact`)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from swr.core.lang import has_han
from swr.core.types import Passage


@dataclass
class AskResult:
    """Everything a user sees for one question: answer, evidence, settings, sizes, timings."""

    question: str
    kb: str
    answer: str
    answer_kind: str  # "llm" | "extractive"
    passages: list[Passage]
    settings: dict
    context_chars: int
    context_tokens: int
    timings: dict
    llm_error: str | None = None
    created_at: str = ""
    standalone_question: str | None = None  # what was searched for (a follow-up rewritten)
    condense: dict | None = None  # how: {"method": "none"|"llm"|"offline", "llm_error": ...}
    answerable: bool = True  # swr.answer.answerable: does the evidence answer the question at all?
    answerable_score: float | None = None  # the cosine that decided it
    answerability: dict = field(default_factory=dict)  # its figures and reason
    query_tokens: list[str] | None = None  # the question's BM25 terms (each hit has its matched_tokens)
    check: dict | None = None  # swr.verify.check: each answer sentence against the passages (Engine.check)
    extract: dict | None = None  # an extractive answer's Extract (swr.answer.extractive): sentence, relevance, polarity
    trace: list = field(default_factory=list)  # the rules that decided (answerability, extract, check): rule ids
    # not a field (never in to_dict): the stored sentences the windows were built from, by (doc_id, i)
    window_sentences = None

    def to_dict(self) -> dict:
        return asdict(self)


# a bare yes or no, also with a parenthesis or a citation after it ("No (不是)", "不是。[1]": a small model's)
_BARE = re.compile(r"^\W*(yes|no|是的?|不是|对|不对|否)\W*(?:\([^()]{0,40}\))?\W*(?:\[\d+\]\W*)*$", re.I)


def with_fact(answer: str, extract: dict | None) -> str:
    """An LLM's bare "Yes" / "No" to a yes/no question, with the fact that says so (the sentence of
    the extract it was told of, cited): "No." alone is no answer to pass on to a customer."""
    if not extract or not extract.get("polarity") or not _BARE.match(answer or ""):
        return answer
    word = _BARE.match(answer).group(1)  # the yes or no alone, without what followed it in brackets
    stop = "。" if has_han(word) else ". "
    return f"{word[:1].upper()}{word[1:]}{stop}{extract['sentence']} [{extract['passage']}]"
