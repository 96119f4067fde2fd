"""Claim verification: is a statement supported by a knowledge base, contradicted by it, or not
found in it, where exactly, and why?

Whole-chunk similarity misses a fact that is one clause inside a chunk; sliding windows over the
chunk find it. Per claim:

1. candidates: hybrid (or dense/sparse) retrieval of ``candidates`` sentences, widened into
   chunks of ``passage_window`` sentences each side (merged where they touch);
2. windows of ``window`` sentences sliding by ``step`` over every chunk; the windows of the best
   ``use_top`` chunks of *all* claims are embedded in ONE batched ``encode_passages`` call (the
   GPU when there is one); every sentence's cosine comes from its stored vector (no model call);
3. every window is judged by :mod:`swr.verify.verdict`: cosine and key terms say whether it is close
   enough, numbers with units, codes, negation and the subject say whether it agrees.

One entry per chunk (its best window: supporting first, then contradicting, then the highest
score), best first, ``top_k`` of them. The verdict is ``supported``, ``contradicted`` or ``not
found``, with the reasons of the deciding window. Scores are cosines of the embedding model (and
the share of key terms found), on the scale :func:`swr.verify.verdict.thresholds_for` was calibrated on.
"""
from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import asdict, dataclass, field

import numpy as np

import swr.verify.verdict as vd
from swr.core.errors import BadRequest, LLMUnavailable
from swr.core.ids import sentence_id
from swr.core.params import MAX_VERIFY_K, MAX_VERIFY_WINDOW, MODES, VerifyParams
from swr.core.rules.verify import DEFAULT_VERDICT, E5, OTHER, VerdictRules
from swr.core.types import Passage, PassageHit, Sentence
from swr.retrieve import subjects as subj, window as win
from swr.text.claims import contained

PATHS = ("cosine", "literal")  # the best of the window's and its focus sentence's cosine; key terms
VERDICTS = vd.VERDICTS
_ROLE_RANK = {"supports": 0, "contradicts": 1, "other subject": 2, "weak": 3}


def default_threshold(model: str) -> float:
    """The calibrated support cosine of an embedding model (:mod:`swr.verify.verdict`)."""
    return vd.thresholds_for(model).support


E5_THRESHOLD = E5.support
OTHER_THRESHOLD = OTHER.support


