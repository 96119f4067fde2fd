"""Verdicts that hold, answerability, and the per-sentence answer check.

The examples are the issue's, on the bundled sample manuals, with the real engine (bundled
multilingual-e5-small + Qdrant Edge, the session's ``e5_engine``); the text rules of
swr.text.claims and swr.retrieve.subjects are also tested alone.
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from swr.answer.substantive import substantive_text
from swr.core.rules.answerable import E5
from swr.retrieve import subjects as sj
from swr.text import claims as cl
from swr.verify.check import answer_sentences, check_answer, statement

ROOT = Path(__file__).resolve().parent.parent


# -- text rules ---------------------------------------------------------------------------------
def test_numbers_with_units_in_both_languages():
    def q(text):
        return [(x.value, x.unit) for x in cl.quantities(text)]

    assert q("covered by a 2-year limited warranty") == [(2, "year")]
    assert q("covered for five years") == [(5, "year")]
    assert q("发热盘保修两年。") == [(2, "year")] and q("三个月") == [(3, "month")] and q("二十四小时") == [(24, "h")]
    assert q("额定功率2200W") == [(2200, "w")] and q("Drawer capacity: 4.2 L") == [(4.2, "l")]
    assert q("15-20 min") == [(15, "min"), (20, "min")]
    assert q("E4 on the KX-2000") == []  # codes are not numbers
    assert q("这十分重要，请一下") == []  # a Chinese numeral needs a unit
    two_years, months = cl.quantities("2 years")[0], cl.quantities("24 months")[0]
    assert two_years.same(months) and not two_years.same(cl.quantities("3 years")[0])
    assert cl.quantities("两年")[0].same(two_years)


def test_codes_negation_and_terms():
    assert cl.codes("KX-2000 shows E4; AF-360") == ["KX2000", "E4", "AF360"]
    assert cl.codes("220V 1500 W 4.2 L") == []
    assert cl.negated("请勿使用钢丝球") and cl.negated("The KX-2000 is not dishwasher safe")
    assert not cl.negated("可以用钢丝球") and not cl.negated("不粘涂层")  # non-stick is no negation
    assert cl.content_terms("AF-360 is covered for five years") == ["covered"]


def test_subjects_from_names_titles_and_codes():
    ix = sj.build([("k", "kettle_manual_zh.md", ["晨川 KX-2000 智能控温电热水壶 使用说明书"]),
                   ("r", "rice_cooker_manual_zh.md", ["晨川 RC-550 微电脑电饭煲 使用说明书"]),
                   ("g", "rice_cooker_quick_guide_en.txt", ["MORNINGBROOK RC-550 MICROCOMPUTER RICE COOKER"]),
                   ("f", "faq_en.md", ["Small Appliances — FAQ", "KX-2000 is the kettle. RC-550 is the rice cooker."])])
    kettle, rice = ix.doc_subject["k"], ix.doc_subject["r"]
    assert ix.doc_subject["g"] == rice  # one product: they share the RC-550 code
    assert ix.doc_subject["f"] is None  # an FAQ over several products has no subject of its own
    assert ix.mentioned("电热水壶的发热盘保修三年") == {kettle}
    assert ix.mentioned("水壶的容量") == {kettle}  # the tail of 电热水壶
    assert ix.mentioned("KX-2000 is dishwasher safe") == {kettle}
    assert ix.mentioned("The rice cooker keeps rice warm") == {rice}
    assert ix.mentioned("使用说明书") == set()  # generic name terms name nothing
    assert not sj.compatible({kettle}, ix.of_window("r", "发热盘保修三年。"))
    assert sj.compatible({kettle}, ix.of_window("f", "Keep your receipt."))


# -- the issue's examples on the sample manuals ----------------------------------------------------
@pytest.fixture(scope="module")
def sample(e5_engine):
    return e5_engine, e5_engine.settings.sample_kb


VERDICTS = [
    ("AF-360 is covered for five years", "contradicted", "number"),
    ("电热水壶的发热盘保修三年", "contradicted", "三年"),
    ("KX-2000 is dishwasher safe", "contradicted", "polarity"),
    ("The RC-550 rice cooker can be controlled over Wi-Fi with a phone app", "not found", ""),
    ("AF-360 drawer holds 4.2 L", "supported", ""),  # the manual: "Drawer capacity: 4.2 L"
    ("电饭煲的发热盘保修三年", "supported", ""),
    ("The AF-360 is covered by a two-year warranty", "supported", ""),
    ("电热水壶额定功率2200W", "contradicted", "1800"),
    ("可以用钢丝球清洁电热水壶", "contradicted", "polarity"),
    # the air-fryer manual says nothing of coffee; the kettle's "请勿…煮咖啡" is another product's
    # fact (with cross-lingual retrieval the air fryer's own sentences are the candidates): not found
    ("空气炸锅可以用来煮咖啡", "not found", ""),
    ("电热水壶显示E2表示底座接触不良", "contradicted", "code"),
]


def test_the_issues_claims_get_the_right_verdict_with_reasons(sample):
    import swr.verify.verify as vf

    eng, kb = sample
    results = vf.verify_many(eng, [c for c, _, _ in VERDICTS], kb)
    got = [(r.claim, r.verdict) for r in results]
    assert got == [(c, v) for c, v, _ in VERDICTS]
    for r, (_, _, why) in zip(results, VERDICTS):
        assert r.reasons and why in " ".join(r.reasons), (r.claim, r.reasons)
        if r.verdict != "not found":
            assert r.deciding == 0 and r.entries[0].role == {"supported": "supports"}.get(r.verdict, "contradicts")
    d = results[0].to_dict()
    json.dumps(d, ensure_ascii=False)
    assert d["verdict"] == "contradicted" and "2-year" in d["reasons"][0]


def test_another_products_fact_does_not_support(sample):
    import swr.verify.verify as vf

    eng, kb = sample
    claim = "电热水壶的发热盘保修三年"
    r = vf.verify(eng, claim, kb, top_k=5)
    # the kettle's own manual (the document the claim names) fills the evidence, and its two years contradict
    assert r.verdict == "contradicted" and r.entries[0].source == "kettle_manual_zh.md", r.entries
    assert all(not e.supported for e in r.entries)
    # searched in the rice cooker's manual alone, its three years are found, and are another product's
    r = vf.verify(eng, claim, kb, top_k=5, sources=("rice_cooker_manual_zh.md",))
    rice = [e for e in r.entries if "三年" in e.text]
    assert rice and all(not e.supported and e.role == "other subject" for e in rice), r.entries
    assert r.verdict == "not found"


def test_the_llm_judge_may_take_a_support_away_never_give_one(sample):
    """verify_many(llm=...) with a real OpenAI-compatible server (tests/fake_llm.py): only a
    'supported' is put to the LLM; its NO makes it contradicted, its YES keeps it; a failing LLM
    leaves the rules' verdict, with the failure among the reasons."""
    from fake_llm import FakeLLM
    import swr.verify.verify as vf
    from swr.answer.llm import Answerer, LLMConfig

    eng, kb = sample
    true_claim, false_claim = "AF-360 drawer holds 4.2 L", "AF-360 is covered for five years"
    with FakeLLM("NO") as server:
        llm = Answerer(LLMConfig(base_url=server.base_url, model="fake-model", timeout_s=5))
        no, wrong = vf.verify_many(eng, [true_claim, false_claim], kb, llm=llm)
        assert no.verdict == "contradicted" and "LLM judge" in no.reasons[0], no.reasons
        assert wrong.verdict == "contradicted" and len(server.requests) == 1  # a contradiction is never asked
        prompt = server.requests[0]["body"]["messages"][-1]["content"]
        assert true_claim in prompt and "capacity" in prompt.lower()  # the claim and its deciding window
        server.reply = "YES"
        assert vf.verify(eng, true_claim, kb, llm=llm).verdict == "supported"
        server.reply = "UNKNOWN"
        assert vf.verify(eng, true_claim, kb, llm=llm).verdict == "not found"
        server.mode = "500"
        r = vf.verify(eng, true_claim, kb, llm=llm)
        assert r.verdict == "supported" and "not asked" in r.reasons[0], r.reasons


