"""Spans -> ordinary LlamaIndex ``TextNode``s, built by llama-index's ``SentenceWindowNodeParser``.

The parser is fed our lossless zh+en splitter as a callable (not a splitter object: that fails,
llama_index issue 10375). Node ids are the stable point ids (uuid5 of kb, doc id, sentence number), so
re-indexing never duplicates. Every metadata key is excluded from the embedded text and from the
LLM text: a sentence is embedded alone. The window the parser bakes into metadata is only for
LlamaIndex users; swr rebuilds windows at query time and stores none.
"""
from __future__ import annotations

from llama_index.core import Document as LIDocument
from llama_index.core.node_parser import SentenceWindowNodeParser
from llama_index.core.schema import MetadataMode, TextNode

from swr.core.ids import sentence_id
from swr.core.lang import detect_lang
from swr.core.types import Document, Sentence
from swr.text.split import split_spans

META_KEYS = ["kb", "doc_id", "source", "i", "n", "start", "end", "page", "tags", "lang",
             "window", "original_text"]


def build_nodes(doc: Document, kb: str, *, tags: list[str] | None = None, window_size: int = 3,
                spans: list[tuple[int, int]] | None = None) -> list[TextNode]:
    """One TextNode per sentence of ``doc``, ids stable, metadata excluded from embedding."""
    spans = split_spans(doc.text) if spans is None else spans
    sentences = [doc.text[a:b] for a, b in spans]
    parser = SentenceWindowNodeParser.from_defaults(
        sentence_splitter=lambda _text: sentences,
        window_size=max(1, window_size),
        include_prev_next_rel=False,  # the neighbours' windows would be copied into every point
        id_func=lambda i, _doc: sentence_id(kb, doc.doc_id, i),
    )
    li_doc = LIDocument(id_=doc.doc_id, text=doc.text, metadata={"source": doc.source},
                        excluded_embed_metadata_keys=list(META_KEYS),
                        excluded_llm_metadata_keys=list(META_KEYS))
    nodes = parser.get_nodes_from_documents([li_doc])
    n = len(nodes)
    lang = detect_lang(doc.text[:5000])
    for i, (node, (a, b)) in enumerate(zip(nodes, spans)):
        node.start_char_idx, node.end_char_idx = a, b
        node.metadata.update({"kb": kb, "doc_id": doc.doc_id, "source": doc.source, "i": i, "n": n,
                              "start": a, "end": b, "page": doc.page_of(a), "tags": list(tags or []),
                              "lang": lang})
        node.excluded_embed_metadata_keys = list(META_KEYS)
        node.excluded_llm_metadata_keys = list(META_KEYS)
    return nodes


def embed_text(node: TextNode) -> str:
    """What is embedded for a node: the sentence alone, stripped."""
    return node.get_content(metadata_mode=MetadataMode.EMBED).strip()


def to_sentence(node: TextNode) -> Sentence:
    """The store's view of a node."""
    m = node.metadata
    return Sentence(kb=m["kb"], doc_id=m["doc_id"], source=m["source"], i=m["i"], n=m["n"],
                    start=m["start"], end=m["end"], text=node.text, page=m["page"],
                    tags=list(m["tags"]), lang=m["lang"])
