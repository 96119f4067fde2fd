"""Claim verification: is a statement supported by a knowledge base, and where exactly?

Whole-chunk similarity misses a fact that is one clause inside a chunk; sliding windows over the
chunk find it. Three paths look for support, per claim:

1. ``semantic``: hybrid (or dense/sparse) retrieval of ``candidates`` sentences; the hits are
   widened into chunks (swr passages: the merged window of ``passage_window`` sentences each side
   of a hit). A chunk's semantic score is the best cosine between the claim and one of its hit
   sentences (their stored vectors: no model call).
2. ``literal``: the claim's key terms (content words, numbers, codes; jieba words for Chinese)
   searched in every window of every candidate chunk; score = the share of the key terms the
   window contains (word match after stemming, substring for Chinese). Literal containment is
   evidence in its own right, on the same 0-1 scale: at the default threshold a window needs
   nearly all key terms. A window whose polarity differs from the claim's (one says ``never``,
   ``not``, ``禁止``..., the other does not) is no literal support.
3. ``window``: windows of ``window`` sentences, sliding by ``step``, over the best ``use_top``
   chunks; cosine between the claim and each window. The windows of *all* chunks of *all* claims
   are embedded in one batched ``encode_passages`` call (the GPU when there is one); a window of a
   single sentence reuses the sentence's stored vector instead.

Each path keeps the best window per chunk; the paths are merged (one entry per chunk, the highest
score wins, every path's best score kept in ``paths``), sorted, cut to ``top_k``. An entry whose
score reaches the threshold supports the claim; the verdict is ``supported`` when one does, else
``not found``.

The default threshold depends on the model's cosine scale (:func:`default_threshold`).
multilingual-e5-small scores almost any two sentences on one topic above 0.8, so its default is
0.88, set on 60 WiCE claims (``bench/verify_wice.py``, ``bench/verify_results.md``): of the
6,829 sentences of the cited documents that do NOT support their claim, 0.09% reach 0.88 (0.4%
reach 0.86, 1.6% reach 0.84), about one per nine documents of 120 sentences, while the best
window of half the fully supported claims does (and that of 0 of the 4 not-supported claims).
Lower it for recall (0.86 finds 76% of the supported claims). Other models (MiniLM and the like
spread cosines over 0-1) get 0.6.

A score is similarity, not entailment: "the kettle may be used without water" is close to "Never
use the kettle without water". Each entry therefore carries ``warnings`` when its window negates
and the claim does not (or the other way round) or lacks a number the claim states; the literal
path ignores windows of the other polarity.
"""
from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import numpy as np

from . import window as win
from .errors import BadRequest
from .store.base import MODES, sentence_id
from .types import Passage, PassageHit, Sentence

PATHS = ("semantic", "literal", "window")
VERDICTS = ("supported", "not found")
E5_THRESHOLD = 0.88
OTHER_THRESHOLD = 0.6
LITERAL_MIN = 0.5  # a literal window is kept only when it holds at least half of the key terms
MAX_CLAIMS = 1000


def default_threshold(model: str) -> float:
    """The default support threshold for an embedding model's cosine scale (see module doc)."""
    return E5_THRESHOLD if "e5" in (model or "").lower() else OTHER_THRESHOLD


# --------------------------------------------------------------------------------------------
# results


@dataclass
class SupportEntry:
    """The best window of one chunk for one claim.

    Sentence numbers are 0-based (``Sentence.i``); the chunk is sentences ``chunk_first..chunk_last``
    of the document, the window ``window_first..window_last`` inside it. ``chunk`` is the chunk as
    a :class:`Passage` whose only hit is the window, ready for ``render.passage_html``.
    """

    doc_id: str
    source: str
    chunk_first: int
    chunk_last: int
    window_first: int
    window_last: int
    text: str
    score: float
    path: str
    supported: bool
    chunk: Passage
    paths: dict[str, float] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)  # the key terms the window contains (literal)
    warnings: list[str] = field(default_factory=list)  # negation or numbers differ: read the window

    @property
    def position(self) -> int:
        """Where the window starts inside its chunk (0 = the chunk's first sentence)."""
        return self.window_first - self.chunk_first

    def to_dict(self) -> dict:
        d = asdict(self)
        d["position"] = self.position
        return d