def test_the_probe_never_sets_a_fused_score_beside_a_cosine():
    from swr.app.probe import score_caption

    p = {"params": {"mode": "hybrid", "fusion": "dbsf", "top_k": 3}, "cutoff_score": 1.234, "score": 0.987,
         "dense_score": 0.8765, "probe_limit": 100}
    text = score_caption(p)
    assert "DBSF fused score 1.234; this sentence's is 0.987" in text and "0.8765" not in text
    assert "relative to this question" in text
    rrf = score_caption({**p, "params": {"mode": "hybrid", "fusion": "rrf", "top_k": 3}, "score": None})
    assert "RRF fused score 1.234" in rrf and "has none" in rrf and "ranks only" in rrf
    dense = score_caption({**p, "params": {"mode": "dense", "fusion": "dbsf", "top_k": 3}})
    assert "cosine score 1.234" in dense and "DBSF" not in dense

# -- answerability ------------------------------------------------------------------------------------
OFF_TOPIC = ["What is the capital of France?", "Who wrote Hamlet?", "What is the speed of light?",
             "How many legs does a spider have?", "Who won the 2018 World Cup?", "法国的首都是哪里？", "今天天气怎么样？"]


def test_off_topic_questions_are_not_answerable_and_never_get_a_table_border(sample):
    eng, kb = sample
    for q in OFF_TOPIC:
        r = eng.ask(q, kb, llm=False)
        assert r.answerable is False, (q, r.answerability)
        assert r.answerable_score is not None and r.answerability["reason"]
        assert "|" not in r.answer and "---" not in r.answer
        assert r.passages  # still shown, as the closest, not an answer


