"""The engine end to end on the real parts: bundled multilingual-e5-small + Qdrant Edge."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, SAMPLES, FakeEmbedder
from swr.core.errors import BadRequest, ModelMismatch, NotFound
from swr.engine import Engine
from swr.evaluate.questions import load_squad

GOLDEN = list(csv.DictReader(open(ROOT / "samples" / "golden.csv", encoding="utf-8")))


def _norm(s: str) -> str:
    return "".join(s.split())


def _context(result) -> str:
    return _norm("".join(p.text for p in result.passages))


def test_sample_question_finds_the_first_use_steps(e5_engine):
    r = e5_engine.ask("电热水壶第一次使用前要做什么？", "sample")
    assert r.answer_kind == "extractive"
    assert "煮沸后倒掉" in _context(r)
    assert r.settings["window_size"] == 3 and r.settings["embed_model"] == "intfloat/multilingual-e5-small"
    for p in r.passages:
        for h in p.hits:
            assert p.text[h.start:h.end] == h.sentence
            assert h.dense_rank is not None or h.sparse_rank is not None


def test_golden_hit_rate_on_the_sample_kb(e5_engine):
    hits = sum(_norm(g["expected_answer"]) in _context(e5_engine.ask(g["question"], "sample")) for g in GOLDEN)
    # a regression floor at the default settings (top_k 3, window 3, hybrid); measured 19/30 here.
    # The set is hard on purpose: three similar manuals with the same error codes, cross-lingual
    # questions, and an FAQ that states several answers in other words than the expected snippet.
    assert hits / len(GOLDEN) >= 0.55, f"hit rate {hits}/{len(GOLDEN)}"


def test_any_window_size_needs_no_embedding_call(e5_engine):
    ret = e5_engine.retrieve("How long is the air fryer warranty?", "sample", top_k=4)
    calls = e5_engine.embedder.calls
    sizes = []
    for w in range(0, 11):
        ps = e5_engine.passages(ret, w)
        sizes.append(sum(p.last - p.first + 1 for p in ps))
        seen = [(p.doc_id, i) for p in ps for i in range(p.first, p.last + 1)]
        assert len(seen) == len(set(seen)), "no sentence twice in the context"
    assert e5_engine.embedder.calls == calls, "changing the window must not embed"
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    with pytest.raises(BadRequest):
        e5_engine.passages(ret, 11)


def test_reindexing_unchanged_files_embeds_nothing(e5_engine):
    calls = e5_engine.embedder.calls
    before = e5_engine.store.count("sample")
    res = e5_engine.index_files("sample", sorted(SAMPLES.iterdir()))
    assert all(r.ok and r.skipped for r in res)
    assert e5_engine.embedder.calls == calls and e5_engine.store.count("sample") == before


def test_squad_article_answers_are_in_the_context(e5_engine):
    docs, qs = load_squad(ROOT / "tests" / "data" / "squad_amazon_rainforest.json")
    name, text = docs[0]
    res = e5_engine.index_files("squad", [(name, text.encode())])
    assert res[0].ok and res[0].sentences > 50
    sample = qs[::6][:25]
    hit = sum(any(_norm(a) in _context(e5_engine.ask(q.question, "squad")) for a in q.answers) for q in sample)
    assert hit / len(sample) >= 0.7, f"{hit}/{len(sample)}"
    # tenants: nothing of the sample KB leaks into the squad KB
    r = e5_engine.ask("电热水壶第一次使用前要做什么？", "squad")
    assert all(p.source == name for p in r.passages)


def test_bad_file_does_not_stop_the_others(fake_engine):
    res = fake_engine.index_files("kb", [("empty.txt", b""), ("bin.txt", b"\x89PNG\r\n\x1a\n\x00\x00\xff" * 50),
                                         ("good.txt", "第一句。第二句。".encode("gbk")), ("x.exe", b"MZ")])
    assert [r.ok for r in res] == [False, False, True, False]
    assert res[0].error["kind"] == "empty" and "empty.txt" in res[0].error["message"]
    assert res[1].error["kind"] == "undecodable" and "bin.txt" in res[1].error["message"]
    assert res[3].error["kind"] == "unsupported_file"
    assert res[2].sentences == 2 and fake_engine.store.count("kb") == 2


def test_changed_file_replaces_its_old_points(fake_engine):
    fake_engine.index_files("kb", [("a.txt", b"One. Two. Three. Four.")])
    assert fake_engine.store.count("kb") == 4
    res = fake_engine.index_files("kb", [("a.txt", b"One. Two.")])
    assert res[0].replaced and fake_engine.store.count("kb") == 2
    docs = fake_engine.docs("kb")
    assert len(docs) == 1 and docs[0].sentences == 2 and docs[0].complete


def test_knowledge_bases_are_isolated_and_deleted_alone(fake_engine):
    same = b"The E4 code means the basket is out. Put it back."
    fake_engine.index_files("a", [("m.txt", same)])
    fake_engine.index_files("b", [("m.txt", same), ("n.txt", b"Other text here.")])
    for mode in ("dense", "sparse", "hybrid"):
        for w in (0, 3, 10):
            r = fake_engine.ask("E4 code", "a", mode=mode, top_k=10, window_size=w)
            assert r.passages and all(p.doc_id in {d.doc_id for d in fake_engine.docs("a")} for p in r.passages)
    assert fake_engine.delete_kb("b") == 3
    assert fake_engine.store.count("a") == 2 and "b" not in [k["kb"] for k in fake_engine.kbs()]
    with pytest.raises(NotFound):
        fake_engine.ask("x", "b")


def test_delete_one_document(fake_engine):
    res = fake_engine.index_files("kb", [("a.txt", b"Alpha one. Alpha two."), ("b.txt", b"Beta one.")])
    assert fake_engine.delete_doc("kb", res[0].doc_id) == 2
    assert [d.source for d in fake_engine.docs("kb")] == ["b.txt"]
    with pytest.raises(NotFound):
        fake_engine.delete_doc("kb", "nope")


def test_questions_are_validated(fake_engine):
    fake_engine.index_files("kb", [("a.txt", b"Alpha one.")])
    with pytest.raises(BadRequest):
        fake_engine.ask("   ", "kb")
    with pytest.raises(BadRequest):
        fake_engine.ask("x" * 50_000, "kb")
    r = fake_engine.ask("?!。", "kb")  # no words at all: still a question (dense search), not an error
    assert [p.text for p in r.passages] == ["Alpha one."] and r.answer_kind == "extractive"


def test_other_model_on_the_same_store_is_a_clear_error(settings):
    eng = Engine(settings, embedder=FakeEmbedder())
    eng.index_files("kb", [("a.txt", b"Alpha one.")])
    eng.close()

    class Other(FakeEmbedder):
        name, dim = "other-model", 32

    with pytest.raises(ModelMismatch) as exc:
        Engine(settings, embedder=Other())
    assert "fake-embedder" in exc.value.message and "SWR_COLLECTION" in exc.value.message


def test_second_process_gets_a_clear_message(fake_engine, settings):
    fake_engine.index_files("kb", [("a.txt", b"Alpha one.")])
    code = textwrap.dedent(f"""
        from swr.store.edge import EdgeStore
        from swr.core.settings import Settings
        from swr.core.errors import StoreLocked
        try:
            EdgeStore(Settings(home={str(settings.home)!r}))
        except StoreLocked as e:
            print("LOCKED", e.message)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("LOCKED") and "QDRANT_URL" in out.stdout, out.stderr
    # the refused process must not have touched the open store (Qdrant Edge 0.9 breaks the
    # holder's sparse storage when a second load fails; our folder lock refuses before that)
    for k in range(3):
        res = fake_engine.index_files("kb", [(f"more{k}.txt", f"Beta {k} one. Beta {k} two.".encode())])
        assert res[0].ok, res[0].error
    assert fake_engine.store.count("kb") == 7


