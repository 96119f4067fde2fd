"""The cross-lingual fusion and the dictionary's English lookups.

Pure functions on hand-built hits (``swr.retrieve.crosslingual.fuse``, :mod:`swr.retrieve.xl_fuse`) and
the real CC-CEDICT glossary: what each test pins down was measured on BiPaR and XQuAD mixed
knowledge bases (bench/real_kbs.py, bench/xl_calibrate.py) or the sample manuals.
"""
from __future__ import annotations

import pytest

from swr.core.rules.crosslingual import CrossLingualRules, XlRule
from swr.core.types import Hit, Sentence
from swr.retrieve import crosslingual
from swr.retrieve.crosslingual import fuse


def _hit(doc: str, i: int, text: str, score: float, lang: str = "zh", cos: float | None = None,
         sparse: float | None = None, centred: float | None = None) -> Hit:
    s = Sentence(kb="kb", doc_id=doc, source=f"{doc}.txt", i=i, n=10, start=0, end=len(text), text=text, lang=lang)
    return Hit(sentence=s, score=score, dense_score=cos, sparse_score=sparse, centred=centred)


def _mixed(rules=None, top_k=3):
    """An English question over a mixed KB: its own list holds the answer at rank 2; the Chinese
    lists hold a short generic line the e5 vectors like and a long, well-matched sentence. The
    fusion reads the language-centred cosines (xl_centre; the plain ones stay for answerability)."""
    own = [_hit("e1", 1, "The kettle must be descaled every month with citric acid.", 1.9, "en", 0.86, 9.0, 0.60),
           _hit("e2", 4, "Descaling removes the white deposits that build up over time in hard water.", 1.85,
                "en", 0.85, 7.0, 0.58),
           _hit("e3", 2, "Keep the power cord away from the hot surface of the base.", 0.4, "en", 0.80, None, 0.45)]
    short_ll, short_tr = _hit("z1", 3, "哦？", 1.0, "zh", 0.83, None, 0.45), _hit("z1", 3, "哦？", 1.9, "zh", 0.88, None, 0.48)
    long_ll = _hit("z2", 6, "除垢时请按一份柠檬酸兑二十份水的比例加入水壶，煮沸后静置三十分钟再倒掉。", 0.9, "zh", 0.82, 3.0, 0.55)
    long_tr = _hit("z2", 6, "除垢时请按一份柠檬酸兑二十份水的比例加入水壶，煮沸后静置三十分钟再倒掉。", 1.8, "zh", 0.93, 12.0, 0.64)
    lists = [(None, own), ("lang-list", [short_ll, long_ll]), ("translation", [short_tr, long_tr])]
    return fuse(lists, top_k, rules=rules or CrossLingualRules(), qlang="en")


def test_the_question_languages_order_is_kept_and_a_better_sentence_enters():
    out = _mixed(CrossLingualRules(other_places=0))  # the fusion's own top k
    docs = [h.sentence.doc_id for h in out]
    assert docs.index("e1") < docs.index("e2")  # the question language's own order
    assert "z2" in docs and "z1" not in docs  # the long, well-matched one entered; the short line did not
    z2 = out[docs.index("z2")]
    assert XlRule.BOTH_LISTS.value in z2.trace and any(t.startswith(XlRule.FOREIGN_ENTERS.value) for t in z2.trace)
    assert out[docs.index("e1")].trace == [XlRule.OWN_LANGUAGE.value]
    assert all(a.score >= b.score for a, b in zip(out, out[1:]))  # shown scores never rise down the list