def test_the_sample_questions_stay_answerable(sample):
    eng, kb = sample
    rows = list(csv.DictReader((ROOT / "samples" / "golden.csv").open(encoding="utf-8")))
    bad = []
    for row in rows:
        r = eng.ask(row["question"], kb, llm=False)
        if not r.answerable:
            bad.append((row["question"], r.answerability))
        else:  # what the extractive answer marks as the answer is a sentence, not a border or a heading
            marked = re.findall("【(.*?)】", r.answer, flags=re.S)
            assert marked and all(substantive_text(m) for m in marked), (row["question"], r.answer)
    assert not bad, bad


def test_a_code_no_passage_holds_refuses_and_codes_a_named_document_holds_answer_at_the_low_bar():
    """swr.answer.answerable.decide on the figures: a missing code refuses above every bar; codes held in a
    document the question names answer from the low bar (below it they do not)."""
    from swr.answer.answerable import decide

    ok, why = decide(0.95, 1.0, False, E5, codes=(), missing=("E9",))
    assert not ok and "E9" in why
    ok, why = decide(0.95, 1.0, True, E5, named=True, codes=(), missing=("E9",))
    assert not ok and "E9" in why
    ok, why = decide(E5.low + 0.001, 0.3, False, E5, codes=("E2",))
    assert ok and "E2" in why
    assert not decide(E5.low - 0.001, 0.3, False, E5, codes=("E2",))[0]
    assert not decide(E5.low + 0.001, 0.3, False, E5)[0]  # without the codes: neither bar


def test_codes_in_sample_questions(sample):
    """An error code the manuals do not list is refused, whatever its cosine; a listed one of a
    named product is answered in both languages; a model number naming the manual counts as held
    though its first-use passages never repeat it."""
    eng, kb = sample
    for q in ("What does E9 mean on the air fryer?", "空气炸锅显示E9是什么意思？"):
        r = eng.ask(q, kb, llm=False)
        assert r.answerable is False and "E9" in r.answerability["reason"], (q, r.answerability)
    for q in ("What does error E2 mean on the air fryer?", "空气炸锅显示E2是什么意思？"):
        r = eng.ask(q, kb, llm=False)
        assert r.answerable, (q, r.answerability)
        assert any("E2" in p.text for p in r.passages)
    r = eng.ask("What should I do before using the AF-360 air fryer for the first time?", kb, llm=False)
    assert r.answerable and "answerable.code_missing" not in r.answerability["rules"], r.answerability