# -- results --------------------------------------------------------------------------------------
@dataclass
class SupportEntry:
    """The best window of one chunk for one claim, and what it says about the claim.

    Sentence numbers are 0-based (``Sentence.i``); the chunk is sentences ``chunk_first..chunk_last``
    of the document, the window ``window_first..window_last`` inside it. ``chunk`` is the chunk as
    a :class:`Passage` whose only hit is the window, ready for ``render.passage_html``. ``role``:
    ``supports``, ``contradicts``, ``other subject`` (the same fact about another product) or
    ``weak``; ``reasons`` say why.
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
    terms: list[str] = field(default_factory=list)  # the key terms the window contains
    warnings: list[str] = field(default_factory=list)  # conflicts and gaps (read the window)
    role: str = "weak"
    reasons: list[str] = field(default_factory=list)
    focus: str = ""

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
    """Verdict, reasons and best windows of one claim."""

    claim: str
    kb: str
    verdict: str
    threshold: float
    entries: list[SupportEntry]
    key_terms: list[str] = field(default_factory=list)
    params: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    deciding: int | None = None  # index in entries of the window that decided the verdict
    measures: list = field(default_factory=list, repr=False)  # every window's swr.verify.verdict.Measure (not in JSON)
    views: list = field(default_factory=list, repr=False)  # every window's WindowView (not in JSON)

    @property
    def supporting(self) -> list[SupportEntry]:
        return [e for e in self.entries if e.supported]

    @property
    def best(self) -> SupportEntry | None:
        return self.entries[0] if self.entries else None

    def to_dict(self) -> dict:
        return {"claim": self.claim, "kb": self.kb, "verdict": self.verdict, "threshold": self.threshold,
                "reasons": list(self.reasons), "deciding": self.deciding,
                "best_score": self.best.score if self.best else None,
                "entries": [e.to_dict() for e in self.entries], "key_terms": list(self.key_terms),
                "params": dict(self.params), "counts": dict(self.counts), "timings": dict(self.timings)}


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


# -- stages -----------------------------------------------------------------------------------------
@dataclass
class Chunk:
    """A candidate chunk of one claim: the passage, its sentences as stored, whether windows are
    embedded over it."""

    kb: str
    passage: Passage
    sentences: list[Sentence]
    slide: bool

    def sid(self, n: int) -> str:
        return sentence_id(self.kb, self.passage.doc_id, self.sentences[n].i)

    def text(self, a: int, b: int) -> str:
        return "".join(s.text for s in self.sentences[a:b + 1]).strip()


def check_params(p: VerifyParams) -> VerifyParams:
    if p.mode not in MODES:
        raise BadRequest(f"Unknown retrieval mode {p.mode!r}: use one of {', '.join(MODES)}.")
    if not 1 <= p.candidates <= MAX_VERIFY_K:
        raise BadRequest(f"candidates must be between 1 and {MAX_VERIFY_K}.")
    if not 1 <= p.use_top <= MAX_VERIFY_K:
        raise BadRequest(f"use_top must be between 1 and {MAX_VERIFY_K}.")
    if not 1 <= p.window <= MAX_VERIFY_WINDOW or not 1 <= p.step <= MAX_VERIFY_WINDOW:
        raise BadRequest(f"The window size and the step must be between 1 and {MAX_VERIFY_WINDOW} sentences.")
    if not 0 <= p.passage_window <= win.MAX_WINDOW:
        raise BadRequest(f"passage_window must be between 0 and {win.MAX_WINDOW}.")
    if p.threshold is not None and not -1.0 <= p.threshold <= 1.0:
        raise BadRequest("The threshold must be between -1 and 1.")
    if not 1 <= p.top_k <= MAX_VERIFY_K:
        raise BadRequest(f"top_k must be between 1 and {MAX_VERIFY_K}.")
    return p


def candidates(engine, claim: str, kb: str, p: VerifyParams, retrieve_knobs: dict) -> tuple[list[Chunk], dict]:
    """Retrieve a claim's candidate sentences and widen them into chunks (one store read)."""
    retrieval = engine.retrieve(claim, kb, top_k=p.candidates, mode=p.mode, fusion=p.fusion, **retrieve_knobs)
    got = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in retrieval.hits}

    def fetch(keys):
        out = engine.fetch_sentences(kb, keys)
        got.update(out)
        return out

    chunks = []
    for k, ps in enumerate(win.build(retrieval.hits, p.passage_window, fetch)):
        sents = [got[(ps.doc_id, i)] for i in range(ps.first, ps.last + 1) if (ps.doc_id, i) in got]
        chunks.append(Chunk(kb, ps, sents, slide=k < p.use_top))
    return chunks, retrieval.params


def embed_windows(engine, chunks_of: list[list[Chunk]], p: VerifyParams, embedder, per_window_calls: bool):
    """Stored vectors of every candidate sentence, and ONE model call for the multi-sentence
    windows of the sliding chunks of all claims. Returns (stored, encoded, timings, counts)."""
    t0 = time.perf_counter()
    ids = sorted({ch.sid(n) for chunks in chunks_of for ch in chunks for n in range(len(ch.sentences))})
    stored = engine.store.vectors(ids) if ids else {}
    t1 = time.perf_counter()
    need: dict[str, None] = {}
    for chunks in chunks_of:
        for ch in chunks:
            for n in range(len(ch.sentences)):
                if ch.sid(n) not in stored:
                    need[ch.text(n, n)] = None
            if ch.slide:
                for a, b in slide(0, len(ch.sentences) - 1, p.window, p.step):
                    if a != b:
                        need[ch.text(a, b)] = None
    texts = [t for t in need if t]
    calls0 = embedder.calls
    if not texts:
        vecs = np.zeros((0, engine.embedder.dim), dtype=np.float32)
    elif per_window_calls:  # the slow baseline of bench/verify_batching.py
        vecs = np.vstack([embedder.encode_passages([t]) for t in texts])
    else:
        vecs = embedder.encode_passages(texts)
    encoded = dict(zip(texts, np.asarray(vecs, dtype=np.float32)))
    t2 = time.perf_counter()
    timings = {"vectors_ms": round((t1 - t0) * 1000, 2), "encode_ms": round((t2 - t1) * 1000, 2)}
    counts = {"encode_calls": embedder.calls - calls0, "encoded_texts": len(texts), "stored_vectors": len(stored)}
    return stored, encoded, timings, counts


