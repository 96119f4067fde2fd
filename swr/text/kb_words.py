"""A knowledge base's own words: the translations a support team gives its brand, products and terms
(``RetrievalParams.glossary``, published with the knowledge base's settings).

The offline dictionary cannot know that a brand's Chinese name 明澜 is "Lumora" in the English
manuals, or that the FAQ's 集尘座 is the manual's "auto-empty station". A team writes such pairs once,
one per line (``english<TAB>中文``, or ``english = 中文``), on the Knowledge bases page; the
cross-lingual search (swr/retrieve/crosslingual.py) then reads them first: each of the question's
phrases the list holds is replaced by its other-language words (longest first; English as whole words,
any case), and the dictionary or the local model translates the rest. Written by hand: no library
keeps a user glossary in front of a dictionary translation.
"""
from __future__ import annotations

import re
from functools import lru_cache

from swr.core.errors import BadRequest
from swr.core.lang import has_han
from swr.core.params import glossary_pairs

_SPLIT = re.compile(r"\t+|\s+=\s+|\s*=\s*(?=[\u3400-\u9fff])")


def parse(text: str) -> tuple[tuple[str, str], ...]:
    """The pairs of ``text``: one ``english<TAB>中文`` (or ``english = 中文``) a line, either order;
    blank lines and ``#`` comments skipped. :class:`BadRequest` names the first line it cannot read."""
    pairs: list[tuple[str, str]] = []
    for n, line in enumerate((text or "").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cols = [c.strip() for c in _SPLIT.split(line, maxsplit=1)]
        if len(cols) != 2 or not all(cols):
            raise BadRequest(f"Line {n} of the words is not 'english<TAB>中文' (or 'english = 中文'): {line[:60]!r}.")
        en, zh = cols if has_han(cols[1]) else cols[::-1]
        if not has_han(zh) or has_han(en):
            raise BadRequest(f"Line {n} of the words needs an English side and a Chinese side: {line[:60]!r}.")
        pairs.append((en, zh))
    return glossary_pairs(pairs)


def as_text(pairs) -> str:
    """``pairs`` as the editor shows them: one ``english<TAB>中文`` a line."""
    return "\n".join(f"{en}\t{zh}" for en, zh in pairs or ())


@lru_cache(maxsize=64)
def _patterns(pairs: tuple, target: str) -> tuple[tuple[re.Pattern, str], ...]:
    """(pattern of the source side, the target side), longest source first."""
    src = [(zh, en) if target == "en" else (en, zh) for en, zh in pairs]
    src.sort(key=lambda p: -len(p[0]))
    return tuple((re.compile(re.escape(s) if has_han(s) else rf"(?<![\w-]){re.escape(s)}(?![\w-])", re.IGNORECASE), t)
                 for s, t in src)


def pick(text: str, target: str, pairs) -> tuple[list[str], str]:
    """(the ``target`` words of the phrases of ``text`` that ``pairs`` holds, ``text`` without them)."""
    found: list[str] = []
    if not pairs:
        return found, text
    for pattern, words in _patterns(tuple(pairs), target):
        if pattern.search(text):
            found.append(words)
            text = pattern.sub(" ", text)
    return found, text


def with_words(found: list[str], translated):
    """A translation (a text, a ``(text, senses text)`` pair or None) with the knowledge base's
    ``found`` words in front of each text."""
    if not found:
        return translated
    head = " ".join(found)
    if translated is None:
        return head
    if isinstance(translated, tuple):
        return tuple(f"{head} {t}".strip() if t else head for t in translated)
    return f"{head} {translated}".strip()
