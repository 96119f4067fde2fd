"""A title's topic word names no document: a help centre's "退货" is said in article after article,
a product's code in its own manual only (SubjectRules.name_spread)."""
from swr.core.rules.crosslingual import XlRule

ARTICLES = {
    "returns_policy.md": "# 七天无理由退货政策\n\n签收次日起7天内可以申请无理由退货。退货商品需要保持完好。\n",
    "return_steps.md": "# 售后申请步骤\n\n在订单页面点击申请售后，选择退货或换货。\n",
    "refund_timing.md": "# 退款到账时间\n\n退货商品签收后，退款在3个工作日内原路退回。\n",
    "shipping_fee.md": "# 运费说明\n\n因个人原因退货，寄回运费由您承担。\n",
    "order_cancel.md": "# 取消订单\n\n已发货的订单不能取消，请收货后办理退货。\n",
    "coupons.md": "# 优惠券使用\n\n使用优惠券的订单退货后，优惠券按规则退回。\n",
    "kettle.md": "# 晨川 KX-2000 电热水壶说明书\n\n感谢选购晨川 KX-2000 电热水壶。KX-2000 的容量是1.7升。\n",
}


def _kb(eng):
    eng.index_files("help", [(n, t.encode("utf-8")) for n, t in ARTICLES.items()])
    eng.crosslingual.enabled = True
    return eng


def test_a_topic_word_in_a_title_names_no_document(fake_engine):
    eng = _kb(fake_engine)
    r = eng.retrieve("退货的话运费谁出？", "help", top_k=20, mode="hybrid")
    plan = eng.crosslingual.last
    assert "退货" in plan.topic_words["words"] and "returns_policy.md" in plan.topic_words["sources"]
    assert "returns_policy.md" not in plan.subjects, "no bonus for the title that only shares the topic"
    traced = [h for h in r.hits if h.sentence.source == "returns_policy.md"]
    assert traced and all(XlRule.TOPIC_WORD.value in h.trace for h in traced)
    # 运费 named a topic, not a product with a model number: no article goes last as "another product"
    assert plan.foreign == set()
    # 运费 is said by its own article only: it still names that one
    assert {h.sentence.source for h in r.hits if XlRule.SUBJECT.value in (h.trace or [])} == {"shipping_fee.md"}


def test_a_product_code_still_names_its_manual(fake_engine):
    eng = _kb(fake_engine)
    r = eng.retrieve("KX-2000 的容量是多少？", "help", top_k=3, mode="hybrid")
    plan = eng.crosslingual.last
    assert set(plan.subjects) == {"kettle.md"} and not plan.topic_words
    assert "returns_policy.md" in plan.foreign, "a named model number: the other titled documents go last"
    assert r.hits[0].sentence.source == "kettle.md"


def test_topic_words_counts_each_term_once_per_version(fake_engine):
    eng = _kb(fake_engine)
    subjects = eng.crosslingual.subjects
    calls = []

    def said_in(term):
        calls.append(term)
        return {"退货": 6, "kx-2000": 1}.get(term, 0)
    version = eng.crosslingual.subject_version("help")
    assert subjects.topic_words("help", {"退货", "kx-2000"}, said_in, version) == {"退货"}
    assert subjects.topic_words("help", {"退货"}, said_in, version) == {"退货"}
    assert sorted(calls) == ["kx-2000", "退货"], "cached per knowledge base version"


def test_a_question_with_a_code_keeps_its_product_word(fake_engine):
    # a code is said by several products: the word beside it tells which, topic word or not
    eng = _kb(fake_engine)
    eng.retrieve("退货时显示E3怎么办？", "help", top_k=5, mode="hybrid")
    plan = eng.crosslingual.last
    assert not plan.topic_words and "returns_policy.md" in plan.subjects
