"""The one table of CJK character ranges, and the cheap language guesses built on it.

Every module that asks "is this Chinese?" uses these classes (regex character-class bodies, to
put inside ``[...]``), so they cannot drift apart:

- :data:`HAN_BMP`: the CJK ideographs of the Basic Multilingual Plane (Extension A, the unified
  block, compatibility ideographs): what the BM25 tokenizer and the claim-term extractor treat
  as Chinese words;
- :data:`HAN`: :data:`HAN_BMP` plus the supplementary-plane extensions B to H (rare characters,
  counted by the language tag of a document);
- :data:`CJK`: every East-Asian character that is no word boundary: radicals, CJK punctuation,
  kana, bopomofo, ideographs, hangul and full-width forms (whitespace matching, token estimates).
"""
from __future__ import annotations

import re

HAN_BMP = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN = HAN_BMP + "\U00020000-\U0003134f"
CJK = ("\u2e80-\u2fff"  # radicals
       "\u3000-\u303f"  # CJK symbols and punctuation
       "\u3040-\u30ff"  # hiragana, katakana
       "\u3100-\u312f"  # bopomofo
       "\u3400-\u4dbf\u4e00-\u9fff"  # ideographs
       "\uac00-\ud7af"  # hangul syllables
       "\uf900-\ufaff"  # compatibility ideographs
       "\uff00-\uffef")  # half- and full-width forms

#: CJK punctuation: symbols and punctuation, full-width ASCII forms and half-width CJK punctuation
#: (what a decoded Chinese text holds besides its ideographs)
CJK_PUNCT = "\u3000-\u303f\uff01-\uff65"

CJK_RE = re.compile(f"[{CJK}]")
CJK_PUNCT_RE = re.compile(f"[{CJK_PUNCT}]")
HAN_RE = re.compile(f"[{HAN}]")
HAN_BMP_RE = re.compile(f"[{HAN_BMP}]")
_LATIN_WORD = re.compile("[A-Za-z\u00c0-\u024f]+")
LANG_SAMPLE = 4000  # characters a document's language tag looks at


def has_cjk(text: str | None) -> bool:
    """True when ``text`` holds a Chinese, Japanese or Korean character (or CJK punctuation)."""
    return bool(CJK_RE.search(text or ""))


def count_cjk(text: str) -> int:
    """The number of :data:`CJK` characters in ``text``."""
    return len(CJK_RE.findall(text))


def has_han(text: str | None) -> bool:
    """True when ``text`` holds a CJK ideograph."""
    return bool(HAN_RE.search(text or ""))


def question_lang(text: str | None) -> str:
    """``"zh"`` when a short text (a question, a claim) has any CJK character, else ``"en"``."""
    return "zh" if has_cjk(text) else "en"


def detect_lang(text: str) -> str:
    """``"zh"`` or ``"en"`` for a document: a cheap payload tag, not a language identifier.

    Looks at the first :data:`LANG_SAMPLE` characters; counts ideographs (each roughly one
    morpheme) and Latin words: ``"zh"`` when ideographs are at least as many as Latin words,
    else ``"en"`` (also for text with neither).
    """
    sample = text[:LANG_SAMPLE]
    han = len(HAN_RE.findall(sample))
    if han == 0:
        return "en"
    return "zh" if han >= len(_LATIN_WORD.findall(sample)) else "en"


_GAP = re.compile(f"(?<=[{CJK}]) | (?=[{CJK}])")


def drop_cjk_spaces(text: str) -> str:
    """``text`` without the single spaces next to a CJK character (no word boundary there)."""
    return _GAP.sub("", text)


__all__ = ["HAN_BMP", "HAN", "CJK", "CJK_PUNCT", "CJK_RE", "CJK_PUNCT_RE", "HAN_RE", "HAN_BMP_RE", "has_cjk",
           "count_cjk", "has_han", "question_lang", "detect_lang", "drop_cjk_spaces", "LANG_SAMPLE"]
