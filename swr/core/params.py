"""Typed, frozen request parameters: every retrieval and verification default written once.

"The settings you tested are the settings the chat uses" holds by construction: the chat, Tune,
Compare, the probe, ``eval``, ``verify``, the CLI and the LlamaIndex retriever all build their
requests from :meth:`RetrievalParams.from_settings` (and :meth:`VerifyParams.from_settings`), then
change only the fields the user changed with :meth:`with_`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from swr.core.errors import BadRequest
from swr.core.rules.answer import CondenseRules, ExtractiveRules
from swr.core.rules.answerable import AnswerRules
from swr.core.rules.crosslingual import CrossLingualRules
from swr.core.rules.verify import CheckRules, VerdictRules

MODES = ("dense", "sparse", "hybrid")
FUSIONS = ("dbsf", "rrf", "weighted")
STAGES = ("cutoff", "rerank")
MAX_WINDOW = 10
WINDOW_MODES = ("fixed", "section", "budget")  # swr/retrieve/expand.py
MIN_BUDGET_CHARS, MAX_BUDGET_CHARS = 50, 100_000
MAX_TOP_K = 100
MAX_VERIFY_K = 100  # the most candidates, chunks slid over and entries shown per claim
MAX_VERIFY_WINDOW = 50  # the longest sliding window and step of claim verification (sentences)
MAX_QUESTION_CHARS = 4000  # a longer question is refused (the app's text box, the API's models)
MAX_KB_NAME = 64  # characters of a knowledge base's name
MAX_GLOSSARY = 2000  # size: pairs of a knowledge base's own words (RetrievalParams.glossary)
MAX_GLOSSARY_TERM = 80  # size: characters of one side of such a pair

# Tune / eval sweep grids (one place: the CLI, the Tune page and evaluate.sweep use these)
SWEEP_WINDOWS = (0, 1, 2, 3, 5)
SWEEP_TOP_KS = (1, 2, 3, 5, 10)
SWEEP_MODES = ("hybrid",)
SWEEP_BUDGETS = (500, 1000, 2000)  # context budgets (characters) of the budget table
# eval --window-modes and the Tune page: every mode, so a comparison with chunks sees the windows'
# best side (section and budget windows beat chunks at small budgets on the E-manuals and Chinese
# evidence sentences, bench/real_kbs.py); section and budget windows sweep --budgets
SWEEP_WINDOW_MODES = ("fixed", "section", "budget")


def _tuple(v) -> tuple:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,) if v else ()
    return tuple(v)


def glossary_pairs(pairs) -> tuple[tuple[str, str], ...]:
    """``pairs`` as a tuple of ``(english, 中文)`` tuples (a JSON list of lists too), each side stripped;
    :class:`BadRequest` when there are too many or a side is empty or too long."""
    if isinstance(pairs, tuple) and all(type(p) is tuple and len(p) == 2 for p in pairs) \
            and len(pairs) <= MAX_GLOSSARY:  # built once already (every with_() passes here again)
        return pairs
    out = tuple((str(a).strip(), str(b).strip()) for a, b in (pairs or ()))
    if len(out) > MAX_GLOSSARY:
        raise BadRequest(f"The words hold {len(out):,} pairs; the limit is {MAX_GLOSSARY:,}.")
    for en, zh in out:
        if not en or not zh or len(en) > MAX_GLOSSARY_TERM or len(zh) > MAX_GLOSSARY_TERM:
            raise BadRequest(f"Each side of a pair of words is 1 to {MAX_GLOSSARY_TERM} characters: "
                             f"{en[:40]!r} / {zh[:40]!r}.")
    return out


def check_search(mode: str, fusion: str, top_k: int, dense_weight: float) -> None:
    """The checks a search request and a RetrievalParams share (one wording for both)."""
    if mode not in MODES:
        raise BadRequest(f"Unknown retrieval mode {mode!r}: use one of {', '.join(MODES)}.")
    if fusion not in FUSIONS:
        raise BadRequest(f"Unknown fusion {fusion!r}: use one of {', '.join(FUSIONS)}.")
    if not 1 <= top_k <= MAX_TOP_K:
        raise BadRequest(f"top_k must be between 1 and {MAX_TOP_K}.")
    if not 0.0 <= dense_weight <= 1.0:
        raise BadRequest("The dense weight must be between 0 and 1.")


def clean_question(q: str | None) -> str:
    """``q`` stripped; :class:`BadRequest` when it is empty or longer than :data:`MAX_QUESTION_CHARS`."""
    q = (q or "").strip()
    if not q:
        raise BadRequest("The question is empty.")
    if len(q) > MAX_QUESTION_CHARS:
        raise BadRequest(f"The question is {len(q):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.")
    return q


def kb_name(kb: str | None) -> str:
    """A knowledge base's name stripped; :class:`BadRequest` unless 1 to :data:`MAX_KB_NAME` printable
    characters."""
    kb = (kb or "").strip()
    if not kb or len(kb) > MAX_KB_NAME or any(ord(c) < 32 for c in kb):
        raise BadRequest(f"A knowledge base name must be 1 to {MAX_KB_NAME} printable characters.")
    return kb


@dataclass(frozen=True)
class RetrievalParams:
    """One retrieval request's knobs (no question, no knowledge base).

    ``stages`` are the post-fusion stages in order; ``None`` means "a cutoff when ``min_score``
    is set, else none" and is resolved in ``__post_init__`` so two equal requests compare equal.
    """

    mode: str = "hybrid"
    # DBSF beat RRF and both single lists at every k on CMRC 2018 and SQuAD (bench/hybrid.py);
    # RRF k=60 blurred the top
    fusion: str = "dbsf"
    dense_weight: float = 0.5
    top_k: int = 3
    dense_k: int = 50
    sparse_k: int = 50
    window_size: int = 3
    # fixed: ±window_size; section: the hit's block (list, table, paragraph), never across a
    # heading; budget: grow toward the neighbours most similar to the question. section and
    # budget windows together stay within budget_chars characters of context (swr/retrieve/expand.py).
    window_mode: str = "fixed"
    budget_chars: int = 1200
    sources: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    lang: str | None = None
    min_score: float | None = None
    stages: tuple[str, ...] | None = None
    # the knowledge base's own words, (english, 中文) pairs the cross-lingual search translates first
    # (its brand, product and support terms: swr/text/kb_words.py)
    glossary: tuple[tuple[str, str], ...] = ()
    # the cross-lingual search's numbers and rules (swr/core/rules/crosslingual.py)
    crosslingual: CrossLingualRules = field(default_factory=CrossLingualRules)
    # the follow-up rewrite's numbers (swr/core/rules/answer.py)
    condense: CondenseRules = field(default_factory=CondenseRules)
    # the extractive answer's numbers: relevance, ranking bonuses, yes/no (swr/core/rules/answer.py)
    extractive: ExtractiveRules = field(default_factory=ExtractiveRules)

    # answerability's numbers and the document-subject rules (swr/core/rules/answerable.py)
    answerable: AnswerRules = field(default_factory=AnswerRules)

    def __post_init__(self) -> None:
        for name, cls in _RULES.items():
            object.__setattr__(self, name, _shared(cls.from_dict(getattr(self, name))))
        object.__setattr__(self, "sources", _tuple(self.sources))
        object.__setattr__(self, "tags", _tuple(self.tags))
        if self.stages is None:
            object.__setattr__(self, "stages", ("cutoff",) if self.min_score is not None else ())
        else:
            object.__setattr__(self, "stages", _tuple(self.stages))
        object.__setattr__(self, "lang", self.lang or None)
        object.__setattr__(self, "glossary", glossary_pairs(self.glossary))

    @classmethod
    def from_settings(cls, settings, **changes) -> "RetrievalParams":
        """The defaults of ``settings`` (a :class:`swr.core.settings.Settings`), then ``changes``."""
        base = cls(mode=settings.mode, fusion=settings.fusion, top_k=settings.top_k, dense_k=settings.dense_k,
                   sparse_k=settings.sparse_k, window_size=settings.window_size,
                   window_mode=settings.window_mode, budget_chars=settings.window_budget)
        return base.with_(**changes) if changes else base

    def with_(self, **changes) -> "RetrievalParams":
        """A copy with some fields changed; ``None`` values leave a field as it is (except
        ``lang``, ``min_score`` and ``stages``, where None is a value)."""
        keep_none = {"lang", "min_score", "stages"}
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise BadRequest(f"Unknown retrieval setting(s): {', '.join(sorted(unknown))}.")
        changes = {k: v for k, v in changes.items() if v is not None or k in keep_none}
        if "min_score" in changes and "stages" not in changes:
            changes["stages"] = None  # re-derive the default stages from the new cutoff
        return replace(self, **changes)

    def validate(self) -> "RetrievalParams":
        check_search(self.mode, self.fusion, self.top_k, self.dense_weight)
        if not 0 <= self.window_size <= MAX_WINDOW:
            raise BadRequest(f"window_size must be between 0 and {MAX_WINDOW}.")
        if self.window_mode not in WINDOW_MODES:
            raise BadRequest(f"Unknown window mode {self.window_mode!r}: use one of {', '.join(WINDOW_MODES)}.")
        if not MIN_BUDGET_CHARS <= self.budget_chars <= MAX_BUDGET_CHARS:
            raise BadRequest(f"The window budget must be between {MIN_BUDGET_CHARS} and {MAX_BUDGET_CHARS:,} "
                             "characters.")
        bad = [s for s in self.stages if s not in STAGES]
        if bad:
            raise BadRequest(f"Unknown stage(s) {', '.join(bad)}: use {', '.join(STAGES)}.")
        return self

    def to_dict(self, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
        """Every knob (but those in ``skip``) as plain values, as ``asdict`` gives them (the caller's
        own copy); a rules object's dict is built once per (frozen, shared) object: ``asdict``
        deep-copied every rule object, twice per answer."""
        d = {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in skip}
        for name in ("sources", "tags", "stages"):
            if name in d:
                d[name] = list(getattr(self, name))
        return d

    def changed_from(self, other: "RetrievalParams") -> list[str]:
        """The knobs whose :meth:`to_dict` values differ from ``other``'s, compared without copying
        (equal rules objects have equal dicts: only unequal ones are compared as dicts)."""
        return [f.name for f in fields(self) if not _same(getattr(self, f.name), getattr(other, f.name))]

    @classmethod
    def from_dict(cls, d: dict) -> "RetrievalParams":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


_RULES = {"crosslingual": CrossLingualRules, "condense": CondenseRules, "extractive": ExtractiveRules,
          "answerable": AnswerRules}
_DEFAULT_RULES = {cls: cls() for cls in _RULES.values()}


def _shared(rules):
    """The one shared default rules object when ``rules`` equals it (frozen: its dict is built once
    for every question, not once per params object), else ``rules``."""
    default = _DEFAULT_RULES.get(type(rules))
    return default if default is not None and (rules is default or rules == default) else rules


def _same(a, b) -> bool:
    """Whether two field values have equal :func:`_plain` values."""
    return a is b or a == b or _view(a) == _view(b)


def _view(value):
    """``asdict``'s value of a field, not copied: a frozen rules object's dict built once."""
    if hasattr(value, "__dataclass_fields__"):
        d = value.__dict__.get("_as_dict")
        if d is None:
            d = asdict(value)
            object.__setattr__(value, "_as_dict", d)
        return d
    return value


def _plain(value):
    """``asdict``'s value of a field: a frozen rules object's dict built once and copied."""
    return _fresh(_view(value))


def _fresh(value):
    """A copy of a JSON-like value (dicts, lists, tuples of immutable leaves), faster than ``deepcopy``."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    return value


