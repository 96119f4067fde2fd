"""Follow-up questions: the offline fallback, the LLM condense step (scripted server), the bounded
history, `Engine.ask(history=...)` and `ask --history FILE --json`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm import fake_llm  # noqa: F401 - fixture
from swr.answer.condense import METHOD_LLM, METHOD_NONE, METHOD_OFFLINE, condense
from swr.answer.history import bound_history, check_history
from swr.answer.llm import Answerer, LLMConfig
from swr.answer.rewrite_offline import carried_terms, condense_offline, substitute, terms
from swr.core.errors import BadRequest
from swr.core.tokens import count_tokens

ROOT = Path(__file__).resolve().parent.parent
E4 = [{"role": "user", "content": "电饭煲显示E4是什么意思？"},
      {"role": "assistant", "content": "内胆未放入或放置不平 [1]。"}]


def _sim(term, others):
    """A stand-in for the embedder's cosine: shared characters (enough for these pairs)."""
    return [len(set(term) & set(o)) / max(len(set(o)), 1) for o in others]


def test_a_code_replaces_the_code_and_the_subject_stays():
    assert substitute("那E2呢？", E4[0]["content"]) == "电饭煲显示E2是什么意思？"
    assert condense_offline("那E2呢？", E4) == "电饭煲显示E2是什么意思？"
    assert substitute("And E6?", "What does E2 mean on the air fryer?") == "What does E6 mean on the air fryer?"


def test_an_elliptical_word_replaces_its_closest_term():
    prev = "What is the rated power of the air fryer?"
    assert substitute("What about the rated voltage?", prev, _sim) == "What is the rated voltage of the air fryer?"
    # without a similarity there is no way to tell which word X replaces: carry instead
    assert substitute("What about the rated voltage?", prev, None) is None


def test_a_non_elliptical_follow_up_gets_the_subject_appended():
    hist = [{"role": "user", "content": "How do I preheat the air fryer?"}]
    out = condense_offline("How long does it take?", hist)
    assert out.startswith("How long does it take?") and "air fryer" in out and "preheat" in out
    # a term the follow-up has already is not carried twice; a replaced code is not carried
    assert carried_terms("E5 on the kettle?", "What does E1 mean on the kettle?") == []
    assert "E4" not in condense_offline("那E2的处理方法是什么？", E4)


def test_terms_are_content_words_of_either_language():
    assert terms("电饭煲显示E4是什么意思？") == ["电饭煲", "显示", "E4"]
    assert terms("What does E4 mean on the air fryer?") == ["E4", "air fryer"]


def test_a_question_that_names_its_own_subject_is_not_rewritten(fake_llm):  # noqa: F811
    llm = Answerer(LLMConfig(base_url=fake_llm.base_url, model="m"))
    c = condense("What does E6 mean on the KX-2000?", E4, llm=llm)
    assert (c.standalone, c.method) == ("What does E6 mean on the KX-2000?", METHOD_NONE)
    assert fake_llm.requests == [], "no LLM call for a standalone question"
    assert condense("How long does it take?", E4).method == METHOD_OFFLINE  # "it": needs context


def test_no_history_means_no_rewrite():
    c = condense("电饭煲显示E4是什么意思？", [])
    assert (c.standalone, c.method) == ("电饭煲显示E4是什么意思？", METHOD_NONE)
    assert condense("x", [{"role": "assistant", "content": "hello"}]).method == METHOD_NONE


def test_bad_history_is_a_bad_request():
    for bad in ({"role": "user"}, [{"role": "system", "content": "x"}], [{"role": "user", "content": 3}], ["x"]):
        with pytest.raises(BadRequest):
            check_history(bad)


def test_history_is_bounded_by_tokens_most_recent_first():
    long = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "词" * 300}
            for i in range(10)]
    kept = bound_history(long, max_tokens=450, turn_tokens=200)
    assert kept and kept[-1]["content"].startswith("turn 9")
    assert sum(count_tokens(t["content"]) + 4 for t in kept) <= 450
    assert all(count_tokens(t["content"]) <= 201 for t in kept)