@dataclass(frozen=True)
class WindowView:
    """One window of one candidate chunk as the verdict sees it: its sentences, their cosines and
    the window's own cosine (None: not embedded). Plain data: ``bench/verdicts.py`` caches these
    to re-judge claims without retrieving or embedding again."""

    chunk: int  # index of the chunk among the claim's candidates
    a: int
    b: int
    doc_id: str
    sentences: tuple[str, ...]
    cosines: tuple[float | None, ...]
    window_cos: float | None


def window_views(chunks: list[Chunk], q: np.ndarray, stored: dict, encoded: dict, p: VerifyParams) -> list[WindowView]:
    """Every sliding window of every chunk of one claim, with its cosines (no model call)."""
    out = []

    def cos_of(vec):
        return None if vec is None else float(vec @ q)

    for k, ch in enumerate(chunks):
        sent_cos = []
        for n in range(len(ch.sentences)):
            v = stored.get(ch.sid(n))
            sent_cos.append(cos_of(v if v is not None else encoded.get(ch.text(n, n))))
        for a, b in slide(0, len(ch.sentences) - 1, p.window, p.step):
            wcos = sent_cos[a] if a == b else (cos_of(encoded.get(ch.text(a, b))) if ch.slide else None)
            out.append(WindowView(k, a, b, ch.passage.doc_id, tuple(s.text for s in ch.sentences[a:b + 1]),
                                  tuple(sent_cos[a:b + 1]), wcos))
    return out


def judge_views(claim: vd.ClaimFacts, views: list[WindowView], index, t: vd.Thresholds,
                rules: VerdictRules = DEFAULT_VERDICT) -> list[tuple]:
    """Every window judged: [(finding, chunk index, a, b, measure)]."""
    out = []
    for w in views:
        m = vd.measure(claim, list(w.sentences), list(w.cosines), w.window_cos, w.doc_id, index, rules)
        out.append((vd.classify(m, t, rules), w.chunk, w.a, w.b, m))
    return out


LLM_JUDGE_PROMPT = (
    "You check claims against a passage. Reply with exactly one word: YES if the passage states the "
    "claim, NO if the passage says something else (another number, name, product or the opposite), "
    "UNKNOWN if the passage does not say.")


def llm_verdict(answerer, claim: str, judged: list[tuple], views: list[WindowView], verdict: str) -> tuple[str, str]:
    """The LLM's say on a verdict the rules reached: only a ``supported`` is put to it (the
    deciding window and the claim, one short call); its NO makes the claim ``contradicted``, its
    UNKNOWN ``not found``. The LLM can take a support away, never give one: the rules' conflicts
    (numbers, codes, polarity, subject) stand whatever it says. Returns (verdict, reason);
    :class:`swr.core.errors.LLMUnavailable` propagates."""
    if verdict != "supported" or not judged:
        return verdict, ""
    _, k = vd.decide([j[0] for j in judged])
    w = views[k]
    passage = "".join(w.sentences).strip()[:1500]
    reply = answerer.chat([{"role": "system", "content": LLM_JUDGE_PROMPT},
                           {"role": "user", "content": f"Passage:\n{passage}\n\nClaim: {claim}\n\nAnswer:"}],
                          max_tokens=4)
    word = (reply or "").strip().strip("*.:'\"").split()
    word = word[0].upper() if word else ""
    if word.startswith("NO"):
        return "contradicted", f"the LLM judge says the window does not state the claim ({reply.strip()!r})"
    if word.startswith(("UNK", "NOT")):
        return "not found", f"the LLM judge says the window does not say ({reply.strip()!r})"
    return "supported", f"the LLM judge agrees ({reply.strip()!r})"