def test_a_sentence_of_the_other_language_in_the_plain_list_does_not_make_the_rest_of_it_foreign():
    """The plain list spans both languages: a Chinese sentence at its top is the other language's,
    the English sentences after it stay the question language's (own order, traced as such). Read
    as foreign, "How much flash does the LM32-S3-ROOM-1 have?" lost its English table row to two
    Chinese sentences on other topics (the bilingual FAQ of bench/real_kbs.py --parts faq)."""
    plain = [_hit("z1", 0, "LM32-S3-ROOM-1 的 4 MB Flash 版本已进入停产阶段。", 1.46, "zh", 0.854, 5.7),
             _hit("e1", 3, "| LM32-S3-ROOM-1 | Wi-Fi 4, Bluetooth 5.0 LE | 16 MB | PCB antenna |", 1.34, "en", 0.900, 3.3),
             _hit("e2", 1, "With its PCB antenna the LM32-S3-ROOM-1 reaches about 120 m.", 1.32, "en", 0.898, 3.3)]
    out = fuse([(None, plain)], 3, rules=CrossLingualRules(), qlang="en")
    by = {h.sentence.doc_id: h for h in out}
    assert by["e1"].trace == [XlRule.OWN_LANGUAGE.value] and by["e1"].via is None
    assert by["e2"].trace == [XlRule.OWN_LANGUAGE.value]
    assert by["z1"].via == "lang-list" and XlRule.OWN_LANGUAGE.value not in by["z1"].trace
    assert [h.sentence.doc_id for h in out][:2] == ["e1", "e2"]


def test_at_the_largest_margin_the_search_is_the_question_languages_alone():
    out = _mixed(CrossLingualRules(margin=1.0, agreed_kept=False, other_places=0))
    assert [h.sentence.doc_id for h in out] == ["e1", "e2", "e3"]
    # with agreed_kept, the other language's most probable sentence, second in both its lists, keeps a place
    out = _mixed(CrossLingualRules(margin=1.0, other_places=0))
    assert [h.sentence.doc_id for h in out] == ["e1", "e2", "z2"] and XlRule.AGREED_KEPT.value in out[2].trace


def test_a_short_line_is_less_likely_than_a_long_one_of_the_same_cosines():
    """BiPaR: e5 puts short lines ("哦？") near every question. Once cosines are language-centred the
    cosine keeps most of them out ("哦？" stays out of _mixed at its centred cosine); the fitted
    length weight is smaller than before centring (0.91 against 3.89) but still positive."""
    from swr.retrieve import xl_fuse

    rules = CrossLingualRules()
    x = [0.0, -0.05, 0.5, 1.0, 1.0, 1.0]
    short = xl_fuse._p(rules.foreign_weights, [*x, xl_fuse.length("哦？")])
    long = xl_fuse._p(rules.foreign_weights, [*x, xl_fuse.length("除垢时请按一份柠檬酸兑二十份水的比例加入水壶。")])
    assert long > short
    assert "z1" not in [h.sentence.doc_id for h in _mixed()][:3]


def test_the_rules_are_reachable_from_the_request():
    from swr.core.params import RetrievalParams

    p = RetrievalParams().with_(crosslingual=CrossLingualRules(margin=0.3))
    assert p.crosslingual.margin == 0.3 and RetrievalParams().crosslingual.margin == CrossLingualRules().margin
    assert RetrievalParams.from_dict(p.to_dict()) == p
    assert RetrievalParams().with_(crosslingual={"margin": 0.2}).crosslingual.margin == 0.2


def test_a_sentence_of_the_question_language_is_not_summed_over_lists():
    a1, a2 = _hit("a", 1, "Rated power: 1800 W", 1.0, "en"), _hit("a", 1, "Rated power: 1800 W", 0.9, "en")
    out = fuse([(None, [a1]), (None, [a2])], top_k=3)
    assert len(out) == 1 and out[0].score == pytest.approx(1.0)


@pytest.mark.parametrize("text", ["。", ". ", " ", "——", "？！"])
def test_a_sentence_without_a_word_ranks_after_every_sentence_with_one(text):
    # e5 puts "。" close to every question: it was the other language's top dense hit for many
    # XQuAD questions and pushed answers out of the top 3
    junk = _hit("x", 0, text, 2.5)
    good, weak = _hit("a", 1, "E2 表示风扇故障。", 1.0), _hit("b", 2, "E3 表示干烧。", 0.2)
    out = fuse([(None, [junk, good, weak])], top_k=2)
    assert [h.sentence.text for h in out] == ["E2 表示风扇故障。", "E3 表示干烧。"]
    # ... but it is still a hit when nothing else is (an off-topic question against the sample
    # manuals finds only table borders: its closest passages are still shown, as not an answer)
    junk, border = _hit("x", 0, text, 2.5), _hit("t", 4, "|", 0.7)
    out = fuse([(None, [border, junk])], top_k=3)
    assert sorted(h.sentence.text for h in out) == sorted([text, "|"])
    assert all(XlRule.EMPTY_LAST.value in h.trace for h in out)


