"""The answer stage against a real local OpenAI-compatible server (tests/fake_llm.py)."""
from __future__ import annotations

import logging
import re
import socket
import time

import pytest

import swr.answer.llm as answer_mod
from swr.answer.extractive import extractive_answer
from swr.answer.llm import (
    KIND_EXTRACTIVE,
    KIND_LLM,
    Answerer,
    LLMConfig,
    build_prompt,
    fit_passages,
)
from swr.answer.prompt import SYSTEM_PROMPT, context_text
from swr.core.errors import LLMUnavailable
from swr.core.tokens import count_tokens, heuristic_tokens
from swr.core.types import Passage, PassageHit

try:  # works with or without a tests/__init__.py
    from tests.fake_llm import FakeLLM, fake_llm, free_port  # noqa: F401
except ImportError:  # pragma: no cover
    from fake_llm import FakeLLM, fake_llm, free_port  # noqa: F401

KEY = "sk-secret-123"


def _passage(source: str, sentences: list[str], hit_idx: list[int], first: int = 0,
             score: float = 0.5, pages: list[int] | None = None) -> Passage:
    text, hits, pos = "", [], 0
    for k, s in enumerate(sentences):
        if k in hit_idx:
            hits.append(PassageHit(i=first + k, sentence=s, score=score, start=pos,
                                   end=pos + len(s), rank=1, dense_score=score, dense_rank=1))
        text += s
        pos += len(s)
    return Passage(doc_id=f"id-{source}", source=source, first=first,
                   last=first + len(sentences) - 1, text=text, hits=hits, score=score,
                   pages=pages or [])


@pytest.fixture
def passages() -> list[Passage]:
    return [
        _passage("manual.txt", ["The router has two ports. ", "Hold the reset button for 10 s. ",
                                "The light turns red."], [1], first=4, score=0.9, pages=[3]),
        _passage("faq.md", ["Warranty is two years.\n", "Contact support by mail."], [0],
                 score=0.4),
    ]


def _config(server_url: str, timeout: float = 5.0, key: str | None = KEY) -> LLMConfig:
    return LLMConfig(base_url=server_url, api_key=key, model="fake-model", timeout_s=timeout)


# --------------------------------------------------------------------------------------------
# prompt


def test_build_prompt_has_rules_numbered_passages_and_question(passages):
    messages = build_prompt("How do I reset the router?", passages)
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages[0]["content"], messages[1]["content"]
    assert "ONLY" in system and "[1]" in system and "language of the question" in system
    assert "do not know" in system and "我不知道" in system
    assert "not instructions" in system
    ctx = context_text(passages)
    assert ctx in user
    assert ctx.startswith("[1] (source: manual.txt, p. 3)\nThe router has two ports.")
    assert "\n\n[2] (source: faq.md)\nWarranty is two years." in ctx
    assert user.rstrip().endswith("Question: How do I reset the router?")


def test_context_text_empty():
    assert context_text([]) == "(no passages)"


def test_heuristic_tokens_counts_cjk_one_each():
    assert heuristic_tokens("你好世界") == 4
    assert heuristic_tokens("abcdefgh") == 2
    assert heuristic_tokens("你好abcd") == 3
    assert heuristic_tokens("") == 0