def _score(f: vd.Finding) -> float:
    return max(f.cosine if f.cosine is not None else 0.0, f.literal)


def entries_of(claim: vd.ClaimFacts, judged: list[tuple], chunks: list[Chunk], top_k: int,
               deciding: int | None) -> list[SupportEntry]:
    """One entry per chunk, its best window; the deciding window first, then supports,
    contradicts, ... by score."""
    best: dict[int, tuple] = {}
    for n, item in enumerate(judged):
        f, k = item[0], item[1]
        key = (n == deciding, -_ROLE_RANK[f.role], _score(f))
        if k not in best or key > best[k][0]:
            best[k] = (key, item)
    ranked = sorted(best.values(), key=lambda kv: kv[0], reverse=True)[:top_k]
    out = []
    for _, (f, k, a, b, _m) in ranked:
        paths = {"cosine": round(f.cosine, 6)} if f.cosine is not None else {}
        paths["literal"] = round(f.literal, 6)
        score = round(_score(f), 6)
        path = max(paths, key=lambda name: paths[name])
        e = make_entry(chunks[k], a, b, score, path, f.supports, paths, contained(claim.terms, f.focus))
        e.role, e.reasons, e.focus = f.role, list(f.reasons), f.focus
        e.warnings = [] if f.supports else list(f.reasons)
        out.append(e)
    return out


def verify(engine, claim: str, kb: str, params: VerifyParams | None = None, **changes) -> VerifyResult:
    """Verify one claim against ``kb``; see :func:`verify_many`."""
    return verify_many(engine, [claim], kb, params, **changes)[0]


