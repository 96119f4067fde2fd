"""The facade the app and the CLI call: index, ask, list, delete. Knows no Streamlit.

One engine per process (the embedded store can be opened once per process); it is thread-safe:
several browser sessions ask while another indexes. The work is done in the stages: a search in
:mod:`swr.retrieve.search` (:class:`Retrieval`), an answer in :mod:`swr.answer.respond` (:class:`AskResult`).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import swr.answer.respond as respond
from swr.answer.llm import Answerer, LLMConfig
from swr.answer.result import AskResult
from swr.core import memory
from swr.core.errors import BadRequest, NotFound
from swr.core.params import RetrievalParams, clean_question, kb_name
from swr.core.settings import Settings
from swr.core.types import DocInfo, FileResult, Passage, Sentence
from swr.embed.base import Embedder
from swr.embed.embedder import make_embedder
from swr.ingest import originals as kept
from swr.ingest.collection import collection_meta, warn_outdated
from swr.ingest.indexer import Indexer
from swr.ingest.load import SUPPORTED
from swr.manage import golden
from swr.manage.docview import DocViewer
from swr.manage.feedback import FeedbackLog
from swr.manage.published import Publication, PublishedStore, overrides
from swr.manage.trash import Trash, drop_kb_files
from swr.retrieve import rerank, window as win
from swr.retrieve.crosslingual import CrossLingual
from swr.retrieve.search import Retrieval, search, windows
from swr.store import Store, open_store
from swr.text.sparse import SparseEncoder

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "kb"
KB_SEEN_TTL_S = 5.0  # require_kb remembers a knowledge base found this long (or until a write to it)

Progress = Callable[[dict], None]


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
        self.answerer = answerer or Answerer(LLMConfig.from_settings(settings))
        self.indexer = Indexer(self)
        self.trash = Trash(settings, self.store)
        self.docview = DocViewer(settings, self.store)  # swr.manage.docview: renders cached per process
        self._meta = collection_meta(self.embedder, self.sparse)
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
            warn_outdated(self.store.meta() or {})

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
        """Knowledge bases with their document and sentence counts; names starting with ``~`` are
        internal (an evaluation's chunk baselines) and listed only with ``hidden=True``."""
        out = []
        for kb in self.store.kbs():
            if kb.startswith("~") and not hidden:
                continue
            docs = self.store.docs(kb)
            out.append({"kb": kb, "documents": sum(d.complete for d in docs), "sentences": self.store.count(kb)})
        return out

    def create_kb(self, kb: str) -> None:
        kb = kb_name(kb)
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
        server): listing them was a store scroll per question."""
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

    # -- indexing --------------------------------------------------------------------------
    def index_files(self, kb: str, files: Iterable, *, tags: list[str] | None = None,
                    progress: Progress | None = None) -> list[FileResult]:
        """Index files (paths, or ``(name, bytes)`` pairs) into ``kb``; one result per file.

        A bad file gets an error result naming it; the other files are still indexed (see
        :class:`swr.ingest.indexer.Indexer`).
        """
        kb = kb_name(kb)
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
        question = clean_question(question)
        self.require_kb(kb)
        self.ensure_collection()
        rp = (params or self.kb_params(kb)).with_(**changes).validate()
        return search(question, kb, rp, store=self.store, embedder=self.embedder, sparse=self.sparse,
                      crosslingual=self.crosslingual, reranker=self.reranker)

    def passages(self, retrieval: Retrieval, window_size: int | None = None, *, window_mode: str | None = None,
                 budget_chars: int | None = None, sentences: dict | None = None) -> list[Passage]:
        """The hits' windows: fetched neighbours, merged. Never embeds (a hand-built retrieval
        without its question vector gets it from the query cache for budget windows).

        ``window_mode`` (``fixed`` ±``window_size``, ``section``, ``budget`` within
        ``budget_chars``; see :mod:`swr.retrieve.expand`) defaults to the retrieval's request, then the
        settings. ``section`` on documents indexed before structure was stored raises
        :class:`swr.core.errors.ReindexNeeded`. ``sentences`` (a dict) receives the stored sentences fetched.
        """
        w = self.settings.window_size if window_size is None else window_size
        if not 0 <= w <= win.MAX_WINDOW:
            raise BadRequest(f"window_size must be between 0 and {win.MAX_WINDOW}.")
        base = retrieval.request or self.default_params()
        rp = base.with_(window_size=w, window_mode=window_mode, budget_chars=budget_chars).validate()
        return windows(retrieval, rp, fetch=lambda keys: self.fetch_sentences(retrieval.kb, keys), kept=sentences,
                       fetch_vectors=lambda keys: self.fetch_vectors(retrieval.kb, keys),
                       encode_query=self.embedder.encode_query)

    def fetch_vectors(self, kb: str, keys):
        """Stored dense vectors of ``kb``'s sentences by ``(doc_id, i)`` (missing ones skipped)."""
        return self.store.fetch_vectors(kb, keys)

    def fetch_sentences(self, kb: str, keys) -> dict[tuple[str, int], Sentence]:
        """Stored sentences of ``kb`` by ``(doc_id, i)`` (missing ones skipped): the neighbour
        fetch of window building, for any stage that widens hits into windows."""
        return self.store.fetch_sentences(kb, keys)

    def condense(self, question: str, history: list[dict] | None, *, llm: bool = True, kb: str | None = None,
                 rules=None):
        """A follow-up's standalone search question (:func:`swr.answer.condense.condense`); with ``kb``, a
        question none of whose words the knowledge base uses stands alone (off-topic)."""
        from swr.answer.condense import condense
        from swr.answer.rewrite_offline import embed_similarity

        xl = getattr(self, "crosslingual", None)
        unknown = (lambda terms: xl.unknown(kb, terms)) if kb and xl is not None else None
        return condense(clean_question(question), history,
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
        passages = self.passages(retrieval, w, window_mode=rp.window_mode, budget_chars=rp.budget_chars,
                                 sentences=(seen := {}))  # the stored sentences they show (the API's lists)
        timings = dict(retrieval.timings, window_ms=round((time.perf_counter() - t0) * 1000, 2))
        use_llm = llm and self.answerer.configured and bool(passages)
        stamp = self.stamp({**retrieval.params, "window_mode": rp.window_mode, "budget_chars": rp.budget_chars},
                           w, use_llm)
        result = respond.evidence(retrieval, kb, passages, stamp, timings, cond, use_llm)
        result.window_sentences = seen
        result.settings["published"] = self.published_stamp(kb, rp)
        stream = respond.answer(self, result, retrieval, question, use_llm)
        memory.answered()  # the first questions' lazy loads done: out of the collector's walks
        return result, stream

    def finish(self, result: AskResult, stream: Iterator[str], on_delta: Callable[[str], None] | None = None) -> str:
        """Drain an answer stream into ``result``; fall back to extractive on LLM failure."""
        return respond.drain(result, stream, on_delta)

    def check(self, result: AskResult, params=None) -> dict | None:
        """Check each sentence of ``result``'s answer against its passages (:mod:`swr.verify.check`), kept
        as ``result.check`` (its JSON form) and returned; None for a not-found answer or one with
        no passages. An extractive answer is checked without its label line."""
        from swr.verify.check import check_result

        result.check = None
        t0 = time.perf_counter()
        checked = check_result(self, result, params)
        if checked is None:
            return None
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
