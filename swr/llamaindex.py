"""swr for LlamaIndex users: a retriever and a node postprocessor for ordinary query pipelines.

- :class:`SentenceWindowRetriever` searches a knowledge base (dense, sparse or hybrid) and returns
  one node per merged window passage.
- :class:`MergingWindowPostprocessor` is the ``MetadataReplacementPostProcessor`` idea done at
  query time, with merging: given sentence nodes (from any retriever over swr's nodes, e.g.
  :func:`swr.ingest.nodes.build_nodes` + ``VectorStoreIndex``), it replaces them by their windows at the
  chosen size, fetched from the swr store, merging hits whose windows overlap or touch so no
  sentence is sent twice. The stock postprocessor only swaps each hit for its own baked-in window.
"""
from __future__ import annotations

from typing import Any

from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from swr.core.params import MIN_BUDGET_CHARS, WINDOW_MODES, RetrievalParams
from swr.core.types import Hit, Passage, Sentence
from swr.retrieve import expand, window as win

_DEFAULTS = RetrievalParams()  # the window defaults of a postprocessor built by hand


def passage_node(p: Passage) -> TextNode:
    """A passage as a LlamaIndex node: text is the window, hits in metadata (not embedded)."""
    meta = {"source": p.source, "doc_id": p.doc_id, "first": p.first, "last": p.last, "pages": p.pages,
            "window_mode": p.window_mode, "stop_before": p.stop_before, "stop_after": p.stop_after,
            "original_text": " ".join(h.sentence for h in p.hits),
            "hits": [{"i": h.i, "score": h.score, "start": h.start, "end": h.end} for h in p.hits]}
    keys = list(meta)
    return TextNode(id_=f"{p.doc_id}:{p.first}-{p.last}", text=p.text, metadata=meta,
                    excluded_embed_metadata_keys=keys, excluded_llm_metadata_keys=[k for k in keys if k != "source"])


class SentenceWindowRetriever(BaseRetriever):
    """Retrieve merged sentence windows from an swr knowledge base.

    ``params`` (default: the knowledge base's published settings, ``engine.kb_params(kb)``, read
    again for every query so a new publication applies) with ``window_size`` and ``knobs`` (any
    :class:`swr.core.params.RetrievalParams` field) applied: :attr:`params`. Each node's metadata names
    the published version the query used (``published_version``).
    """

    def __init__(self, engine, kb: str, params: RetrievalParams | None = None, *, window_size: int | None = None,
                 **knobs: Any) -> None:
        super().__init__()
        self._engine, self._kb, self._fixed = engine, kb, params
        self._changes = {"window_size": window_size, **knobs}
        self.params.validate()

    @property
    def params(self) -> RetrievalParams:
        base = self._fixed
        if base is None:
            base = self._engine.kb_params(self._kb) if hasattr(self._engine, "kb_params") \
                else self._engine.default_params()
        return base.with_(**self._changes)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        params = self.params.validate()
        r = self._engine.retrieve(query_bundle.query_str, self._kb, params)
        passages = self._engine.passages(r, params.window_size, window_mode=params.window_mode,
                                         budget_chars=params.budget_chars)
        stamp = self._engine.published_stamp(self._kb, params) if hasattr(self._engine, "published_stamp") else {}
        nodes = [NodeWithScore(node=passage_node(p), score=p.score) for p in passages]
        for n in nodes:
            n.node.metadata["published_version"] = stamp.get("version")
            n.node.excluded_embed_metadata_keys.append("published_version")
            n.node.excluded_llm_metadata_keys.append("published_version")
        return nodes


class MergingWindowPostprocessor(BaseNodePostprocessor):
    """Replace sentence nodes by their merged windows: ``window_mode`` ``fixed`` (``window_size``
    sentences each side), ``section`` or ``budget`` (within ``budget_chars``; see
    :mod:`swr.retrieve.expand`). ``budget`` needs ``embedder`` (the swr embedder the store was built with)
    to embed the question; ``section`` reads the hits' structure from the store."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    window_size: int = Field(default=_DEFAULTS.window_size, ge=0, le=win.MAX_WINDOW)
    window_mode: str = Field(default=_DEFAULTS.window_mode, pattern=f"^({'|'.join(WINDOW_MODES)})$")
    budget_chars: int = Field(default=_DEFAULTS.budget_chars, ge=MIN_BUDGET_CHARS)
    _store: Any = PrivateAttr()
    _embedder: Any = PrivateAttr()

    def __init__(self, store, window_size: int = _DEFAULTS.window_size, *, window_mode: str = _DEFAULTS.window_mode,
                 budget_chars: int = _DEFAULTS.budget_chars, embedder=None, **kwargs: Any) -> None:
        super().__init__(window_size=window_size, window_mode=window_mode, budget_chars=budget_chars, **kwargs)
        if window_mode == "budget" and embedder is None:
            raise ValueError("budget windows need the swr embedder (embedder=engine.embedder) for the question")
        self._store = store
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "MergingWindowPostprocessor"

    def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
                           ) -> list[NodeWithScore]:
        hits = []
        for rank, nws in enumerate(nodes, start=1):
            m = nws.node.metadata
            if "doc_id" not in m or "i" not in m:
                continue  # not a sentence node of swr
            s = Sentence(kb=m["kb"], doc_id=m["doc_id"], source=m.get("source", ""), i=int(m["i"]),
                         n=int(m.get("n", m["i"] + 1)), start=m.get("start", 0), end=m.get("end", 0),
                         text=nws.node.get_content(), page=m.get("page"))
            hits.append(Hit(sentence=s, score=float(nws.score or 0.0), rank=rank))
        if not hits:
            return nodes
        kb = hits[0].sentence.kb
        fetch = lambda keys: self._store.fetch_sentences(kb, keys)  # noqa: E731
        query = None
        if self.window_mode != "fixed":  # the stored payloads carry the structure the node metadata lacks
            stored = fetch([(h.sentence.doc_id, h.sentence.i) for h in hits])
            for h in hits:
                h.sentence = stored.get((h.sentence.doc_id, h.sentence.i), h.sentence)
        if self.window_mode == "budget":
            query = self._embedder.encode_query((query_bundle.query_str if query_bundle else "") or " ")
        passages = expand.build(hits, self.window_mode, window_size=self.window_size, budget_chars=self.budget_chars,
                                fetch=fetch, fetch_vectors=lambda keys: self._store.fetch_vectors(kb, keys),
                                query=query)
        return [NodeWithScore(node=passage_node(p), score=p.score) for p in passages]
