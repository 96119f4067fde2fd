"""Storage and memory: payload bytes per source byte at window 3, disk per sentence, resident memory.

    python bench/storage.py                  # 48 SQuAD articles; RSS of a process holding 100k sentences
    python bench/storage.py --stock-100k     # also open a 100k-point stock (local mode) store (slow to build)

Vectors do not change payload sizes, so no model runs: swr gets the real MiniLM vectors looked up
by text (bench/out/vectors), stock gets llama-index's `MockEmbedding` (384 dimensions).

- stock: `SimpleDirectoryReader` + `SentenceWindowNodeParser.from_defaults()` (window 3) +
  `VectorStoreIndex` + `QdrantVectorStore` on qdrant-client's local mode persisted to a folder.
- swr: `Engine.index_files` into a fresh SWR_HOME (Qdrant Edge shard + embedding cache).

Payload bytes are the UTF-8 JSON of every stored sentence point's payload, read back from the
store; the source is the UTF-8 text of the articles. Resident memory is measured in a fresh
process that opens the store and answers 100 questions (dense, sparse and hybrid), with and
without the embedding model loaded.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import common as C
from swr.store.edge_build import live_folder  # noqa: E402  (common sets the thread variables first)

WORK = C.OUT / "storage"
CORPUS = WORK / "corpus"
KB = "squad"


def payload_bytes(payloads) -> int:
    return sum(len(json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for p in payloads)


def swr_row(docs, source_bytes: int) -> dict:
    from swr.embed.cache import CachedEmbedder
    from swr.engine import Engine

    _, per_doc, svecs, _, _ = C.corpus_vectors()
    texts = [t.strip() for d in per_doc for _, _, t in d]
    home = WORK / "swr_home"
    shutil.rmtree(home, ignore_errors=True)
    s = C.edge_settings(home)
    eng = Engine(s, embedder=CachedEmbedder(C.lookup_embedder(texts, svecs), s.cache_path))
    res = eng.index_files(KB, sorted(CORPUS.glob("*.txt")))
    assert all(r.ok for r in res), [r.error for r in res if not r.ok][:1]
    n = eng.store.count(KB)
    payloads = list(eng.store.payloads(KB, "s"))
    other = [p for p in eng.store.payloads(KB) if p.get("type") != "s"]
    eng.close()
    store_b, cache_b = C.dir_bytes(live_folder(s.store_path)), C.dir_bytes(s.cache_path)
    pb = payload_bytes(payloads)
    return {"row": "swr (Qdrant Edge)", "window": "any (built at query time)", "points": n,
            "payload bytes": pb, "payload / source": pb / source_bytes, "payload bytes/sentence": pb / n,
            "records (doc, kb) bytes": payload_bytes(other), "disk bytes/sentence": store_b / n,
            "disk MiB": store_b / 2**20, "cache bytes/sentence": cache_b / n}


def stock_row(source_bytes: int) -> dict:
    import qdrant_client
    from llama_index.core import MockEmbedding, SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceWindowNodeParser
    from llama_index.vector_stores.qdrant import QdrantVectorStore

    folder = WORK / "stock_qdrant"
    shutil.rmtree(folder, ignore_errors=True)
    client = qdrant_client.QdrantClient(path=str(folder))
    store = QdrantVectorStore(client=client, collection_name=KB)
    parser = SentenceWindowNodeParser.from_defaults()
    VectorStoreIndex.from_documents(SimpleDirectoryReader(str(CORPUS)).load_data(),
                                    storage_context=StorageContext.from_defaults(vector_store=store),
                                    embed_model=MockEmbedding(embed_dim=384), transformations=[parser])
    payloads, offset = [], None
    while True:
        recs, offset = client.scroll(KB, limit=1000, offset=offset, with_payload=True)
        payloads += [r.payload for r in recs]
        if offset is None:
            break
    client.close()
    n, pb, disk = len(payloads), payload_bytes(payloads), C.dir_bytes(folder)
    return {"row": "stock (local mode)", "window": parser.window_size, "points": n, "payload bytes": pb,
            "payload / source": pb / source_bytes, "payload bytes/sentence": pb / n,
            "disk bytes/sentence": disk / n, "disk MiB": disk / 2**20}


# -- resident memory of a process holding 100k sentences ---------------------------------------
def build_100k(n: int) -> Path:
    from swr.engine import Engine

    docs, per_doc, svecs, _, _ = C.corpus_vectors()
    texts = [t.strip() for d in per_doc for _, _, t in d]
    home = WORK / f"rss_home_{n}"
    shutil.rmtree(home, ignore_errors=True)
    eng = Engine(C.edge_settings(home), embedder=C.lookup_embedder(texts, svecs))
    eng.create_kb(KB)
    C.fill_store(eng.store, KB, n, docs, per_doc, svecs, eng.sparse)
    eng.close()
    return home


def rss_child(home: str, with_model: bool) -> dict:
    """Run in a fresh process: open the store, answer 100 questions, report RSS."""
    import numpy as np

    from swr.store.base import SearchRequest
    from swr.store.edge import EdgeStore
    from swr.text.sparse import SparseEncoder

    _, _, _, qtexts, qvecs = C.corpus_vectors()
    base = C.rss_mb()[0]
    emb = None
    if with_model:
        C.torch_threads()
        from swr.embed.torch_st import TorchEmbedder

        emb = TorchEmbedder(C.minilm_path(), "cpu")
        emb.encode_query("warm up")
    model = C.rss_mb()[0]
    t0 = time.perf_counter()
    store = EdgeStore(C.edge_settings(Path(home)))
    open_s = time.perf_counter() - t0
    n = store.count(KB)
    opened = C.rss_mb()[0]
    sparse = SparseEncoder("jieba")
    for k in range(100):
        vec = emb.encode_query(qtexts[k]) if emb else qvecs[k]
        for mode in ("dense", "sparse", "hybrid"):
            store.search(SearchRequest(kb=KB, dense=np.asarray(vec), sparse=sparse.encode_query(qtexts[k]), mode=mode))
    cur, peak = C.rss_mb()
    store.close()
    return {"points": n, "open_s": open_s, "rss_base_mib": base, "rss_model_mib": model - base,
            "rss_store_open_mib": opened - model, "rss_after_queries_mib": cur, "rss_peak_mib": peak,
            "store_part_mib": cur - model}


def stock_100k(n: int) -> Path:
    """A stock local-mode collection of n window-3 nodes (the corpus repeated with new ids)."""
    import uuid

    import qdrant_client
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceWindowNodeParser
    from llama_index.vector_stores.qdrant import QdrantVectorStore

    folder = WORK / f"stock_qdrant_{n}"
    shutil.rmtree(folder, ignore_errors=True)
    nodes = SentenceWindowNodeParser.from_defaults().get_nodes_from_documents(
        SimpleDirectoryReader(str(CORPUS)).load_data())
    client = qdrant_client.QdrantClient(path=str(folder))
    store = QdrantVectorStore(client=client, collection_name=KB)
    rng = __import__("numpy").random.default_rng(0)
    written, t0 = 0, time.perf_counter()
    while written < n:
        batch = []
        for node in nodes[: n - written]:
            c = node.model_copy()
            c.id_ = str(uuid.uuid4())
            c.embedding = rng.normal(size=384).astype("float32").tolist()
            batch.append(c)
        for k in range(0, len(batch), 2048):
            store.add(batch[k:k + 2048])
        written += len(batch)
        print(f"  stock: {written:,} points, {written / (time.perf_counter() - t0):,.0f}/s", file=sys.stderr)
    client.close()
    return folder


def stock_rss_child(folder: str) -> dict:
    import numpy as np
    import qdrant_client

    base = C.rss_mb()[0]
    t0 = time.perf_counter()
    client = qdrant_client.QdrantClient(path=folder)
    n = client.count(KB).count
    open_s = time.perf_counter() - t0
    rng = np.random.default_rng(1)
    for _ in range(5):
        client.query_points(KB, query=rng.normal(size=384).tolist(), limit=10)
    cur, peak = C.rss_mb()
    client.close()
    return {"points": n, "open_s": open_s, "rss_base_mib": base, "rss_after_queries_mib": cur, "rss_peak_mib": peak,
            "store_part_mib": cur - base}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=None)
    ap.add_argument("--rss-points", type=int, default=100_000)
    ap.add_argument("--stock-100k", action="store_true", help="also build and open a stock store of --rss-points")
    ap.add_argument("--json", default=str(WORK / "last.json"))
    ap.add_argument("--rss-child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--stock-rss-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        C.emit(rss_child(args.rss_child[0], args.rss_child[1] == "model"))
        return
    if args.stock_rss_child:
        C.emit(stock_rss_child(args.stock_rss_child))
        return
    docs = C.squad_docs(args.articles)
    C.write_corpus(CORPUS, docs)
    source_bytes = sum(len(t.encode("utf-8")) for _, t in docs)
    rows = [stock_row(source_bytes), swr_row(docs, source_bytes)]
    print(f"\n### Storage, {len(docs)} SQuAD articles ({source_bytes:,} bytes of text), window 3\n")
    print(C.table(rows, ["row", "window", "points", "payload bytes", "payload / source", "payload bytes/sentence",
                         "disk bytes/sentence", "disk MiB", "cache bytes/sentence"]))
    swr = rows[1]
    print(f"\nswr payload / source: {swr['payload / source']:.2f}x "
          f"(floor: 3x; stock {rows[0]['payload / source']:.1f}x); "
          f"doc and kb records add {swr['records (doc, kb) bytes']:,} bytes")

    home = build_100k(args.rss_points)
    mem = [dict(C.child(Path(__file__), ["--rss-child", str(home), m]), row=f"swr, {what}")
           for m, what in (("none", "store only"), ("model", "store + MiniLM model"))]
    disk = C.dir_bytes(live_folder(C.edge_settings(home).store_path))
    if args.stock_100k:
        folder = stock_100k(args.rss_points)
        r = C.child(Path(__file__), ["--stock-rss-child", str(folder)])
        mem.append(dict(r, row="stock (local mode)", rss_model_mib=None))
    print(f"\n### Resident memory of a fresh process holding {args.rss_points:,} sentences "
          f"(opened, then 100 questions x 3 modes)\n")
    print(C.table(mem, ["row", "points", "open_s", "rss_base_mib", "rss_model_mib", "store_part_mib",
                        "rss_after_queries_mib", "rss_peak_mib"]))
    print(f"\nswr store on disk at {args.rss_points:,} sentences: {disk / 2**20:,.0f} MiB "
          f"({disk / args.rss_points:,.0f} bytes/sentence)")
    shutil.rmtree(home, ignore_errors=True)
    Path(args.json).write_text(json.dumps({"storage": rows, "memory": mem}, indent=1))


if __name__ == "__main__":
    main()
