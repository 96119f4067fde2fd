"""What counts as a sentence of evidence: not a table border, not a bare Markdown heading, not
empty (answerability's closest sentence, the extractive answer's candidates and its marks)."""
from __future__ import annotations

import re
from dataclasses import replace

from swr.core.rules.answerable import DEFAULT_ANSWER, AnswerRules
from swr.core.types import Passage

_BORDER = re.compile(r"^[\s|:\-–—=+*#_~`.·•]*$")
_HEADING = re.compile(r"^\s*#{1,6}\s")


def substantive_text(text: str, rules: AnswerRules = DEFAULT_ANSWER) -> bool:
    """Not a table border (``|``, ``| --- |``), not a bare Markdown heading, not empty."""
    t = (text or "").strip()
    if not t or _BORDER.match(t):
        return False
    if _HEADING.match(t) and len(t) < rules.heading_chars:
        return False
    return len(re.sub(r"[\s|#*_\-:]", "", t)) >= rules.min_chars


def substantive(passages: list[Passage]) -> list[Passage]:
    """The passages whose hits are real sentences, each with only those hits (for the extractive
    answer, which marks its passage's hits: a heading or a border is never marked as the answer)."""
    out = []
    for p in passages:
        hits = [h for h in p.hits if substantive_text(h.sentence)]
        if hits:
            out.append(replace(p, hits=hits))
    return out
