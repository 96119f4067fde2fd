"""From a question's evidence to its answer: answer it or say it is not in the knowledge base
(:mod:`swr.answer.answerable`), then an extractive answer or the LLM's stream (told what the
evidence says to a yes/no question), and the drain of that stream with its extractive fallback."""
from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Iterator

import swr.answer.answerable as answerable
from swr.answer.extractive import extractive_answer, grounded_answer
from swr.answer.llm import not_found_message
from swr.answer.prompt import answer_hint, context_text, yes_no_hint
from swr.answer.result import AskResult, with_fact
from swr.answer.substantive import substantive
from swr.core.errors import LLMUnavailable
from swr.core.lang import question_lang
from swr.core.params import RetrievalParams
from swr.core.tokens import count_tokens
from swr.core.types import Passage
from swr.retrieve import subjects
from swr.retrieve.search import Retrieval


def evidence(retrieval: Retrieval, kb: str, passages: list[Passage], settings: dict, timings: dict, cond,
             use_llm: bool) -> AskResult:
    """The result of ``retrieval`` in ``kb`` before its answer: its passages, the ``settings`` it was made with,
    sizes and ``timings``; ``cond`` is the follow-up's rewrite (:func:`swr.answer.condense.condense`)
    or None."""
    result = AskResult(
        question=retrieval.question, kb=kb, answer="", answer_kind="llm" if use_llm else "extractive",
        passages=passages, settings=settings, context_chars=sum(len(p.text) for p in passages),
        context_tokens=count_tokens(context_text(passages)), timings=timings,
        created_at=_dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        standalone_question=retrieval.question, query_tokens=retrieval.query_tokens,
        condense={"method": cond.method, "llm_error": cond.llm_error} if cond else {"method": "none"})
    if cond:
        result.question = cond.question
    return result


def answer(engine, result: AskResult, retrieval: Retrieval, asked: str, use_llm: bool) -> Iterator[str] | None:
    """Fill ``result`` (built from ``retrieval`` and its passages) with its answerability and, unless
    refused, its extractive answer; returns the LLM's answer stream when ``use_llm`` (else None).

    ``asked`` is the question as the user wrote it (a follow-up before its rewrite)."""
    kb, question, passages = result.kb, retrieval.question, result.passages
    verdict = answerable.assess(engine, question, kb, retrieval.hits, passages, retrieval.params,
                                pool=retrieval.answer_pool, named=retrieval.named, foreign=retrieval.foreign,
                                translations=retrieval.translations, cosines=retrieval.cosines,
                                vector=retrieval.query_vector)
    result.answerable, result.answerable_score = verdict.answerable, verdict.score
    result.answerability = verdict.to_dict()
    result.trace = [{"rule": r, "why": verdict.reason} for r in verdict.rules]
    if not verdict.answerable:  # say so plainly; the passages stay as the closest, not an answer
        chat = answerable.Rule.SMALL_TALK.value in verdict.rules  # refused as small talk: say what it answers
        result.answer, result.answer_kind = not_found_message(asked, small_talk=chat), "extractive"
        result.settings["llm_model"] = None
        return None
    # the extractive answer, or the LLM told which sentence answers (what it says to a yes/no question)
    ext = grounded_answer(engine.embedder, question, passages, foreign=retrieval.foreign,
                          subjects=subjects.for_kb(engine, kb), asked=asked,
                          allowed=answerable.grounds(engine, kb, retrieval.named, retrieval.foreign),
                          rules=(rp := retrieval.request or RetrievalParams()).extractive,
                          query_vector=retrieval.query_vector, translations=retrieval.translations, top_k=rp.top_k)
    result.trace += ext.trace
    if not use_llm:
        result.answer, result.extract = ext.text, ext.to_dict()
        return None
    lang = question_lang(asked or question)
    hint = None
    if ext.polarity and ext.passage:
        hint = yes_no_hint(ext.polarity, ext.passage, ext.sentence, lang)
    elif ext.relevant and ext.passage and ext.sentence:
        hint = answer_hint(ext.passage, ext.sentence, lang)
    result.extract = ext.to_dict() if hint else None
    return engine.answerer.stream(question, passages, hint)


def drain(result: AskResult, stream: Iterator[str], on_delta: Callable[[str], None] | None = None) -> str:
    """Drain an answer stream into ``result``; fall back to extractive on LLM failure."""
    t0 = time.perf_counter()
    parts = []
    try:
        for delta in stream:
            parts.append(delta)
            if on_delta:
                on_delta(delta)
        result.answer = with_fact("".join(parts), result.extract)
    except LLMUnavailable as exc:
        result.llm_error = exc.message
        result.answer_kind = "extractive"
        usable = substantive(result.passages) or result.passages
        result.answer = extractive_answer(result.question, usable)
    result.timings["llm_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return result.answer
