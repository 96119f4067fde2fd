"""Changing the window from 2 to 5: embedding calls and points written, stock vs swr.

    python bench/window_change.py                 # first 4 SQuAD articles
    python bench/window_change.py --articles 48

Both rows use the real all-MiniLM-L6-v2 (bundled) on 2 torch threads.

- stock: llama-index bakes the window into every node at parse time, so a new window means
  re-parsing and re-upserting everything: `SentenceWindowNodeParser.from_defaults(window_size=5)`
  + `VectorStoreIndex` + `HuggingFaceEmbedding` (default batch) + `QdrantVectorStore` (local
  mode, persisted), into a fresh collection (node ids are random uuid4s, so upserting into the
  old one would duplicate every point).
- swr: the window is built at query time from the stored sentences. Counted after the change:
  `Engine.passages(retrieval, 5)` for 50 questions retrieved at window 2, `Engine.ask(...,
  window_size=5)` on the same questions, and a new engine with SWR_WINDOW_SIZE=5 re-indexing
  the same files. Model calls are `engine.embedder.calls` (the model's, not cache hits);
  points written are counted at the store.
"""
from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import common as C

WORK = C.OUT / "window_change"
CORPUS = WORK / "corpus"
KB = "squad"


class Writes:
    """Counts points written through a store's write methods."""

    def __init__(self, store) -> None:
        self.points = 0
        self.records = 0
        for name, per in (("upsert", lambda a: len(a[0])), ("put_doc", lambda a: 1), ("create_kb", lambda a: 1)):
            fn = getattr(store, name)
            setattr(store, name, self._wrap(fn, per, name == "upsert"))

    def _wrap(self, fn, per, sentence_points):
        def counted(*a, **kw):
            if sentence_points:
                self.points += per(a)
            else:
                self.records += per(a)
            return fn(*a, **kw)
        return counted


def stock(args) -> dict:
    import qdrant_client
    from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceWindowNodeParser
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.qdrant import QdrantVectorStore

    C.torch_threads()
    folder = WORK / "stock_qdrant"
    shutil.rmtree(folder, ignore_errors=True)
    embed_model = HuggingFaceEmbedding(model_name=C.minilm_path(), device="cpu")
    count = {"calls": 0, "texts": 0, "points": 0}
    get = HuggingFaceEmbedding._get_text_embeddings

    def counted_embed(self, texts):
        count["calls"] += 1
        count["texts"] += len(texts)
        return get(self, texts)

    add = QdrantVectorStore.add

    def counted_add(self, nodes, **kw):
        count["points"] += len(nodes)
        return add(self, nodes, **kw)

    HuggingFaceEmbedding._get_text_embeddings = counted_embed
    QdrantVectorStore.add = counted_add
    client = qdrant_client.QdrantClient(path=str(folder))
    rows = []
    for w in (2, 5):
        before = dict(count)
        t0 = time.perf_counter()
        docs = SimpleDirectoryReader(str(CORPUS)).load_data()
        store = QdrantVectorStore(client=client, collection_name=f"{KB}_w{w}")
        VectorStoreIndex.from_documents(docs, storage_context=StorageContext.from_defaults(vector_store=store),
                                        embed_model=embed_model,
                                        transformations=[SentenceWindowNodeParser.from_defaults(window_size=w)])
        rows.append({"row": "stock", "step": "index at window 2" if w == 2 else "change to window 5 (re-index)",
                     "model calls": count["calls"] - before["calls"],
                     "texts embedded": count["texts"] - before["texts"],
                     "points written": count["points"] - before["points"], "seconds": time.perf_counter() - t0})
    client.close()
    return {"rows": rows}


def swr(args) -> dict:
    from swr.engine import Engine
    from swr.evaluate.questions import load_squad

    C.torch_threads()
    home = WORK / "swr_home"
    shutil.rmtree(home, ignore_errors=True)
    paths = sorted(CORPUS.glob("*.txt"))
    _, qs = load_squad(C.SQUAD, max_articles=args.articles)
    questions = [q.question for q in qs[:: max(1, len(qs) // 50)][:50]]
    rows = []

    def step(eng, writes, name, fn):
        calls, encoded, pts, recs = eng.embedder.calls, eng.embedder.encoded, writes.points, writes.records
        t0 = time.perf_counter()
        out = fn()
        rows.append({"row": "swr", "step": name, "model calls": eng.embedder.calls - calls,
                     "texts embedded": eng.embedder.encoded - encoded, "points written": writes.points - pts,
                     "records written": writes.records - recs, "seconds": time.perf_counter() - t0})
        return out

    eng = Engine(C.edge_settings(home, window_size=2))
    writes = Writes(eng.store)
    step(eng, writes, "index at window 2", lambda: eng.index_files(KB, paths))
    rets = step(eng, writes, "50 questions retrieved, windows at 2",
                lambda: [(r, eng.passages(r, 2)) for r in (eng.retrieve(q, KB) for q in questions)])
    sizes = {2: sum(p.last - p.first + 1 for _, ps in rets for p in ps)}
    p5 = step(eng, writes, "same retrievals, windows at 5", lambda: [eng.passages(r, 5) for r, _ in rets])
    sizes[5] = sum(p.last - p.first + 1 for ps in p5 for p in ps)
    step(eng, writes, "ask the 50 again at window 5", lambda: [eng.ask(q, KB, window_size=5) for q in questions])
    eng.close()
    eng = Engine(C.edge_settings(home, window_size=5))
    writes = Writes(eng.store)
    res = step(eng, writes, "SWR_WINDOW_SIZE=5, re-index same files", lambda: eng.index_files(KB, paths))
    assert all(r.ok and r.skipped for r in res)
    eng.close()
    return {"rows": rows, "context_sentences": sizes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=4)
    ap.add_argument("--json", default=str(WORK / "last.json"))
    ap.add_argument("--row", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.row:
        C.emit({"stock": stock, "swr": swr}[args.row](args))
        return
    docs = C.squad_docs(args.articles)
    C.write_corpus(CORPUS, docs)
    out = {r: C.child(Path(__file__), ["--row", r, "--articles", str(args.articles)]) for r in ("stock", "swr")}
    rows = out["stock"]["rows"] + out["swr"]["rows"]
    print(f"\n### Window 2 -> 5, {len(docs)} SQuAD articles, all-MiniLM-L6-v2\n")
    print(C.table(rows, ["row", "step", "model calls", "texts embedded", "points written", "records written",
                         "seconds"]))
    cs = out["swr"]["context_sentences"]
    print(f"\nswr context for the 50 questions: {cs['2']:,} sentences at window 2, {cs['5']:,} at window 5 "
          "(merged windows, top_k 3)")
    Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
