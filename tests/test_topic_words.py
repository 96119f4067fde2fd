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
    """The articles indexed; they are a few lines long, so their subjects are learnt as a long
    document's are (SubjectRules.min_sentences 0): the naming itself is under test."""
    from dataclasses import replace

    eng.index_files("help", [(n, t.encode("utf-8")) for n, t in ARTICLES.items()])
    eng.crosslingual.enabled = True
    subjects = eng.crosslingual.subjects
    subjects.rules = replace(subjects.rules, min_sentences=0)
    return eng


def test_a_short_page_names_no_subject_a_long_document_does(fake_engine):
    """In a knowledge base of two languages a titled page shorter than SubjectRules.min_sentences is
    one topic's page: its title names no subject; the same title over a manual's length does. In one
    language the short page's title still names it."""
    eng = fake_engine
    body = "".join(f"第{i}步：按说明操作电热水壶。" for i in range(30))
    pages = [("kettle.md", f"# 晨川 KX-2000 电热水壶说明书\n\n感谢选购晨川 KX-2000 电热水壶。{body}\n".encode()),
             ("modes.md", "# 勿扰模式\n\n勿扰模式默认开启。勿扰模式时段为22:00至次日08:00。\n".encode()),
             ("other.md", "# 游戏模式\n\n游戏模式降低延迟。游戏模式可在App中开启。\n".encode())]
    eng.index_files("zh", pages)
    eng.index_files("pages", [*pages, ("dock.md", b"# Dock\n\nThe dock charges the robot. Keep the dock free.\n")])
    eng.crosslingual.enabled = True
    subjects, _ = eng.crosslingual.subjects.learn("pages")
    assert subjects["modes.md"] == set() and subjects["other.md"] == set() and subjects["dock.md"] == set()
    assert "kx-2000" in subjects["kettle.md"]
    eng.retrieve("勿扰模式默认几点开始？", "pages", top_k=3, mode="hybrid")
    assert not eng.crosslingual.last.subjects
    assert eng.crosslingual.subjects.learn("zh")[0]["modes.md"], "one language: the page's title names it"


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


def test_an_english_question_s_topic_word_names_no_chinese_article(fake_engine):
    # a Chinese title's English translation ("return" of 退货政策) is said in no body: it counts as
    # its twin, the Chinese subject term naming the same article (退货, said in six)
    from swr.retrieve.aliases import sources_named

    eng = _kb(fake_engine)
    eng.retrieve("How long does a return take?", "help", top_k=5, mode="hybrid")
    plan = eng.crosslingual.last
    assert "returns_policy.md" not in plan.subjects
    assert "return" in plan.topic_words["words"] and "returns_policy.md" in plan.topic_words["sources"]
    # answerability and the answer check read the same naming as the ranking
    assert "returns_policy.md" not in sources_named(eng, "help", "How long does a return take?")
    assert sources_named(eng, "help", "KX-2000 的容量是多少？") == {"kettle.md"}
    # a product's English name still names its Chinese manual (its twin 电热水壶 is said in one)
    eng.retrieve("How much water does the kettle hold?", "help", top_k=5, mode="hybrid")
    assert set(eng.crosslingual.last.subjects) == {"kettle.md"}


def test_the_dictionary_keeps_the_sense_the_knowledge_base_uses_most():
    from swr.text.glossary import _pick

    class Known:
        def __call__(self, word: str) -> bool:
            return word in {"回来", "退回"}

        def uses(self, word: str) -> int:
            return {"回来": 1, "退回": 3}[word]

    assert _pick(["回来", "归", "退回"], Known()) == ["退回"]
    assert _pick(["回来", "归", "退回"], lambda w: w in {"回来", "退回"}) == ["回来"], "without counts: the first used"
    assert _pick(["归", "返"], Known()) == ["归"], "none used: the dictionary's first"


def test_bm25_searches_the_senses_the_knowledge_base_uses_most(fake_engine):
    from dataclasses import replace

    from swr.core.rules.crosslingual import DEFAULT_RULES

    eng = fake_engine
    eng.index_files("hc", [("a.md", "# 发票说明\n\n发票请保留。保留期为一年，保留原件。\n".encode()),
                           ("b.md", "# 使用须知\n\n请保持干燥。\n".encode())])
    eng.crosslingual.enabled = True
    xl = eng.crosslingual
    _, version = xl.kb_state("hc")
    q = "should I keep the invoice"
    text, bm25 = xl._translator("hc", version, 1, True)(q, "zh")  # noqa: SLF001
    assert "保持" in text.split(), "the translation embedded and read by answerability: the dictionary's order"
    assert "保留" in bm25.split() and "保持" not in bm25.split(), bm25
    plain = xl._translator("hc", version, 1, False)(q, "zh")  # noqa: SLF001
    assert plain == text
    eng.retrieve(q, "hc", top_k=3, crosslingual=replace(DEFAULT_RULES, sense_by_use=True))
