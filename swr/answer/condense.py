"""Follow-up questions: rewrite the latest question into a standalone search question.

"那E2呢？" after "电饭煲显示E4是什么意思？" means "电饭煲显示E2是什么意思？". Two ways:

- the LLM (:mod:`swr.answer.rewrite_llm`) rewrites it from the recent turns (the history sent is
  bounded by tokens, :mod:`swr.answer.history`), given the offline fallback's question as a draft
  to correct; its output is checked (one line, not empty, not a copy of the history, not far longer than the
  inputs) and replaced by the fallback when it fails.
- the offline rewrite (:mod:`swr.answer.rewrite_offline`; no LLM, or it failed). Terms are content
  words (jieba's part-of-speech tags for Chinese: nouns, verbs, adjectives, English words, codes;
  for English: runs of words between function words). An elliptical follow-up ("那X呢？", "What
  about X?", "And X?") becomes the previous question with X in place of its *parallel* term (the
  same shape for codes and numbers, the closest in meaning for words, by ``similarity``: the e5
  embedder's cosine, given by the engine). Any other follow-up gets the previous question's terms
  it lacks appended (the subject carried; a term the follow-up replaces by one of the same shape
  is not).

No rule here names a product, a manual or a code of the sample knowledge base.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from swr.answer.history import check_history, previous_question
from swr.answer.rewrite_llm import Chat, condense_llm
from swr.answer.rewrite_offline import (
    Similarity,
    condense_offline,
    has_anaphora,
    is_elliptical,
    needs_context,
    shape,
    terms,
)
from swr.core.rules.answer import DEFAULT_CONDENSE, CondenseRules

log = logging.getLogger("swr.answer.condense")

METHOD_NONE = "none"  # no history: the question is already standalone
METHOD_LLM = "llm"
METHOD_OFFLINE = "offline"


@dataclass
class Condensed:
    """The question to search for, how it was made, and the question as asked."""

    question: str
    standalone: str
    method: str  # "none" | "llm" | "offline"
    llm_error: str | None = None
    llm_output: str | None = None  # the LLM's reply as given (also when it was refused)


def stands_alone(question: str, unknown: Callable[[list[str]], list[str]] | None) -> bool:
    """A question that leans on nothing (not elliptical, no pronoun) whose every term the knowledge
    base never uses (``unknown``: the terms no document holds) is a new, off-topic question, not a
    follow-up: "今天天气怎么样？" after "扫地机器人显示E2是什么意思？" is searched as it is."""
    if unknown is None or is_elliptical(question) or has_anaphora(question):
        return False
    own = [t for t in terms(question) if shape(t) == "word"]
    try:
        return bool(own) and len(unknown(own)) == len(own)
    except Exception:  # noqa: BLE001 - a hint only: a failed probe leaves the follow-up as one
        return False


def condense(question: str, history: list[dict] | None, *, llm: Chat | None = None,
             similarity: Similarity | None = None,
             unknown: Callable[[list[str]], list[str]] | None = None,
             rules: CondenseRules = DEFAULT_CONDENSE) -> Condensed:
    """The standalone search question for ``question`` after ``history``.

    With ``llm`` (an :class:`swr.answer.llm.Answerer` that is configured) the LLM rewrites it, given
    the offline fallback's question as a draft to correct; on any failure or unusable output the
    offline fallback is used and ``llm_error`` says why.
    """
    from swr.core.errors import LLMUnavailable

    history = check_history(history)
    if not previous_question(history) or not needs_context(question) or stands_alone(question, unknown):
        return Condensed(question, question, METHOD_NONE)
    error, raw = None, []
    offline = condense_offline(question, history, similarity)
    if llm is not None:
        try:
            rewritten = condense_llm(question, history, llm, raw, draft=offline, rules=rules)
            if rewritten:
                return Condensed(question, rewritten, METHOD_LLM, llm_output=raw[0])
            error = "the LLM's rewrite was unusable"
        except LLMUnavailable as exc:
            error = exc.message
        log.info("condense: %s; using the offline fallback", error)
    return Condensed(question, offline, METHOD_OFFLINE, error, llm_output=raw[0] if raw else None)