def test_numbers_and_codes_are_words():
    out = fuse([("lang-list", [_hit("a", 1, "1895.", 1.0), _hit("b", 1, "E2", 0.9)])], top_k=3)
    assert len(out) == 2


def test_subject_documents_still_compete_in_their_own_list():
    sub = _hit("a", 1, "E2 means fan fault.", 0.4, "en")
    plain = _hit("a", 1, "E2 means fan fault.", 1.9, "en")
    out = fuse([("translation", [plain]), ("translation", [sub], True)], top_k=3, weights={"a.txt": 1.0}, bonus=0.5)
    assert len(out) == 1 and out[0].score == pytest.approx(0.4 + 0.5) and out[0].via == "translation+alias"
    assert out[0].trace == [XlRule.SUBJECT.value]


def test_a_named_products_sentence_is_not_passed_by_another_languages_score():
    # the sample manuals, "电热水壶第一次使用前要做什么？": the kettle's answer stays above the rice
    # cooker's English "BEFORE FIRST USE", whatever the English lists' scores (normalised within each
    # list, they do not compare across languages: a titled FAQ lost same-language answers so) with
    # subject_passed_by_score off (the default); with it on a higher list score passes it
    from dataclasses import replace

    def run(named_score, **rules):
        named = _hit("k", 5, "5. 电热水壶第一次使用前，请将壶内装满水至MAX刻度，煮沸后倒掉。", named_score, "zh", 0.80)
        head_ll = _hit("r", 7, "BEFORE FIRST USE\n", 1.2, "en", 0.86)
        head_tr = _hit("r", 7, "BEFORE FIRST USE\n", 1.77, "en", 0.95, 10.0)
        out = fuse([(None, []), ("lang-list", [head_ll]), ("translation", [head_tr]), (None, [named], True)],
                   top_k=2, weights={"k.txt": 1.0}, bonus=0.5, qlang="zh",
                   rules=replace(CrossLingualRules(), **rules))
        return [h.sentence.doc_id for h in out], out
    for score in (1.58, 1.0):
        docs, out = run(score)
        assert docs == ["k", "r"] and out[0].trace == [XlRule.SUBJECT.value]
        assert XlRule.FOREIGN_AFTER.value in out[1].trace
    docs, out = run(1.58, subject_passed_by_score=True)  # on: a higher list score passes it
    assert docs == ["k", "r"] and out[0].trace == [XlRule.SUBJECT.value]
    docs, out = run(1.0, subject_passed_by_score=True)
    assert docs == ["r", "k"] and f"{XlRule.FOREIGN_ENTERS.value}:score" in out[0].trace


def test_another_products_sentences_rank_after_every_other_sentence():
    """After the sentences of documents that are no other product's (an FAQ), at most at the
    score above them; one naming the named product itself is not another product's (``exempt``)."""
    def lists():  # fresh hits each time (fuse sets their rank and score)
        named = _hit("k", 5, "5. 电热水壶第一次使用前，请将壶内装满水。", 1.4)
        rice = _hit("r", 8, "Rinse the inner pot before first use.", 1.8, "en", 0.9)
        faq = _hit("q", 3, "Descale it monthly.", 1.0, "en", 0.88)
        faq_named = _hit("f", 4, "On the KX-2000 kettle, E4 means poor contact.", 1.6, "en", 0.89)
        return [("translation", [rice, faq, faq_named]), (None, [named], True)]

    args = dict(top_k=4, weights={"k.txt": 1.0}, bonus=0.5, foreign={"r.txt", "f.txt"},
                exempt=lambda h: "KX-2000" in h.sentence.text, qlang="zh")
    out = fuse(lists(), **args)
    assert [h.sentence.doc_id for h in out][0] == "k" and out[-1].sentence.doc_id == "r"
    assert XlRule.OTHER_PRODUCT_LAST.value in out[-1].trace
    assert out[3].score <= out[2].score  # shown at most at the score above it
    off = fuse(lists(), **args, rules=CrossLingualRules(other_product_last=False))
    assert [h.sentence.doc_id for h in off][-1] != "r"


