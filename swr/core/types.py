"""Plain data passed between the pipeline stages. No behaviour beyond small helpers."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Document:
    """A loaded file: its whole text (all pages joined) and where each page starts.

    ``page_starts[k]`` is the character offset in ``text`` where page ``k+1`` begins; empty for
    formats without pages. ``doc_id`` is a hash of the file's name and bytes.
    """

    source: str
    text: str
    doc_id: str
    page_starts: list[int] = field(default_factory=list)
    format: str = "txt"
    encoding: str | None = None
    layout: dict = field(default_factory=dict)  # PDF: text_layer and furniture, kept with the file

    def page_of(self, offset: int) -> int | None:
        """1-based page number of a character offset, or None when the format has no pages."""
        if not self.page_starts:
            return None
        import bisect

        return max(1, bisect.bisect_right(self.page_starts, offset))


@dataclass
class Sentence:
    """One stored sentence: a point in the store.

    ``text`` is the exact slice ``doc.text[start:end]`` (whitespace included) so that joining the
    texts of consecutive sentences rebuilds the document exactly.
    """

    kb: str
    doc_id: str
    source: str
    i: int
    n: int
    start: int
    end: int
    text: str
    page: int | None = None
    tags: list[str] = field(default_factory=list)
    lang: str | None = None
    # document structure (swr/text/structure.py); None in collections indexed before it was recorded
    block: int | None = None
    block_kind: str | None = None  # heading | paragraph | list | table
    block_first: int | None = None
    block_last: int | None = None
    heading: str | None = None
    heading_level: int | None = None
    section: int | None = None  # sentence number of the section's heading, -1 before the first
    section_last: int | None = None

    def payload(self) -> dict[str, Any]:
        """``asdict(self)``: every field, the tags a new list (built directly: an upload's
        thousands of sentences held the GIL in ``asdict``'s deep copy)."""
        d = {name: getattr(self, name) for name in _SENTENCE_FIELDS}
        d["tags"] = list(self.tags)
        return d


_SENTENCE_FIELDS = tuple(Sentence.__dataclass_fields__)  # in field order (Sentence.payload)


@dataclass
class Hit:
    """A sentence returned by search, with every score that explains its rank.

    ``score`` is the score of the mode that ranked it (fused for hybrid). Ranks are 1-based;
    None when that list did not return the sentence.
    """

    sentence: Sentence
    score: float
    dense_score: float | None = None
    dense_rank: int | None = None
    sparse_score: float | None = None
    sparse_rank: int | None = None
    rank: int = 0
    fused_score: float | None = None
    rerank_score: float | None = None
    via: str | None = None  # how cross-lingual search found it: "translation", "lang-list" (retrieve/crosslingual)
    matched_tokens: list[str] | None = None  # the question's BM25 terms this sentence holds (SparseEncoder)
    # the ranking rules that placed it (swr.core.rules.crosslingual.XlRule values, some with their numbers)
    trace: list[str] | None = None
    # the cosine with the question after each side's language mean is taken out (a mixed knowledge
    # base's cross-lingual fusion compares languages on it: swr/retrieve/xl_centre.py); else None
    centred: float | None = None
    # the mean centred cosine of its nearest sentences of the question's language (xl_centre.Hubness)
    hub: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sentence"] = self.sentence.payload()
        return d


class Hits(list):
    """A search's hits (a plain list of :class:`Hit`) with the dense candidate list(s) they were
    ranked from: ``dense_pool``, ``(point id, cosine)`` pairs of the question's own vector. Answerability reads the best
    cosine from it instead of running a second, dense-only retrieval."""

    def __init__(self, hits=(), dense_pool=None) -> None:
        super().__init__(hits)
        self.dense_pool: list[tuple[str, float]] = list(dense_pool or [])
        # a cross-lingual search's lists searched with a translation's vector (swr.retrieve.crosslingual)
        self.translated_pool: list[tuple[str, float]] = []
        # the sources of the documents the question names, and of those about another product
        # (swr.retrieve.crosslingual; answerability reads them: swr.answer.answerable)
        self.named: frozenset[str] = frozenset()
        self.foreign: frozenset[str] = frozenset()
        # the question's translations searched, by language (swr.retrieve.crosslingual; answerability
        # finds their names in the other language's passages: swr.answer.answerable)
        self.translations: dict[str, str] = {}
        # each searched list's dense cosines, best first (swr.retrieve.crosslingual.Plan.cosines)
        self.cosines: dict[str, list[float]] = {}

    @classmethod
    def of(cls, hits) -> "Hits":
        """``hits`` as a :class:`Hits`: itself when it is one (a store's or a cross-lingual search's
        result), else its hits with empty candidate lists (a plain list from a stand-in store)."""
        return hits if isinstance(hits, cls) else cls(hits)


@dataclass
class PassageHit:
    """A hit as seen inside its passage: where to highlight it."""

    i: int
    sentence: str
    score: float
    start: int
    end: int
    page: int | None = None
    rank: int = 0
    dense_score: float | None = None
    dense_rank: int | None = None
    sparse_score: float | None = None
    sparse_rank: int | None = None
    fused_score: float | None = None
    rerank_score: float | None = None
    via: str | None = None  # Hit.via
    matched_tokens: list[str] | None = None  # Hit.matched_tokens
    trace: list[str] | None = None  # Hit.trace: the ranking rules that placed it
    centred: float | None = None  # Hit.centred: the language-centred cosine (a mixed knowledge base)
    hub: float | None = None  # Hit.hub: its hubness among the question language's sentences


@dataclass
class Passage:
    """A window of consecutive sentences of one document, holding one or more hits."""

    doc_id: str
    source: str
    first: int
    last: int
    text: str
    hits: list[PassageHit]
    score: float
    pages: list[int] = field(default_factory=list)
    # how the window was made (swr/retrieve/expand.py): fixed | section | budget, and why it stops before
    # its first and after its last sentence: heading | block_end | budget | cap | doc_edge | missing
    window_mode: str = "fixed"
    stop_before: str | None = None
    stop_after: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FileResult:
    """The outcome of indexing one file: sentences indexed, or the error for that file."""

    source: str
    ok: bool
    doc_id: str | None = None
    sentences: int = 0
    skipped: bool = False
    replaced: bool = False
    error: dict | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DocInfo:
    doc_id: str
    source: str
    sentences: int
    complete: bool
    chars: int = 0
    format: str = ""
    tags: list[str] = field(default_factory=list)
    indexed_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
