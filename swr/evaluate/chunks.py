"""The baseline sentence windows are measured against: plain fixed-size chunks.

Each document of a knowledge base is cut by llama-index's ``SentenceSplitter(chunk_size,
chunk_overlap)`` (sizes in cl100k tokens), every chunk is embedded whole with the engine's own
embedder (so the on-disk cache serves a second run) and stored in the engine's own store, in a
hidden knowledge base ``~chunks:{kb}:{size}:{overlap}``. Searching it is an ordinary
``engine.retrieve`` on that knowledge base; a chunk hit's context is the chunk text itself: no
windows, no merging (adjacent chunks that both hit repeat their overlap, as they would in a plain
chunk pipeline).

The documents are the knowledge base's own: their text is rebuilt from the stored sentences,
which tile each document exactly, so both methods see the same characters.
"""
from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable

from swr.core.lang import detect_lang
from swr.core.tokens import tokenizer
from swr.core.types import DocInfo, Hit, Passage, PassageHit, Sentence

PREFIX = "~chunks:"
EMBED_BATCH = 256  # chunks per embedding call (and per progress step), across documents


def chunk_kb_name(kb: str, chunk_size: int, chunk_overlap: int) -> str:
    """Name of the hidden knowledge base holding ``kb``'s chunks of one size and overlap."""
    return f"{PREFIX}{kb}:{int(chunk_size)}:{int(chunk_overlap)}"


def split_chunks(text: str, chunk_size: int, chunk_overlap: int) -> list[tuple[int, int, str]]:
    """``(start, end, chunk text)`` of ``text`` cut by llama-index's ``SentenceSplitter``."""
    from llama_index.core import Document as LIDocument
    from llama_index.core.node_parser import SentenceSplitter

    if chunk_size < 1 or not 0 <= chunk_overlap < chunk_size:
        raise ValueError("need chunk_size >= 1 and 0 <= chunk_overlap < chunk_size")
    splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap, tokenizer=tokenizer())
    nodes = splitter.get_nodes_from_documents([LIDocument(text=text)])
    out = []
    for node in nodes:
        body = node.get_content()
        a, b = node.start_char_idx, node.end_char_idx
        if a is None or b is None or text[a:b] != body:  # the splitter could not locate it: search
            a = text.find(body)
            b = a + len(body) if a >= 0 else None
            if a < 0:
                a = b = None
        if body.strip():
            out.append((a if a is not None else -1, b if b is not None else -1, body))
    return out


def ensure_chunks(engine, kb: str, chunk_size: int, chunk_overlap: int,
                  progress: Callable[[dict], None] | None = None) -> str:
    """Index ``kb``'s documents as chunks into the hidden KB (when not done yet); its name.

    A document already chunked (same doc id, complete) is skipped; chunks of documents no longer
    in ``kb`` are deleted. Chunks of several documents are embedded together in batches of
    :data:`EMBED_BATCH` (an embedding call has a fixed cost, and documents are often short);
    a document's record is written after all its chunks, so an interrupted run redoes it.
    """
    name = chunk_kb_name(kb, chunk_size, chunk_overlap)
    store = engine.store
    engine.require_kb(kb)
    engine.ensure_collection()
    store.create_kb(name)
    src_docs = [d for d in store.docs(kb) if d.complete]
    src_ids = {d.doc_id for d in src_docs}
    have = {d.doc_id: d for d in store.docs(name)}
    for old in have.values():
        if old.doc_id not in src_ids:
            store.delete_doc(name, old.doc_id)
    todo = [d for d in src_docs if not (d.doc_id in have and have[d.doc_id].complete)]
    plans: list[tuple[DocInfo, list[Sentence]]] = []
    for d in todo:
        sents = store.scroll_doc(kb, d.doc_id)
        if not sents:
            continue
        base = sents[0].start
        text = "".join(s.text for s in sents)
        pieces = split_chunks(text, chunk_size, chunk_overlap)
        lang = sents[0].lang or detect_lang(text[:5000])
        recs = [Sentence(kb=name, doc_id=d.doc_id, source=d.source, i=i, n=len(pieces),
                         start=a + base if a >= 0 else -1, end=b + base if b >= 0 else -1, text=body,
                         page=None, tags=list(d.tags), lang=lang)
                for i, (a, b, body) in enumerate(pieces)]
        info = DocInfo(doc_id=d.doc_id, source=d.source, sentences=len(recs), complete=True, chars=len(text),
                       format=d.format, tags=list(d.tags))
        plans.append((info, recs))
    total = sum(len(r) for _, r in plans)
    done, t0 = 0, time.perf_counter()
    batch_docs: list[DocInfo] = []
    batch: list[Sentence] = []
    for k, (info, recs) in enumerate(plans):
        batch_docs.append(info)
        batch.extend(recs)
        if len(batch) < EMBED_BATCH and k < len(plans) - 1:
            continue
        for s in range(0, len(batch), EMBED_BATCH):
            part = batch[s:s + EMBED_BATCH]
            texts = [r.text.strip() for r in part]
            store.upsert(part, engine.embedder.encode_passages(texts), engine.sparse.encode_documents(texts))
            done += len(part)
            if progress:
                progress({"stage": "chunks", "kb": name, "done": done, "total": total,
                          "documents": len(plans), "seconds": time.perf_counter() - t0})
        stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        for info in batch_docs:
            info.indexed_at = stamp
            store.put_doc(name, info)
        batch_docs, batch = [], []
    return name


def chunk_passages(hits: list[Hit]) -> list[Passage]:
    """One passage per chunk hit, in rank order: the chunk text itself."""
    out = []
    for rank, h in enumerate(hits, start=1):
        s = h.sentence
        text = s.text.strip()
        ph = PassageHit(i=s.i, sentence=text, score=h.score, start=0, end=len(text), page=s.page,
                        rank=h.rank or rank, dense_score=h.dense_score, dense_rank=h.dense_rank,
                        sparse_score=h.sparse_score, sparse_rank=h.sparse_rank)
        out.append(Passage(doc_id=s.doc_id, source=s.source, first=s.i, last=s.i, text=text, hits=[ph],
                           score=h.score, pages=[]))
    return out