# -- the dictionary's English side ---------------------------------------------------------
@pytest.fixture(scope="module")
def g():
    from swr.text.glossary import glossary

    return glossary()


def test_a_possessive_is_the_name(g):
    zh = g.translate("What party is strongest in Melbourne's suburbs?", "zh")
    assert "墨尔本" in zh and "Melbourne's" not in zh
    assert "猫本" not in zh  # the slang name came first while "Melbourne, Australia" was not a key


def test_names_are_found_by_the_head_of_their_gloss(g):
    # CC-CEDICT: 丰田 "Toyota, Japanese car make" / "Toyota or Toyoda"
    assert "丰田" in g.translate("When will Toyota close its plant?", "zh")


def test_be_glosses_and_irregular_verbs(g):
    assert g.translate("Where was he born?", "zh").split()[0] in g.en_zh["be born"]  # 出生 / 生 / 诞生
    said = g.translate("What has Toyota said?", "zh")
    assert "赛义迪" not in said  # "said" is "say", not the name Said
    assert "主要" in g.translate("What is it mainly used for?", "zh")  # -ly: mainly -> main


def test_suffix_glosses_are_not_words(g):
    # 有 ends with the glosses "-ful", "-ed", "-al": "-al" matched "Al-Biruni" in English articles
    assert g.zh_en["有"] and not any(x.startswith("-") for x in g.zh_en["有"])
    en = g.translate("在哪些地方不再有体罚？", "en", known=lambda w: w not in ("have", "there is", "having", "with"))
    assert "corporal punishment" in en and "-al" not in en.split()




class _Recorder:
    """A store that records the requests of one cross-lingual search and finds one sentence per
    other-language list (the unit beside tests/test_crosslingual.py's real store)."""

    def __init__(self):
        self.reqs = []

    def search_many(self, reqs):
        self.reqs += reqs
        return [[] if r.lang in (None, "en") else [_hit("z1", 1, "水壶每月除垢一次。", 1.0, "zh", 0.8, 2.0)]
                for r in reqs]


@pytest.mark.parametrize("depth", [8, 25])
def test_another_languages_lists_are_as_deep_as_the_rules_say(depth):
    import numpy as np

    from swr.store import SearchRequest
    from swr.text.sparse import SparseVec

    store, vec = _Recorder(), np.ones(4, dtype=np.float32) / 2
    req = SearchRequest(kb="kb", dense=vec, sparse=SparseVec([1], [1.0]), top_k=3)
    hits, plan = crosslingual.search(store, lambda t: vec, lambda t: SparseVec([2], [1.0]), req,
                                     "How often is the kettle descaled?", lambda q, lang: "水壶 除垢",
                                     kb_langs={"en", "zh"}, rules=CrossLingualRules(other_depth=depth))
    by = {(r.lang, r.dense is vec): r.top_k for r in store.reqs}
    assert by[(None, True)] == 8  # the question language's list: the plain search's depth (max(2k, k + 5))
    assert by[("zh", True)] == depth  # the other language's list with the question's vectors
    assert by[("zh", False)] == depth  # and the translation's
    assert plan.translations == {"zh": "水壶 除垢"} and [h.sentence.doc_id for h in hits] == ["z1"]


def test_a_title_line_found_by_both_lists_counts_as_found_by_both():
    """No title-line exemption: it changed no figure on BiPaR, XQuAD or the sample presets."""
    head_ll, head_tr = _hit("r", 7, "BEFORE FIRST USE\n", 1.2, "en", 0.85), _hit("r", 7, "BEFORE FIRST USE\n", 1.5, "en", 0.9)
    out = fuse([("lang-list", [head_ll]), ("translation", [head_tr])], top_k=1)
    assert XlRule.BOTH_LISTS.value in out[0].trace


