"""swr inside ordinary LlamaIndex query pipelines."""
from __future__ import annotations

from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode

from swr.ingest.load import load_bytes
from swr.ingest.nodes import build_nodes
from swr.llamaindex import MergingWindowPostprocessor, SentenceWindowRetriever

TEXT = ("The kettle is the KX-2000. Fill it to MAX before first use. Boil the water and pour it away. "
        "Repeat two times. Then it is ready. Descale it monthly. Use citric acid. Rinse well.")


def test_nodes_embed_the_sentence_alone():
    doc = load_bytes("manual.txt", TEXT.encode())
    nodes = build_nodes(doc, "kb", window_size=2)
    assert len(nodes) == 8
    n = nodes[3]
    assert n.get_content(metadata_mode=MetadataMode.EMBED).strip() == "Repeat two times."
    assert n.get_content(metadata_mode=MetadataMode.LLM).strip() == "Repeat two times."
    assert "Boil the water" in n.metadata["window"] and n.metadata["original_text"] == n.text
    assert n.node_id == build_nodes(doc, "kb")[3].node_id, "ids are stable"
    assert "".join(x.text for x in nodes) == TEXT


def test_retriever_in_a_query_engine(fake_engine):
    fake_engine.index_files("kb", [("manual.txt", TEXT.encode())])
    qe = RetrieverQueryEngine.from_args(SentenceWindowRetriever(fake_engine, "kb", window_size=1, top_k=2),
                                        llm=MockLLM())
    resp = qe.query("What to do before first use?")
    assert resp.source_nodes
    for nws in resp.source_nodes:
        assert nws.node.text in TEXT and nws.node.metadata["hits"]


def test_postprocessor_merges_windows_in_a_stock_pipeline(fake_engine):
    fake_engine.index_files("kb", [("manual.txt", TEXT.encode())])
    doc = load_bytes("manual.txt", TEXT.encode())
    nodes = build_nodes(doc, "kb")
    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=8))
    qe = index.as_query_engine(similarity_top_k=4, llm=MockLLM(),
                               node_postprocessors=[MergingWindowPostprocessor(fake_engine.store, window_size=2)])
    resp = qe.query("first use")
    texts = [n.node.text for n in resp.source_nodes]
    assert texts and all(t in TEXT for t in texts)
    spans = sorted((n.node.metadata["first"], n.node.metadata["last"]) for n in resp.source_nodes)
    for (a1, b1), (a2, b2) in zip(spans, spans[1:]):
        assert a2 > b1 + 1, "windows that overlap or touch are merged"
    assert sum(len(n.node.metadata["hits"]) for n in resp.source_nodes) == 4


def test_postprocessor_takes_the_window_mode(fake_engine):
    from conftest import SAMPLES

    path = SAMPLES / "kettle_manual_zh.md"
    fake_engine.index_files("kb", [path])
    doc = load_bytes(path.name, path.read_bytes())
    nodes = build_nodes(doc, "kb")
    step5 = next(n for n in nodes if n.text.startswith("5. 电热水壶第一次使用前"))
    from llama_index.core.schema import NodeWithScore, QueryBundle

    pp = MergingWindowPostprocessor(fake_engine.store, window_mode="section")
    [out] = pp.postprocess_nodes([NodeWithScore(node=step5, score=1.0)], QueryBundle("第一次使用前"))
    assert out.node.text.startswith("1. 撕掉壶身") and out.node.text.endswith("晾干约 10 分钟。")
    assert out.node.metadata["window_mode"] == "section" and out.node.metadata["stop_after"] == "block_end"
    bp = MergingWindowPostprocessor(fake_engine.store, window_mode="budget", budget_chars=200,
                                    embedder=fake_engine.embedder)
    [out] = bp.postprocess_nodes([NodeWithScore(node=step5, score=1.0)], QueryBundle("第一次使用前"))
    assert len(out.node.text) <= 200 and out.node.metadata["window_mode"] == "budget"