@dataclass
class VerifyResult:
    """Verdict and supporting windows of one claim."""

    claim: str
    kb: str
    verdict: str
    threshold: float
    entries: list[SupportEntry]
    key_terms: list[str] = field(default_factory=list)
    params: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    @property
    def supporting(self) -> list[SupportEntry]:
        """The entries at or above the threshold."""
        return [e for e in self.entries if e.supported]

    @property
    def best(self) -> SupportEntry | None:
        return self.entries[0] if self.entries else None

    def to_dict(self) -> dict:
        return {"claim": self.claim, "kb": self.kb, "verdict": self.verdict, "threshold": self.threshold,
                "best_score": self.best.score if self.best else None,
                "entries": [e.to_dict() for e in self.entries], "key_terms": list(self.key_terms),
                "params": dict(self.params), "counts": dict(self.counts), "timings": dict(self.timings)}


# --------------------------------------------------------------------------------------------
# pure helpers


def slide(first: int, last: int, size: int, step: int) -> list[tuple[int, int]]:
    """Windows ``(a, b)`` (inclusive) of ``size`` sentences every ``step`` over ``first..last``.

    The last window always ends at ``last`` (a final window is added when the step skips the
    end); a range shorter than ``size`` is one window.
    """
    if size < 1 or step < 1:
        raise ValueError("window size and step must be at least 1")
    if last < first:
        return []
    if last - first + 1 <= size:
        return [(first, last)]
    out = [(a, a + size - 1) for a in range(first, last - size + 2, step)]
    if out[-1][1] < last:
        out.append((last - size + 1, last))
    return out


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TERM = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[0-9a-z\u00c0-\u024f]+(?:[-._/+'][0-9a-z\u00c0-\u024f]+)*)")
_EN_STOP_EXTRA = frozenset("currently also according well".split())


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").lower().replace("\u2019", "'")


@lru_cache(maxsize=1)
def _stops() -> tuple[frozenset, frozenset]:
    from .sparse import _EN_STOP, _ZH_STOP

    return frozenset(_EN_STOP) | _EN_STOP_EXTRA, frozenset(_ZH_STOP)


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return lru_cache(maxsize=100_000)(snowballstemmer.stemmer("english").stemWord)


def _stem(word: str) -> str:
    word = word[:-2] if word.endswith("'s") else word
    return _stemmer()(word) if word.isalpha() else word


def key_terms(claim: str) -> list[str]:
    """The claim's key terms, in order, once each: English content words, numbers and codes
    (``kx-2000``) lower-cased; Chinese words of two or more characters (jieba)."""
    en_stop, zh_stop = _stops()
    out: list[str] = []
    for m in _TERM.finditer(_norm(claim)):
        if m.group("cjk"):
            import jieba

            jieba.setLogLevel(60)
            out.extend(t for t in jieba.cut(m.group("cjk")) if len(t) >= 2 and t not in zh_stop)
            continue
        word = m.group("word").strip("'")
        if word.endswith("'s"):
            word = word[:-2]
        if word in en_stop or (len(word) < 2 and not word.isdigit()):
            continue
        out.append(word)
    return list(dict.fromkeys(out))


_PART = re.compile(r"[-._/+]")
_NEG_EN = re.compile(r"\b(?:not|no|never|none|nor|neither|cannot|nothing|nobody|nowhere)\b"
                     r"|n't\b")
_NEG_ZH = re.compile("不要|不能|不可|不得|不会|不应|不是|不用|不宜|请勿|切勿|禁止|严禁|没有|未经|无法|勿")


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation cue (``not``, ``never``, ``n't``, ``不要``, ``禁止``, ...)."""
    low = _norm(text)
    return bool(_NEG_EN.search(low) or _NEG_ZH.search(low))


def contained(terms: list[str], text: str) -> list[str]:
    """The terms ``text`` contains: English by stem (``covers`` finds ``cover``), codes and
    numbers as whole words, Chinese as substrings."""
    low = _norm(text)
    stems = set()
    for m in _TERM.finditer(low):
        if m.group("word"):
            word = m.group("word").strip("'")
            stems.add(_stem(word))
            stems.update(_stem(x) for x in _PART.split(word) if x)  # "KX-2000" also holds "2000"
    found = []
    for t in terms:
        if re.search(f"[{_CJK}]", t):
            if t in low:
                found.append(t)
        elif _stem(t) in stems or (_PART.search(t) and all(_stem(x) in stems for x in _PART.split(t) if x)):
            found.append(t)  # "one-year" is also found as "one year"
    return found


# --------------------------------------------------------------------------------------------
# verification


@dataclass
class _Chunk:
    kb: str
    passage: Passage
    sentences: list[Sentence]  # the chunk's sentences, in order, as stored
    hit_is: list[int]
    slide: bool  # one of the claim's top `use_top` chunks: sliding windows run over it


@dataclass
class _Window:
    chunk: _Chunk
    a: int  # positions in chunk.sentences (inclusive)
    b: int

    @property
    def first(self) -> int:
        return self.chunk.sentences[self.a].i

    @property
    def last(self) -> int:
        return self.chunk.sentences[self.b].i

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.chunk.sentences[self.a:self.b + 1]).strip()


def _check(candidates, use_top, window, step, passage_window, threshold, top_k, mode) -> None:
    if mode not in MODES:
        raise BadRequest(f"Unknown retrieval mode {mode!r}: use one of {', '.join(MODES)}.")
    if not 1 <= candidates <= 100:
        raise BadRequest("candidates must be between 1 and 100.")
    if not 1 <= use_top <= 100:
        raise BadRequest("use_top must be between 1 and 100.")
    if not 1 <= window <= 50 or not 1 <= step <= 50:
        raise BadRequest("The window size and the step must be between 1 and 50 sentences.")
    if not 0 <= passage_window <= win.MAX_WINDOW:
        raise BadRequest(f"passage_window must be between 0 and {win.MAX_WINDOW}.")
    if not -1.0 <= threshold <= 1.0:
        raise BadRequest("The threshold must be between -1 and 1.")
    if not 1 <= top_k <= 100:
        raise BadRequest("top_k must be between 1 and 100.")


def verify(engine, claim: str, kb: str, *, candidates: int = 5, use_top: int = 2, window: int = 2, step: int = 1,
           passage_window: int = 3, threshold: float | None = None, top_k: int = 3, mode: str = "hybrid",
           **retrieve_knobs) -> VerifyResult:
    """Verify one claim against ``kb``; see :func:`verify_many` for the knobs."""
    return verify_many(engine, [claim], kb, candidates=candidates, use_top=use_top, window=window, step=step,
                       passage_window=passage_window, threshold=threshold, top_k=top_k, mode=mode,
                       **retrieve_knobs)[0]


def verify_many(engine, claims: list[str], kb: str | list[str], *, candidates: int = 5, use_top: int = 2,
                window: int = 2, step: int = 1, passage_window: int = 3, threshold: float | None = None, top_k: int = 3,
                mode: str = "hybrid", embedder=None, per_window_calls: bool = False,
                **retrieve_knobs) -> list[VerifyResult]:
    """Verify each claim against ``kb`` (one name, or one per claim); one :class:`VerifyResult`
    per claim, in order.

    - ``candidates`` sentences are retrieved per claim (``mode``: hybrid, dense or sparse; more
      ``engine.retrieve`` knobs such as ``sources`` pass through) and widened by
      ``passage_window`` sentences each side into chunks (merged where they touch);
    - windows of ``window`` sentences every ``step`` slide over each claim's best ``use_top``
      chunks; the windows of every claim are embedded in ONE ``encode_passages`` call
      (``embedder``, default ``engine.embedder`` with its cache); single-sentence windows reuse
      stored vectors;
    - ``threshold`` (default :func:`default_threshold` of the model) decides ``supported``;
      ``top_k`` entries (one per chunk) are returned, best first.

    ``per_window_calls=True`` embeds one window per call: the slow baseline of
    ``bench/verify_batching.py``, never for real use.
    """
    t_start = time.perf_counter()
    claims = [(c or "").strip() for c in claims]
    if not claims:
        return []
    kbs = [kb] * len(claims) if isinstance(kb, str) else list(kb)
    if len(kbs) != len(claims):
        raise BadRequest("Give one knowledge base, or one per claim.")
    if len(claims) > MAX_CLAIMS:
        raise BadRequest(f"At most {MAX_CLAIMS} claims at once ({len(claims)} given).")
    threshold = default_threshold(engine.embedder.name) if threshold is None else float(threshold)
    _check(candidates, use_top, window, step, passage_window, threshold, top_k, mode)
    embedder = embedder or engine.embedder
    params = {"candidates": candidates, "use_top": use_top, "window": window, "step": step,
              "passage_window": passage_window, "threshold": threshold, "top_k": top_k, "mode": mode,
              **{k: v for k, v in retrieve_knobs.items() if v not in (None, [], ())},
              "embed_model": engine.embedder.name}

    # 1. candidates: retrieval, chunks, the chunks' sentences (one store read per claim)
    chunks_of: list[list[_Chunk]] = []
    qvecs = []
    retrieve_ms = []
    for ci, claim in enumerate(claims):
        t0 = time.perf_counter()
        kb = kbs[ci]
        retrieval = engine.retrieve(claim, kb, top_k=candidates, mode=mode, **retrieve_knobs)
        params.setdefault("fusion", retrieval.params.get("fusion"))
        qvecs.append(np.asarray(engine.embedder.encode_query(retrieval.question), dtype=np.float32))
        got = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in retrieval.hits}

        def fetch(keys, kb=kb, got=got):
            out = {(s.doc_id, s.i): s for s in engine.store.get([sentence_id(kb, d, i) for d, i in keys])}
            got.update(out)
            return out

        passages = win.build(retrieval.hits, passage_window, fetch)
        chunks = []
        for k, p in enumerate(passages):
            sents = [got[(p.doc_id, i)] for i in range(p.first, p.last + 1) if (p.doc_id, i) in got]
            chunks.append(_Chunk(kb, p, sents, [h.i for h in p.hits], slide=k < use_top))
        chunks_of.append(chunks)
        retrieve_ms.append(round((time.perf_counter() - t0) * 1000, 2))

    # 2. windows; stored vectors for single sentences; one batched call for the rest
    windows_of = [[_Window(ch, a, b) for ch in chunks for a, b in slide(0, len(ch.sentences) - 1, window, step)]
                  for chunks in chunks_of]
    t0 = time.perf_counter()
    single_ids = set()
    for chunks, windows in zip(chunks_of, windows_of):
        for ch in chunks:
            single_ids.update(_sid(ch, i) for i in ch.hit_is)
        single_ids.update(_wid(w) for w in windows if w.chunk.slide and w.a == w.b)
    stored = engine.store.vectors(sorted(single_ids)) if single_ids else {}
    t1 = time.perf_counter()
    need: dict[str, None] = {}  # texts to embed, in first-seen order, once each
    for chunks, windows in zip(chunks_of, windows_of):
        for ch in chunks:
            for i in ch.hit_is:
                if _sid(ch, i) not in stored:
                    need[_sentence_text(ch, i)] = None
        for w in windows:
            if w.chunk.slide and not (w.a == w.b and _wid(w) in stored):
                need[w.text] = None
    texts = [t for t in need if t]
    calls0 = embedder.calls
    if not texts:
        vecs = np.zeros((0, engine.embedder.dim), dtype=np.float32)
    elif per_window_calls:
        vecs = np.vstack([embedder.encode_passages([t]) for t in texts])
    else:
        vecs = embedder.encode_passages(texts)
    encoded = dict(zip(texts, np.asarray(vecs, dtype=np.float32)))
    t2 = time.perf_counter()
    batch = {"vectors_ms": round((t1 - t0) * 1000, 2), "encode_ms": round((t2 - t1) * 1000, 2)}
    batch_counts = {"claims": len(claims), "encode_calls": embedder.calls - calls0, "encoded_texts": len(texts),
                    "stored_vectors": len(stored)}

    # 3. score, best window per chunk and path, merge, verdict
    results = []
    for ci, claim in enumerate(claims):
        t3 = time.perf_counter()
        q = qvecs[ci]
        terms = key_terms(claim)
        polarity = negated(claim)

        def vec_of(text: str, pid: str | None = None):
            v = stored.get(pid) if pid else None
            return v if v is not None else encoded.get(text)

        found: dict[int, dict[str, tuple]] = {}  # chunk index -> path -> (score, a, b, terms)
        chunks = chunks_of[ci]
        pos = {id(ch): k for k, ch in enumerate(chunks)}
        for k, ch in enumerate(chunks):
            at = {s.i: n for n, s in enumerate(ch.sentences)}
            for i in ch.hit_is:
                v = vec_of(_sentence_text(ch, i), _sid(ch, i))
                if v is not None and i in at:
                    _keep(found, k, "semantic", (float(v @ q), at[i], at[i], []))
        n_windows = 0
        for w in windows_of[ci]:
            k = pos[id(w.chunk)]
            if terms:
                lit = _literal(terms, w, polarity)
                if lit is not None:
                    _keep(found, k, "literal", lit)
            if w.chunk.slide:
                n_windows += 1
                v = vec_of(w.text, _wid(w) if w.a == w.b else None)
                if v is not None:
                    _keep(found, k, "window", (float(v @ q), w.a, w.b, []))
        merged = []  # one per chunk: its best path's best window
        for k, by_path in found.items():
            path = max(PATHS, key=lambda p: (by_path[p][0] if p in by_path else -9.0, -PATHS.index(p)))
            merged.append((-by_path[path][0], k, path))
        entries = []
        for _, k, path in sorted(merged)[:top_k]:
            score, a, b, hit = found[k][path]
            score = round(score, 6)
            e = _entry(chunks[k], a, b, score, path, score >= threshold,
                       {p: round(v[0], 6) for p, v in found[k].items()}, hit)
            e.warnings = _warnings(claim, polarity, e.text)
            entries.append(e)
        verdict = VERDICTS[0] if entries and entries[0].supported else VERDICTS[1]
        timings = {"retrieve_ms": retrieve_ms[ci], **batch,
                   "score_ms": round((time.perf_counter() - t3) * 1000, 2)}
        counts = {"chunks": len(chunks), "windows": n_windows, **batch_counts}
        results.append(VerifyResult(claim=claim, kb=kbs[ci], verdict=verdict, threshold=threshold, entries=entries,
                                    key_terms=terms, params=params, counts=counts, timings=timings))
    total = round((time.perf_counter() - t_start) * 1000, 2)
    for r in results:
        r.timings["total_ms"] = total
    return results


def _literal(terms: list[str], w: _Window, polarity: bool) -> tuple | None:
    """(coverage, a, b, terms found) of a window for the literal path, trimmed to the shortest
    run of its sentences with the same coverage; None when it covers under ``LITERAL_MIN`` or
    its polarity differs from the claim's ("never use it empty" does not back "may be used empty")."""
    sents = w.chunk.sentences

    def found(a: int, b: int) -> list[str]:
        return contained(terms, "".join(s.text for s in sents[a:b + 1]))

    hit = found(w.a, w.b)
    if not hit or len(hit) / len(terms) < LITERAL_MIN:
        return None
    a, b = w.a, w.b
    while a < b and len(found(a + 1, b)) == len(hit):
        a += 1
    while a < b and len(found(a, b - 1)) == len(hit):
        b -= 1
    if negated("".join(s.text for s in sents[a:b + 1])) != polarity:
        return None
    return len(hit) / len(terms), a, b, hit


def _warnings(claim: str, polarity: bool, text: str) -> list[str]:
    """What a reader should check in a window that scores high: a negation on one side only, or
    numbers of the claim the window does not hold."""
    out = []
    if negated(text) != polarity:
        out.append("negation: " + ("the window negates, the claim does not" if not polarity
                                   else "the claim negates, the window does not"))
    nums = [n for n in _numbers(claim) if n not in set(_numbers(text))]
    if nums:
        out.append("numbers: the window does not contain " + ", ".join(dict.fromkeys(nums)))
    return out


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")


def _numbers(text: str) -> list[str]:
    """The numbers of ``text`` (``two`` counts as ``2``; ``1,000`` as ``1000``)."""
    low = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1)], _norm(text))
    return [n.replace(",", "") for n in _NUMBER.findall(low)]


