"""What verification returns: per claim a :class:`VerifyResult` (verdict, reasons, best windows), per
candidate chunk a :class:`SupportEntry` (its best window, highlighted inside the chunk)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import swr.verify.verdict as vd
from swr.core.types import Passage, PassageHit
from swr.text.claims import contained
from swr.verify.windows import Chunk

PATHS = ("cosine", "literal")  # the best of the window's and its focus sentence's cosine; key terms
_ROLE_RANK = {"supports": 0, "contradicts": 1, "other subject": 2, "weak": 3}


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
