"""Names across scripts: a Chinese name and its pinyin spelling in English ("韦小宝" and "Wei Xiaobao",
"小米" and "Xiaomi", "海尔" and "Haier").

A dictionary reads a name in neither direction (CC-CEDICT glosses few names), and the embedding
model links them only sometimes; their sounds link them always when the English spells the name in
pinyin, as English writes most Chinese people, places and brands. Each character's readings come
from CC-CEDICT (:attr:`swr.text.glossary.Glossary.readings`, tones dropped); a Latin word is read as
pinyin when it splits wholly into pinyin syllables. No library does this both ways on a dictionary
we already ship (pypinyin reads Chinese to pinyin only, with its own dictionary), so it is written here.

A name must have :data:`MIN_SYLLABLES` syllables or more: one syllable ("Wei", "Long") matches
some character of almost any passage.
"""
from __future__ import annotations

import re
from functools import lru_cache

from swr.core.lang import HAN_BMP_RE

MIN_SYLLABLES = 2  # size: a name of one syllable matches by chance
_MAX_SYLLABLE = 6  # the longest pinyin syllable ("zhuang", "shuang")
_LATIN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_VOWEL = re.compile(r"[aeiouv]")
_RUN_WORDS = 4  # size: the longest name read, in words ("Zheng Ke Shuang", "Wu San Gui")


def _readings() -> dict[str, frozenset[str]]:
    from swr.text.glossary import glossary

    return glossary().readings


@lru_cache(maxsize=1)
def _syllables() -> frozenset[str]:
    # a syllable has a vowel: the interjections' "m", "ng" and erhua's "r" would split any word
    return frozenset(s for rs in _readings().values() for s in rs if _VOWEL.search(s))


@lru_cache(maxsize=4096)
def syllables(word: str) -> tuple[str, ...] | None:
    """``word`` split wholly into pinyin syllables (the fewest, so "Xian" is one, "Xi'an" two), or
    None when it does not split ("Trinket")."""
    w, known = word.lower(), _syllables()
    parts = [p for p in w.split("'") if p]
    out: list[str] = []
    for part in parts:
        best: dict[int, tuple[str, ...]] = {0: ()}
        for i in range(len(part)):
            if i not in best:
                continue
            for j in range(i + 1, min(len(part), i + _MAX_SYLLABLE) + 1):
                if part[i:j] in known and (j not in best or len(best[j]) > len(best[i]) + 1):
                    best[j] = best[i] + (part[i:j],)
        if len(part) not in best:
            return None
        out += best[len(part)]
    return tuple(out) or None


def latin_names(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The capitalised runs of ``text`` that read as pinyin: ``(words, syllables)`` per run of
    :data:`MIN_SYLLABLES` or more ("Wei Xiaobao" -> (("wei", "xiaobao"), ("wei", "xiao", "bao")))."""
    out, words, syls = [], [], []

    def close() -> None:
        if len(syls) >= MIN_SYLLABLES:
            out.append((tuple(words), tuple(syls)))
        words.clear()
        syls.clear()

    for m in _LATIN.finditer(text):
        w = m.group()
        s = syllables(w) if w[:1].isupper() and len(words) < _RUN_WORDS else None
        if s is None:
            close()
            continue
        if words and text[m.start() - 1: m.start()] not in (" ", "-"):
            close()
        words.append(w.lower())
        syls += s
    close()
    return out


def written_in_han(syls: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` has consecutive Chinese characters read ``syls``."""
    readings, n = _readings(), len(syls)
    for i in range(len(text) - n + 1):
        if all(syls[k] in readings.get(text[i + k], ()) for k in range(n)):
            return True
    return False


def _spells(chars: str, latin: str) -> bool:
    readings = _readings()
    ends = {0}
    for ch in chars:
        ends = {p + len(r) for p in ends for r in readings.get(ch, ()) if latin.startswith(r, p)}
        if not ends:
            return False
    return len(latin) in ends


@lru_cache(maxsize=16)
def _latin_words(text: str) -> tuple[str, ...]:
    """The Latin words of ``text``, lower-cased (one passage text is read for each of a question's terms)."""
    return tuple(m.group().lower().replace("'", "") for m in _LATIN.finditer(text))


def written_in_latin(name: str, text: str) -> bool:
    """Whether ``text`` spells the Chinese ``name`` (:data:`MIN_SYLLABLES` characters or more) in pinyin,
    in one word or several ("Xiaobao", "Wei Xiaobao", "Kang Xi")."""
    if len(name) < MIN_SYLLABLES or not all(HAN_BMP_RE.fullmatch(c) for c in name):
        return False
    words = _latin_words(text)
    for i in range(len(words)):
        joined = ""
        for w in words[i:i + _RUN_WORDS]:
            joined += w
            if len(joined) > len(name) * _MAX_SYLLABLE:
                break
            if _spells(name, joined):
                return True
    return False