def _sid(ch: _Chunk, i: int) -> str:
    return sentence_id(ch.kb, ch.passage.doc_id, i)


def _wid(w: _Window) -> str:
    return sentence_id(w.chunk.kb, w.chunk.passage.doc_id, w.first)


def _sentence_text(ch: _Chunk, i: int) -> str:
    for s in ch.sentences:
        if s.i == i:
            return s.text.strip()
    return ""


def _keep(found: dict, k: int, path: str, cand: tuple) -> None:
    """Keep the best window of chunk ``k`` for ``path`` (ties: the earlier window)."""
    old = found.setdefault(k, {}).get(path)
    if old is None or cand[0] > old[0]:
        found[k][path] = cand


def _entry(ch: _Chunk, a: int, b: int, score: float, path: str, supported: bool, paths: dict,
           terms: list[str]) -> SupportEntry:
    """The entry of a chunk's winning window, with the chunk highlighted at that window."""
    sents = ch.sentences
    raw = "".join(s.text for s in sents)
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    start = sum(len(s.text) for s in sents[:a]) - lead
    wtext = "".join(s.text for s in sents[a:b + 1])
    start += len(wtext) - len(wtext.lstrip())
    end = start + len(wtext.strip())
    p = ch.passage
    mark = PassageHit(i=sents[a].i, sentence=wtext.strip(), score=round(score, 6),
                      start=max(0, start), end=max(0, min(end, len(text))), page=sents[a].page)
    chunk = Passage(doc_id=p.doc_id, source=p.source, first=sents[0].i, last=sents[-1].i, text=text, hits=[mark],
                    score=round(score, 6), pages=list(p.pages))
    return SupportEntry(doc_id=p.doc_id, source=p.source, chunk_first=sents[0].i, chunk_last=sents[-1].i,
                        window_first=sents[a].i, window_last=sents[b].i, text=wtext.strip(), score=round(score, 6),
                        path=path, supported=bool(supported), chunk=chunk, paths=paths, terms=list(terms))