def test_the_translation_reply_check_reads_its_length_limit_from_the_rules():
    from swr.retrieve.xl_translate import check_translation

    q, reply = "空气炸锅的容量是多少？", "What is the capacity of the air fryer in litres?"
    assert check_translation(q, reply, "en") == reply
    assert check_translation(q, reply, "en", CrossLingualRules(reply_ratio=1, reply_extra_chars=10)) is None


def test_the_question_languages_best_sentence_stays_in_the_top_k():
    """Three other-language sentences that each beat it do not push the question language's best
    sentence out of the top 3: it takes the last place, traced ``own_kept``; off (0) it is pushed out
    (an English question whose English answer is indexed got three Chinese sentences on a
    neighbouring topic)."""
    from dataclasses import replace

    own = [_hit("e1", 0, "The filter is cleaned every two weeks under running water.", 0.2, "en", 0.70, 1.0)]
    zh = [_hit(f"z{i}", i, f"滤网每两周用清水冲洗一次，晾干后装回机器第{i}格，再开机运行。", 1.9 - i / 10, "zh", 0.95, 9.0)
          for i in range(4)]
    lists = [(None, own), ("translation", zh), ("lang-list", zh)]
    fixed = CrossLingualRules(other_places=0)  # the fixed top k, where own_kept acts
    hits = fuse(lists, 3, rules=fixed, qlang="en")
    assert [h.sentence.lang for h in hits] == ["zh", "zh", "en"]
    assert hits[-1].trace[-1] == XlRule.OWN_KEPT.value
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    off = fuse(lists, 3, rules=replace(fixed, own_kept=0), qlang="en")
    assert [h.sentence.lang for h in off] == ["zh", "zh", "zh"]
    assert [h.sentence.lang for h in fuse(lists, 1, rules=fixed, qlang="en")] == ["zh"]  # top-k 1
    two = fuse(lists, 2, rules=replace(fixed, own_kept=2), qlang="en")
    assert [h.sentence.lang for h in two] == ["zh", "en"]  # one place left to the other language
    marks = [(None, [_hit("e2", 0, "—", 0.2, "en", 0.70, 1.0)]), ("translation", zh), ("lang-list", zh)]
    assert [h.sentence.lang for h in fuse(marks, 3, rules=fixed, qlang="en")] == ["zh"] * 3  # no word


def test_a_line_of_a_table_of_contents_goes_last():
    """"3. 首次使用前" under "## 目录" repeats a heading: it matched "电热水壶第一次使用前要做什么？" well and
    its window was the list of chapters, in the top 3 of the sample kettle manual."""
    from dataclasses import replace

    def lists():
        toc = _hit("k", 8, "3. 首次使用前\n", 1.9, "zh", 0.90, 9.0)
        toc.sentence = replace(toc.sentence, heading="目录", block_kind="list")
        return [(None, [toc, _hit("k", 40, "5. 电热水壶第一次使用前，请将壶内装满水至MAX刻度，煮沸后倒掉。", 1.8, "zh", 0.89, 8.0),
                        _hit("k", 41, "6. 最后一次倒水后，水壶即可正常使用。", 1.2, "zh", 0.85, 3.0)])]
    out = fuse(lists(), 3, rules=CrossLingualRules(), qlang="zh")
    assert [h.sentence.i for h in out] == [40, 41, 8] and XlRule.CONTENTS_LAST.value in out[-1].trace
    assert fuse(lists(), 3, rules=CrossLingualRules(contents_last=False), qlang="zh")[0].sentence.i == 8
    heading = _hit("k", 5, "## 目录\n", 1.0, "zh", 0.8)
    heading.sentence = replace(heading.sentence, heading="目录", block_kind="heading")
    assert XlRule.CONTENTS_LAST.value not in fuse([(None, [heading])], 1, qlang="zh")[0].trace