def test_llm_condense_uses_the_llm_with_the_bounded_history(fake_llm):  # noqa: F811
    fake_llm.reply = "独立问题：电饭煲显示E2是什么意思？\n（说明：……）"
    llm = Answerer(LLMConfig(base_url=fake_llm.base_url, model="fake-model"))
    c = condense("那E2呢？", E4, llm=llm)
    assert (c.standalone, c.method, c.llm_error) == ("电饭煲显示E2是什么意思？", METHOD_LLM, None)
    body = fake_llm.requests[-1]["body"]
    sent = "\n".join(m["content"] for m in body["messages"])
    assert "电饭煲显示E4是什么意思？" in sent and "那E2呢？" in sent and body["max_tokens"] == 64
    # the offline fallback's question goes along as the draft to correct; no sampling
    assert body["messages"][-1]["content"].endswith("\nDraft: 电饭煲显示E2是什么意思？")
    assert body["temperature"] == 0.0


@pytest.mark.parametrize("mode,reply", [("500", "x"), ("ok", "The rice cooker's E2 means the top sensor."),
                                        ("ok", "   "), ("ok", "电饭煲显示E4是什么意思？"), ("ok", "那E2呢？"),
                                        ("ok", "E2"), ("ok", "内胆未放入或放置不平。"), ("ok", "显示E4是什么意思？")])
def test_llm_failure_or_unusable_output_falls_back_offline(fake_llm, mode, reply):  # noqa: F811
    fake_llm.mode, fake_llm.reply = mode, reply
    llm = Answerer(LLMConfig(base_url=fake_llm.base_url, model="fake-model", timeout_s=5))
    c = condense("那E2呢？", E4, llm=llm)
    assert (c.standalone, c.method) == ("电饭煲显示E2是什么意思？", METHOD_OFFLINE)
    assert c.llm_error


def test_engine_ask_with_history_searches_the_standalone_question(e5_engine):
    res = e5_engine.ask("那E2呢？", "sample", history=E4, top_k=3, window_size=1, llm=False)
    assert res.question == "那E2呢？" and res.standalone_question == "电饭煲显示E2是什么意思？"
    assert res.condense["method"] == METHOD_OFFLINE
    assert any(p.source == "rice_cooker_manual_zh.md" and "顶部传感器开路" in p.text for p in res.passages)
    alone = e5_engine.ask("那E2呢？", "sample", top_k=3, window_size=1, llm=False)
    assert alone.standalone_question == "那E2呢？" and alone.condense == {"method": METHOD_NONE}


def test_cli_ask_history_json(tmp_path, swr_cli):
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps(E4, ensure_ascii=False), encoding="utf-8")
    env = {"SWR_HOME": str(tmp_path / "home"), "SWR_SECRETS": str(tmp_path / "none.toml"), "SWR_LLM_GGUF": "",
           "HF_HUB_OFFLINE": "1"}
    run = lambda *a: swr_cli(*a, env=env, unset=("OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL"), code=None)
    kb = [str(ROOT / "samples" / "kb" / f) for f in ("rice_cooker_manual_zh.md", "kettle_manual_zh.md")]
    assert run("index", *kb, "--kb", "sample", "--json").code == 0
    out = run("ask", "那E2呢？", "--kb", "sample", "--history", str(hist), "--json", "--window-size", "1")
    assert out.code == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["standalone_question"] == "电饭煲显示E2是什么意思？" and d["question"] == "那E2呢？"
    assert any("顶部传感器开路" in p["text"] for p in d["passages"])
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"role\": \"user\"}]", encoding="utf-8")
    out = run("ask", "那E2呢？", "--kb", "sample", "--history", str(bad), "--json")
    assert out.code == 1 and json.loads(out.stdout)["error"]["kind"] == "bad_request"


def test_an_llm_echoing_the_previous_question_is_refused(fake_llm):  # noqa: F811
    hist = [{"role": "user", "content": "What is the rated power of the air fryer?"},
            {"role": "assistant", "content": "1500 W."}]
    fake_llm.reply = "What is the rated power of the air fryer?"  # what the 0.5B model did here
    c = condense("What about its weight?", hist, llm=Answerer(LLMConfig(base_url=fake_llm.base_url, model="m")))
    assert c.method == METHOD_OFFLINE and "weight" in c.standalone and "air fryer" in c.standalone