# --------------------------------------------------------------------------------------------
# claim lists and plain-text output


def read_claims(name: str, data: bytes) -> list[str]:
    """Claims from an uploaded list: ``.csv`` (a ``claim`` column, else the first column),
    ``.jsonl`` (the ``claim`` key, or a bare string per line), anything else one claim per line."""
    import csv
    import io
    import json

    text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    low = (name or "").lower()
    claims: list[str] = []
    if low.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        if rows:
            head = [h.strip().lower() for h in rows[0]]
            col = head.index("claim") if "claim" in head else 0
            body = rows[1:] if "claim" in head else rows
            claims = [r[col] for r in body if len(r) > col]
    elif low.endswith((".jsonl", ".ndjson")):
        for n, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise BadRequest(f"{name}: line {n} is not JSON.") from None
            claims.append(obj if isinstance(obj, str) else str((obj or {}).get("claim", "")))
    else:
        claims = text.split("\n")
    return [c.strip() for c in claims if c and c.strip()]


def format_result(r: VerifyResult) -> str:
    """A claim's verdict and entries as plain text (the CLI's output; sentence numbers 1-based)."""
    best = f"best {r.best.score:.4f}" if r.best else "no candidate"
    lines = [f"{r.verdict.upper()}  ({best}, threshold {r.threshold:g})  {r.claim}"]
    for n, e in enumerate(r.entries, 1):
        mark = "+" if e.supported else "-"
        paths = ", ".join(f"{p} {v:.4f}" for p, v in e.paths.items())
        lines.append(f"  {mark} [{n}] {e.source} sentences {e.window_first + 1}-{e.window_last + 1} "
                     f"of chunk {e.chunk_first + 1}-{e.chunk_last + 1}: {e.score:.4f} by {e.path} ({paths})")
        lines.append("        " + e.text.replace("\n", "\n        "))
    return "\n".join(lines)