def test_a_name_of_the_translation_answers_across_languages_only_where_the_passages_write_it():
    """swr.answer.answerable.translated_names / decide: a Chinese question about an English article has
    no word to find there; a name of its dictionary translation, written as a name in the English
    passages, is its shared term (from the cross_names bar); a lower-case gloss is none."""
    from swr.answer.answerable import decide, translated_names
    from swr.core.types import Passage

    def passage(text):
        return Passage(doc_id="d", source="a.txt", first=0, last=0, text=text, hits=[], score=1.0)

    q, closest = "亚马逊雨林覆盖多少个国家？", "The Amazon rainforest covers nine nations."
    tr = {"en": "Amazon rainforest cover number nation"}
    assert translated_names(q, tr, [passage(closest)], closest) == ("amazon",)
    assert translated_names(q, tr, [passage("amazon.com sells books.")], "amazon.com sells books.") == ()
    assert translated_names(q, {"en": "team defend throw"}, [passage("The team lost.")], "The team lost.") == ()
    assert translated_names("What covers it?", tr, [passage(closest)], closest) == ()  # same language
    assert decide(E5.cross_names + 0.001, 0.0, True, E5, names=("amazon",))[0]
    assert not decide(E5.cross_names - 0.001, 0.0, True, E5, names=("amazon",))[0]
    assert not decide(E5.cross_names + 0.001, 0.0, True, E5)[0]


def test_a_chinese_question_about_an_english_article_is_answered_by_a_name_of_its_translation(e5_engine, tmp_path):
    """The bundled SQuAD article (English) and two Chinese questions: the one about it is answered
    through "Amazon" of its translation; an off-topic one is not."""
    from swr.core.settings import Settings
    from swr.engine import Engine

    data = json.loads((ROOT / "tests" / "data" / "squad_amazon_rainforest.json").read_text(encoding="utf-8"))
    text = "\n\n".join(p["context"] for p in data["data"][0]["paragraphs"])
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path, sample_kb=""),
                 embedder=e5_engine.embedder)
    try:
        assert eng.index_files("amazon", [("amazon.txt", text.encode())])[0].ok
        r = eng.ask("亚马逊雨林覆盖多少个国家？", "amazon", llm=False)
        assert r.answerable and "amazon" in r.answerability["reason"], r.answerability
        r = eng.ask("法国的首都是哪里？", "amazon", llm=False)
        assert r.answerable is False, r.answerability
    finally:
        eng.close()


def test_a_question_most_of_whose_words_no_document_uses_is_not_answerable(sample, monkeypatch):
    """swr.answer.answerable: in one language, more than half of the question's terms unknown to every
    document of the knowledge base refuses above every bar; half or fewer do not (a paraphrase
    keeps some words of its own); the unknown words are the knowledge base's, probed once."""
    from swr.answer.answerable import decide, unknown_terms


    assert not decide(0.95, 1.0, False, E5, unknown=("router", "firmware"), n_terms=3)[0]
    assert decide(0.95, 1.0, False, E5, unknown=("router",), n_terms=2)[0]
    assert decide(0.95, 1.0, True, E5, unknown=("router", "firmware"), n_terms=2, named=True)[0]  # across: no
    eng, kb = sample
    assert set(unknown_terms(eng, "How do I reset the firmware password of my router?", kb)) >= {"firmware", "router"}
    assert unknown_terms(eng, "How do I descale the kettle?", kb) == ()
    r = eng.ask("How do I reset the firmware password of my router?", kb, llm=False)
    assert r.answerable is False, r.answerability
    # the probe runs only for a question the other rules answer, and its verdict is the last word
    import swr.answer.answerable as an

    # (a question the other language's documents do not say: the kettle manual's 除垢 speaks for "descale")
    q = "How long should I preheat the air fryer?"
    assert eng.ask(q, kb, llm=False).answerable
    monkeypatch.setattr(an, "unknown_terms", lambda engine, question, kb: tuple(an.question_terms(question)))
    r = eng.ask(q, kb, llm=False)
    assert r.answerable is False and "preheat" in r.answerability["reason"], r.answerability