def test_llm_answer_is_streamed_from_the_windows(settings):
    from fake_llm import FakeLLM

    with FakeLLM(reply="Fill it and boil it twice [1].") as server:
        s = settings.with_(llm_base_url=server.base_url, llm_model="fake-model", llm_api_key="sk-test-secret")
        eng = Engine(s, embedder=FakeEmbedder())
        eng.index_files("kb", [("k.txt", "首次使用前，请将水壶装满水，煮沸后倒掉。清洁前请拔下插头。".encode())])
        # a question the fake embedder finds answerable (swr.answer.answerable: an unanswerable one gets
        # no LLM call), worded unlike the sentence it retrieves
        q = "首次使用前，水壶装满水以后要做什么？"
        r = eng.ask(q, "kb")
        eng.close()
    assert r.answerable, r.answerability
    assert r.answer_kind == "llm" and r.answer == "Fill it and boil it twice [1]."
    body = json.dumps(server.requests[-1]["body"], ensure_ascii=False)
    assert "煮沸后倒掉" in body and "[1]" in body and q in body
    assert "sk-test-secret" not in json.dumps(r.to_dict())


def test_llm_down_still_returns_the_evidence(settings):
    s = settings.with_(llm_base_url="http://127.0.0.1:9/v1", llm_model="m", llm_timeout_s=3)
    eng = Engine(s, embedder=FakeEmbedder())
    eng.index_files("kb", [("k.txt", b"Boil twice before first use. Unplug before cleaning.")])
    r = eng.ask("first use?", "kb")
    eng.close()
    assert r.answer_kind == "extractive" and r.llm_error and "127.0.0.1:9" in r.llm_error
    assert r.passages


