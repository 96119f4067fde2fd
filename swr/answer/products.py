"""Products a question asks about that the knowledge base never names (rule ``answerable.product_absent``).

A support knowledge base meets its customers' other products every day: "How do I clean the lint
filter of my tumble dryer?" against a robot vacuum's FAQ, "冰箱冷藏室温度设置多少合适？" against an
espresso machine's. The bars answered such questions: e5 puts them at 0.85-0.90 from a filter's or a
temperature's sentence, and "filter" or 温度 is in the passages. What tells them apart is the product
itself: no document of the knowledge base names a tumble dryer or a refrigerator, in either language.

The product kinds are a list written for swr (``data/products.tsv``: household, personal and vehicle
products, each with its English and Chinese forms), not learnt: a knowledge base's own words cannot say
which of a question's words is a product. A kind counts only as the question's subject ("my washing
machine", "洗衣机的滚筒"): one named in passing ("Can I put the basket in the washing machine?",
"能放进洗衣机吗？") may be answered by a manual that says "hand wash only". Whether the knowledge base
names a kind is one batched BM25 search of its forms (every language), the hits read for the form
itself; cached until the knowledge base changes. Only ever refuses; never fails an answer.
"""
from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from swr.core.params import MAX_TOP_K
from swr.store import SearchRequest

KINDS = Path(__file__).with_name("data") / "products.tsv"
BRANDS = Path(__file__).with_name("data") / "brands.tsv"
CACHED = 50_000  # size: (knowledge base, version, form) answers kept per store
_HAN = re.compile(r"[\u3400-\u9fff]")
# a kind named in passing: "in / into / like / to / with / and ... (the|a|my)" before it ("in my car" is not:
# "in" only without "my"), 放进 / 放入 / 放在 / 用 / 像 / 比 before it
_IN_PASSING_EN = re.compile(r"\b(?:(?:in|into|inside|like|than|as)\s+(?:(?:the|a|an|your)\s+)?"
                            r"|(?:to|with|from|and|or)\s+(?:(?:the|a|an|my|your)\s+)?)$", re.IGNORECASE)
_IN_PASSING_ZH = re.compile(r"(?:放进|放入|放在|放到|进|入|用|像|比|当)$")
# ... or where something is put or used: a placing verb before it and "in (my)" just before it, or 里 / 中 /
# 内 just after it ("Can I put the portafilter in my Bosch dishwasher?", "Can I use it in my car?", "扔洗衣机里")
_PUT_EN = re.compile(r"\b(?:put|place|throw|toss|wash|store|keep|leave|drop|stick|use|charge|mount|install|run)\b"
                     r"[^.?!]{0,40}\b(?:in|into|inside)\s+(?:(?:the|a|an|my|your)\s+)?$", re.IGNORECASE)
_PUT_ZH = re.compile(r"[扔放丢塞装泡洗][^。？！?!]{0,12}$")
# ... or what the product connects to or supports: "Does the XK32 support Bluetooth headsets?", "能连蓝牙耳机吗"
_WORKS_WITH_EN = re.compile(r"\b(?:supports?|connect(?:s|ed)?|pair(?:s|ed)?|works?|compatible|stream(?:s|ing)?)\b"
                            r"[^.?!]{0,30}$", re.IGNORECASE)
_MY = re.compile(r"\b(?:my|our)\s+$", re.IGNORECASE)
_WORKS_WITH_ZH = re.compile(r"(?:连接|连上|连到|能连|配对|支持|兼容|投屏到|投到)[^。？！?!]{0,8}$")
_INSIDE_ZH = re.compile(r"^[^。？！?!]{0,4}?[里裡中内]")
# ... or a maker of what the customer uses with the product, not the product, its model name between them at
# most: "my Samsung Galaxy S23 phone", "小米手机" (not "小牛电动车 NQi 怎么绑定手机")
_DEVICE = re.compile(r"^[A-Za-z0-9 +\-]{0,20}?(?:phones?\b|smartphone|iphone|laptop|notebook|computer|\bpc\b|tablet|"
                     r"router|charger|power bank|cable|手机|手機|笔记本|電腦|电脑|平板|路由器|充电器|充电宝|数据线)",
                     re.IGNORECASE)
_SEEN: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # store -> {(kb, version, form): written}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Kind:
    """A product kind: its name (its first English form) and every form of it, both languages."""

    name: str
    forms: tuple[str, ...]
    brand: bool = False  # a maker (data/brands.tsv), not a kind of product

    def said(self) -> str:
        return self.name if self.brand else ("an " if self.name[0] in "aeiou" else "a ") + self.name


def _pattern(form: str) -> re.Pattern:
    if _HAN.search(form):
        return re.compile(re.escape(form))
    # a whole word or phrase, with its plural; a hyphen may join it ("dishwasher-safe", "e-bike")
    return re.compile(rf"(?<![A-Za-z]){re.escape(form)}(?:s|es)?(?![a-z])", re.IGNORECASE)


@lru_cache(maxsize=1)
def kinds() -> tuple[Kind, ...]:
    """The product kinds of ``data/products.tsv`` and the makers of ``data/brands.tsv``."""
    out = []
    for path, brand in ((KINDS, False), (BRANDS, True)):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                forms = tuple(f.strip() for col in line.split("\t") for f in col.split("|") if f.strip())
                out.append(Kind(forms[0], forms, brand))
    return tuple(out)