def test_the_heading_of_a_section_a_better_hit_is_in_gives_its_place():
    """"## 3. 首次使用前" under its own step 5: one passage either way (a section window is the same);
    its place goes to another passage."""
    from dataclasses import replace

    def lists():
        step = _hit("k", 76, "5. 电热水壶第一次使用前，请将壶内装满水至MAX刻度，煮沸后倒掉。", 1.9, "zh", 0.90, 9.0)
        step.sentence = replace(step.sentence, block_kind="list", section=69)
        head = _hit("k", 69, "## 3. 首次使用前\n\n", 1.8, "zh", 0.89, 8.0)
        head.sentence = replace(head.sentence, block_kind="heading", section=69)
        other = _hit("k", 120, "## 5. 温度设定\n\n", 1.2, "zh", 0.85, 3.0)
        other.sentence = replace(other.sentence, block_kind="heading", section=120)
        return [(None, [step, head, other])]
    out = fuse(lists(), 3, rules=CrossLingualRules(), qlang="zh")
    assert [h.sentence.i for h in out] == [76, 120, 69] and XlRule.HEADING_AFTER.value in out[-1].trace
    assert [h.sentence.i for h in fuse(lists(), 3, rules=CrossLingualRules(heading_after=False), qlang="zh")] == \
        [76, 69, 120]


def test_cross_lingual_search_never_takes_a_place_from_the_plain_search():
    """The plain search's top k (SWR_CROSSLINGUAL=off's) stays whatever the other language scores, and
    the other language's most probable sentences get places of their own beside it (``other_places``,
    at most top-k): a same-language answer is never pushed out, an other-language one is still shown."""
    own = [_hit("e1", 0, "The filter is cleaned every two weeks under running water.", 0.2, "en", 0.70, 1.0)]
    zh = [_hit(f"z{i}", i, f"滤网每两周用清水冲洗一次，晾干后装回机器第{i}格，再开机运行。", 1.9 - i / 10, "zh", 0.95, 9.0)
          for i in range(4)]
    hits = fuse([(None, own), ("translation", zh), ("lang-list", zh)], 3, rules=CrossLingualRules(), qlang="en")
    assert [h.sentence.lang for h in hits] == ["zh", "zh", "zh", "en"]  # the fusion's top 3, then the plain one
    assert hits[-1].trace[-1] == XlRule.PLAIN_KEPT.value
    out = fuse(_agreeing(), 3, rules=CrossLingualRules(), qlang="zh")  # the question language's three lead
    assert [h.sentence.doc_id for h in out] == ["z0", "z1", "z2", "e1", "e2"]
    assert [h.trace[-1] for h in out[3:]] == [XlRule.OTHER_PLACE.value] * 2
    one = fuse(_agreeing(), 3, rules=CrossLingualRules(other_places=1), qlang="zh")
    assert [h.sentence.doc_id for h in one] == ["z0", "z1", "z2", "e1"]
    assert [h.sentence.doc_id for h in fuse(_agreeing(), 1, rules=CrossLingualRules(), qlang="zh")] == ["z0", "e1"]
    # a question naming a document: another product's manual (a subject of its own, not named) takes an added
    # place only at unnamed_place_p (the kettle's first-use question got the air fryer's first-use lines)
    named = {"manual.txt": 1.0}  # a document with no candidate here
    kw = {"qlang": "zh", "unnamed": {"e1.txt", "e2.txt"}}
    skipped = fuse(_agreeing(), 3, named, rules=CrossLingualRules(unnamed_place_p=1.0), **kw)
    assert "e1" not in [h.sentence.doc_id for h in skipped] and "e2" not in [h.sentence.doc_id for h in skipped]
    kept = fuse(_agreeing(), 3, named, rules=CrossLingualRules(unnamed_place_p=0.0), **kw)
    assert {"e1", "e2"} <= {h.sentence.doc_id for h in kept}
    assert {"e1", "e2"} <= {h.sentence.doc_id for h in fuse(_agreeing(), 3, named, rules=CrossLingualRules(
        unnamed_place_p=1.0), qlang="zh")}  # the documents are not another product's: kept
    alone = fuse([(None, own)], 3, rules=CrossLingualRules(), qlang="en")  # one language: nothing is added
    assert [h.sentence.doc_id for h in alone] == ["e1"] and alone[0].trace == [XlRule.OWN_LANGUAGE.value]


