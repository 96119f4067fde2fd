"""The facade the app and the CLI call: index, ask, list, delete. Knows no Streamlit.

One engine per process (the embedded store can be opened once per process); it is thread-safe:
several browser sessions ask while another indexes.
"""
from __future__ import annotations

import datetime as _dt
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import swr.answer.answerable as answerable
from swr.answer.extractive import extractive_answer, grounded_answer, is_yes_no
from swr.answer.llm import Answerer, LLMConfig, not_found_message
from swr.answer.prompt import context_text, yes_no_hint
from swr.core.errors import BadRequest, LLMUnavailable, NotFound
from swr.core.params import MAX_TOP_K, RetrievalParams
from swr.core.settings import Settings
from swr.core.tokens import count_tokens
from swr.core.types import DocInfo, FileResult, Hit, Passage, Sentence
from swr.embed.base import Embedder
from swr.embed.embedder import make_embedder
from swr.ingest import originals as kept
from swr.ingest.indexer import Indexer
from swr.ingest.load import SUPPORTED
from swr.manage import golden
from swr.manage.docview import DocViewer
from swr.manage.feedback import FeedbackLog
from swr.manage.published import Publication, PublishedStore, overrides
from swr.manage.trash import Trash, drop_kb_files
from swr.retrieve import expand, rerank, subjects, window as win
from swr.retrieve.crosslingual import CrossLingual
from swr.store import SearchRequest, Store, open_store
from swr.text.sparse import SparseEncoder
from swr.text.split import SPLITTER_VERSION
from swr.text.structure import STRUCTURE_VERSION

log = logging.getLogger("swr.engine")

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "kb"
MAX_QUESTION_CHARS = 4000
KB_SEEN_TTL_S = 5.0  # require_kb remembers a knowledge base found this long (or until a write to it)

Progress = Callable[[dict], None]


@dataclass
class Retrieval:
    """Hits of one question with the knobs that produced them; windows are built from it later."""

    question: str
    kb: str
    hits: list[Hit]
    params: dict  # request.to_dict() without window_size: the "settings" of an answer
    timings: dict = field(default_factory=dict)
    request: RetrievalParams | None = None  # the typed knobs (None only for hand-built retrievals)
    query_vector: object = None  # the question's dense vector (numpy), for budget windows
    query_tokens: list[str] | None = None  # the question's BM25 terms (SparseEncoder.query_tokens)
    dense_pool: list | None = None  # the dense candidates (point id, cosine) of the question's vector (types.Hits)
    translated_pool: list | None = None  # those of its translations' vectors (cross-lingual search)
    named: frozenset = frozenset()  # the documents the question names (Hits.named)
    foreign: frozenset = frozenset()  # another product's documents than the question names (Hits.foreign)
    translations: dict = field(default_factory=dict)  # the question's translations searched, by language (Hits)

    @property
    def answer_pool(self) -> list:
        """The dense candidates answerability reads (both pools)."""
        return [*(self.dense_pool or ()), *(self.translated_pool or ())]

    def prefix(self, k: int) -> "Retrieval":
        """The first ``k`` hits, as if searched with ``top_k=k`` (the store guarantees the top-k
        list is a prefix of the top-K list)."""
        req = self.request.with_(top_k=k) if self.request is not None else None
        return Retrieval(self.question, self.kb, self.hits[:k], {**self.params, "top_k": k}, dict(self.timings), req,
                         self.query_vector, self.query_tokens, self.dense_pool, self.translated_pool, self.named,
                         self.foreign, dict(self.translations))