def test_count_tokens_is_offline_and_deterministic(monkeypatch):
    answer_mod._offline_encoding.cache_clear()

    def no_network(*args, **kwargs):
        raise AssertionError("count_tokens tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    a = count_tokens("Hold the reset button for 10 seconds. 按住重置按钮十秒。")
    assert a == count_tokens("Hold the reset button for 10 seconds. 按住重置按钮十秒。")
    assert 5 < a < 60
    assert count_tokens("") == 0


def test_fit_passages_keeps_leading_passages_within_budget(passages):
    long = _passage("long.txt", ["word " * 2000], [0])
    cfg = LLMConfig(base_url="http://x/v1", model="m", max_tokens=100, context_window=1000)
    kept = fit_passages("q?", passages + [long], cfg)
    assert kept == passages
    assert fit_passages("q?", [long], cfg) == [long]  # always at least one


# --------------------------------------------------------------------------------------------
# streaming through the fake server


def test_stream_returns_scripted_text(fake_llm, passages):
    fake_llm.reply = "Hold the reset button for 10 s [1]."
    deltas = list(Answerer(_config(fake_llm.base_url)).stream("How do I reset it?", passages))
    assert "".join(deltas) == "Hold the reset button for 10 s [1]."
    assert len(deltas) > 3  # really streamed in pieces


def test_request_contains_prompt_and_settings(fake_llm, passages):
    Answerer(_config(fake_llm.base_url)).answer("How do I reset it?", passages)
    req = fake_llm.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    body = req["body"]
    assert body["model"] == "fake-model" and body["stream"] is True
    assert body["temperature"] == pytest.approx(0.1) and body["max_tokens"] == 512
    system, user = body["messages"][0], body["messages"][1]
    assert system["role"] == "system" and system["content"] == SYSTEM_PROMPT
    assert "[1] (source: manual.txt, p. 3)" in user["content"]
    assert "[2] (source: faq.md)" in user["content"]
    assert "Hold the reset button for 10 s." in user["content"]
    assert user["content"].endswith("Question: How do I reset it?")
    assert req["headers"]["Authorization"] == f"Bearer {KEY}"  # the key is used, never shown


def test_reply_can_depend_on_request(fake_llm, passages):
    fake_llm.reply = lambda body: f"{len(body['messages'])} messages"
    assert Answerer(_config(fake_llm.base_url)).answer("q", passages) == "2 messages"


def test_missing_key_sends_placeholder(fake_llm, passages):
    Answerer(_config(fake_llm.base_url, key=None)).answer("q", passages)
    assert fake_llm.requests[-1]["headers"]["Authorization"] == "Bearer sk-none"


def test_changed_config_is_picked_up(fake_llm, passages):
    answerer = Answerer(_config(fake_llm.base_url))
    fake_llm.reply = "first"
    assert answerer.answer("q", passages) == "first"
    with FakeLLM(reply="second") as other:
        answerer.config.base_url = other.base_url
        assert answerer.answer("q", passages) == "second"
        assert len(other.requests) == 1


def test_no_passages_does_not_call_the_llm(fake_llm):
    out = Answerer(_config(fake_llm.base_url)).answer("How?", [])
    assert "Nothing relevant" in out
    assert Answerer(_config(fake_llm.base_url)).answer("怎么办？", []) == "在此知识库中没有找到相关内容。"
    assert fake_llm.requests == []


def test_kind_and_unconfigured(passages):
    assert Answerer(None).kind == KIND_EXTRACTIVE == "extractive"
    assert Answerer(LLMConfig(base_url="", model="m")).kind == KIND_EXTRACTIVE
    assert Answerer(LLMConfig(base_url="http://x/v1", model="")).configured is False
    assert Answerer(LLMConfig(base_url="http://x/v1", model="m")).kind == KIND_LLM == "llm"
    with pytest.raises(LLMUnavailable, match="No LLM is configured"):
        Answerer(None).stream("q", passages)


# --------------------------------------------------------------------------------------------
# failures


def _fail(server: FakeLLM, mode: str, passages, timeout: float = 5.0):
    """Run the stream in ``mode``; return (error, deltas shown, seconds)."""
    server.mode = mode
    server.reply = "Hold the reset button for ten seconds, then wait [1]."
    shown: list[str] = []
    t0 = time.monotonic()
    with pytest.raises(LLMUnavailable) as info:
        for delta in Answerer(_config(server.base_url, timeout=timeout)).stream("q?", passages):
            shown.append(delta)
    return info.value, shown, time.monotonic() - t0


@pytest.mark.parametrize("mode, expected", [
    ("401", "refused the API key (401)"),
    ("429", "rate limited (429)"),
    ("500", "server error (500)"),
    ("malformed", "malformed response"),
])
def test_error_modes_raise_llm_unavailable(fake_llm, passages, mode, expected):
    err, shown, seconds = _fail(fake_llm, mode, passages)
    assert expected in err.message
    assert err.message.startswith(f"The LLM at {fake_llm.base_url} ")
    assert err.kind == "llm_unavailable"
    assert shown == [] and seconds < 5
    assert KEY not in err.message and KEY not in str(err) and KEY not in repr(err)
    assert len(fake_llm.requests) == 1  # no retries


def test_slow_server_times_out_within_the_timeout(fake_llm, passages):
    err, shown, seconds = _fail(fake_llm, "slow", passages, timeout=2)
    assert "timed out after 2 s" in err.message
    assert 1.5 < seconds < 4
    assert shown == []


def test_cut_stream_raises_after_partial_answer(fake_llm, passages):
    err, shown, seconds = _fail(fake_llm, "cut", passages)
    assert shown, "some deltas should have been shown before the cut"
    assert err.partial_text == "".join(shown)
    assert "middle of the answer (connection closed)" in err.message
    assert err.message.endswith("The answer shown so far is incomplete.")
    assert seconds < 5


def test_stream_ending_without_finish_is_an_error(fake_llm, passages):
    err, shown, _ = _fail(fake_llm, "truncated", passages)
    assert shown and "ended early" in err.message


def test_connection_refused_on_unused_port(passages):
    url = f"http://127.0.0.1:{free_port()}/v1"
    t0 = time.monotonic()
    with pytest.raises(LLMUnavailable) as info:
        Answerer(_config(url, timeout=3)).answer("q?", passages)
    assert info.value.message.startswith(f"The LLM at {url} could not be reached")
    assert "connection refused" in info.value.message
    assert time.monotonic() - t0 < 3


def test_invalid_base_url_is_reported(passages):
    with pytest.raises(LLMUnavailable, match="must start with http"):
        Answerer(_config("127.0.0.1:8000/v1")).stream("q?", passages)


def test_messages_end_with_single_period(fake_llm, passages):
    err, _, _ = _fail(fake_llm, "500", passages)
    assert err.message.endswith("(fake).") and not err.message.endswith("..")


def test_credentials_in_base_url_are_masked(passages):
    url = f"http://bob:hunter2pass@127.0.0.1:{free_port()}/v1?api-key=qwertyuiop"
    with pytest.raises(LLMUnavailable) as info:
        Answerer(_config(url, timeout=3)).answer("q?", passages)
    msg = info.value.message
    assert "hunter2pass" not in msg and "qwertyuiop" not in msg and "bob" not in msg
    assert "127.0.0.1" in msg


# --------------------------------------------------------------------------------------------
# the key never leaks


def test_key_not_in_config_or_answerer_repr():
    cfg = LLMConfig(base_url="http://127.0.0.1:1/v1", api_key=KEY, model="m")
    for text in (repr(cfg), str(cfg), f"{cfg}", repr(Answerer(cfg)), str(Answerer(cfg)),
                 str(cfg.safe_dict())):
        assert KEY not in text
    assert "***" in repr(cfg)


@pytest.mark.parametrize("mode", ["ok", "401", "429", "500", "cut", "malformed"])
def test_key_not_in_messages_or_logs(fake_llm, passages, caplog, mode):
    caplog.set_level(logging.DEBUG)  # every logger, llama-index/openai/httpx included
    fake_llm.mode = mode
    answerer = Answerer(_config(fake_llm.base_url))
    try:
        answerer.answer("How do I reset it?", passages)
        message = ""
    except LLMUnavailable as err:
        message = err.message
        assert err.__cause__ is None and err.__context__ is None
        assert KEY not in repr(err.to_dict())
    assert KEY not in message
    assert KEY not in caplog.text
    assert all(KEY not in str(r.args) for r in caplog.records)
    if mode != "ok":
        assert any(r.name == "swr.answer.llm" and r.levelno == logging.WARNING for r in caplog.records)
    assert fake_llm.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"


# --------------------------------------------------------------------------------------------
# extractive answer


def test_extractive_answer_marks_hit_and_is_labelled(passages):
    out = extractive_answer("How do I reset the router?", passages)
    assert out.startswith("Extractive answer (no LLM configured)")
    assert "[1] manual.txt" in out
    assert "【Hold the reset button for 10 s.】" in out
    assert "The router has two ports." in out and "Warranty" not in out


def test_extractive_answer_picks_best_scored_passage(passages):
    out = extractive_answer("warranty?", list(reversed(passages)))
    assert "[2] manual.txt" in out  # best passage is second in this order


def test_extractive_answer_chinese_label():
    p = _passage("说明书.txt", ["路由器有两个接口。", "按住重置按钮十秒。", "指示灯变红。"], [1])
    out = extractive_answer("怎么重置路由器？", [p])
    assert out.startswith("摘录式回答（未配置大语言模型）")
    assert "【按住重置按钮十秒。】" in out
    assert "路由器有两个接口。" in out


def test_extractive_answer_empty():
    assert extractive_answer("How?", []) == "Nothing relevant was found in this knowledge base."
    assert extractive_answer("怎么办？", []) == "在此知识库中没有找到相关内容。"


# --------------------------------------------------------------------------------------------
# the fake server itself


def test_fake_server_completions_and_models(fake_llm):
    import json
    import urllib.request

    def post(path: str, body: dict) -> bytes:
        req = urllib.request.Request(fake_llm.base_url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.read()

    fake_llm.reply = "plain text"
    out = json.loads(post("/completions", {"model": "fake-model", "prompt": "hi"}))
    assert out["choices"][0]["text"] == "plain text"
    sse = post("/completions", {"model": "fake-model", "prompt": "hi", "stream": True}).decode()
    assert sse.rstrip().endswith("data: [DONE]") and '"text": "plai"' in sse
    assert fake_llm.requests[0]["body"]["prompt"] == "hi"
    with urllib.request.urlopen(fake_llm.base_url + "/models", timeout=5) as resp:
        assert json.loads(resp.read())["data"][0]["id"] == "fake-model"


# -- the per-sentence answer check in the engine, the chat, the evidence card (issue #13 §3) ----------
def test_engine_check_keeps_each_sentence_and_rejects_a_wrong_number(e5_engine):
    from swr.manage import render

    eng, kb = e5_engine, e5_engine.settings.sample_kb
    r = eng.ask("电热水壶整机保修多久？", kb, llm=False)
    r.answer, r.answer_kind = "电热水壶整机保修三年[1]。", KIND_LLM
    ck = eng.check(r)
    assert ck is r.check and r.to_dict()["check"] == ck and "check_ms" in r.timings
    s = ck["sentences"][0]
    assert ck["status"] == "rejected" and ck["support"] == 0.0 and ck["flagged"] == 1
    assert not s["supported"] and s["verdict"] == "contradicted" and "三年" in " ".join(s["reasons"])
    assert s["bad_citations"] == [1]
    page = render.checked_answer_html(r.answer, ck, len(r.passages), anchor="a7-")
    assert 'class="swr-chk bad"' in page and 'href="#a7-check-1"' in page and 'id="a7-check-1"' in page
    assert '<span class="swr-cite-bad"' in page and " open>" in page  # flagged: its row opens by itself
    card = render.evidence_card_html(r.question, r.answer, r.answer_kind, r.passages, {}, r.created_at, check=ck)
    assert 'class="swr-rejected"' in card and "Rejected by the check" in card and 'id="check-1"' in card

    r.answer = "电热水壶整机保修一年。"
    ck = eng.check(r)
    assert ck["status"] == "supported" and ck["support"] == 1.0
    n = ck["sentences"][0]["passage"]
    assert n and "一年" in ck["sentences"][0]["window"] and "一年" in r.passages[n - 1].text
    page = render.checked_answer_html(r.answer, ck, len(r.passages), anchor="a7-")
    assert 'class="swr-chk ok"' in page and f'href="#a7-passage-{n}"' in page and " open>" not in page


def test_an_extractive_answer_is_checked_without_its_label(e5_engine):
    eng, kb = e5_engine, e5_engine.settings.sample_kb
    r = eng.ask("电热水壶第一次使用前要做什么？", kb, llm=False)
    ck = eng.check(r)
    assert r.answer_kind == KIND_EXTRACTIVE and ck["sentences"]
    assert not any("摘录式回答" in s["text"] for s in ck["sentences"])
    assert ck["status"] == "supported", [s for s in ck["sentences"] if not s["supported"]]
    off = eng.ask("Who won the 2018 football world cup?", kb, llm=False)
    assert off.answerable is False and eng.check(off) is None and off.check is None


def test_an_extractive_answer_is_checked_on_its_marked_hits(e5_engine):
    """The passage around the hit is quoted context: "E1 means overheating." beside the marked
    "E2 means fan fault." is no answer to E2's question and must not reject the answer."""
    from swr.verify.check import checkable

    label = "Extractive answer (no LLM configured): the most relevant passage, from [1] a.md:"
    body = "E1 means overheating.\n【E2 means fan fault.】 The motor stops.\n【E3 means open.】"
    assert checkable(f"{label}\n\n{body}", KIND_EXTRACTIVE) == "E2 means fan fault.\nE3 means open."
    assert checkable(f"{label}\n\nNo marks here.", KIND_EXTRACTIVE) == "No marks here."
    assert checkable(f"x\n\n{body}", "llm") == f"x\n\n{body}"  # a model's answer: all of it
    eng, kb = e5_engine, e5_engine.settings.sample_kb
    r = eng.ask("空气炸锅显示E2是什么意思？", kb, llm=False)
    ck = eng.check(r)
    marked = "".join(re.findall(r"【([^】]+)】", r.answer))
    assert r.answer_kind == KIND_EXTRACTIVE and "E2" in marked and "fan fault" in marked.lower(), r.answer
    assert ck["sentences"] and all(s["text"] in marked for s in ck["sentences"]), ck["sentences"]
    assert ck["status"] == "supported", [s for s in ck["sentences"] if not s["supported"]]


def test_checked_answer_html_escapes_everything():
    from swr.manage import render

    evil = "<img src=x onerror=alert(1)> [click](javascript:alert(2))"
    ck = {"sentences": [{"text": evil + "。", "statement": evil, "supported": False, "verdict": "not found",
                         "score": 0.5, "passage": 1, "window": "<script>alert(3)</script>",
                         "reasons": ["<b>x</b>"], "citations": [], "bad_citations": []}],
          "support": 0.0, "status": "rejected"}
    page = render.checked_answer_html(evil + "。", ck, 1, anchor="a1-") + render.rejected_html(ck)
    assert "<img" not in page and "<script" not in page and "<b>x" not in page and "](javascript" not in page
    with pytest.raises(ValueError):
        render.checked_answer_html("x。", ck, 1, anchor='"><script>')


@pytest.fixture
def app_engine(tmp_path, monkeypatch):
    """The chat page's own cached engine in a fresh SWR_HOME (no secrets, LLM or Qdrant server)."""
    from swr.app import base as ui

    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL", "SWR_EMBED_MODEL",
              "SWR_WINDOW_SIZE", "SWR_TOP_K", "SWR_MODE", "SWR_SAMPLE_KB", "SWR_LLM_GGUF"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("SWR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SWR_SECRETS", str(tmp_path / "none.toml"))
    ui.get_engine.clear()
    yield ui.get_engine()
    ui.get_engine().close()
    ui.get_engine.clear()


def test_chat_marks_each_sentence_and_shows_a_rejected_answer_prominently(app_engine, fake_llm):  # noqa: F811
    import html as html_mod
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from swr.app.components.answer import evidence_card

    app_engine.answerer = Answerer(LLMConfig(base_url=fake_llm.base_url, api_key="sk-test", model="fake-model",
                                             timeout_s=30))
    app_engine.settings = app_engine.settings.with_(llm_model="fake-model")
    fake_llm.reply = "电热水壶整机保修三年[1]。发热盘保修两年。"
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=300)
    at.run()
    at.chat_input[0].set_value("电热水壶整机保修多久？").run()
    assert not at.exception, at.exception
    body = "\n".join(h.value for h in at.html)
    result = at.session_state["history"][0]["result"]
    assert result.answer_kind == KIND_LLM and result.check and result.check["status"] == "rejected"
    first, second = result.check["sentences"]
    assert not first["supported"] and "三年" in " ".join(first["reasons"]) and second["supported"]
    assert body.index('class="swr-rejected"') < body.index('class="swr-answer swr-checked"'), "said first"
    assert 'class="swr-chk bad"' in body and 'class="swr-chk ok"' in body
    assert 'href="#a1-check-1"' in body and 'id="a1-check-2"' in body
    assert "三年" in html_mod.unescape(body.split('id="a1-check-1"')[1].split("</details>")[0])
    assert not at.error  # a rejected answer is not an app error
    assert 'class="swr-rejected"' in evidence_card(result)


def test_a_code_joined_to_the_next_codes_meaning_is_not_supported(e5_engine):
    """What the 0.5B wrote in the browser test: E2's label with E1's meaning, both in one window."""
    eng, kb = e5_engine, e5_engine.settings.sample_kb
    r = eng.ask("电饭煲显示E2是什么意思？", kb, llm=False)
    for answer, ok in (("E2 顶部传感器短路：顶部温度信号异常偏高时显示 E1。", False),
                       ("E2 顶部传感器开路：上盖温度信号丢失时显示 E2。", True), ("E2 表示顶部传感器开路。", True)):
        r.answer, r.answer_kind = answer, KIND_LLM
        assert eng.check(r)["sentences"][0]["supported"] is ok, (answer, r.check["sentences"][0])


def test_another_products_manual_never_contradicts_an_answer_about_the_product_asked(e5_engine):
    """The question names the air fryer in Chinese; its manual is English, so only the search's
    aliases know "空气炸锅" is that manual. The rice cooker's "E0 ... E1 ..." lines used to
    contradict a right Chinese answer ("code: the claim says E2, the window says E0"), rejecting
    it; they are another product's facts. A wrong answer is still contradicted by the air fryer's
    own lines."""
    from swr.retrieve.subjects import for_kb
    from swr.verify.check import check_answer, question_subjects

    eng, kb = e5_engine, e5_engine.settings.sample_kb
    q = "空气炸锅显示E2是什么意思？"
    r = eng.ask(q, kb, llm=False)
    # the other products' Chinese E-code tables rank after the air fryer's lines now; a pasted answer
    # may still be checked beside them (here: the Chinese manuals' own passages for the question)
    r.passages = r.passages + eng.ask(q, kb, llm=False, lang="zh").passages
    assert {p.source for p in r.passages} >= {"air_fryer_manual_en.md", "rice_cooker_manual_zh.md"}
    index = for_kb(eng, kb)
    asked = question_subjects(eng, kb, q, index)
    assert [n for s in index.subjects.values() if s.key in asked for n in s.names] == ["air_fryer_manual_en.md"]
    checked = check_answer(eng, q, "E2 表示风扇故障，电机达不到正常转速。", r.passages, kb=kb)
    right = checked.sentences[0]
    assert right.verdict != "contradicted", right
    assert not any("E0" in why or "E1" in why for why in right.reasons), right.reasons
    # its evidence is English: not confirmed (the check compares numbers across languages, not
    # wording), never "rejected" for a right answer
    assert right.other_language and checked.status == "unconfirmed", (right, checked.status)
    wrong = check_answer(eng, q, "E2 means overheating.", r.passages, kb=kb).sentences[0]
    assert wrong.verdict == "contradicted" and "E1" in wrong.reasons[0], wrong
    assert wrong.passage and r.passages[wrong.passage - 1].source == "air_fryer_manual_en.md"


def test_across_languages_an_answers_own_number_is_its_evidence(e5_engine):
    """A Chinese question about the English air fryer manual, answered "4.2 L": no word can match
    across the languages, but the answer's number can. The window stating it supports (it was "not
    found", rejecting a right answer); one stating another value contradicts. The question's own
    numbers and codes are no evidence: any window about E2 holds "E2"."""
    from swr.verify.check import check_answer

    eng, kb = e5_engine, e5_engine.settings.sample_kb
    q = "空气炸锅的容量是多少？"
    r = eng.ask(q, kb, llm=False)
    right = check_answer(eng, q, "4.2 L", r.passages, kb=kb).sentences[0]
    assert right.supported and "4.2" in right.window and "other language" in right.reasons[0], right
    wrong = check_answer(eng, q, "4.5 L", r.passages, kb=kb).sentences[0]
    assert wrong.verdict == "contradicted" and "4.5" in wrong.reasons[0], wrong
    q = "空气炸锅显示E2是什么意思？"
    r = eng.ask(q, kb, llm=False)
    other = check_answer(eng, q, "E2表示顶部传感器开路。", r.passages, kb=kb).sentences[0]  # the rice cooker's E2
    assert not other.supported, other


def test_a_sentence_in_the_other_language_is_checked_through_the_llms_translation(e5_engine, fake_llm):
    """With an LLM (an LLM answer's check always has one), a sentence whose evidence is in the
    other language is translated into it by that LLM and checked there: the right Chinese E2 answer
    from the English manual is supported, a wrong one contradicted; a translation that changes a
    code is no translation (the sentence stays "not confirmed")."""
    from swr.verify.check import check_answer

    eng, kb = e5_engine, e5_engine.settings.sample_kb
    q = "空气炸锅显示E2是什么意思？"
    r = eng.ask(q, kb, llm=False)
    english = {"E2 表示风扇故障，电机达不到正常转速。": "E2 means fan fault. The motor does not reach its normal speed.",
               # a short sentence is checked as the statement it makes about the question
               "E2表示过热。": "On the air fryer, E2 means overheating.", "E2 表示风扇坏了。": "E1 means the fan is broken."}

    def reply(body):
        asked = body["messages"][-1]["content"].split("\n", 1)[1]
        return next((en for zh, en in english.items() if asked.endswith(zh)), "?")

    fake_llm.reply = reply
    saved, eng.answerer = eng.answerer, Answerer(_config(fake_llm.base_url))
    try:
        right = check_answer(eng, q, "E2 表示风扇故障，电机达不到正常转速。", r.passages, kb=kb)
        wrong = check_answer(eng, q, "E2表示过热。", r.passages, kb=kb)
        changed = check_answer(eng, q, "E2 表示风扇坏了。", r.passages, kb=kb)
    finally:
        eng.answerer = saved
    s = right.sentences[0]
    assert right.status == "supported" and s.translation and "through its translation" in s.reasons[0], s
    assert "Translate into English" in fake_llm.requests[0]["body"]["messages"][-1]["content"]
    assert wrong.status == "rejected" and wrong.sentences[0].verdict == "contradicted", wrong.sentences[0]
    assert changed.sentences[0].translation is None and changed.sentences[0].other_language, changed.sentences[0]


def test_an_other_language_sentence_is_picked_by_the_translations_words(e5_engine):
    """"How long is the kettle warranty?" over the Chinese kettle manual: no English word is in a
    Chinese sentence, so the keep-warm line (a hit, with its 12 小时) was quoted; read with the
    search's translation's words, a warranty line (保修) is (the Chinese manual alone: the English FAQ
    answers it in English)."""
    r = e5_engine.ask("How long is the kettle warranty?", e5_engine.settings.sample_kb, llm=False,
                      sources=["kettle_manual_zh.md"])
    assert r.extract and "保修" in r.extract["sentence"] and "保温" not in r.extract["sentence"], r.extract