def test_a_rewrite_sharing_the_subject_with_the_question_and_its_answer_is_kept_and_its_reply_recorded():
    from swr.answer.rewrite_llm import clean_llm_output

    hist = [{"role": "user", "content": "电热水壶的保温时间最长多久？"},
            {"role": "assistant", "content": "保温时间最长为 12 小时，到时自动关闭。"}]
    # the 0.5B's right rewrite, refused before as a "copy" of the answer (保温时间最长 is in both turns)
    assert clean_llm_output("电饭煲的保温时间最长多久？", "电饭煲呢？", hist) == "电饭煲的保温时间最长多久？"
    # a real copy of the answer is still refused
    assert clean_llm_output("保温时间最长为12小时到时自动关闭", "电饭煲呢？", hist) is None


def test_the_llm_reply_is_kept_also_when_refused(fake_llm):  # noqa: F811
    fake_llm.reply = "E2"
    c = condense("那E2呢？", E4, llm=Answerer(LLMConfig(base_url=fake_llm.base_url, model="m", timeout_s=5)))
    assert c.method == METHOD_OFFLINE and c.llm_output == "E2"


def test_the_draft_is_the_offline_question_and_the_examples_carry_theirs():
    from swr.answer.rewrite_llm import condense_messages

    plain = condense_messages("保修多久？", POWER)
    assert not any("Draft:" in m["content"] for m in plain)
    msgs = condense_messages("保修多久？", POWER, draft=condense_offline("保修多久？", POWER))
    assert "draft" in msgs[0]["content"].lower()
    asks = [m["content"] for m in msgs if m["role"] == "user"]
    assert all("\nDraft: " in a for a in asks) and len(asks) == len(plain) // 2
    assert asks[-1].endswith("Draft: 保修多久？ 电热水壶 额定功率")
    # an example's draft is what the offline fallback makes of it: "那P5呢？" -> the P3 question with P5
    assert "Draft: 打印机显示错误代码P5怎么办？" in asks[0]


POWER = [{"role": "user", "content": "电热水壶的额定功率是多少？"}, {"role": "assistant", "content": "额定功率为 1800W。"}]


def test_a_rewrite_may_carry_the_subject_of_an_older_turn_or_a_code_the_answer_named():
    from swr.answer.rewrite_llm import clean_llm_output, context_terms, mentions

    three = [{"role": "user", "content": "吸尘器的滤网多久换一次？"}, {"role": "assistant", "content": "三个月。"},
             {"role": "user", "content": "官方商城有卖吗？"}, {"role": "assistant", "content": "有。"}]
    # the subject is two turns back: refused before (no term of the *last* question carried)
    assert clean_llm_output("吸尘器的滤网怎么拆下来？", "怎么拆下来？", three) == "吸尘器的滤网怎么拆下来？"
    assert context_terms(three) == ["官方", "商城", "吸尘器", "滤网"]  # most recent turn first
    # nothing of the conversation in it: still refused
    assert clean_llm_output("怎么拆下来比较方便？", "怎么拆下来？", three) is None
    hist = [{"role": "user", "content": "How long is the blender warranty?"},
            {"role": "assistant", "content": "The BX-90 is covered for 2 years."}]
    assert clean_llm_output("Does the BX-90 cover the lid?", "Does it cover the lid?", hist) == \
        "Does the BX-90 cover the lid?"
    assert "BX-90" in context_terms(hist) and "covered" not in " ".join(context_terms(hist))
    # an English phrase is carried by any of its words ("keep rice warm" is one term)
    assert mentions("When does the rice cooker switch off?", "rice cooker keep rice warm")
    assert not mentions("When does it switch off?", "rice cooker keep rice warm")
    assert not mentions("电饭煲", "水壶") and mentions("电热水壶怎么样", "水壶")


def test_an_english_term_sharing_a_word_with_the_follow_up_still_carries_its_other_words():
    from swr.answer.rewrite_llm import clean_llm_output

    hist = [{"role": "user", "content": "The blender shows F4 but the jug is on. What now?"},
            {"role": "assistant", "content": "Check that nothing is caught under the jug."}]
    # "blender shows" is one term of the question and "shows" is in the follow-up: "blender" still counts
    assert clean_llm_output("What code does the blender show twice?", "And if it shows another code twice?",
                            hist) == "What code does the blender show twice?"
    assert clean_llm_output("What code does it show twice?", "And if it shows another code twice?", hist) is None
