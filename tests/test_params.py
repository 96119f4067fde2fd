""""The settings you tested are the settings the chat uses": every backend entry point builds the
same RetrievalParams (and VerifyParams) from one Settings, and the probe, Compare and the chat rank
alike."""
from __future__ import annotations

import inspect

import pytest

from conftest import FakeEmbedder
import swr.cli.main as cli
import swr.verify.verify as vf
from swr import evaluate
from swr.core.params import (
    SWEEP_BUDGETS,
    SWEEP_MODES,
    SWEEP_TOP_KS,
    SWEEP_WINDOWS,
    RetrievalParams,
    VerifyParams,
)
from swr.core.settings import Settings
from swr.engine import Engine
from swr.evaluate import Config, chat_ranking, context_for, probe, probe_params, sweep
from swr.evaluate.questions import Question
from swr.llamaindex import SentenceWindowRetriever
from swr.store.base import SearchRequest

# every retrieval default changed from the built-in one, so an entry point that builds its own
# defaults (instead of starting from the settings) disagrees
ENV = {"SWR_FUSION": "rrf", "SWR_TOP_K": "4", "SWR_WINDOW_SIZE": "2", "SWR_MODE": "dense"}
DOC = ("The kettle is the KX-2000. Fill it to MAX before first use. Boil the water and pour it away. "
       "Repeat two times. Then it is ready. Descale it monthly. Use citric acid. Rinse well.")
Q = "What to do before first use?"


@pytest.fixture
def odd_engine(tmp_path):
    s = Settings.from_env(env=ENV, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    eng = Engine(s, embedder=FakeEmbedder())
    eng.index_files("kb", [("manual.txt", DOC.encode())])
    yield eng
    eng.close()


def _recording(engine) -> list[RetrievalParams]:
    """Record the typed request of every engine.retrieve call."""
    seen: list[RetrievalParams] = []
    real = engine.retrieve

    def retrieve(*args, **kwargs):
        r = real(*args, **kwargs)
        seen.append(r.request)
        return r

    engine.retrieve = retrieve
    return seen


def test_every_entry_point_builds_the_same_params_from_one_settings(odd_engine):
    eng = odd_engine
    chat = eng.default_params()
    assert chat == RetrievalParams.from_settings(eng.settings)
    assert (chat.fusion, chat.top_k, chat.window_size, chat.mode) == ("rrf", 4, 2, "dense")
    assert eng.retrieve(Q, "kb").request == chat.validate()

    # the CLI: ask and eval without flags
    ask = cli._parser().parse_args(["ask", Q, "--kb", "kb"])
    assert cli.ask_params(eng.default_params, ask) == chat
    ev = cli._parser().parse_args(["eval", "set.json", "--kb", "kb"])
    assert cli.eval_params(eng.default_params, ev) == chat
    assert [cli._int_list(ev.windows, "--windows"), cli._int_list(ev.top_k, "--top-k"),
            ev.modes.split(","), cli._int_list(ev.budgets, "--budgets")] == \
        [list(SWEEP_WINDOWS), list(SWEEP_TOP_KS), list(SWEEP_MODES), list(SWEEP_BUDGETS)]

    # evaluate: the sweep's grid defaults, its searches, Compare and the probe
    sig = inspect.signature(sweep).parameters
    assert (sig["windows"].default, sig["top_ks"].default, sig["modes"].default) == \
        (SWEEP_WINDOWS, SWEEP_TOP_KS, SWEEP_MODES)
    assert inspect.signature(evaluate.budget_table).parameters["budgets"].default == SWEEP_BUDGETS
    seen = _recording(eng)
    sweep(eng, "kb", [Question(Q, ["MAX"])], windows=[chat.window_size], top_ks=[chat.top_k], modes=[chat.mode],
          chunk_sizes=[])
    assert seen == [chat]
    seen.clear()
    _, r = context_for(eng, "kb", Q, Config("window", chat.mode, chat.window_size, chat.top_k))
    assert r.request == chat
    assert probe_params(eng, None) == chat and probe_params(eng, {}) == chat
    assert probe(eng, None, Q, "kb", eng.docs("kb")[0].doc_id, 1)["params"] == chat.to_dict()

    # the LlamaIndex retriever
    assert SentenceWindowRetriever(eng, "kb").params == chat

    # verification: the CLI's defaults are the settings' VerifyParams, and verify.py's keyword
    # defaults are VerifyParams' (verify.py takes them as keywords)
    vargs = cli._parser().parse_args(["verify", "a claim", "--kb", "kb"])
    assert cli.verify_params(eng.settings, vargs) == VerifyParams.from_settings(eng.settings)
    assert VerifyParams.from_settings(eng.settings).fusion == "rrf"
    vsig = inspect.signature(vf.verify_many).parameters
    for name in ("candidates", "use_top", "window", "step", "passage_window", "threshold", "top_k", "mode"):
        assert name not in vsig, name  # no defaults of its own: verify_many takes a VerifyParams
    assert vsig["params"].default is None
    assert "max_claims" not in vsig  # the claim limit too is VerifyParams.max_claims

    # a hand-built store request has the same defaults as the params
    req = SearchRequest(kb="kb", dense=None, sparse=None)
    base = RetrievalParams()
    assert (req.mode, req.top_k, req.dense_k, req.sparse_k, req.fusion, req.dense_weight) == \
        (base.mode, base.top_k, base.dense_k, base.sparse_k, base.fusion, base.dense_weight)
    built = SearchRequest.from_params("kb", None, None, chat)
    assert (built.mode, built.top_k, built.fusion) == (chat.mode, chat.top_k, chat.fusion)


def test_cli_flags_change_only_what_they_name(odd_engine):
    a = cli._parser().parse_args(["ask", Q, "--kb", "kb", "--fusion", "dbsf", "--top-k", "2", "--source", "x.txt"])
    assert cli.ask_params(odd_engine.default_params, a) == odd_engine.default_params(fusion="dbsf", top_k=2,
                                                                                     sources=("x.txt",))


def test_probe_compare_and_chat_rank_alike(e5_engine):
    """The chat's hits, the Compare page's passages and the probe's ranks agree (sample KB, real
    e5 and Qdrant Edge, default settings: DBSF fusion)."""
    eng = e5_engine
    assert eng.default_params().fusion == "dbsf"
    for q in ("电热水壶第一次使用前要做什么？", "How do I descale the kettle?"):
        res = eng.ask(q, "sample", llm=False)
        hits = [(p.doc_id, h.i, h.rank) for p in res.passages for h in p.hits]
        shown = len(hits)  # the top k, and the places cross-lingual search adds beside it
        assert shown >= eng.settings.top_k
        p = eng.default_params()
        compare, _ = context_for(eng, "sample", q, Config("window", p.mode, p.window_size, p.top_k))
        assert [(c.doc_id, c.first, c.last, c.text) for c in compare] == \
            [(c.doc_id, c.first, c.last, c.text) for c in res.passages]
        for doc_id, i, rank in hits:
            got = probe(eng, None, q, "sample", doc_id, i)
            assert got["retrieved"] and got["rank"] == rank, (q, doc_id, i, got["reason"])
        # and the probe's rank of the next sentences down is below what the chat shows
        deeper = chat_ranking(eng, q, "sample", p, shown + 3)[shown:]
        for r, h in enumerate(deeper, start=shown + 1):
            got = probe(eng, None, q, "sample", h.sentence.doc_id, h.sentence.i)
            assert not got["retrieved"] and got["rank"] == r and got["cut_by"] == "top_k"
