"""Section and budget windows (swr/retrieve/expand.py): pure tests on stored-like sentences, the engine on a
real Qdrant Edge store, and the kettle question on the real e5 engine."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from conftest import SAMPLES
from swr.core.errors import ReindexNeeded
from swr.core.types import Hit, Sentence
from swr.retrieve import expand
from swr.text.split import split_spans
from swr.text.structure import annotate

KETTLE = (SAMPLES / "kettle_manual_zh.md").read_text(encoding="utf-8")


def _sentences(text: str, doc_id: str = "d", structure: bool = True) -> list[Sentence]:
    spans = split_spans(text)
    sents = [Sentence(kb="kb", doc_id=doc_id, source=f"{doc_id}.md", i=i, n=len(spans), start=a, end=b,
                      text=text[a:b]) for i, (a, b) in enumerate(spans)]
    return annotate(sents, text, spans) if structure else sents


def _fetcher(sents, calls=None):
    by = {(s.doc_id, s.i): s for s in sents}

    def fetch(keys):
        if calls is not None:
            calls.append(list(keys))
        return {k: by[k] for k in keys if k in by}
    return fetch


def _at(sents, prefix):
    return next(s for s in sents if s.text.startswith(prefix))


def test_section_window_is_the_whole_list_of_steps():
    sents = _sentences(KETTLE)
    hit = Hit(sentence=_at(sents, "5. 电热水壶第一次使用前"), score=1.0, rank=1)
    calls = []
    [p] = expand.build([hit], "section", window_size=3, budget_chars=1200, fetch=_fetcher(sents, calls))
    assert p.text.startswith("1. 撕掉壶身") and p.text.endswith("晾干约 10 分钟。")
    assert (p.window_mode, p.stop_before, p.stop_after) == ("section", "block_end", "block_end")
    assert len(calls) == 1  # one store call


def test_section_window_of_a_heading_stops_at_the_next_heading():
    sents = _sentences(KETTLE)
    hit = Hit(sentence=_at(sents, "### 4.2 中途停止"), score=1.0, rank=1)
    [p] = expand.build([hit], "section", window_size=3, budget_chars=1200, fetch=_fetcher(sents))
    assert p.text.startswith("### 4.2") and p.text.endswith("需要重新按电源键。") and p.stop_after == "heading"


def test_section_window_of_a_chapter_stops_at_its_first_subsection():
    sents = _sentences(KETTLE)
    hit = Hit(sentence=_at(sents, "## 4. "), score=1.0, rank=1)
    [p] = expand.build([hit], "section", window_size=3, budget_chars=1200, fetch=_fetcher(sents))
    assert p.text.startswith("## 4.") and "4.1" not in p.text and p.stop_after == "heading"


def test_section_window_within_the_budget_stops_for_the_budget():
    sents = _sentences(KETTLE)
    hit = Hit(sentence=_at(sents, "5. 电热水壶第一次使用前"), score=1.0, rank=1)
    [p] = expand.build([hit], "section", window_size=3, budget_chars=120, fetch=_fetcher(sents))
    assert "5. 电热水壶" in p.text and len(p.text) <= 120 and "budget" in (p.stop_before, p.stop_after)


def test_section_on_documents_indexed_without_structure_says_reindex():
    sents = _sentences(KETTLE, structure=False)
    hit = Hit(sentence=sents[79], score=1.0, rank=1)
    with pytest.raises(ReindexNeeded) as e:
        expand.build([hit], "section", window_size=3, budget_chars=1200, fetch=_fetcher(sents))
    assert "re-index to use section windows" in e.value.message and "d.md" in e.value.message
    # fixed and budget windows still work on them
    assert expand.build([hit], "fixed", window_size=1, budget_chars=1200, fetch=_fetcher(sents))


def test_a_block_larger_than_the_budget_is_cut_around_the_hit_the_following_side_first():
    # an answer goes on after the sentence that matched the question: growing to the block's
    # beginning first (as before) left the following sentences out at small budgets
    text = "".join(f"Step detail number {i} here.\n" for i in range(10))
    sents = _sentences(text)
    per = len(sents[5].text)
    hit = Hit(sentence=sents[5], score=1.0, rank=1)
    [p] = expand.build([hit], "section", window_size=0, budget_chars=3 * per + 2, fetch=_fetcher(sents))
    assert (p.first, p.last) == (4, 6) and p.stop_before == p.stop_after == "budget"
    [p] = expand.build([hit], "section", window_size=0, budget_chars=2 * per + 2, fetch=_fetcher(sents))
    assert (p.first, p.last) == (5, 6)


def test_budget_window_takes_the_hits_whole_block_first():
    # a three-line paragraph holds the answer; the next paragraph's lines are closer to the
    # question, but the block comes whole first when it fits
    text = "Intro line before.\n\nFirst line of the answer.\nSecond line of the answer.\nThird line of it.\n\n" \
        + "".join(f"Unrelated line {i} here.\n" for i in range(6))
    sents = _sentences(text)
    first = _at(sents, "First line")
    q = np.array([1.0, 0.0], dtype=np.float32)

    def vectors(keys):  # the lines after the paragraph are the most similar to the question
        return {(d, i): np.array([0.9, 0.44], dtype=np.float32) if sents[i].text.startswith("Unrelated")
                else np.array([0.1, 0.99], dtype=np.float32) for d, i in keys}

    hit = Hit(sentence=first, score=1.0, rank=1)
    block = sum(len(s.text) for s in sents if "answer" in s.text or s.text.startswith("Third"))
    [p] = expand.build([hit], "budget", window_size=0, budget_chars=block + 5, fetch=_fetcher(sents),
                       fetch_vectors=vectors, query=q)
    assert "First line" in p.text and "Second line" in p.text and "Third line" in p.text
    assert "Unrelated" not in p.text


def test_budget_window_grows_toward_the_most_similar_neighbours():
    text = "".join(f"Sentence number {i} here.\n" for i in range(12))
    sents = _sentences(text)
    sim = {6: 0.9, 7: 0.8, 8: 0.95, 4: 0.1, 3: 0.2}
    q = np.array([1.0, 0.0], dtype=np.float32)

    def vectors(keys):
        out = {}
        for d, i in keys:
            c = sim.get(i, 0.0)
            out[(d, i)] = np.array([c, np.sqrt(1 - c * c)], dtype=np.float32)
        return out

    hit = Hit(sentence=sents[5], score=1.0, rank=1)
    per = len(sents[5].text)
    [p] = expand.build([hit], "budget", window_size=0, budget_chars=4 * per, fetch=_fetcher(sents),
                       fetch_vectors=vectors, query=q)
    assert (p.first, p.last) == (5, 8)  # 6, then 7 (0.8 beats 4's 0.1), then 8: asymmetric
    assert (p.window_mode, p.stop_before, p.stop_after) == ("budget", "budget", "budget")


@st.composite
def budget_cases(draw):
    n = draw(st.integers(1, 40))
    text = "".join("w" * draw(st.integers(1, 30)) + ".\n" for _ in range(n))
    sents = _sentences(text)
    picks = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5, unique=True))
    hits = [Hit(sentence=sents[i], score=1.0 / r, rank=r) for r, i in enumerate(picks, 1)]
    budget = draw(st.integers(50, 600))
    mode = draw(st.sampled_from(["section", "budget"]))
    seed = draw(st.integers(0, 1000))
    return text, sents, hits, budget, mode, seed


@hsettings(max_examples=200, deadline=None)
@given(budget_cases())
def test_windows_stay_within_the_budget_and_match_the_document(case):
    text, sents, hits, budget, mode, seed = case
    rng = np.random.default_rng(seed)
    vecs = {(s.doc_id, s.i): rng.normal(size=4).astype(np.float32) for s in sents}
    ps = expand.build(hits, mode, window_size=0, budget_chars=budget, fetch=_fetcher(sents),
                      fetch_vectors=lambda keys: {k: vecs[k] for k in keys if k in vecs},
                      query=rng.normal(size=4).astype(np.float32))
    if len(hits[0].sentence.text) <= budget:
        assert sum(len(p.text) for p in ps) <= budget
    seen = set()
    for p in ps:
        assert p.text == text[sents[p.first].start:sents[p.last].end].strip()
        assert p.hits and all(p.first <= h.i <= p.last for h in p.hits)
        assert not seen & set(range(p.first, p.last + 1))  # no sentence twice
        seen |= set(range(p.first, p.last + 1))
        assert p.window_mode == mode and p.stop_before and p.stop_after
        assert (p.stop_before == "doc_edge") == (p.first == 0)
    assert hits[0].sentence.i in seen  # the first hit always stays


def test_engine_budget_windows_use_stored_vectors_and_never_embed(fake_engine):
    eng = fake_engine
    eng.index_files("kb", [SAMPLES / "kettle_manual_zh.md"])
    r = eng.retrieve("电热水壶第一次使用前要做什么？", "kb", top_k=2)
    calls = eng.embedder.calls
    ps = eng.passages(r, window_mode="budget", budget_chars=400)
    assert eng.embedder.calls == calls
    assert ps and sum(len(p.text) for p in ps) <= 400 and all(p.window_mode == "budget" for p in ps)
    assert eng.store.fetch_vectors("kb", [(r.hits[0].sentence.doc_id, r.hits[0].sentence.i)])


def test_engine_section_on_an_old_collection_says_reindex(fake_engine):
    eng = fake_engine
    eng.index_files("kb", [SAMPLES / "kettle_manual_zh.md"])
    doc = eng.docs("kb")[0].doc_id
    old = eng.store.scroll_doc("kb", doc)
    for s in old:  # as written before structure was stored
        s.block = s.block_kind = s.block_first = s.block_last = s.heading = None
        s.heading_level = s.section = s.section_last = None
    eng.store.upsert(old, eng.embedder.encode_passages([s.text for s in old]),
                     eng.sparse.encode_documents([s.text for s in old]))
    with pytest.raises(ReindexNeeded):
        eng.ask("电热水壶第一次使用前要做什么？", "kb", window_mode="section", llm=False)
    assert eng.ask("电热水壶第一次使用前要做什么？", "kb", window_mode="fixed", llm=False).passages


def test_settings_choose_the_default_window_mode(settings):
    from swr.core.params import RetrievalParams
    from swr.core.settings import Settings

    s = Settings.from_env(env={"SWR_WINDOW_MODE": "budget", "SWR_WINDOW_BUDGET": "700"},
                          secrets_path=settings.home / "none.toml")
    p = RetrievalParams.from_settings(s)
    assert (p.window_mode, p.budget_chars) == ("budget", 700)
    from swr.core.errors import BadRequest

    with pytest.raises(BadRequest):
        p.with_(window_mode="sideways").validate()


def test_kettle_question_in_section_mode_returns_the_whole_first_use_list(e5_engine):
    res = e5_engine.ask("电热水壶第一次使用前要做什么？", "sample", window_mode="section", llm=False)
    d = res.to_dict()
    assert d["settings"]["window_mode"] == "section"
    kettle = [p for p in res.passages if p.source == "kettle_manual_zh.md"]
    steps = ["1. 撕掉壶身", "2. 检查壶身", "3. 用湿布擦拭", "4. 确认防垢滤网", "5. 电热水壶第一次使用前",
             "6. 最后一次倒水后"]
    [first_use] = [p for p in kettle if "5. 电热水壶第一次使用前" in p.text]
    assert all(s in first_use.text for s in steps)
    assert first_use.window_mode == "section" and first_use.stop_before and first_use.stop_after
    for p in kettle:  # nothing from the next section ("4. 操作步骤") in any window
        assert "操作步骤" not in p.text and "将水壶从底座上取下" not in p.text
    assert {"window_mode", "stop_before", "stop_after"} <= set(d["passages"][0])


def test_eval_sweeps_the_window_modes_at_their_budgets(fake_engine):
    from swr.evaluate import budget_table, format_rows, sweep
    from swr.evaluate.questions import Question

    eng = fake_engine
    eng.index_files("kb", [SAMPLES / "kettle_manual_zh.md"])
    qs = [Question("电热水壶第一次使用前要做什么？", ["晾干约 10 分钟"]), Question("E4 是什么故障？", ["底座接触不良"])]
    rows = sweep(eng, "kb", qs, windows=(0, 1), top_ks=(1, 3), chunk_sizes=(), window_modes=("fixed", "section",
                 "budget"), budgets=(300, 600))
    shapes = {(r.config.window_mode, r.config.budget_chars, r.config.top_k) for r in rows}
    assert ("section", 300, 1) in shapes and ("budget", 600, 3) in shapes and ("fixed", None, 3) in shapes
    for r in rows:
        if r.config.window_mode in ("section", "budget"):
            assert r.context_chars <= r.config.budget_chars
    table = budget_table(rows, (300, 600))
    assert all("window_mode" in e for e in table)
    assert "budget 600" in format_rows(rows)