@dataclass
class AskResult:
    """Everything a user sees for one question: answer, evidence, settings, sizes, timings."""

    question: str
    kb: str
    answer: str
    answer_kind: str  # "llm" | "extractive"
    passages: list[Passage]
    settings: dict
    context_chars: int
    context_tokens: int
    timings: dict
    llm_error: str | None = None
    created_at: str = ""
    standalone_question: str | None = None  # what was searched for (a follow-up rewritten)
    condense: dict | None = None  # how: {"method": "none"|"llm"|"offline", "llm_error": ...}
    answerable: bool = True  # swr.answer.answerable: does the evidence answer the question at all?
    answerable_score: float | None = None  # the cosine that decided it
    answerability: dict = field(default_factory=dict)  # its figures and reason
    query_tokens: list[str] | None = None  # the question's BM25 terms (each hit has its matched_tokens)
    check: dict | None = None  # swr.verify.check: each answer sentence against the passages (Engine.check)
    extract: dict | None = None  # an extractive answer's Extract (swr.answer.extractive): sentence, relevance, polarity
    trace: list = field(default_factory=list)  # the rules that decided (answerability, extract, check): rule ids

    def to_dict(self) -> dict:
        return asdict(self)


class Engine:
    """Index files into knowledge bases and answer questions from them.

    The public surface the other stages (evaluation, chunk baseline, verification, LlamaIndex)
    use, and nothing else:

    - attributes: ``settings``; ``store`` (:class:`swr.store.Store`); ``embedder``
      (:class:`swr.embed.base.Embedder`: ``encode_query``, ``encode_passages``, ``name``, ``dim``;
      cached on disk); ``sparse`` (:class:`swr.text.sparse.SparseEncoder`); ``answerer``; ``reranker``
      (None unless ``SWR_RERANK_MODEL``);
    - :meth:`default_params`, :meth:`retrieve`, :meth:`passages`, :meth:`fetch_sentences`,
      :meth:`ask` / :meth:`ask_stream` / :meth:`finish`, :meth:`check` (each answer sentence);
    - :meth:`require_kb`, :meth:`ensure_collection`, :meth:`kbs`, :meth:`docs`,
      :meth:`doc_sentences`, :meth:`index_files`, :meth:`delete_kb`, :meth:`delete_doc`;
    - :meth:`golden`, :meth:`add_golden`, :meth:`delete_golden`, :meth:`record_feedback`,
      :meth:`feedback`: the golden questions and the feedback of a knowledge base;
    - :meth:`open_document`: a hit in its document (:mod:`swr.manage.docview`);
    - :meth:`as_user`: the checked view (:mod:`swr.manage.access`) the app and ``swr users`` use.
    - :meth:`kb_params` (the published settings every consumer starts from), :meth:`published`,
      :meth:`published_versions`, :meth:`publish`, :meth:`restore_published`,
      :meth:`published_stamp` (:mod:`swr.manage.published`).
    - ``trash`` (:class:`swr.manage.trash.Trash`: ``entries``, ``restore``, ``purge``): what
      :meth:`delete_kb` / :meth:`delete_doc` moved there, restorable without re-embedding.
    """

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None, store: Store | None = None,
                 answerer: Answerer | None = None) -> None:
        self.settings = settings
        self.store = store or open_store(settings)
        self.embedder = embedder or make_embedder(settings)
        self.sparse = SparseEncoder(settings.sparse)
        # the local model gets at least 180 s: on 2 busy cores its prompt alone can take a minute
        local = {"gguf": settings.llm_gguf, "threads": settings.llm_threads, "context_window": 4096,
                 "max_tokens": 384, "timeout_s": max(settings.llm_timeout_s, 180.0)} if settings.llm_gguf else {}
        self.answerer = answerer or Answerer(LLMConfig(
            base_url=settings.llm_base_url or "", api_key=settings.llm_api_key, model=settings.llm_model or "",
            **{"timeout_s": settings.llm_timeout_s, **local}))
        self.indexer = Indexer(self)
        self.trash = Trash(settings, self.store)
        self.docview = DocViewer(settings, self.store)  # swr.manage.docview: renders cached per process
        self._meta = {"model": self.embedder.name, "runtime": self.embedder.runtime, "dim": self.embedder.dim,
                      "splitter": SPLITTER_VERSION, "sparse": self.sparse.version, "structure": STRUCTURE_VERSION}
        self._checked = False
        self._kb_seen: dict[str, tuple] = {}  # kb -> (store generation, when found): require_kb
        self.published_store = PublishedStore.for_settings(settings)  # swr.manage.published
        self.reranker = rerank.CrossEncoderReranker(settings.rerank_model) if settings.rerank_model else None
        self.crosslingual = CrossLingual(settings, self.store, self.embedder, self.sparse,
                                         getattr(self.answerer, "config", None))
        if self.store.meta() is not None:
            self.ensure_collection()

    # -- collection ------------------------------------------------------------------------
    def ensure_collection(self) -> None:
        """Create the collection for this engine's model (or check the stored one matches it)."""
        if not self._checked:
            self.store.ensure(self._meta)
            self._checked = True
            stored = self.store.meta() or {}
            if int(stored.get("structure", 0)) < STRUCTURE_VERSION:
                log.warning("This collection was created before document structure was recorded (structure "
                            "version %s < %s): documents indexed then have no section windows; re-index them "
                            "to use section windows.", stored.get("structure", 0), STRUCTURE_VERSION)
            if stored.get("splitter") not in (None, SPLITTER_VERSION):
                log.warning("This collection was created with the sentence splitter %s (now %s): documents "
                            "indexed then keep their sentences (every line break of a PDF ended one) and still "
                            "work; re-index them for sentences that follow the text.", stored.get("splitter"),
                            SPLITTER_VERSION)

    def close(self) -> None:
        self.docview.close()
        self.store.close()

    def as_user(self, actor, **kw):
        """The checked view of this engine for ``actor`` (:class:`swr.manage.access.GuardedEngine`): what
        the app and the CLI hold; every call checks the actor's role and knowledge-base grants."""
        from swr.manage.access import GuardedEngine

        return GuardedEngine(self, actor, **kw)

    # -- knowledge bases -------------------------------------------------------------------
    def kbs(self, *, hidden: bool = False) -> list[dict]:
        """Knowledge bases with their document and sentence counts.

        Names starting with ``~`` are internal (e.g. the chunk baselines of an evaluation) and
        listed only with ``hidden=True``.
        """
        out = []
        for kb in self.store.kbs():
            if kb.startswith("~") and not hidden:
                continue
            docs = self.store.docs(kb)
            out.append({"kb": kb, "documents": sum(d.complete for d in docs), "sentences": self.store.count(kb)})
        return out

    def create_kb(self, kb: str) -> None:
        kb = _kb_name(kb)
        self.ensure_collection()
        self.store.create_kb(kb)

    def delete_kb(self, kb: str, *, trash: bool = True) -> int:
        """Delete a knowledge base (into the trash unless ``trash=False``); returns its sentence count."""
        self.require_kb(kb)
        if trash:
            self.trash.keep(kb)  # its golden questions, feedback and kept PDFs go along
        else:
            kept.remove(self.settings, kb)
            drop_kb_files(self.settings, kb)
        return self.store.delete_kb(kb)

    def docs(self, kb: str) -> list[DocInfo]:
        self.require_kb(kb)
        return self.store.docs(kb)

    def delete_doc(self, kb: str, doc_id: str, *, trash: bool = True) -> int:
        """Delete one document (into the trash unless ``trash=False``); returns its sentence count."""
        self.require_kb(kb)
        found = [d for d in self.store.docs(kb) if d.doc_id == doc_id]
        if not found:
            raise NotFound(f"No document {doc_id!r} in knowledge base {kb!r}.")
        with self.indexer.doc_lock(kb, doc_id):
            if trash:
                self.trash.keep(kb, doc_id, source=found[0].source)
            else:
                kept.remove(self.settings, kb, doc_id)
            return self.store.delete_doc(kb, doc_id)

    def doc_sentences(self, kb: str, doc_id: str):
        """The stored sentences of one document, in order (for the split preview)."""
        self.require_kb(kb)
        return self.store.scroll_doc(kb, doc_id)

    def open_document(self, kb: str, doc_id: str, *, hit: int, first: int | None = None, last: int | None = None,
                      others=(), page: int | None = None, zoom: float | None = None):
        """Document ``doc_id`` of ``kb`` opened at sentence ``hit`` (:mod:`swr.manage.docview`): PDF page
        images with the hit's character boxes painted, or the whole text marked."""
        self.require_kb(kb)
        return self.docview.open(kb, doc_id, hit=hit, first=first, last=last, others=others, page=page, zoom=zoom)

    def require_kb(self, kb: str) -> None:
        """Raise :class:`NotFound` (naming the known ones) unless knowledge base ``kb`` exists.

        A knowledge base found is remembered until this process writes to it (an index, a delete:
        ``Store.generation``) or :data:`KB_SEEN_TTL_S` pass (another process's delete on a shared
        server): listing them was a store scroll per question (issue #16)."""
        gen = self.store.generation(kb) if hasattr(self.store, "generation") else None
        seen = self._kb_seen.get(kb)
        if gen is not None and seen is not None and seen[0] == gen and time.monotonic() - seen[1] < KB_SEEN_TTL_S:
            return
        if kb not in self.store.kbs():
            known = ", ".join(self.store.kbs()) or "none yet"
            raise NotFound(f"No knowledge base named {kb!r} (known: {known}). Index files into it first.")
        if len(self._kb_seen) > 10_000:
            self._kb_seen.clear()
        self._kb_seen[kb] = (gen, time.monotonic())

    _require_kb = require_kb  # old private name, kept until every caller uses require_kb

    # -- indexing --------------------------------------------------------------------------
    def index_files(self, kb: str, files: Iterable, *, tags: list[str] | None = None,
                    progress: Progress | None = None) -> list[FileResult]:
        """Index files (paths, or ``(name, bytes)`` pairs) into ``kb``; one result per file.

        A bad file gets an error result naming it; the other files are still indexed (see
        :class:`swr.ingest.indexer.Indexer`).
        """
        kb = _kb_name(kb)
        self.ensure_collection()
        self.store.create_kb(kb)
        return self.indexer.index_files(kb, files, tags=tags, progress=progress)

    def ensure_sample(self) -> list[FileResult]:
        """Index the bundled sample manuals into the sample KB when it does not exist yet."""
        kb = self.settings.sample_kb
        if not kb or kb in self.store.kbs() or not SAMPLE_DIR.is_dir():
            return []
        files = sorted(p for p in SAMPLE_DIR.iterdir() if p.suffix.lower() in SUPPORTED)
        return self.index_files(kb, files)

    # -- asking ----------------------------------------------------------------------------
    def default_params(self, **changes) -> RetrievalParams:
        """The retrieval defaults of this engine's settings, with ``changes`` applied."""
        return RetrievalParams.from_settings(self.settings, **changes)

    # -- published settings (swr.manage.published) -------------------------------------------
    def kb_params(self, kb: str, **changes) -> RetrievalParams:
        """The knobs every consumer starts from for ``kb``: its published version (else the
        settings' defaults), with ``changes`` applied."""
        params, _ = self.published_store.params(kb, self.default_params())
        return params.with_(**changes) if changes else params

    def published(self, kb: str) -> Publication | None:
        return self.published_store.current(kb)

    def published_versions(self, kb: str) -> list[Publication]:
        return self.published_store.versions(kb)

    def publish(self, kb: str, params: RetrievalParams, by: str, **kw) -> Publication:
        """Publish ``params`` for ``kb`` (``origin``, ``evidence``, ``note``: see PublishedStore.publish)."""
        self.require_kb(kb)
        return self.published_store.publish(kb, params, by, **kw)

    def restore_published(self, kb: str, version: int, by: str) -> Publication:
        self.require_kb(kb)
        return self.published_store.restore(kb, version, by)

    def published_stamp(self, kb: str, params: RetrievalParams) -> dict:
        """Which published version an answer used: ``version`` (None: nothing published) and the
        knobs the request changed from it (``overrides``)."""
        pub = self.published_store.current(kb)
        base = pub.retrieval_params() if pub else self.default_params()
        return {"version": pub.version if pub else None, "overrides": overrides(params, base)}

    def retrieve(self, question: str, kb: str, params: RetrievalParams | None = None, **changes) -> Retrieval:
        """Search ``kb`` for ``question``: the hits, no windows yet.

        ``params`` (default: :meth:`kb_params`, the published knobs) with ``changes`` applied (any
        :class:`swr.core.params.RetrievalParams` field: ``top_k``, ``mode``, ``fusion``, ...).
        ``stages`` are the post-fusion stages in order (``cutoff`` by ``min_score``, ``rerank``
        with the cross-encoder); by default a cutoff runs when ``min_score`` is given.
        """
        question = _clean_question(question)
        self.require_kb(kb)
        self.ensure_collection()
        rp = (params or self.kb_params(kb)).with_(**changes).validate()
        t0 = time.perf_counter()
        # both vectors in every mode, so every hit can show its dense and its sparse rank; the
        # question's translations (cross-lingual search) are embedded with it, in one model call
        extra = self.crosslingual.prefetch(kb, question, rp.crosslingual) \
            if self.crosslingual.enabled and not rp.lang else []
        batch = getattr(self.embedder, "encode_queries", None)
        dense = batch([question, *extra])[0] if extra and batch else self.embedder.encode_query(question)
        t1 = time.perf_counter()
        sparse = self.sparse.encode_query(question)
        # the reranker sees a larger pool than top_k
        pool = min(max(rp.top_k * 3, 20), MAX_TOP_K) if "rerank" in rp.stages else None
        req = SearchRequest.from_params(kb, dense, sparse, rp, top_k=pool)
        hits = self.crosslingual.search(req, question, rp.crosslingual) if self.crosslingual.enabled \
            else self.store.search(req)
        # answerability's best cosine (swr.answer.answerable): the question's own vector and its translations'
        pool, translated = list(getattr(hits, "dense_pool", ())), list(getattr(hits, "translated_pool", ()))
        named, foreign = frozenset(getattr(hits, "named", ())), frozenset(getattr(hits, "foreign", ()))
        translations = dict(getattr(hits, "translations", {}))
        for h in hits:
            h.fused_score = h.score
        if rp.stages:
            hits = rerank.apply(list(rp.stages), hits, question, min_score=rp.min_score, reranker=self.reranker)
            hits = hits[:rp.top_k]
            for r, h in enumerate(hits, start=1):
                h.rank = r
        t2 = time.perf_counter()
        terms = self.sparse.query_tokens(question)  # what the sparse side searched for, and each hit's share
        for h in hits:
            h.matched_tokens = self.sparse.matched_tokens(terms, h.sentence.text)
        stamp = rp.to_dict()
        stamp.pop("window_size")
        for name in ("crosslingual", "condense", "extractive"):
            if getattr(rp, name) == getattr(RetrievalParams(), name):
                stamp.pop(name)  # the defaults: a stamp names what a request changed
        return Retrieval(question, kb, hits, stamp,
                         {"embed_ms": round((t1 - t0) * 1000, 2), "search_ms": round((t2 - t1) * 1000, 2)}, rp,
                         dense, terms, pool, translated, named, foreign, translations)

    def passages(self, retrieval: Retrieval, window_size: int | None = None, *, window_mode: str | None = None,
                 budget_chars: int | None = None) -> list[Passage]:
        """The hits' windows: fetched neighbours, merged. Never embeds (a hand-built retrieval
        without its question vector gets it from the query cache for budget windows).

        ``window_mode`` (``fixed`` ±``window_size``, ``section``, ``budget`` within
        ``budget_chars``; see :mod:`swr.retrieve.expand`) defaults to the retrieval's request, then the
        settings. ``section`` on documents indexed before structure was stored raises
        :class:`swr.core.errors.ReindexNeeded`.
        """
        w = self.settings.window_size if window_size is None else window_size
        if not 0 <= w <= win.MAX_WINDOW:
            raise BadRequest(f"window_size must be between 0 and {win.MAX_WINDOW}.")
        base = retrieval.request or self.default_params()
        rp = base.with_(window_size=w, window_mode=window_mode, budget_chars=budget_chars).validate()
        query = retrieval.query_vector
        if rp.window_mode == "budget" and query is None and retrieval.hits:
            query = self.embedder.encode_query(retrieval.question)
        return expand.build(retrieval.hits, rp.window_mode, window_size=rp.window_size, budget_chars=rp.budget_chars,
                            fetch=lambda keys: self.fetch_sentences(retrieval.kb, keys),
                            fetch_vectors=lambda keys: self.fetch_vectors(retrieval.kb, keys), query=query)

    def fetch_vectors(self, kb: str, keys):
        """Stored dense vectors of ``kb``'s sentences by ``(doc_id, i)`` (missing ones skipped)."""
        return self.store.fetch_vectors(kb, keys)

    def fetch_sentences(self, kb: str, keys) -> dict[tuple[str, int], Sentence]:
        """Stored sentences of ``kb`` by ``(doc_id, i)`` (missing ones skipped): the neighbour
        fetch of window building, for any stage that widens hits into windows."""
        return self.store.fetch_sentences(kb, keys)

    def condense(self, question: str, history: list[dict] | None, *, llm: bool = True, kb: str | None = None,
                 rules=None):
        """The standalone search question of a follow-up (:func:`swr.answer.condense.condense`): the LLM
        rewrites it when one is configured, else the previous question's subject is carried. With
        ``kb``, a question none of whose words the knowledge base uses stands alone (off-topic)."""
        from swr.answer.condense import condense, embed_similarity

        xl = getattr(self, "crosslingual", None)
        unknown = (lambda terms: xl.unknown(kb, terms)) if kb and xl is not None else None
        return condense(_clean_question(question), history,
                        llm=self.answerer if llm and self.answerer.configured else None,
                        similarity=embed_similarity(self.embedder.encode_query), unknown=unknown,
                        rules=rules or RetrievalParams().condense)

    # -- golden questions and feedback (swr.manage.golden, swr.manage.feedback) -------------------------------
    def golden(self, kb: str) -> list[dict]:
        """The golden (preset) questions of ``kb`` as rows with their ``id`` (:mod:`swr.manage.golden`)."""
        self.require_kb(kb)
        return golden.list_golden(self.settings, kb)

    def add_golden(self, kb: str, question: str, expected: str, source: str = "", origin: str = "cli",
                   by: str = "") -> dict:
        """Add (or replace, same question) a golden question of ``kb`` made by user ``by``; returns its row."""
        self.require_kb(kb)
        return golden.add_golden(self.settings, kb, question, expected, source, origin, by=by)

    def delete_golden(self, kb: str, ids: list[str]) -> list[dict]:
        """Delete golden questions of ``kb`` by id (or question text); returns the deleted rows."""
        self.require_kb(kb)
        return golden.delete_golden(self.settings, kb, ids)

    def record_feedback(self, kb: str, kind: str, **fields) -> dict:
        """Record feedback on an answer or a hit (:meth:`swr.manage.feedback.FeedbackLog.record`); a
        not-helpful answer with its right sentence becomes a golden question (``golden`` set)."""
        self.require_kb(kb)
        return FeedbackLog(self.settings, kb).record(kind, **fields)

    def feedback(self, kb: str, user: str | None = None) -> dict:
        """The feedback of ``kb``: ``summary`` (counts), ``answers`` and ``not_helpful`` (one row
        per answer, with its settings), ``csv`` (every entry), ``users``; with ``user``, theirs only."""
        self.require_kb(kb)
        return FeedbackLog(self.settings, kb).report(user)

    def ask(self, question: str, kb: str, params: RetrievalParams | None = None, *, window_size: int | None = None,
            llm: bool = True, history: list[dict] | None = None, **changes) -> AskResult:
        """Retrieve, build windows, answer (LLM when configured, else extractive). Not streamed.

        ``history`` (earlier ``{"role", "content"}`` turns) makes ``question`` a follow-up: the
        search uses its standalone rewrite (:meth:`condense`), kept as ``standalone_question``."""
        result, stream = self.ask_stream(question, kb, params, window_size=window_size, llm=llm, history=history,
                                          **changes)
        if stream is not None:
            result.answer = self.finish(result, stream)
        return result

    def ask_stream(self, question: str, kb: str, params: RetrievalParams | None = None, *,
                   window_size: int | None = None, llm: bool = True, retrieval: Retrieval | None = None,
                   history: list[dict] | None = None, **changes) -> tuple[AskResult, Iterator[str] | None]:
        """Evidence at once, and the answer as a stream of text deltas (None when extractive).

        ``params`` (default :meth:`kb_params`) with ``changes``; ``window_size`` overrides
        ``params.window_size``. Consume the stream through :meth:`finish` (or catch
        ``LLMUnavailable`` yourself): on an LLM failure the result falls back to the extractive
        answer and carries ``llm_error``.
        """
        rp = (params or self.kb_params(kb)).with_(window_size=window_size, **changes)
        cond = self.condense(question, history, llm=llm, kb=kb, rules=rp.condense) \
            if history and retrieval is None else None
        retrieval = retrieval or self.retrieve(cond.standalone if cond else question, kb, rp)
        w = rp.window_size
        t0 = time.perf_counter()
        passages = self.passages(retrieval, w, window_mode=rp.window_mode, budget_chars=rp.budget_chars)
        timings = dict(retrieval.timings, window_ms=round((time.perf_counter() - t0) * 1000, 2))
        ctx = context_text(passages)
        use_llm = llm and self.answerer.configured and bool(passages)
        result = AskResult(
            question=retrieval.question, kb=kb, answer="", answer_kind="llm" if use_llm else "extractive",
            passages=passages,
            settings=self.stamp({**retrieval.params, "window_mode": rp.window_mode, "budget_chars": rp.budget_chars},
                                w, use_llm),
            context_chars=sum(len(p.text) for p in passages), context_tokens=count_tokens(ctx),
            timings=timings, created_at=_dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            standalone_question=retrieval.question, query_tokens=retrieval.query_tokens,
            condense={"method": cond.method, "llm_error": cond.llm_error} if cond else {"method": "none"})
        if cond:
            result.question = cond.question
        result.settings["published"] = self.published_stamp(kb, rp)
        verdict = answerable.assess(self, retrieval.question, kb, retrieval.hits, passages, retrieval.params,
                                    pool=retrieval.answer_pool, named=retrieval.named, foreign=retrieval.foreign,
                                    translations=retrieval.translations)
        result.answerable, result.answerable_score = verdict.answerable, verdict.score
        result.answerability = verdict.to_dict()
        result.trace = [{"rule": r, "why": verdict.reason} for r in verdict.rules]
        if not verdict.answerable:  # say so plainly; the passages stay as the closest, not an answer
            result.answer, result.answer_kind = not_found_message(question), "extractive"
            result.settings["llm_model"] = None
            return result, None
        if not use_llm or is_yes_no(retrieval.question):  # the LLM is told what the evidence says to a yes/no
            ext = grounded_answer(self.embedder, retrieval.question, passages,
                                  foreign=retrieval.foreign, subjects=subjects.for_kb(self, kb),
                                  asked=question,
                                  allowed=answerable.grounds(self, kb, retrieval.named, retrieval.foreign),
                                  rules=rp.extractive, query_vector=retrieval.query_vector)
            result.trace += ext.trace
            if not use_llm:
                result.answer, result.extract = ext.text, ext.to_dict()
                return result, None
            hint = yes_no_hint(ext.polarity, ext.passage, ext.sentence) if ext.polarity and ext.passage else None
            result.extract = ext.to_dict() if hint else None
            return result, self.answerer.stream(retrieval.question, passages, hint)
        return result, self.answerer.stream(retrieval.question, passages)

    def finish(self, result: AskResult, stream: Iterator[str], on_delta: Callable[[str], None] | None = None) -> str:
        """Drain an answer stream into ``result``; fall back to extractive on LLM failure."""
        t0 = time.perf_counter()
        parts = []
        try:
            for delta in stream:
                parts.append(delta)
                if on_delta:
                    on_delta(delta)
            result.answer = with_fact("".join(parts), result.extract)
        except LLMUnavailable as exc:
            result.llm_error = exc.message
            result.answer_kind = "extractive"
            usable = answerable.substantive(result.passages) or result.passages
            result.answer = extractive_answer(result.question, usable)
        result.timings["llm_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return result.answer

    def check(self, result: AskResult, params=None) -> dict | None:
        """Check each sentence of ``result``'s answer against its passages (:mod:`swr.verify.check`), kept
        as ``result.check`` (its JSON form) and returned; None for a not-found answer or one with
        no passages. An extractive answer is checked without its label line."""
        from swr.verify.check import check_answer, checkable

        result.check = None
        if not result.answerable or not result.passages or not (result.answer or "").strip():
            return None
        t0 = time.perf_counter()
        checked = check_answer(self, result.standalone_question or result.question,
                               checkable(result.answer, result.answer_kind), result.passages, kb=result.kb,
                               params=params)
        if result.answer_kind == "extractive" and result.extract and not checked.refused:
            # what an extractive answer's check adds: the quoted sentence matches itself, so whether
            # it answers the question is the extract's relevance test (swr.answer.extractive)
            from swr.verify.check import Rule

            checked.answers = bool(result.extract.get("relevant"))
            checked.trace.append((Rule.QUOTED_RELEVANT if checked.answers else Rule.QUOTED_OFF).value)
        result.check = checked.to_dict()
        result.trace = list(result.trace) + [{"rule": r, "why": checked.status} for r in checked.trace]
        result.timings["check_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return result.check

    def stamp(self, params: dict, window_size: int, use_llm: bool) -> dict:
        """The settings an answer was made with (kept with the answer)."""
        return {"window_size": window_size, **params, "embed_model": self.embedder.name,
                "embed_runtime": self.embedder.runtime,
                "llm_model": self.answerer.model_name if use_llm else None}

    # -- system ----------------------------------------------------------------------------
    def system_info(self) -> dict:
        """Model, runtime, device, throughput, store backend and location, points per KB."""
        return {"embedding": self.embedder.info(), "store": {"backend": self.store.backend,
                                                             "location": self.store.location},
                "llm": {"base_url": self.settings.llm_base_url, **self.answerer.health()},
                "collection": self.store.meta(), "kbs": self.kbs()}


_BARE = re.compile(r"^\W*(?:yes|no|是的?|不是|对|不对|否)\W*$", re.I)


def with_fact(answer: str, extract: dict | None) -> str:
    """An LLM's bare "Yes" / "No" to a yes/no question, with the fact that says so (the sentence of
    the extract it was told of, cited): "No." alone is no answer to pass on to a customer."""
    if not extract or not extract.get("polarity") or not _BARE.match(answer or ""):
        return answer
    stop = "。" if re.search(r"[\u4e00-\u9fff]", answer) else ". "
    return f"{answer.strip().rstrip('.。')}{stop}{extract['sentence']} [{extract['passage']}]"


def _kb_name(kb: str) -> str:
    kb = (kb or "").strip()
    if not kb or len(kb) > 64 or any(ord(c) < 32 for c in kb):
        raise BadRequest("A knowledge base name must be 1 to 64 printable characters.")
    return kb


def _clean_question(q: str) -> str:
    q = (q or "").strip()
    if not q:
        raise BadRequest("The question is empty.")
    if len(q) > MAX_QUESTION_CHARS:
        raise BadRequest(f"The question is {len(q):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.")
    return q
