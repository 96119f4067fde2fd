"""The embedded LLM (swr/answer/llm_local.py): typed errors for bad model files, and the real 0.5B model
answering and condensing through xllamacpp's OpenAI-compatible server.

The real-model tests need models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf, which
``scripts/setup.sh --test`` installs: they skip without it on a developer's machine and FAIL under
CI (``CI`` set), where a missing model is a broken setup, not a reason to skip.
"""
from __future__ import annotations

import os

import pytest

from swr.answer.condense import METHOD_LLM, condense
from swr.answer.llm import Answerer, LLMConfig
from swr.answer.llm_local import check_file, server_for
from swr.core.errors import LocalModelError
from swr.core.lang import has_cjk
from swr.core.settings import SMALL_GGUF
from swr.engine import Engine


def _need_model():
    if SMALL_GGUF.is_file():
        return
    msg = f"{SMALL_GGUF} is missing: run scripts/setup.sh --test"
    if os.environ.get("CI"):
        pytest.fail(msg + " (CI must run the real-model tests)")
    pytest.skip(msg)


@pytest.fixture(scope="module")
def local():
    _need_model()
    # temperature 0: the same answer every run; 1 thread as in the app's default
    return Answerer(LLMConfig(gguf=str(SMALL_GGUF), threads=1, temperature=0.0, max_tokens=128,
                              context_window=4096, timeout_s=300))


@pytest.mark.parametrize("content,words", [(None, "does not exist"), (b"not a model at all", "not a GGUF"),
                                           (b"GGUF" + b"\0" * 100, "truncated")])
def test_bad_model_files_raise_a_typed_error_naming_the_file(tmp_path, content, words):
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LocalModelError) as err:
        check_file(str(path))
    assert words in err.value.message and str(path) in err.value.message


def test_a_corrupt_model_falls_back_to_extractive_and_shows_in_health(settings, tmp_path):
    from conftest import FakeEmbedder

    bad = tmp_path / "corrupt.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(2 << 20))  # the signature, then garbage llama.cpp rejects
    eng = Engine(settings.with_(llm_gguf=str(bad)), embedder=FakeEmbedder())
    try:
        eng.index_files("kb", [("a.txt", "The kettle boils water. It has a blue light.".encode())])
        assert eng.answerer.configured and eng.answerer.model_name == "corrupt"
        assert eng.answerer.config.timeout_s == 180  # a busy CPU needs more than the remote 60 s
        res = eng.ask("What does the kettle do?", "kb")
        assert res.answer_kind == "extractive" and "corrupt.gguf" in res.llm_error
        health = eng.system_info()["llm"]
        assert health["local"] and health["local_server"]["status"] == "error"
        # the failure is remembered: the next question does not try to load the file again
        assert server_for(str(bad), 1, 4096)._error is not None  # noqa: SLF001 - test of the module
    finally:
        eng.close()


def test_real_model_streams_a_written_answer_from_the_passages(local, e5_engine):
    q = "电热水壶第一次使用前要做什么？"
    passages = e5_engine.passages(e5_engine.retrieve(q, "sample", top_k=3), 1)
    deltas = list(local.stream(q, passages))
    answer = "".join(deltas)
    assert len(deltas) > 3, "streamed in pieces"
    assert has_cjk(answer) and ("煮沸" in answer or "MAX" in answer), answer
    health = local.health()["local_server"]
    assert health["loaded"] and health["status"] == "ok" and health["threads"] == 1


def test_real_model_condenses_a_follow_up(local):
    history = [{"role": "user", "content": "电饭煲显示E4是什么意思？"},
               {"role": "assistant", "content": "内胆未放入或放置不平 [1]。"}]
    c = condense("那E2呢？", history, llm=local)
    assert c.method == METHOD_LLM, c.llm_error
    assert "E2" in c.standalone and "电饭煲" in c.standalone and "E4" not in c.standalone, c.standalone


def test_real_model_given_the_offline_draft_keeps_the_subject(local):
    # before the draft, the 0.5B echoed "How long does it take?" (refused); with the draft its
    # rewrite is used and names the subject (bench/followups.py, dev set)
    history = [{"role": "user", "content": "How do I preheat the air fryer?"},
               {"role": "assistant", "content": "Insert the empty drawer and hold Start/Pause for 2 seconds."}]
    c = condense("How long does it take?", history, llm=local)
    assert c.method == METHOD_LLM, (c.llm_error, c.llm_output)
    assert "air fryer" in c.standalone and "preheat" in c.standalone.lower(), c.standalone


def test_system_panel_line_shows_the_local_model_and_its_health():
    from swr.app.components.llm_status import llm_status_line

    line = llm_status_line({"configured": True, "local": True, "local_server": {
        "model": "m", "threads": 1, "status": "error", "load_s": None, "error": "The file x is not a GGUF"}})
    assert line.startswith("m (local, 1 thread(s)): error") and "not a GGUF" in line
    assert "setup.sh --local-llm" in llm_status_line({"configured": False})