def verify_many(engine, claims: list[str], kb: str | list[str], params: VerifyParams | None = None, *,
                embedder=None, per_window_calls: bool = False, llm=None, **changes) -> list[VerifyResult]:
    """Verify each claim against ``kb`` (one name, or one per claim); one :class:`VerifyResult`
    per claim, in order.

    ``params`` (default ``VerifyParams.from_settings(engine.settings)``) with ``changes``: any
    :class:`swr.core.params.VerifyParams` field (``candidates``, ``window``, ``threshold``, ...); other
    keywords (``sources``, ``tags``, ``lang``) go to ``engine.retrieve``. ``threshold`` overrides
    the support cosine (:func:`swr.verify.verdict.thresholds_for`). ``embedder`` (default
    ``engine.embedder``) embeds the windows; ``per_window_calls=True`` is the slow one-call-per-
    window baseline of ``bench/verify_batching.py``. ``llm`` (a configured
    :class:`swr.answer.llm.Answerer`) puts each ``supported`` to :func:`llm_verdict`; when the LLM
    fails the rules' verdict stands, with the failure among its reasons.
    """
    t_start = time.perf_counter()
    known = set(VerifyParams.__dataclass_fields__)
    retrieve_knobs = {k: v for k, v in changes.items() if k not in known and v not in (None, [], ())}
    p = check_params((params or VerifyParams.from_settings(engine.settings))
                     .with_(**{k: v for k, v in changes.items() if k in known}))
    claims = [(c or "").strip() for c in claims]
    if not claims:
        return []
    kbs = [kb] * len(claims) if isinstance(kb, str) else list(kb)
    if len(kbs) != len(claims):
        raise BadRequest("Give one knowledge base, or one per claim.")
    if len(claims) > p.max_claims:
        raise BadRequest(f"At most {p.max_claims} claims at once ({len(claims)} given).")
    t = vd.thresholds_for(engine.embedder.name, p.threshold, p.verdict)
    embedder = embedder or engine.embedder
    params_out = {**p.stamp(), "threshold": t.support, "thresholds": t.to_dict(), **retrieve_knobs,
                  "embed_model": engine.embedder.name}

    chunks_of, qvecs, retrieve_ms = [], [], []
    for claim, kb_ in zip(claims, kbs):
        t0 = time.perf_counter()
        chunks, rparams = candidates(engine, claim, kb_, p, retrieve_knobs)
        params_out.setdefault("fusion", rparams.get("fusion"))
        chunks_of.append(chunks)
        qvecs.append(np.asarray(engine.embedder.encode_query(claim), dtype=np.float32))
        retrieve_ms.append(round((time.perf_counter() - t0) * 1000, 2))
    stored, encoded, batch_t, batch_c = embed_windows(engine, chunks_of, p, embedder, per_window_calls)

    results = []
    for ci, claim in enumerate(claims):
        t3 = time.perf_counter()
        index = subj.for_kb(engine, kbs[ci])
        facts = vd.ClaimFacts.read(claim, index)
        views = window_views(chunks_of[ci], qvecs[ci], stored, encoded, p)
        n_windows = sum(1 for w in views if chunks_of[ci][w.chunk].slide)
        judged = judge_views(facts, views, index, t, p.verdict)
        verdict, k = vd.decide([j[0] for j in judged])
        entries = entries_of(facts, judged, chunks_of[ci], p.top_k, k)
        deciding = 0 if k is not None and entries else None
        reasons = list(judged[k][0].reasons) if k is not None else ["no candidate window was retrieved"]
        if llm is not None and verdict == "supported":
            try:
                verdict, why = llm_verdict(llm, claim, judged, views, verdict)
            except LLMUnavailable as exc:
                why = f"the LLM judge was not asked: {exc.message}"
            reasons.insert(0, why)
        timings = {"retrieve_ms": retrieve_ms[ci], **batch_t, "score_ms": round((time.perf_counter() - t3) * 1000, 2)}
        counts = {"chunks": len(chunks_of[ci]), "windows": n_windows, "claims": len(claims), **batch_c}
        results.append(VerifyResult(claim=claim, kb=kbs[ci], verdict=verdict, threshold=t.support, entries=entries,
                                    key_terms=facts.terms, params=params_out, counts=counts, timings=timings,
                                    reasons=reasons, deciding=deciding, measures=[j[4] for j in judged],
                                    views=views))
    total = round((time.perf_counter() - t_start) * 1000, 2)
    for r in results:
        r.timings["total_ms"] = total
    return results


def make_entry(ch: Chunk, a: int, b: int, score: float, path: str, supported: bool, paths: dict,
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


# -- claim lists and plain-text output --------------------------------------------------------------
def read_claims(name: str, data: bytes) -> list[str]:
    """Claims from an uploaded list: ``.csv`` (a ``claim`` column, else the first column),
    ``.jsonl`` (the ``claim`` key, or a bare string per line), anything else one claim per line."""
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
    """A claim's verdict, reasons and entries as plain text (the CLI's output; 1-based sentences)."""
    best = f"best {r.best.score:.4f}" if r.best else "no candidate"
    lines = [f"{r.verdict.upper()}  ({best}, support cosine {r.threshold:g})  {r.claim}"]
    lines += [f"  because: {why}" for why in r.reasons]
    for n, e in enumerate(r.entries, 1):
        mark = {"supports": "+", "contradicts": "x"}.get(e.role, "-")
        paths = ", ".join(f"{p} {v:.4f}" for p, v in e.paths.items())
        lines.append(f"  {mark} [{n}] {e.role}: {e.source} sentences {e.window_first + 1}-{e.window_last + 1} "
                     f"of chunk {e.chunk_first + 1}-{e.chunk_last + 1}: {e.score:.4f} ({paths})")
        lines.append("        " + e.text.replace("\n", "\n        "))
    return "\n".join(lines)