def test_a_chinese_name_neither_the_passages_nor_their_documents_write_is_not_answerable(e5_engine, tmp_path):
    """swr.answer.answerable.absent_names: in one language, a name the question asks about (a railway, a
    person: new to jieba's dictionary, tagged a name) that no passage and no passage's document
    writes refuses; one the window leaves out ("他") but its document writes does not."""
    from swr.answer.answerable import absent_names, decide
    from swr.answer.answerable_terms import question_names
    from swr.core.settings import Settings
    from swr.core.types import Passage
    from swr.engine import Engine

    assert question_names("广茂铁路全长多少公里？") == ("广茂",)
    assert question_names("徐晓飞现在效力于哪个球队？") == ("徐晓飞",)
    assert question_names("晨川电饭煲保修多久？") == ()  # the sample's brand: a new word, not a name
    assert question_names("空气炸锅烤鸡翅用多少度？") == () and question_names("How long is the railway?") == ()
    assert not decide(0.95, 1.0, False, E5, absent=("广茂",))[0]
    assert decide(0.95, 1.0, False, E5)[0] and decide(0.95, 1.0, True, E5, absent=("广茂",), named=True)[0]
    railway = ("大莱龙铁路是山东省的一条地方铁路。大莱龙铁路全长175公里，东起龙口，西至大家洼。"
               "该铁路于2006年建成通车，是山东半岛北部重要的货运通道。")
    player = "徐晓飞是中国职业足球运动员，司职后卫。他曾经效力于天津泰达队。他现在效力于北京国安队。"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path, sample_kb=""),
                 embedder=e5_engine.embedder)
    try:
        assert all(r.ok for r in eng.index_files("zh", [("railway.txt", railway.encode()),
                                                        ("player.txt", player.encode())]))
        r = eng.ask("大莱龙铁路全长多少公里？", "zh", llm=False)
        assert r.answerable, r.answerability
        r = eng.ask("广茂铁路全长多少公里？", "zh", llm=False)
        assert r.answerable is False and "广茂" in r.answerability["reason"], r.answerability
        doc = {d.source: d.doc_id for d in eng.docs("zh")}
        he = next(s for s in eng.doc_sentences("zh", doc["player.txt"]) if s.text.startswith("他现在"))
        window = Passage(doc_id=he.doc_id, source=he.source, first=he.i, last=he.i, text=he.text, hits=[], score=1.0)
        assert absent_names(eng, "徐晓飞现在效力于哪个球队？", "zh", [window]) == ()  # its document writes it
        other = eng.doc_sentences("zh", doc["railway.txt"])[0]
        window = Passage(doc_id=other.doc_id, source=other.source, first=0, last=0, text=other.text, hits=[],
                         score=1.0)
        assert absent_names(eng, "徐晓飞现在效力于哪个球队？", "zh", [window]) == ("徐晓飞",)
        # beside an English passage the name's absence says nothing: English writes it its own way
        english = Passage(doc_id="d-en", source="station.txt", first=0, last=0, hits=[], score=1.0,
                          text="Two activists broke into the Waihopai station and closed it for days.")
        assert absent_names(eng, "让怀胡派检测站被暂时关闭的方法是什么？", "zh", [window, english]) == ()
        assert absent_names(eng, "徐晓飞现在效力于哪个球队？", "zh", [window, english]) == ()
    finally:
        eng.close()


def test_only_cosines_that_vouch_for_the_question_count():
    """swr.answer.answerable.counted: a hit's cosine counts when the question's own vector found it, or
    when its document is one the question names; a translation's cosine elsewhere never."""
    from swr.answer.answerable import counted
    from swr.core.types import Hit, Sentence

    def hit(via, dense=0.9):
        text = "E4 means the basket is not inserted."
        s = Sentence(kb="k", doc_id="d", source="m.md", i=0, n=1, start=0, end=len(text), text=text)
        return Hit(sentence=s, score=1.0, dense_score=dense, via=via)

    assert counted(hit(None)) and counted(hit("lang-list"))
    assert counted(hit("alias")) and counted(hit("translation+alias")) and counted(hit("lang-list+alias"))
    assert not counted(hit("translation")) and not counted(hit(None, dense=None))


