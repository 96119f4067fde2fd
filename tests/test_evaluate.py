"""The evaluation engine: metrics, prefix derivation, the chunk baseline, caching, probe, CLI."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, FakeEmbedder
from swr.answer.prompt import context_text
from swr.core.errors import BadRequest, NotFound
from swr.core.tokens import count_tokens
from swr.core.types import Passage
from swr.embed.cache import CachedEmbedder
from swr.engine import Engine
from swr.evaluate import (
    ROW_KEYS,
    Config,
    budget_table,
    context_for,
    format_budgets,
    format_rows,
    judge,
    normalize,
    probe,
    sweep,
)
from swr.evaluate.chunks import chunk_kb_name, ensure_chunks, split_chunks
from swr.evaluate.questions import Question, load_table

S = ["Alpha apples grow in orchards. ", "The harvest happens in October. ", "Bananas need tropical heat. ",
     "Plantations ship them worldwide. ", "Cherries bloom in spring."]
DOC = "".join(S)
QS = [Question("Where do alpha apples grow?", ["October"]),
      Question("Which bananas are there?", ["world wide", "worldwide"], evidence=["Plantations ship them\nworldwide.",
                                                                                  "Not in the text."])]
FRUIT_ARTICLES = {
    "fruit.txt": DOC,
    "rivers.txt": "The Amazon river carries more water than any other river. It flows through Brazil. "
                  "Its basin covers seven million square kilometres. The Nile is longer, some say. "
                  "Sediment from the Andes colours its water brown. Pink dolphins live in it.",
    "volcano.txt": "Mount Etna is an active volcano in Sicily. It erupts several times a year. "
                   "Its height changes with every eruption. Farmers grow pistachios on its slopes. "
                   "Ash from Etna sometimes closes the airport of Catania.",
}


def _index(eng, kb="fruit", docs=None):
    res = eng.index_files(kb, [(n, t.encode()) for n, t in (docs or FRUIT_ARTICLES).items()])
    assert all(r.ok for r in res)
    return res


def _p(text, n=0):
    return Passage(doc_id="d", source="s.txt", first=n, last=n, text=text, hits=[], score=1.0)


def test_judge_metrics_on_a_hand_checked_example():
    ps = [_p("The cat sat.\nOn the mat."), _p("Dogs bark loudly.", 1), _p("Dogs bark again.", 2)]
    o = judge([normalize("Dogs  bark")], [normalize("The cat sat. On the mat."), normalize("Absent.")], ps, 7.0)
    assert o.hit is True and o.rr == 0.5  # first passage holding it is the 2nd
    assert o.evidence == 0.5
    assert o.chars == len("The cat sat.\nOn the mat.") + len("Dogs bark loudly.") + len("Dogs bark again.")
    assert o.tokens == count_tokens(context_text(ps)) and o.ms == 7.0
    miss = judge([normalize("cats")], [], ps)
    assert miss.hit is False and miss.rr == 0.0 and miss.evidence is None
    assert judge([], [normalize("Dogs bark again.")], ps).hit is None
    empty = judge([normalize("x")], [], [])
    assert empty.hit is False and empty.chars == 0 and empty.tokens == 0


def test_sweep_metrics_exact_on_a_tiny_kb(fake_engine):
    _index(fake_engine)
    rows = sweep(fake_engine, "fruit", QS, windows=[0, 1], top_ks=[1], modes=["sparse"], chunk_sizes=[],
                 details=True, window_modes=["fixed"])
    by = {(r.config.window_size, r.config.top_k): r for r in rows}
    assert set(by) == {(0, 1), (1, 1)} and all(r.config.method == "window" for r in rows)
    # sparse top-1: Q1 -> S0 ("alpha apples grow"), Q2 -> S2 ("bananas"); answers sit one sentence later
    w0, w1 = by[(0, 1)], by[(1, 1)]
    assert w0.hit_rate == 0.0 and w0.mrr == 0.0
    assert w1.hit_rate == 1.0 and w1.mrr == 1.0
    assert w0.evidence_recall == 0.0 and w1.evidence_recall == 0.5  # only Q2 has evidence: 1 of 2 found
    assert w0.context_chars == (len(S[0].strip()) + len(S[2].strip())) / 2
    assert w1.context_chars == (len((S[0] + S[1]).strip()) + len((S[1] + S[2] + S[3]).strip())) / 2
    assert w0.questions == 2 and w0.latency_ms > 0
    assert [(o["question"], o["hit"], o["rr"], o["evidence"]) for o in w1.outcomes] == [
        (QS[0].question, True, 1.0, None), (QS[1].question, True, 1.0, 0.5)]
    assert set(w0.to_dict()) == set(ROW_KEYS)
    assert w0.to_dict()["chunk_size"] is None


def test_the_default_sweep_has_section_and_budget_windows(fake_engine):
    # a user comparing windows with chunks sees every window mode, not only fixed windows
    _index(fake_engine)
    rows = sweep(fake_engine, "fruit", QS, windows=[0], top_ks=[1], modes=["sparse"], chunk_sizes=[], budgets=[500])
    assert {r.config.window_mode for r in rows} == {"fixed", "section", "budget"}


def test_a_sweep_of_section_windows_needs_no_window_size(fake_engine):
    # section and budget windows sweep the budgets: no fixed window size is asked for, none is run
    _index(fake_engine)
    rows = sweep(fake_engine, "fruit", QS, windows=[], top_ks=[1, 2], modes=["sparse"], chunk_sizes=[],
                 window_modes=["section"], budgets=[500, 1000])
    assert sorted((r.config.window_mode, r.config.budget_chars, r.config.top_k) for r in rows) == [
        ("section", 500, 1), ("section", 500, 2), ("section", 1000, 1), ("section", 1000, 2)]
    with pytest.raises(BadRequest, match="at least one window size"):
        sweep(fake_engine, "fruit", QS, windows=[], window_modes=["fixed"], chunk_sizes=[])


def test_prefix_derivation_equals_direct_retrieval(fake_engine):
    _index(fake_engine)
    qs = [Question("Which volcano erupts in Sicily?", ["Etna"]), Question("Where do pink dolphins live?", ["Amazon"]),
          Question("When is the apple harvest?", ["October"])]
    ks, ws = [1, 2, 3, 5], [0, 1, 2]
    def key(h):
        return h.sentence.doc_id, h.sentence.i

    for q in qs:
        for mode in ("dense", "sparse", "hybrid"):
            full = fake_engine.retrieve(q.question, "fruit", top_k=max(ks), mode=mode)
            for k in ks:
                direct = fake_engine.retrieve(q.question, "fruit", top_k=k, mode=mode)
                assert [h.score for h in direct.hits] == [h.score for h in full.hits][:k], (mode, k)
                # same hits, up to the order of exactly tied scores (RRF ties are common in hybrid)
                tied = {h.score for h in full.hits if sum(x.score == h.score for x in full.hits) > 1}
                for a, b in zip(direct.hits, full.hits):
                    assert a.score in tied or key(a) == key(b), (mode, k)
    # dense and sparse (no exact ties here): every derived row equals direct retrieval at that k
    rows = sweep(fake_engine, "fruit", qs, windows=ws, top_ks=ks, modes=["dense", "sparse"], chunk_sizes=[],
                 window_modes=["fixed"])
    assert len(rows) == len(ws) * len(ks) * 2
    for r in rows:  # every derived row equals what direct retrieval at that k gives
        c = r.config
        outs = [judge([normalize(a) for a in q.answers], [],
                      fake_engine.passages(fake_engine.retrieve(q.question, "fruit", top_k=c.top_k, mode=c.mode),
                                           c.window_size)) for q in qs]
        assert r.hit_rate == round(sum(o.hit for o in outs) / len(qs), 4), c
        assert r.mrr == round(sum(o.rr for o in outs) / len(qs), 4), c
        assert r.context_chars == round(sum(o.chars for o in outs) / len(qs), 1), c
        assert r.context_tokens == round(sum(o.tokens for o in outs) / len(qs), 1), c


def test_chunk_baseline_is_a_hidden_kb_with_the_same_documents(fake_engine):
    _index(fake_engine)
    calls = fake_engine.embedder.calls
    assert ensure_chunks(fake_engine, "fruit", 16, 4) == "~chunks:fruit:16:4"
    assert fake_engine.embedder.calls == calls + 1, "the chunks of all documents are embedded in one batch"
    rows = sweep(fake_engine, "fruit", QS, windows=[0], top_ks=[1, 2], modes=["hybrid"], chunk_sizes=[16],
                 chunk_overlap=4)
    name = chunk_kb_name("fruit", 16, 4)
    assert name == "~chunks:fruit:16:4"
    assert [k["kb"] for k in fake_engine.kbs()] == ["fruit"]
    hidden = {k["kb"]: k for k in fake_engine.kbs(hidden=True)}
    assert name in hidden and hidden[name]["documents"] == 3 and hidden[name]["sentences"] > 3
    # every chunk is a verbatim slice of its document, at its recorded offsets; chunks cover it
    for d in fake_engine.docs("fruit"):
        text = "".join(s.text for s in fake_engine.doc_sentences("fruit", d.doc_id))
        chunks = fake_engine.store.scroll_doc(name, d.doc_id)
        assert chunks and all(c.n == len(chunks) for c in chunks) and [c.i for c in chunks] == list(range(len(chunks)))
        for c in chunks:
            assert text[c.start:c.end] == c.text
        assert normalize("".join(c.text for c in chunks)).count(normalize(text)[:20]) >= 1
    chunk_rows = [r for r in rows if r.config.method == "chunks"]
    assert [(r.config.chunk_size, r.config.top_k, r.config.window_size) for r in chunk_rows] == [(16, 1, None),
                                                                                              (16, 2, None)]
    d = chunk_rows[0].to_dict()
    assert d["method"] == "chunks" and d["chunk_size"] == 16 and d["window_size"] is None
    # one configuration for one question (the Compare page): the chunk's own text, no window
    ps, r = context_for(fake_engine, "fruit", "Which volcano erupts in Sicily?", Config("chunks", "dense", None, 2, 16, 4))
    assert r.kb == name and len(ps) == 2 and [p.text for p in ps] == [h.sentence.text.strip() for h in r.hits]
    ps, r = context_for(fake_engine, "fruit", "Which volcano erupts in Sicily?", Config("window", "dense", 1, 2))
    assert r.kb == "fruit" and ps == fake_engine.passages(r, 1)
    # the chunk KB works with the ordinary retrieve, and a chunk hit's context is the chunk itself
    r = fake_engine.retrieve("Which volcano erupts in Sicily?", name, top_k=2)
    assert r.hits and all(h.sentence.kb == name for h in r.hits)
    # documents that leave the KB leave the baseline too
    fake_engine.delete_doc("fruit", fake_engine.docs("fruit")[0].doc_id)
    sweep(fake_engine, "fruit", QS, windows=[0], top_ks=[1], modes=["hybrid"], chunk_sizes=[16], chunk_overlap=4)
    assert {k["kb"]: k for k in fake_engine.kbs(hidden=True)}[name]["documents"] == 2


def test_split_chunks_offsets_and_sizes():
    text = ("Sentence number one is here. " * 40) + "\n\n" + "亚马逊雨林是世界上最大的热带雨林。" * 30
    pieces = split_chunks(text, 64, 8)
    assert len(pieces) > 3
    for a, b, body in pieces:
        assert text[a:b] == body and count_tokens(body) <= 64
    with pytest.raises(ValueError):
        split_chunks(text, 64, 64)


def test_second_sweep_makes_no_embedding_call(settings):
    eng = Engine(settings, embedder=CachedEmbedder(FakeEmbedder(), settings.cache_path))
    try:
        _index(eng)
        args = dict(windows=[0, 1, 2], top_ks=[1, 3], modes=["dense", "hybrid", "sparse"], chunk_sizes=[16, 32],
                    chunk_overlap=4)
        first = sweep(eng, "fruit", QS, **args)
        calls = eng.embedder.calls
        assert calls > 0
        second = sweep(eng, "fruit", QS, **args)
        assert eng.embedder.calls == calls, "a second sweep must not embed"
        strip = lambda rows: [{k: v for k, v in r.to_dict().items() if k != "latency_ms"} for r in rows]  # noqa: E731
        assert strip(first) == strip(second)
    finally:
        eng.close()
    # a new process on the same home: the chunk KBs are reused; passages and questions come from
    # the disk cache, so nothing at all is embedded
    eng = Engine(settings, embedder=CachedEmbedder(FakeEmbedder(), settings.cache_path))
    try:
        sweep(eng, "fruit", QS, **args)
        assert eng.embedder.encoded == 0, "a second process on the same home embeds nothing"
    finally:
        eng.close()


def test_budget_table_picks_the_best_under_each_budget(fake_engine):
    _index(fake_engine)
    rows = sweep(fake_engine, "fruit", QS, windows=[0, 1, 3], top_ks=[1, 3], modes=["sparse"], chunk_sizes=[32])
    table = budget_table(rows, budgets=(50, 100, 10_000))
    assert [(b["budget"], b["method"]) for b in table] == [(50, "window"), (50, "chunks"), (100, "window"),
                                                          (100, "chunks"), (10_000, "window"), (10_000, "chunks")]
    for b in table:
        fit = [r for r in rows if r.config.method == b["method"] and r.context_chars < b["budget"]]
        if not fit:
            assert b["hit_rate"] is None
            continue
        assert b["hit_rate"] == max(r.hit_rate for r in fit) and b["context_chars"] < b["budget"]
    assert "nothing fits" in format_budgets(budget_table(rows, budgets=(1,)))
    assert budget_table([r.to_dict() for r in rows], budgets=(100,)) == budget_table(rows, budgets=(100,))
    assert format_rows(rows).count("\n") == len(rows) + 1


def test_sweep_refuses_bad_input(fake_engine):
    with pytest.raises(NotFound):
        sweep(fake_engine, "nope", QS)
    _index(fake_engine)
    with pytest.raises(BadRequest):
        sweep(fake_engine, "fruit", QS, windows=[11])
    with pytest.raises(BadRequest):
        sweep(fake_engine, "fruit", [Question("no answer at all")])
    with pytest.raises(BadRequest):
        sweep(fake_engine, "fruit", QS, chunk_sizes=[32], chunk_overlap=32)


def test_probe_says_which_limit_cut_a_sentence(fake_engine):
    _index(fake_engine)
    fruit = next(d for d in fake_engine.docs("fruit") if d.source == "fruit.txt")
    q = "Where do alpha apples grow?"
    got = probe(fake_engine, {"mode": "sparse", "top_k": 1}, q, "fruit", fruit.doc_id, 0)
    assert got["retrieved"] and got["cut_by"] is None and got["rank"] == 1 and got["sparse_rank"] == 1
    assert got["dense_score"] is not None and got["shared_terms"] >= 2
    # the answer sentence shares no term with the question: BM25 cannot find it
    got = probe(fake_engine, {"mode": "sparse", "top_k": 3}, q, "fruit", fruit.doc_id, 1)
    assert got["cut_by"] == "no_shared_terms" and got["sparse_rank"] is None and got["sparse_score"] == 0.0
    # dense ranks every sentence: cut by top_k, with its rank and the score it had to beat
    got = probe(fake_engine, {"mode": "dense", "top_k": 1}, q, "fruit", fruit.doc_id, 4)
    assert got["cut_by"] == "top_k" and got["dense_rank"] > 1 and got["rank"] == got["dense_rank"]
    assert got["dense_score"] <= got["cutoff_score"]
    # hybrid with tiny candidate lists: not among the candidates at all
    full = fake_engine.retrieve(q, "fruit", top_k=20, mode="dense")
    last = full.hits[-1].sentence
    got = probe(fake_engine, {"mode": "hybrid", "top_k": 1, "dense_k": 1, "sparse_k": 1}, q, "fruit",
                last.doc_id, last.i)
    assert got["cut_by"] == "candidates" and not got["in_dense_candidates"] and "dense_k 1" in got["reason"]
    # a source filter that excludes its document
    got = probe(fake_engine, {"mode": "sparse", "top_k": 1, "sources": ["rivers.txt"]}, q, "fruit", fruit.doc_id, 0)
    assert got["cut_by"] == "filter" and got["rank"] == 1 and "fruit.txt" in got["reason"]
    assert probe(fake_engine, {}, q, "fruit", fruit.doc_id, 99)["cut_by"] == "missing"


def test_load_table_questions_run_in_a_sweep(fake_engine, tmp_path):
    _index(fake_engine)
    p = tmp_path / "golden.csv"
    p.write_text("question,expected_answer,evidence\nWhere do alpha apples grow?,October|orchards,\n", encoding="utf-8")
    rows = sweep(fake_engine, "fruit", load_table(p), windows=[0], top_ks=[1], modes=["sparse"], chunk_sizes=[])
    assert rows[0].hit_rate == 1.0 and rows[0].evidence_recall is None  # "orchards" is in S0 itself
    assert Config().label().startswith("window")


def test_cli_eval_json_on_squad(tmp_path, swr_cli):
    env = {"SWR_EMBED_MODEL": "all-MiniLM-L6-v2", "HF_HUB_OFFLINE": "1", "SWR_HOME": str(tmp_path),
           "SWR_SECRETS": str(tmp_path / "none.toml")}
    args = ["eval", str(ROOT / "tests" / "data" / "squad_amazon_rainforest.json"),
            "--format", "squad", "--kb", "amazon", "--max-questions", "10", "--windows", "0,2", "--top-k", "1,3",
            "--chunk-sizes", "128", "--chunk-overlap", "16"]
    p = swr_cli(*args, "--json", env=env, unset=("QDRANT_URL",), code=None)
    assert p.code == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)
    assert out["questions"] == 10 and out["documents"] == 1
    # fixed windows x top_ks + (section, budget) x budgets x top_ks + chunk sizes x top_ks: eval sweeps
    # every window mode by default
    assert len(out["rows"]) == 2 * 2 + 2 * 3 * 2 + 2
    for r in out["rows"]:
        assert set(r) == set(ROW_KEYS)
        assert 0 <= r["hit_rate"] <= 1 and 0 <= r["mrr"] <= r["hit_rate"] and r["context_chars"] > 0
    assert {r["method"] for r in out["rows"]} == {"window", "chunks"}
    assert {b["budget"] for b in out["budgets"]} == {500, 1000, 2000}
    w2k3 = next(r for r in out["rows"] if r["method"] == "window" and r["window_size"] == 2 and r["top_k"] == 3)
    w0k1 = next(r for r in out["rows"] if r["method"] == "window" and r["window_size"] == 0 and r["top_k"] == 1)
    assert w2k3["hit_rate"] >= w0k1["hit_rate"] and w2k3["context_chars"] > w0k1["context_chars"]
    # again, readable: the article is unchanged (skipped), the table and the budget table print
    p = swr_cli(*args, env=env, unset=("QDRANT_URL",), code=None)
    assert p.code == 0, p.stderr[-3000:]
    assert "| method |" in p.stdout and "budget" in p.stdout


def test_a_cross_lingual_ranking_is_searched_at_each_top_k(fake_engine, monkeypatch):
    """A cross-lingual fusion over several languages places sentences by the top k it fills (own_kept,
    agreed_kept): its top 1 is not the first hit of its top 2. The sweep then searches each top_k as
    the chat would; a plain ranking stays one search per question, its prefixes derived."""
    from dataclasses import replace

    _index(fake_engine)
    calls, inner = [], fake_engine.retrieve

    def retrieve(question, kb, params=None, **changes):
        calls.append(changes.get("top_k", params.top_k if params else None))
        r = inner(question, kb, params, **changes)
        return replace(r, prefix_exact=exact)
    monkeypatch.setattr(fake_engine, "retrieve", retrieve)
    exact = True
    sweep(fake_engine, "fruit", QS[:1], windows=[0], top_ks=[1, 2], modes=["sparse"], chunk_sizes=[], budgets=[])
    assert calls == [2]
    calls.clear()
    exact = False
    sweep(fake_engine, "fruit", QS[:1], windows=[0], top_ks=[1, 2], modes=["sparse"], chunk_sizes=[], budgets=[])
    assert calls == [2, 1]
