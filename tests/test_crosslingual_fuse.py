"""The cross-lingual fusion and the dictionary's English lookups.

Pure functions on hand-built hits (``swr.retrieve.crosslingual.fuse``) and the real CC-CEDICT glossary:
what each test pins down was measured on the XQuAD dev half or the sample manuals
(bench/README.md §8).
"""
from __future__ import annotations

import pytest

from swr.core.types import Hit, Sentence
from swr.retrieve import crosslingual
from swr.retrieve.crosslingual import fuse


def test_the_measured_rules_are_the_defaults():
    # measured with the title-line and other-product rules below (docs/retrieval.md)
    assert crosslingual.BETTER_FIRST is True and crosslingual.EMPTY_LAST is True


def test_the_first_list_fusion_keeps_the_first_lists_score(monkeypatch):
    monkeypatch.setattr(crosslingual, "BETTER_FIRST", False)
    right_ll, right_tr = _hit("a", 1, "额定功率：1800W", 0.5), _hit("a", 1, "额定功率：1800W", 1.5)
    out = fuse([("lang-list", [right_ll]), ("translation", [right_tr])], top_k=1)
    assert out[0].score == pytest.approx(0.5 + crosslingual.SECOND_LIST * 1.5)


def _hit(doc: str, i: int, text: str, score: float, lang: str = "zh") -> Hit:
    s = Sentence(kb="kb", doc_id=doc, source=f"{doc}.txt", i=i, n=10, start=0, end=len(text), text=text, lang=lang)
    return Hit(sentence=s, score=score)


def test_a_sentence_found_by_both_lists_of_the_other_language_keeps_its_better_score():
    # the lang-list (the question's own vectors) comes first and scores the right sentence low;
    # the translation's list scores it high. Its score is the better one plus SECOND_LIST x the
    # other, whichever list came first (it was the first list's score plus SECOND_LIST x the
    # second's, so a low first score sank a sentence the translation found best)
    right_ll, right_tr = _hit("a", 1, "额定功率：1800W", 0.5), _hit("a", 1, "额定功率：1800W", 1.5)
    other = _hit("b", 2, "容量：1.7L", 1.6)
    own = _hit("c", 3, "The kettle is rated at 220 V.", 1.55, lang="en")
    out = fuse([("lang-list", [right_ll]), ("translation", [right_tr, other]), (None, [own])], top_k=3)
    assert [h.sentence.doc_id for h in out] == ["a", "b", "c"]
    assert out[0].score == pytest.approx(1.5 + crosslingual.SECOND_LIST * 0.5)
    assert out[0].via == "translation"  # the list that gave the better score says how it was found


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
    out = fuse([("lang-list", [junk, good, weak])], top_k=2)
    assert [h.sentence.text for h in out] == ["E2 表示风扇故障。", "E3 表示干烧。"]
    # ... but it is still a hit when nothing else is (an off-topic question against the sample
    # manuals finds only table borders: its closest passages are still shown, as not an answer)
    junk, border = _hit("x", 0, text, 2.5), _hit("t", 4, "|", 0.7)
    assert [h.sentence.text for h in fuse([("lang-list", [border, junk])], top_k=3)] == [text, "|"]


def test_numbers_and_codes_are_words():
    out = fuse([("lang-list", [_hit("a", 1, "1895.", 1.0), _hit("b", 1, "E2", 0.9)])], top_k=3)
    assert len(out) == 2


def test_subject_documents_still_compete_in_their_own_list():
    sub = _hit("a", 1, "E2 means fan fault.", 0.4, "en")
    plain = _hit("a", 1, "E2 means fan fault.", 1.9, "en")
    out = fuse([("translation", [plain]), ("translation", [sub], True)], top_k=3, weights={"a.txt": 1.0}, bonus=0.5)
    assert len(out) == 1 and out[0].score == pytest.approx(0.4 + 0.5) and out[0].via == "translation+alias"


@pytest.mark.parametrize("text,kind,title", [
    ("BEFORE FIRST USE\n", "paragraph", True), ("Before First Use\n\n", None, True),
    ("3. Before First Use", "heading", True), ("Quick Start Guide for the Cooker", None, True),
    ("The motor does not reach its normal speed.", "paragraph", False),
    ("Remove all packaging", None, False), ("E2 means fan fault", None, False),
    ("5. 电热水壶第一次使用前，请将壶内装满水至MAX刻度。", "list", False), ("额定功率：1800W", None, False),
    ("The Norman Conquest of England in 1066 and its Aftermath in the North", None, False),  # > 8 words
])
def test_title_lines(text, kind, title):
    s = Sentence(kb="kb", doc_id="d", source="d.txt", i=0, n=1, start=0, end=len(text), text=text, block_kind=kind)
    assert crosslingual.heading_like(s) is title


