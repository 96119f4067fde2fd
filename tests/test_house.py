"""The shared helpers every stage uses: the CJK table, URL/secret redaction, the passage assembler
and the hit-span merger, and window building that leaves its input alone."""
from __future__ import annotations

import copy

from swr.core import lang
from swr.core.redact import redact, safe_url
from swr.core.types import Hit, PassageHit, Sentence
from swr.evaluate import normalize
from swr.retrieve import window as win
from swr.store.server import safe_url as server_safe_url
from swr.text.sparse import SparseEncoder


def test_one_cjk_table_answers_for_every_stage():
    assert not lang.has_cjk("KX-2000 kettle") and lang.has_cjk("电热水壶") and lang.has_cjk("カタカナ")
    assert lang.has_cjk("한국어") and lang.has_cjk("，") and lang.question_lang("怎么用？") == "zh"
    assert lang.question_lang("How?") == "en"
    assert lang.detect_lang("电热水壶 kettle") == "zh" and lang.detect_lang("a kettle 壶") == "en"
    assert lang.detect_lang("𠀀𠀁 x") == "zh", "supplementary ideographs count for the document tag"
    # evaluate's whitespace rule and the BM25 tokenizer use the same table
    assert normalize("电热\n水壶 kettle  base") == "电热水壶kettle base"
    assert normalize("カタ カナ") == "カタカナ"
    enc = SparseEncoder("jieba")
    assert enc.encode_query("㐀").indices, "Extension A ideographs are Chinese words to BM25"


def test_one_url_mask_and_secret_redaction():
    assert safe_url("https://u:p@qdrant.example:6333/x?api_key=s3cret") == "https://qdrant.example:6333/x?api_key=***"
    assert safe_url("http://localhost:6333") == "http://localhost:6333"
    assert server_safe_url is safe_url, "the Qdrant store masks with the shared function"
    assert redact("key sk-abcdef failed; Authorization: Bearer tok123", "sk-abcdef") == \
        "key *** failed; Authorization: Bearer ***"
    assert redact("short key ab", "ab") == "short key ab", "keys under 4 characters are not searched for"


def _doc(n: int) -> list[Sentence]:
    out, pos = [], 0
    for i in range(n):
        t = f"  S{i} text.\n" if i == 0 else f"S{i} text. "
        out.append(Sentence(kb="kb", doc_id="d", source="d.txt", i=i, n=n, start=pos, end=pos + len(t), text=t))
        pos += len(t)
    return out


def test_window_building_leaves_the_hits_alone():
    doc = _doc(8)
    hits = [Hit(sentence=doc[5], score=0.9), Hit(sentence=doc[1], score=0.5)]  # no ranks yet
    before = copy.deepcopy(hits)
    passages = win.build(hits, 1, lambda keys: {k: doc[k[1]] for k in keys})
    assert hits == before, "build() must not change the hits it is given"
    assert [[h.rank for h in p.hits] for p in passages] == [[1], [2]], "list positions become ranks"


def test_join_sentences_gives_each_sentence_its_span_in_the_stripped_text():
    run = _doc(3)
    text, spans = win.join_sentences(run)
    assert text == "S0 text.\nS1 text. S2 text."
    assert [text[a:b] for a, b in spans] == ["S0 text.", "S1 text.", "S2 text."]


def test_hit_spans_merge_overlaps_and_optionally_touching_spans():
    text = "one two three four"
    h = [PassageHit(i=0, sentence="one two", score=1, start=0, end=7),
         PassageHit(i=1, sentence="two three", score=1, start=4, end=13),
         PassageHit(i=2, sentence=" four", score=1, start=13, end=18)]
    assert [(a, b, len(hs)) for a, b, hs in win.hit_spans(text, h)] == [(0, 13, 2), (14, 18, 1)]
    glued = [PassageHit(i=0, sentence="一二", score=1, start=0, end=2),
             PassageHit(i=1, sentence="三四", score=1, start=2, end=4)]
    assert [(a, b) for a, b, _ in win.hit_spans("一二三四", glued)] == [(0, 2), (2, 4)]
    assert [(a, b) for a, b, _ in win.hit_spans("一二三四", glued, merge_touching=True)] == [(0, 4)]
    stale = PassageHit(i=3, sentence="three", score=1, start=0, end=2)  # offsets off: found by its text
    assert win.hit_span(text, stale) == (8, 13)
