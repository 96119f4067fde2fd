"""What a sentence states, as far as text rules can tell: key terms, numbers with units, model
numbers and error codes, negation. No model calls; English and Chinese.

The verdicts (:mod:`swr.verify.verdict`) compare these between a claim and a window, because similarity
cannot: "covered for five years" and "covered by a 2-year warranty" embed almost alike.

Hand-written on purpose: a units library (pint) knows no Chinese units or numerals and a
number parser would not cover "两年" or "三个月"; the rules are small and tested
(tests/test_verdicts.py).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from swr.core.lang import HAN_BMP as CJK, HAN_BMP_RE  # the one CJK table
from swr.core.rules.serving import DEFAULT_SERVING
from swr.text.sparse import stem_en  # one thread-safe, cached stemmer for the whole package
from swr.text.stopwords import EN_STOP, ZH_STOP

_TERM = re.compile(rf"(?P<cjk>[{CJK}]+)|(?P<word>[0-9a-z\u00c0-\u024f]+(?:[-._/+'][0-9a-z\u00c0-\u024f]+)*)")
_PART = re.compile(r"[-._/+]")
_EN_STOP_EXTRA = frozenset("currently also according well".split())


def norm(text: str) -> str:
    """NFKC, lower case, curly apostrophe straightened."""
    return unicodedata.normalize("NFKC", text or "").lower().replace("\u2019", "'")


@lru_cache(maxsize=1)
def _stops() -> tuple[frozenset, frozenset]:
    return EN_STOP | _EN_STOP_EXTRA, ZH_STOP


def stem(word: str) -> str:
    word = word[:-2] if word.endswith("'s") else word
    return stem_en(word) if word.isalpha() else word


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(60)  # once: each call cleared the logging module's caches under its lock
    return jieba


jieba_module = _jieba  # the public name: jieba, its log level set once


def _jieba_cut(text: str) -> list[str]:
    return list(_jieba().cut(text))


def key_terms(claim: str) -> list[str]:
    """The claim's key terms, in order, once each: English content words, numbers and codes
    (``kx-2000``) lower-cased; Chinese words of two or more characters (jieba). The caller's own
    list (remembered per text: a question's terms were computed five times over)."""
    return list(_key_terms(claim))


@lru_cache(maxsize=DEFAULT_SERVING.stem_cache_texts)
def _key_terms(claim: str) -> tuple[str, ...]:
    en_stop, zh_stop = _stops()
    out: list[str] = []
    for m in _TERM.finditer(norm(claim)):
        if m.group("cjk"):
            out.extend(t for t in _jieba_cut(m.group("cjk")) if len(t) >= 2 and t not in zh_stop)
            continue
        word = m.group("word").strip("'")
        if word.endswith("'s"):
            word = word[:-2]
        if word in en_stop or (len(word) < 2 and not word.isdigit()):
            continue
        out.append(word)
    return tuple(dict.fromkeys(out))


def content_terms(claim: str) -> list[str]:
    """Key terms without numbers, number words, units and codes: what the claim is about."""
    return [t for t in key_terms(claim) if not _NUMERIC_TERM.search(t) and t not in _NUMBER_WORDS
            and t not in _UNIT_OF and not _ZH_QUANTITY.fullmatch(t)]


@lru_cache(maxsize=DEFAULT_SERVING.stem_cache_texts)
def _stems(low: str) -> frozenset:
    """The stems of a normalised text's words, and of a code's parts (the same windows are tested
    again and again: cached, it is a pure function of the text)."""
    stems = set()
    for m in _TERM.finditer(low):
        if m.group("word"):
            word = m.group("word").strip("'")
            stems.add(stem(word))
            stems.update(stem(x) for x in _PART.split(word) if x)  # "KX-2000" also holds "2000"
    return frozenset(stems)


def contained(terms: list[str], text: str) -> list[str]:
    """The terms ``text`` contains: English by stem (``covers`` finds ``cover``), codes and
    numbers as whole words, Chinese as substrings."""
    low = norm(text)
    stems = _stems(low)
    found = []
    for t in terms:
        if HAN_BMP_RE.search(t):
            if t in low:
                found.append(t)
        elif stem(t) in stems or (_PART.search(t) and all(stem(x) in stems for x in _PART.split(t) if x)):
            found.append(t)  # "one-year" is also found as "one year"
    return found


# -- negation ---------------------------------------------------------------------------------
_NEG_EN = re.compile(r"\b(?:not|no|never|none|nor|neither|cannot|nothing|nobody|nowhere)\b|n't\b")
_NEG_ZH = re.compile("不要|不能|不可|不得|不会|不应|不是|不用|不宜|不允许|不适合|不建议|不支持|不包括|不包含|不含|不在"
                     "|请勿|切勿|禁止|严禁|没有|未经|无法|勿|并非|非清水")


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation cue (``not``, ``never``, ``n't``, ``不要``, ``禁止``, ...)."""
    low = norm(text)
    return bool(_NEG_EN.search(low) or _NEG_ZH.search(low))


# -- the kind of number words name ----------------------------------------------------------------
# the words that name a kind of number (a dimension of the units below): "扫地机器人的电池容量是多少？"
# asks for a charge (mAh), not the dust box's litres, though both are a 容量; "weighs 3.5 litres" gives
# a volume for a weight (bench/new_user.py: both were badged "supported"). A word names a kind only
# where it is unambiguous ("capacity" alone is not; "电量" is often a percentage)
_KIND_WORDS = tuple((dim, re.compile(rx, re.I)) for dim, rx in (
    ("charge", r"电池容量|电池的容量|battery capacity|capacity of the battery|\bmah\b"),
    ("power", r"功率|耗电|\bwattage\b|\bpower consumption\b|how many watts"),
    ("voltage", r"电压|\bvoltage\b|how many volts"),
    ("loudness", r"噪音|噪声|分贝|多吵|\bnoise\b|\bnoisy\b|\bhow loud\b|\bdecibels?\b"),
    ("mass", r"重量|多重|\bweigh|\bhow heavy\b"),
    ("temperature", r"温度|多少度|\btemperature\b|\bhow (?:hot|cold|warm)\b"),
    ("pressure", r"吸力|\bsuction\b|\bpressure\b"),
))


def named_kinds(text: str) -> set[str]:
    """The kinds of number (unit dimensions) the words of ``text`` name: "电池容量" a charge, "噪音" a
    loudness, "weighs" a mass."""
    return {dim for dim, rx in _KIND_WORDS if rx.search(text or "")}


# -- numbers with units -------------------------------------------------------------------------
# unit spelling -> (canonical unit, dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, str, float]] = {}


def _units(dim: str, canon: str, factor: float, *names: str) -> None:
    for n in names:
        _UNITS[n] = (canon, dim, factor)


_units("time", "s", 1, "sec", "secs", "second", "seconds", "秒", "秒钟")
_units("time", "min", 60, "min", "mins", "minute", "minutes", "分钟")
_units("time", "h", 3600, "h", "hr", "hrs", "hour", "hours", "小时", "个小时", "钟头")
_units("time", "day", 86400, "day", "days", "天")
_units("time", "week", 604800, "week", "weeks", "周", "星期", "个星期")
_units("time", "month", 2629800, "month", "months", "个月")
_units("time", "year", 31557600, "year", "years", "yr", "yrs", "年")
_units("age", "age", 1, "岁", "周岁")
_units("power", "w", 1, "w", "watt", "watts", "瓦", "瓦特")
_units("power", "kw", 1000, "kw", "kilowatt", "kilowatts", "千瓦")
_units("voltage", "v", 1, "v", "volt", "volts", "伏", "伏特")
_units("frequency", "hz", 1, "hz", "赫兹")
_units("frequency", "khz", 1e3, "khz", "千赫")
_units("frequency", "mhz", 1e6, "mhz", "兆赫")
_units("frequency", "ghz", 1e9, "ghz", "吉赫")
_units("charge", "mah", 1, "mah", "毫安时")
_units("pressure", "pa", 1, "pa", "帕")
_units("loudness", "db", 1, "db", "decibel", "decibels", "分贝")
_units("volume", "l", 1, "l", "litre", "litres", "liter", "liters", "升", "公升")
_units("volume", "ml", 0.001, "ml", "millilitre", "millilitres", "milliliter", "milliliters", "毫升")
_units("mass", "g", 1, "g", "gram", "grams", "克")
_units("mass", "kg", 1000, "kg", "kilogram", "kilograms", "kilo", "kilos", "千克", "公斤")
_units("mass", "lb", 453.6, "lb", "lbs", "pound", "pounds", "磅")
_units("length", "m", 1, "m", "metre", "metres", "meter", "meters", "米")
_units("length", "cm", 0.01, "cm", "centimetre", "centimetres", "centimeter", "centimeters", "厘米", "公分")
_units("length", "mm", 0.001, "mm", "millimetre", "millimetres", "millimeter", "millimeters", "毫米")
_units("length", "km", 1000, "km", "kilometre", "kilometres", "kilometer", "kilometers", "公里", "千米")
_units("length", "mile", 1609.3, "mile", "miles", "英里")
_units("length", "ft", 0.3048, "ft", "feet", "foot", "英尺")
_units("length", "inch", 0.0254, "inch", "inches", "英寸")
_units("temperature", "°c", 1, "°c", "℃", "degrees celsius", "degrees", "degree", "度", "摄氏度")
_units("temperature_f", "°f", 1, "°f", "℉", "fahrenheit")
_units("percent", "%", 1, "%", "percent", "per cent", "百分之")
_units("count_cup", "cup", 1, "cup", "cups", "杯", "量杯")
_units("count_person", "person", 1, "people", "persons", "person", "人")
_units("count_times", "times", 1, "times", "次")
_units("money", "usd", 1, "dollars", "dollar", "usd", "美元")
_units("money", "cny", 1, "yuan", "rmb", "元", "块")
_units("magnitude", "thousand", 1e3, "thousand")
_units("magnitude", "million", 1e6, "million", "millions")
_units("magnitude", "billion", 1e9, "billion", "billions")
_units("magnitude", "万", 1e4, "万")
_units("magnitude", "亿", 1e8, "亿")
_UNIT_OF = {k: v for k, v in _UNITS.items()}

_NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_WORDS.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100,
                      "half": 0.5, "single": 1, "once": 1, "twice": 2, "thrice": 3})
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9, "半": 0.5}
_ZH_NUM = "零〇一二两三四五六七八九十百千半"
_EN_UNITS = sorted((u for u in _UNITS if not HAN_BMP_RE.search(u)), key=len, reverse=True)
_ZH_UNITS = sorted((u for u in _UNITS if HAN_BMP_RE.search(u)), key=len, reverse=True)
_EN_UNIT_RE = "|".join(re.escape(u) for u in _EN_UNITS)
_ZH_UNIT_RE = "|".join(re.escape(u) for u in _ZH_UNITS)
_NUM = r"\d+(?:[.,]\d+)*"
_WORDNUM = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
# "15-20 min", "80°C to 200°C", "2-year", "5.0L", "两年", "三个月", "1500 W", "two years"
_QTY = re.compile(
    rf"(?P<a>{_NUM}|\b(?:{_WORDNUM})\b|[{_ZH_NUM}]+)"
    rf"(?:\s*(?P<ua>{_EN_UNIT_RE}|{_ZH_UNIT_RE})(?![a-z]))?"
    rf"(?:\s*(?:-|–|~|to|至|到)\s*(?P<b>{_NUM}|[{_ZH_NUM}]+))?"
    rf"(?:\s*-?\s*(?P<u>(?<![a-z]){_EN_UNIT_RE}(?![a-z])|{_ZH_UNIT_RE}))?")