def test_cli_index_then_ask_json_on_a_squad_article(tmp_path, swr_cli):
    docs, qs = load_squad(ROOT / "tests" / "data" / "squad_amazon_rainforest.json")
    f = tmp_path / docs[0][0]
    f.write_text(docs[0][1], encoding="utf-8")
    env = {"SWR_HOME": str(tmp_path / "home"), "SWR_EMBED_MODEL": "all-MiniLM-L6-v2", "HF_HUB_OFFLINE": "1"}
    run = lambda *a: swr_cli(*a, env=env, unset=("OPENAI_BASE_URL",), code=None)
    out = run("index", str(f), "--kb", "amazon", "--json")
    assert out.code == 0, out.stderr
    idx = json.loads(out.stdout)
    assert idx["indexed"] == 1 and idx["embedding"]["runtime"] == "torch"
    q = qs[0]
    out = run("ask", q.question, "--kb", "amazon", "--json", "--top-k", "3", "--window-size", "2")
    assert out.code == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["answer_kind"] == "extractive" and d["settings"]["top_k"] == 3
    assert any(_norm(a) in _norm(" ".join(p["text"] for p in d["passages"])) for a in q.answers)
    h = d["passages"][0]["hits"][0]
    assert {"sentence", "i", "score", "start", "end", "dense_rank", "sparse_rank"} <= set(h)
    out = run("ask", "x", "--kb", "missing", "--json")
    assert out.code == 1 and json.loads(out.stdout)["error"]["kind"] == "not_found"


def test_sparse_and_hybrid_find_a_model_number_question_at_least_as_high_as_dense(e5_engine):
    """BM25 finds the code: sparse and hybrid put an E6 sentence in the top 3, hybrid no lower than
    dense does. (Whether dense alone misses it depends on the engine: the bf16 one ranked the
    kettle's model-number lines first, the 4-bit one has the E6 table row third.)"""
    q = "What is error E6 on the KX-2000?"
    first = {}
    for mode in ("dense", "sparse", "hybrid"):
        r = e5_engine.retrieve(q, "sample", mode=mode, top_k=3)
        first[mode] = next((h.rank for h in r.hits if "E6" in h.sentence.text), 99)
        assert all(h.sentence.kb == "sample" for h in r.hits)
    assert first["sparse"] <= 3 and first["hybrid"] <= min(3, first["dense"]), first


def test_empty_sample_kb_variable_turns_the_sample_off(tmp_path):
    from swr.core.settings import Settings

    assert Settings.from_env(env={"SWR_SAMPLE_KB": ""}, secrets_path=tmp_path / "x.toml").sample_kb == ""
    assert Settings.from_env(env={}, secrets_path=tmp_path / "x.toml").sample_kb == "sample"
    assert Settings.from_env(env={"SWR_TOP_K": ""}, secrets_path=tmp_path / "x.toml").top_k == 3  # empty: unset


def test_a_known_kb_is_not_listed_per_question_and_a_delete_is_seen_at_once(fake_engine):
    """require_kb remembers a knowledge base it found (no store scroll per question)
    until this process writes to it: a deleted one is refused on the next question."""
    from swr.core.errors import NotFound

    fake_engine.index_files("kb", [("a.txt", "The kettle boils water. It has a filter.".encode())])
    calls = {"n": 0}
    real = fake_engine.store.kbs
    fake_engine.store.kbs = lambda: (calls.__setitem__("n", calls["n"] + 1), real())[1]
    for _ in range(5):
        fake_engine.retrieve("kettle", "kb")
    assert calls["n"] <= 1, calls
    fake_engine.delete_kb("kb")
    with pytest.raises(NotFound):
        fake_engine.retrieve("kettle", "kb")