@lru_cache(maxsize=512)
def _compiled(form: str) -> re.Pattern:
    return _pattern(form)


@lru_cache(maxsize=1)
def _finder() -> tuple[re.Pattern, dict[str, Kind]]:
    """One pattern for every form of every kind (longest first, so a form inside a longer one of another
    kind, "dryer" of "hair dryer", is never read on its own), and the kind of each form (lower case)."""
    by_form = {f.lower(): k for k in kinds() for f in k.forms}
    forms = sorted(by_form, key=len, reverse=True)
    zh = "|".join(re.escape(f) for f in forms if _HAN.search(f))
    en = "|".join(re.escape(f) for f in forms if not _HAN.search(f))
    return re.compile(rf"(?P<zh>{zh})|(?<![A-Za-z])(?P<en>{en})(?:s|es)?(?![a-z])", re.IGNORECASE), by_form


def asked(question: str) -> tuple[Kind, ...]:
    """The product kinds ``question`` asks about as its subject (not one it names in passing): one scan."""
    pattern, by_form = _finder()
    found: list[Kind] = []
    for m in pattern.finditer(question):
        kind = by_form[(m.group("zh") or m.group("en")).lower()]
        if kind not in found and not in_passing(question, m.start(), m.end(), kind.brand):
            found.append(kind)
    return tuple(sorted(found, key=kinds().index))  # in the lists' order, as the reason names them


def in_passing(question: str, at: int, end: int, brand: bool = False) -> bool:
    """Whether the kind or maker ``question[at:end]`` is named in passing (the module docstring)."""
    before, after = question[max(0, at - 60):at], question[end:end + 24]
    if brand and _DEVICE.search(after):
        return True
    if _HAN.search(question[at:end]):
        return bool(_IN_PASSING_ZH.search(before[-20:]) or (_PUT_ZH.search(before) and _INSIDE_ZH.search(after))
                    or _WORKS_WITH_ZH.search(before[-20:]))
    works_with = _WORKS_WITH_EN.search(before) and not _MY.search(before)  # "pair my Roborock": its subject
    return bool(_IN_PASSING_EN.search(before[-20:]) or _PUT_EN.search(before) or works_with)


def _probe_text(form: str) -> str:
    """The BM25 query that finds the sentences writing ``form``: a Chinese form with its two-character
    pieces too (the word segmenter cuts "扫地机器人" as 扫地 机器人, so 扫地机 alone is no term of it)."""
    if not _HAN.search(form):
        return form
    return " ".join([form, *(form[i:i + 2] for i in range(len(form) - 1))])


def _version(engine, kb: str):
    """A version of ``kb``'s contents: the cross-lingual search's (this process's writes, and its count
    at least every few seconds: another process's writes to a server), else the store's generation."""
    xl = getattr(engine, "crosslingual", None)
    if xl is not None:
        return xl.kb_state(kb)[1]
    return engine.store.generation(kb) if hasattr(engine.store, "generation") else None


def _named(engine, kb: str, forms: list[str]) -> dict[str, bool | None]:
    """Whether some sentence of ``kb`` writes each of ``forms``: one batched BM25 search, cached per
    store (two engines' knowledge bases of one name are two) until the knowledge base changes."""
    version = _version(engine, kb)
    keys = {f: (kb, version, f.lower()) for f in forms}
    with _LOCK:
        seen = _SEEN.setdefault(engine.store, {})
        todo = [f for f in forms if keys[f] not in seen]
    vecs = {f: engine.sparse.encode_query(_probe_text(f)) for f in todo}
    probed = [f for f in todo if vecs[f].indices]
    found = engine.store.search_many([SearchRequest(kb=kb, dense=None, sparse=vecs[f], mode="sparse", top_k=MAX_TOP_K,
                                                    sparse_k=MAX_TOP_K) for f in probed]) if probed else []
    with _LOCK:
        if len(seen) > CACHED:
            seen.clear()
        for f in todo:
            seen[keys[f]] = None if f not in probed else False  # no BM25 term: not known either way
        for f, hits in zip(probed, found):
            seen[keys[f]] = any(_compiled(f).search(h.sentence.text) for h in hits)
        return {f: seen.get(keys[f]) for f in forms}


def absent_products(engine, question: str, kb: str, passages=()) -> tuple[str, ...]:
    """The names ("a washing machine", "Dyson") of the product kinds and makers ``question`` asks
    about that no sentence of ``kb`` names in any of their forms: none written in the retrieved
    ``passages`` (a sentence BM25 ranked below its 100 best is read there) nor found by the search, and
    one at least searched (() on any failure: a hint only)."""
    wanted = asked(question)
    text = "\n".join(p.text for p in passages)
    wanted = tuple(k for k in wanted if not any(_compiled(f).search(text) for f in k.forms))
    if not wanted:
        return ()
    try:
        seen = _named(engine, kb, [f for k in wanted for f in k.forms])
    except Exception:  # noqa: BLE001
        return ()
    return tuple(k.said() for k in wanted if not any(seen[f] for f in k.forms)
                 and any(seen[f] is False for f in k.forms))
