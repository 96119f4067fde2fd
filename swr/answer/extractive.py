"""The answer when no LLM is configured (or it failed): the best passage, hits marked 【】."""
from __future__ import annotations

from swr.core.lang import question_lang
from swr.core.types import Passage

_LABELS = {
    "en": {
        "extractive": "Extractive answer (no LLM configured): the most relevant passage, from [{n}] {source}:",
        "not_found": "Nothing relevant was found in this knowledge base.",
    },
    "zh": {
        "extractive": "摘录式回答（未配置大语言模型）：最相关的段落，来自 [{n}] {source}：",
        "not_found": "在此知识库中没有找到相关内容。",
    },
}

_MARK_OPEN, _MARK_CLOSE = "【", "】"


def not_found_message(question: str) -> str:
    """The "nothing found in this knowledge base" message, in the question's language."""
    return _LABELS[question_lang(question)]["not_found"]


def _merged_spans(text: str, passage: Passage) -> list[tuple[int, int]]:
    """Hit spans clamped to the text, trimmed of surrounding whitespace, merged when overlapping."""
    spans: list[tuple[int, int]] = []
    for hit in sorted(passage.hits, key=lambda h: (h.start, h.end)):
        start, end = max(0, hit.start), min(len(text), hit.end)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start:
            continue
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


def mark_hits(passage: Passage, open_mark: str = _MARK_OPEN, close_mark: str = _MARK_CLOSE) -> str:
    """The passage text with each hit sentence wrapped in 【】 (or the given marks)."""
    text = passage.text
    out, pos = [], 0
    for start, end in _merged_spans(text, passage):
        out += [text[pos:start], open_mark, text[start:end], close_mark]
        pos = end
    out.append(text[pos:])
    return "".join(out).strip()


def extractive_answer(question: str, passages: list[Passage]) -> str:
    """The answer used when no LLM is configured: the best passage with its hits marked 【】,
    after a label (in the question's language) saying it is extractive."""
    if not passages:
        return not_found_message(question)
    n, best = max(enumerate(passages, 1), key=lambda item: item[1].score)
    label = _LABELS[question_lang(question)]["extractive"].format(n=n, source=best.source)
    return f"{label}\n\n{mark_hits(best)}"