def test_a_title_line_found_by_both_lists_gets_no_second_list_bonus():
    # the sample manuals: "BEFORE FIRST USE" (the rice cooker's English guide) was found by both
    # English lists of "电热水壶第一次使用前要做什么？" and its better score plus 0.5 x the other beat the
    # kettle's own answer; a title line answers nothing, so it keeps its better score only
    head_ll, head_tr = _hit("r", 7, "BEFORE FIRST USE\n", 1.2, "en"), _hit("r", 7, "BEFORE FIRST USE\n", 1.5, "en")
    body_ll, body_tr = _hit("f", 9, "Wash the basket in warm soapy water.", 1.1, "en"), \
        _hit("f", 9, "Wash the basket in warm soapy water.", 1.4, "en")
    out = fuse([("lang-list", [head_ll, body_ll]), ("translation", [head_tr, body_tr])], top_k=2)
    assert [h.sentence.doc_id for h in out] == ["f", "r"]
    assert out[1].score == pytest.approx(1.5) and out[0].score == pytest.approx(1.4 + crosslingual.SECOND_LIST * 1.1)


def test_another_products_sentence_never_outranks_the_named_products_best():
    named = _hit("k", 5, "5. 电热水壶第一次使用前，请将壶内装满水。", 1.4)
    rice = _hit("r", 8, "Rinse the inner pot before first use.", 2.2, "en")
    fryer = _hit("f", 9, "Wash the basket before first use.", 2.0, "en")
    faq = _hit("q", 3, "Descale the kettle monthly.", 1.95, "en")  # no subject of its own: not capped
    out = fuse([("translation", [rice, fryer, faq]), (None, [named], True)], top_k=4,
               weights={"k.txt": 1.0}, bonus=0.5, foreign={"r.txt", "f.txt"})
    assert [h.sentence.doc_id for h in out] == ["q", "k", "r", "f"]  # capped ones keep their own order
    assert out[1].score == pytest.approx(1.9) and out[2].score == pytest.approx(1.9) and out[1].via == "alias"
    # without a named document's hit nothing is capped
    rice, fryer = _hit("r", 8, "Rinse the inner pot.", 2.2, "en"), _hit("f", 9, "Wash the basket.", 2.0, "en")
    out = fuse([("translation", [rice, fryer])], top_k=2, weights={"k.txt": 1.0}, bonus=0.5, foreign={"r.txt"})
    assert [h.score for h in out] == [pytest.approx(2.2), pytest.approx(2.0)]


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


def test_another_products_sentences_rank_after_every_other_sentence():
    """Not only after the named product's best: after the sentences of documents that are no other
    product's (an FAQ), at most at the score above them; one naming the named product itself is
    not another product's (``exempt``)."""
    def lists():  # fresh hits each time (fuse sets their rank and score)
        named = _hit("k", 5, "5. 电热水壶第一次使用前，请将壶内装满水。", 1.4)
        rice = _hit("r", 8, "Rinse the inner pot before first use.", 1.8, "en")
        faq = _hit("q", 3, "Descale it monthly.", 1.0, "en")
        faq_named = _hit("f", 4, "On the KX-2000 kettle, E4 means poor contact.", 1.6, "en")
        return [("translation", [rice, faq, faq_named]), (None, [named], True)]

    args = dict(top_k=4, weights={"k.txt": 1.0}, bonus=0.5, foreign={"r.txt", "f.txt"},
                exempt=lambda h: "KX-2000" in h.sentence.text)
    out = fuse(lists(), **args)
    assert [h.sentence.doc_id for h in out] == ["k", "f", "q", "r"]
    assert out[3].score == pytest.approx(1.0)  # shown at most at the score above it
    saved, crosslingual.FOREIGN_LAST = crosslingual.FOREIGN_LAST, False
    try:  # the rule before: only after the named best, so above the FAQ
        assert [h.sentence.doc_id for h in fuse(lists(), **args)] == ["k", "r", "f", "q"]
    finally:
        crosslingual.FOREIGN_LAST = saved