@dataclass(frozen=True)
class VerifyParams:
    """Knobs of claim verification (``swr.verify.verify``): candidate chunks, sliding windows, verdict."""

    candidates: int = 5  # chunks retrieved per claim
    use_top: int = 2  # chunks the windows slide over
    window: int = 2  # sentences per sliding window
    step: int = 1
    passage_window: int = 3  # ± sentences of a candidate chunk
    top_k: int = 3  # entries shown per claim
    mode: str = RetrievalParams.mode
    fusion: str = RetrievalParams.fusion
    threshold: float | None = None  # None: the calibrated default of the embedding model
    max_claims: int = 1000
    # the verdicts' numbers: per-model cosines, coverage, bare numbers (swr/core/rules/verify.py)
    verdict: VerdictRules = field(default_factory=VerdictRules)
    # the answer check's numbers: short sentences, rejection, codes (swr/core/rules/verify.py)
    check: CheckRules = field(default_factory=CheckRules)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", VerdictRules.from_dict(self.verdict))
        object.__setattr__(self, "check", CheckRules.from_dict(self.check))

    @classmethod
    def from_settings(cls, settings, **changes) -> "VerifyParams":
        base = cls(mode=settings.mode, fusion=settings.fusion)
        return base.with_(**changes) if changes else base

    def with_(self, **changes) -> "VerifyParams":
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise BadRequest(f"Unknown verification setting(s): {', '.join(sorted(unknown))}.")
        return replace(self, **{k: v for k, v in changes.items() if v is not None or k == "threshold"})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def stamp(self) -> dict[str, Any]:
        """:meth:`to_dict` with the rules objects only where a request changed them (a result names
        what changed)."""
        d, base = self.to_dict(), VerifyParams()
        for name in ("verdict", "check"):
            if getattr(self, name) == getattr(base, name):
                d.pop(name)
        return d