_NUMERIC_TERM = re.compile(r"\d")
_ZH_QUANTITY = re.compile(rf"[{_ZH_NUM}]+(?:{_ZH_UNIT_RE}|个)?")


@dataclass(frozen=True)
class Quantity:
    """A number as stated: ``value`` in ``unit`` (None: a bare number), ``text`` as written."""

    value: float
    unit: str | None
    dim: str | None
    base: float  # value in the dimension's base unit (== value when unit is None)
    text: str

    def same(self, other: "Quantity") -> bool:
        """The same amount (``2 years`` == ``24 months`` == ``两年``; a bare number matches by value)."""
        if self.dim and other.dim:
            return self.dim == other.dim and abs(self.base - other.base) <= 1e-6 * max(1.0, abs(self.base))
        return same_value(self.value, other.value)


def same_value(a: float, b: float) -> bool:
    """Equal numbers up to float rounding (a number written in text has far fewer digits than 1e-9)."""
    return abs(a - b) < 1e-9


def _zh_number(s: str) -> float | None:
    """A Chinese numeral: 三, 十二, 二十四, 一百五十, 两千, 半."""
    if not s:
        return None
    if s in _ZH_DIGITS:
        return float(_ZH_DIGITS[s])
    total, section, num = 0.0, 0.0, 0.0
    for ch in s:
        if ch in _ZH_DIGITS:
            num = _ZH_DIGITS[ch]
        elif ch == "十":
            section += (num or 1) * 10
            num = 0
        elif ch == "百":
            section += (num or 1) * 100
            num = 0
        elif ch == "千":
            section += (num or 1) * 1000
            num = 0
        elif ch == "万":
            total += (section + num) * 10000
            section, num = 0.0, 0.0
        else:
            return None
    return total + section + num


