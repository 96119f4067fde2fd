"""A knowledge base's own words (swr/text/kb_words.py, RetrievalParams.glossary): parsed from the
editor's lines, published with the knowledge base's settings, read first by the cross-lingual
search, taken into the trash with the knowledge base and dropped with it for good."""
from __future__ import annotations

import json

import pytest

from swr.core.errors import BadRequest
from swr.core.params import MAX_GLOSSARY, RetrievalParams
from swr.text import kb_words

WORDS = "Lumora\t明澜\n# our dock\n集尘座 = auto-empty station\n\nLumora Home app = 明澜智家\n"


def test_lines_are_read_either_way_round_and_a_bad_line_is_named():
    pairs = kb_words.parse(WORDS)
    assert pairs == (("Lumora", "明澜"), ("auto-empty station", "集尘座"), ("Lumora Home app", "明澜智家"))
    assert kb_words.parse(kb_words.as_text(pairs)) == pairs
    with pytest.raises(BadRequest, match="Line 2"):
        kb_words.parse("Lumora\t明澜\nLumora only")
    with pytest.raises(BadRequest, match="Line 1 .*English side and a Chinese side"):
        kb_words.parse("dock\tstation")
    with pytest.raises(BadRequest, match="limit"):
        kb_words.parse("\n".join(f"w{i}\t词" for i in range(MAX_GLOSSARY + 1)))


def test_the_words_travel_as_a_typed_field_of_the_params():
    p = RetrievalParams(glossary=[["Lumora", " 明澜 "]])  # as JSON gives it back
    assert p.glossary == (("Lumora", "明澜"),)
    d = p.to_dict()
    assert json.loads(json.dumps(d["glossary"])) == [["Lumora", "明澜"]]  # as published.json keeps it
    assert RetrievalParams.from_dict(json.loads(json.dumps({"glossary": d["glossary"]}))) == p
    assert RetrievalParams.from_dict(d) == p and p.with_(top_k=5).glossary == p.glossary
    with pytest.raises(BadRequest):
        RetrievalParams(glossary=[["", "明澜"]])


def test_the_phrases_the_words_hold_are_replaced_longest_first():
    pairs = kb_words.parse(WORDS)
    found, rest = kb_words.pick("明澜智家 App 里怎么看明澜扫地机的集尘座？", "en", pairs)
    assert found == ["Lumora Home app", "auto-empty station", "Lumora"] and "明澜" not in rest
    found, rest = kb_words.pick("How do I empty the Auto-Empty Station of my lumora robot?", "zh", pairs)
    assert found == ["集尘座", "明澜"] and "robot" in rest and "Station" not in rest
    assert kb_words.pick("Lumoras are not Lumora-like", "zh", pairs)[0] == []  # whole words only
    assert kb_words.with_words(["明澜"], ("扫地机器人", "扫地机器人 机器人")) == ("明澜 扫地机器人", "明澜 扫地机器人 机器人")
    assert kb_words.with_words(["明澜"], None) == "明澜" and kb_words.with_words([], "x") == "x"


KETTLE_ZH = "明澜电热水壶使用说明。\n明澜电热水壶的除垢周期为每月一次，请使用白醋。\n".encode()
FRYER_EN = b"The Nimbus air fryer basket is dishwasher safe. Preheat the Nimbus for three minutes.\n"


def test_a_published_word_reaches_the_translation_and_the_other_languages_documents(e5_engine):
    kb = "words_kb"
    e5_engine.index_files(kb, [("kettle_zh.txt", KETTLE_ZH), ("fryer_en.txt", FRYER_EN)])
    try:
        q = "How often should I descale the Aquila kettle?"
        before = e5_engine.retrieve(q, kb).hits.translations["zh"]
        assert "明澜" not in before
        e5_engine.publish(kb, e5_engine.kb_params(kb).with_(glossary=kb_words.parse("Aquila\t明澜")), "lead",
                          origin="words")
        r = e5_engine.retrieve(q, kb)  # the published settings: every consumer starts from them
        assert r.hits.translations["zh"].startswith("明澜") and r.hits[0].sentence.source == "kettle_zh.txt"
        assert e5_engine.published(kb).origin == "words"
        # deleted into the trash, the words go along; a new knowledge base of the name starts without them
        e5_engine.delete_kb(kb)
        assert e5_engine.published(kb) is None and e5_engine.kb_params(kb).glossary == ()
        [entry] = [e for e in e5_engine.trash.entries() if e.kb == kb]
        e5_engine.trash.restore(entry.id)
        assert e5_engine.kb_params(kb).glossary == (("Aquila", "明澜"),)
    finally:
        e5_engine.delete_kb(kb, trash=False)
    assert e5_engine.published(kb) is None  # deleted for good: its settings too