def test_a_translations_cosine_in_a_document_the_question_does_not_name_never_answers(sample):
    """"What is 24 hours in minutes?" names no product and the manuals do not convert units; its
    dictionary translation ("24 小时 ...") finds the rice cooker's "最长预约时间：24 小时" at a
    cosine above the high bar, and the question has no content term, so that cosine alone
    would answer it without the named-document rule. Its own vector's closest sentence is below it."""
    import swr.answer.answerable as an

    eng, kb = sample
    q = "What is 24 hours in minutes?"
    r = eng.retrieve(q, kb)
    assert not r.named and not an.question_terms(q)
    leak = [h.dense_score for h in r.hits if h.via == "translation" and h.dense_score is not None]
    assert leak and max(leak) >= E5.high, [(h.via, h.dense_score, h.sentence.text) for h in r.hits]
    a = eng.ask(q, kb, llm=False)
    assert a.answerable is False, a.answerability
    assert a.answerable_score < max(leak) and a.answerable_score < E5.high, a.answerability


def test_another_products_sentence_is_no_ground_unless_it_names_the_product(sample):
    """A question naming a product: the closest sentence of another product's document does not
    vouch for it ("空气炸锅的炸篮能放进洗碗机吗？"'s own vector is closest to the rice cooker's
    "内胆可以放入洗碗机"), but a sentence of such a document that names the product does (the FAQ's
    "What does E4 mean on the AF-360?")."""
    import swr.answer.answerable as an
    from swr.core.lang import has_han as has_cjk

    eng, kb = sample
    q = "空气炸锅的炸篮能放进洗碗机吗？"
    r = eng.retrieve(q, kb)
    assert r.named == {"air_fryer_manual_en.md"} and "rice_cooker_manual_zh.md" in r.foreign
    unscoped = an.best_hit(eng, q, kb, r.hits, r.params, pool=r.answer_pool)
    assert has_cjk(unscoped[1]), unscoped  # another product's Chinese sentence
    best = an.best_hit(eng, q, kb, r.hits, r.params, pool=r.answer_pool, named=r.named, foreign=r.foreign)
    assert not has_cjk(best[1]) and best[0] < unscoped[0], best  # the air fryer's own (English) manual
    q = "What does E4 mean on the AF-360?"
    r = eng.retrieve(q, kb)
    assert "faq_en.md" in r.foreign  # the FAQ has a subject of its own ("FAQ"), not the air fryer
    best = an.best_hit(eng, q, kb, r.hits, r.params, pool=r.answer_pool, named=r.named, foreign=r.foreign)
    assert "AF-360" in best[1] and best[0] >= E5.high, best
    assert not an.names_one_of(eng, kb, "**What does E4 mean on the RC-550?**", r.named)


# -- the answer check ------------------------------------------------------------------------------------
def test_answer_sentences_and_short_statements():
    parts = answer_sentences("根据[1]中的信息，空气炸锅可以用来煮咖啡。\n11. 用于商业用途的产品。")
    assert [p[1] for p in parts] == ["空气炸锅可以用来煮咖啡。", "用于商业用途的产品。"]
    assert parts[0][2] == [1]
    assert statement("空气炸锅可以用来煮咖啡吗？", "可以。") == "空气炸锅可以用来煮咖啡 可以。"
    assert statement("Q?", "The drawer holds 4.2 litres of food.") == "The drawer holds 4.2 litres of food."


CHECKS = [
    ("电热水壶整机保修多久？", "电热水壶整机保修三年。", False, "三年"),
    ("电热水壶整机保修多久？", "一年。", True, ""),
    ("KX-2000 电热水壶的额定功率是多少？", "额定功率为 2200 W。", False, "1800"),
    ("KX-2000 电热水壶的额定功率是多少？", "额定功率为 1800W。", True, ""),
    ("电热水壶可以用钢丝球清洁吗？", "可以用钢丝球清洁壶身。", False, "polarity"),
    ("空气炸锅可以用来煮咖啡吗？", "根据[1]中的信息，空气炸锅可以用来煮咖啡。", False, ""),
    ("空气炸锅可以用来煮咖啡吗？", "可以。", False, ""),
    ("What does E4 mean on the AF-360?", "E2 means the basket is not inserted.", False, ""),
]