def _agreeing(own_n: int = 3):
    """A Chinese question: its own list's sentences score high; the English sentence both English lists
    rank first scores below them (the bilingual FAQ's "扫地机器人支持哪些语音语言？": second and first)."""
    own = [_hit(f"z{j}", j, f"扫地机器人的语音助手第{j}条说明，支持定时清扫和回充。", 1.9 - j * 0.05, "zh", 0.90 - j * 0.005,
                8.0 - j, 0.62 - j * 0.005) for j in range(own_n)]
    text = "The robot speaks English, Chinese, German, French and Spanish; pick one in the app."
    ll = _hit("e1", 4, text, 1.2, "en", 0.78, 0.5, 0.30)
    tr = _hit("e1", 4, text, 1.3, "en", 0.79, 0.5, 0.31)
    other = _hit("e2", 1, "The dock's light shows white while the robot charges and goes off when it is full.",
                 1.0, "en", 0.77, 0.4, 0.28)
    return [(None, own), ("lang-list", [ll, other]), ("translation", [tr, other])]


def test_the_other_languages_sentence_both_its_lists_rank_first_keeps_a_place():
    """Both English lists rank the answer high, yet it was not clearly more likely than the Chinese
    near-topic sentences, so all three places went to them. It takes the last place (never the
    question language's best); without the rule the question language keeps all three."""
    fixed = CrossLingualRules(other_places=0)  # the fixed top k, where agreed_kept acts
    out = fuse(_agreeing(), 3, rules=fixed, qlang="zh")
    docs = [h.sentence.doc_id for h in out]
    assert docs == ["z0", "z1", "e1"], docs
    assert XlRule.AGREED_KEPT.value in out[2].trace
    off = fuse(_agreeing(), 3, rules=CrossLingualRules(agreed_kept=False, other_places=0), qlang="zh")
    assert [h.sentence.doc_id for h in off] == ["z0", "z1", "z2"]
    deep = fuse(_agreeing(), 3, rules=CrossLingualRules(agreed_rank=0, other_places=0), qlang="zh")  # too low
    assert [h.sentence.doc_id for h in deep] == ["z0", "z1", "z2"]
    assert [h.sentence.doc_id for h in fuse(_agreeing(), 1, rules=fixed, qlang="zh")] == ["z0"]
    few = fuse(_agreeing(own_n=1), 3, rules=fixed, qlang="zh")
    assert [h.sentence.doc_id for h in few][:2] == ["z0", "e1"]


def test_the_row_of_the_asked_code_is_not_pushed_out_by_the_other_languages_rows():
    """ "display says E21 and the motor stopped helping": the English E21 row, third in its own list,
    lost its place to two Chinese rows of other codes the calibrated model rated higher (an original
    bilingual FAQ). Listed beside its siblings (E13, E22), the asked code's row goes first; a model name
    without siblings, or the rule off, leaves the order as it was."""
    from dataclasses import replace

    def run(question_codes, **rules):
        own = [_hit("e1", 1, "When the bike detects a fault, the display shows a code.", 1.9, "en", 0.86, 5.0),
               _hit("e2", 2, "| E22 | Battery voltage low | Charge the battery. |", 1.5, "en", 0.84, 3.0),
               _hit("e3", 3, "| E21 | Battery temperature too high or too low | Let it warm up |", 1.4, "en", 0.83, 4.0)]
        tr = [_hit("z1", 1, "| E13 | 控制器温度过高 | 停车休息 15 分钟 |", 1.9, "zh", 0.90, 6.0),
              _hit("z2", 2, "冬季气温低于 0 °C 时电池无法充电，请在室内充电。", 1.8, "zh", 0.89, 5.0)]
        out = fuse([(None, own), ("translation", tr), ("lang-list", list(tr))], top_k=3, qlang="en",
                   rules=replace(CrossLingualRules(agreed_kept=False, own_kept=0, other_places=0), **rules),
                   codes=question_codes)
        return [h.sentence.doc_id for h in out], out

    docs, out = run(("E21",))
    assert docs[0] == "e3" and XlRule.CODE_FIRST.value in out[0].trace, [(h.sentence.doc_id, h.trace) for h in out]
    before, _ = run(("E21",), code_first=False)
    assert "e3" not in before, "the case the rule is for: without it the row is pushed out"
    assert run(("KX2000",))[0] == before  # no sibling listed: nothing moves
    assert run(())[0] == before