def _value(s: str) -> float | None:
    if s is None:
        return None
    if s[0].isdigit():
        try:
            return float(s.replace(",", "")) if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", s) else \
                float(s.replace(",", "."))
        except ValueError:
            return None
    if s in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[s])
    return _zh_number(s)


# "5G 的 WiFi", "2.4G band": a WiFi band (GHz), not grams
_BAND = re.compile(r"(\d(?:\.\d)?)\s*g(?=\s*(?:的\s*)?(?:wi-?fi|wlan|无线|网络|频段|band|network))")


def quantities(text: str) -> list[Quantity]:
    """The numbers of ``text`` with their units, in order. A Chinese numeral counts only with a
    unit (``一年``, not ``一下``); an English number word likewise (``two years``, not ``one of``);
    both ends of a range get its unit. The caller's own list (remembered per text: the extractive
    answer reads every candidate sentence's, the same sentences question after question)."""
    return list(_quantities(text))


@lru_cache(maxsize=DEFAULT_SERVING.stem_cache_texts)
def _quantities(text: str) -> tuple[Quantity, ...]:
    low = _BAND.sub(r"\1ghz", norm(text))
    out: list[Quantity] = []
    for m in _QTY.finditer(low):
        a, b = m.group("a"), m.group("b")
        unit = m.group("ua") or m.group("u")
        digits = a[0].isdigit()
        if not digits and not unit:
            continue
        if not digits and a not in _NUMBER_WORDS and not all(c in _ZH_NUM for c in a):
            continue
        before = low[max(0, m.start() - 2):m.start()]
        if digits and (re.search(r"[a-wyz]$", before) or re.fullmatch(r"[a-z]-", before)):
            continue  # part of a code: "e4", "kx-2000" (codes() reads those)
        for s, u in ((a, m.group("ua") or m.group("u")), (b, m.group("u"))):
            v = _value(s) if s else None
            if v is None:
                continue
            if u:
                canon, dim, factor = _UNITS[u]
                out.append(Quantity(v, canon, dim, v * factor, m.group(0).strip()))
            else:
                out.append(Quantity(v, None, None, v, s))
    return tuple(out)


