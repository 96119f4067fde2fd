"""The LLM timeout: a stream that stalls mid-answer ends with a typed error after the timeout
(what was shown kept, marked incomplete), and ``SWR_LLM_TIMEOUT`` reaches the engine's answerer."""
from __future__ import annotations

import time

from conftest import FakeEmbedder
from fake_llm import fake_llm  # noqa: F401  (the fixture)
from swr.answer.llm import Answerer, LLMConfig
from swr.core.errors import LLMUnavailable
from swr.core.settings import Settings
from swr.core.types import Passage, PassageHit
from swr.engine import Engine

PASSAGE = Passage(doc_id="d", source="manual.txt", first=0, last=1,
                  text="Hold the reset button for 10 s. The light turns red.",
                  hits=[PassageHit(i=0, sentence="Hold the reset button for 10 s. ", score=0.9, start=0, end=32)],
                  score=0.9)


def test_a_stream_that_stalls_mid_answer_times_out(fake_llm):  # noqa: F811
    fake_llm.mode, fake_llm.cut_after, fake_llm.slow_s = "stall", 3, 30
    fake_llm.reply = "Hold the reset button for ten seconds, then wait [1]."
    shown: list[str] = []
    t0 = time.monotonic()
    try:
        for delta in Answerer(LLMConfig(base_url=fake_llm.base_url, model="fake-model", timeout_s=2)).stream(
                "How do I reset it?", [PASSAGE]):
            shown.append(delta)
        raise AssertionError("the stalled stream ended without an error")
    except LLMUnavailable as exc:
        err = exc
    seconds = time.monotonic() - t0
    assert "".join(shown) == "Hold the res"  # three chunks of four characters arrived
    assert "timed out after 2 s while streaming" in err.message and "incomplete" in err.message
    assert err.partial_text == "Hold the res"
    assert 1.5 < seconds < 25, seconds  # the timeout (on a busy machine), not the 30 s stall


def test_swr_llm_timeout_reaches_the_engine(fake_llm, tmp_path):  # noqa: F811
    env = {"OPENAI_BASE_URL": fake_llm.base_url, "SWR_LLM_MODEL": "fake-model", "SWR_LLM_TIMEOUT": "1.5"}
    settings = Settings.from_env(env=env, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    eng = Engine(settings, embedder=FakeEmbedder())
    try:
        eng.index_files("kb", [("a.txt", b"Hold the reset button for 10 s. The light turns red.")])
        fake_llm.mode, fake_llm.slow_s = "slow", 30
        t0 = time.monotonic()
        r = eng.ask("How do I reset it?", "kb")
        seconds = time.monotonic() - t0
    finally:
        eng.close()
    assert r.answer_kind == "extractive" and "timed out after 1.5 s" in r.llm_error
    assert seconds < 25, seconds  # 1.5 s (on a busy machine), not the 30 s of the stall
    assert fake_llm.requests  # the configured server was asked