def test_a_code_is_written_with_or_without_its_leading_zeros():
    from swr.text import claims as cl

    assert cl.written("F3", "| F03 | Inlet water pressure too low |") and cl.written("F03", "showing F3")
    assert not cl.written("F3", "F30 error") and not cl.written("E2", "E20 means") and cl.written("E0", "E00")


def test_the_windows_cosines_decide_between_the_languages():
    """With each candidate's window embedded (swr/retrieve/xl_window.py), both models read its cosine
    with the question: the same lists rank the Chinese sentence above the English answer when its
    window is the closer, and below it when the English answer's window is (on product FAQs the
    sentences alone did not tell; bench/xl_window.py). Without windows the plain models decide."""
    own = [_hit("e1", 1, "The RV-8 stores up to 4 maps, one per floor.", 1.9, "en", 0.86, 9.0, 0.60),
           _hit("e2", 4, "Maps are kept in the app after a factory reset.", 1.5, "en", 0.84, 5.0, 0.55)]
    zh = _hit("z1", 3, "RV-8 最多可以设置 12 个定时清扫任务，每个任务可以选择房间。", 0.9, "zh", 0.84, 6.0, 0.58)
    lists = [(None, own), ("lang-list", [zh]), ("translation", [_hit("z1", 3, zh.sentence.text, 1.8, "zh", 0.90, 11.0,
                                                                      0.62)])]
    first = lambda windows: fuse(lists, 1, rules=CrossLingualRules(), qlang="en",  # noqa: E731
                                 windows=windows)[0].sentence.doc_id
    assert first({("e1", 1): 0.90, ("e2", 4): 0.80, ("z1", 3): 0.70}) == "e1"
    assert first({("e1", 1): 0.70, ("e2", 4): 0.70, ("z1", 3): 0.90}) == "z1"
    assert first({("e1", 1): 0.90, ("e2", 4): 0.80, ("z1", 3): 0.70}) != first({("e1", 1): 0.70, ("e2", 4): 0.70,
                                                                                ("z1", 3): 0.90})


def test_window_cosines_embed_each_candidates_neighbourhood():
    """xl_window.cosines: one neighbour fetch, each candidate's window joined and embedded once, its
    cosine with the question; nothing without a passage embedder, with window_context 0 or when every
    list is of the question's language."""
    from swr.retrieve import xl_window

    texts = {("d", j): f"sentence {j}." for j in range(6)}

    class Store:
        fetched: list = []

        def fetch_sentences(self, kb, keys):
            self.fetched.append(list(keys))
            return {k: Sentence(kb=kb, doc_id=k[0], source="d.md", i=k[1], n=6, start=0, end=1, text=texts[k], lang="en")
                    for k in keys if k in texts}

    embedded = []

    def embed(batch):
        embedded.extend(batch)
        return [[1.0, 0.0] if "sentence 0" in t else [0.0, 1.0] for t in batch]

    lists = [(None, [_hit("d", 0, "sentence 0.", 1.0, "en")]), ("translation", [_hit("d", 5, "sentence 5.", 0.5)])]
    store = Store()
    got = xl_window.cosines(store, embed, "kb", [1.0, 0.0], lists, 1)
    assert got == {("d", 0): 1.0, ("d", 5): 0.0} and len(store.fetched) == 1
    assert embedded == ["sentence 0. sentence 1.", "sentence 4. sentence 5."]
    assert xl_window.cosines(store, None, "kb", [1.0, 0.0], lists, 1) == {}
    assert xl_window.cosines(store, embed, "kb", [1.0, 0.0], lists, 0) == {}
    assert xl_window.cosines(store, embed, "kb", [1.0, 0.0], lists[:1], 1) == {}  # one language: nothing