# -- codes -------------------------------------------------------------------------------------------
_CODE = re.compile(r"(?<![0-9a-z])([a-z]{1,5})-?(\d{1,6})([a-z]{0,2})(?![0-9a-z])")
_NOT_CODE = frozenset({"v", "w", "l", "g", "kg", "cm", "mm", "m", "km", "ml", "hz", "kw", "h", "s", "min", "no",
                       "am", "pm", "x", "in", "ft", "lb", "lbs", "mg", "to", "at", "or", "and", "of", "the", "yr",
                       "ver", "version", "rev"})  # "ver2.1": a version string, not a code


_ORDINAL = frozenset({"st", "nd", "rd", "th"})


def codes(text: str) -> list[str]:
    """Model numbers and error codes (``AF-360``, ``KX-2000W``, ``E4``), upper-cased, without
    the hyphen: ``AF360``, ``KX2000W``, ``E4``. Numbers with units are not codes."""
    out = []
    for m in _CODE.finditer(norm(text)):
        letters, digits, tail = m.groups()
        if letters in _NOT_CODE or tail in _ORDINAL or (tail == "s" and len(digits) in (2, 4)):
            continue  # "mid-18th", "mid-1930s": an ordinal or a decade, not a code
        out.append((letters + digits + tail).upper())
    return list(dict.fromkeys(out))


_SQUASH = re.compile(r"(?<=[0-9a-z])[-_](?=[0-9a-z])")


def written(code: str, text: str) -> bool:
    """Whether ``text`` writes ``code`` (as :func:`codes` spells it) as a product name's part, hyphens
    aside: "C3" in "XK32-C3" and "XK32C3", "ROOM1" in "XK32-S3-ROOM-1", "KX2000" in
    "KX-2000", "F3" in "F03" (an error code's leading zeros, as a customer leaves them out); not "E2"
    in "E20" or "FE2" (a part starts after a letter-free boundary or a digit)."""
    flat = _SQUASH.sub("", norm(text)).upper()
    letters, digits, tail = re.fullmatch(r"([A-Z]*)(\d*)(.*)", code).groups()
    pat = rf"{re.escape(letters)}0*{digits.lstrip('0') or '0'}{re.escape(tail)}" if letters and digits \
        else re.escape(code)
    return bool(re.search(rf"(?<![A-Z]){pat}(?!\d)", flat)) or bool(re.search(rf"(?<=\d){pat}(?!\d)", flat))


def code_family(code: str) -> str:
    """The letters a code starts with: codes of one family are alternatives (``E4`` vs ``E2``)."""
    return re.match(r"[A-Z]*", code).group(0)