def test_check_catches_wrong_numbers_codes_and_dropped_negations(sample):
    eng, kb = sample
    for q, answer, ok, why in CHECKS:
        r = eng.ask(q, kb, llm=False)
        c = check_answer(eng, q, answer, r.passages, kb=kb)
        assert len(c.sentences) == 1, (answer, c.sentences)
        s = c.sentences[0]
        assert s.supported is ok, (q, answer, s)
        assert why in " ".join(s.reasons), (answer, s.reasons)
        assert c.support == (1.0 if ok else 0.0)
        if ok:
            assert s.passage and s.window  # where it is supported
        assert c.counts["encode_calls"] <= 1  # every window in one model call (or all cached)


def test_a_citation_whose_passage_does_not_support_is_flagged(sample):
    eng, kb = sample
    q = "KX-2000 电热水壶的额定功率是多少？"
    r = eng.ask(q, kb, llm=False)
    right = next(n for n, p in enumerate(r.passages, 1) if "1800W" in p.text)
    wrong = next(n for n, p in enumerate(r.passages, 1) if "1800W" not in p.text)
    c = check_answer(eng, q, f"额定功率为 1800W[{right}]。额定功率为 1800W[{wrong}]。", r.passages, kb=kb)
    assert [s.supported for s in c.sentences] == [True, True]
    assert c.sentences[0].bad_citations == [] and c.sentences[1].bad_citations == [wrong]
    assert any(f"[{wrong}]" in why for why in c.sentences[1].reasons)


# -- command line ---------------------------------------------------------------------------------------
def test_cli_check_and_ask_json(tmp_path, swr_cli):
    env = {"SWR_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1",
           "SWR_SECRETS": str(tmp_path / "none.toml"), "SWR_SAMPLE_KB": ""}

    def run(*args):
        p = swr_cli(*args, env=env, unset=("QDRANT_URL", "OPENAI_BASE_URL", "SWR_EMBED_MODEL"), code=None)
        assert p.code == 0, p.stderr
        return p.doc

    run("index", str(ROOT / "samples" / "kb"), "--kb", "s", "--json")
    out = run("check", "电热水壶整机保修多久？", "--answer", "电热水壶整机保修三年。整机保修一年。", "--kb", "s", "--json")
    assert [s["supported"] for s in out["sentences"]] == [False, True]
    assert {"text", "supported", "score", "passage", "reasons"} <= set(out["sentences"][0])
    assert out["support"] == 0.5 and "三年" in out["sentences"][0]["reasons"][0]
    ask = run("ask", "What is the capital of France?", "--kb", "s", "--json")
    assert ask["answerable"] is False and "answerable_score" in ask and "|" not in ask["answer"]
    ask = run("ask", "电热水壶的发热盘保修多久？", "--kb", "s", "--json")
    assert ask["answerable"] is True and ask["answerable_score"] > 0 and "check" in ask
    vf = run("verify", "AF-360 is covered for five years", "--kb", "s", "--json")
    assert vf["verdict"] == "contradicted" and vf["reasons"]


def test_borders_and_bare_headings_are_never_the_extractive_answer():
    from swr.answer.extractive import extractive_answer
    from swr.answer.substantive import substantive
    from swr.core.types import Passage, PassageHit

    def passage(text, score):
        return Passage(doc_id="d", source="m.md", first=0, last=0, text=text, score=score,
                       hits=[PassageHit(i=0, sentence=text, score=score, start=0, end=len(text))])

    for t in ("|", "| --- | --- |", "## 11. Warranty", "---", "  "):
        assert not substantive_text(t), t
    assert substantive_text("The AF-360 is covered by a 2-year limited warranty.") and substantive_text("可以。")
    border, real = passage("| --- | --- |", 0.9), passage("Drawer capacity: 4.2 L", 0.5)
    assert substantive([border, real]) == [real]
    assert "4.2 L" in extractive_answer("q?", substantive([border, real]))
