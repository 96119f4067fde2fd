"""Tests of swr.text.split: the boundary rules, the length cap, and lossless tiling on random text."""
from __future__ import annotations

import time

import pytest
import regex
from hypothesis import given, settings, strategies as st

from swr.core.lang import detect_lang
from swr.text.split import SPLITTER_VERSION, split_sentences, split_spans


def check_tiling(text: str, spans: list[tuple[int, int]], max_chars: int) -> None:
    """Assert every guarantee split_spans documents."""
    if not text:
        assert spans == []
        return
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text)
    for (a, b), (c, _) in zip(spans, spans[1:]):
        assert b == c
    for a, b in spans:
        assert b > a
    if text.isspace():
        assert spans == [(0, len(text))]
        return
    for k, (a, b) in enumerate(spans):
        piece = text[a:b]
        assert not piece.isspace(), (k, piece)
        if k > 0:  # (a whitespace character that a mark extends is one cluster with it: kept whole)
            assert not regex.match(r"\X", piece).group().isspace(), (k, piece)
        assert len(piece.strip()) <= max_chars, (k, len(piece.strip()), max_chars)


def sents(text: str, max_chars: int = 300) -> list[str]:
    spans = split_spans(text, max_chars)
    check_tiling(text, spans, max_chars)
    return [text[a:b] for a, b in spans]


def test_version_constant():
    assert SPLITTER_VERSION == "zh-en-3"


def test_a_wordless_piece_in_a_line_joins_the_sentence_before_it():
    # a table cell ending with 。 left the row's closing " |" a sentence of its own
    assert sents("| E6 | 溢出报警 | 泡沫过多。 |\n| E7 | 好。 |\n") == ["| E6 | 溢出报警 | 泡沫过多。 |\n",
                                                                  "| E7 | 好。 |\n"]
    assert sents("你好。）再见。。。") == ["你好。）", "再见。。。"]


def test_a_wordless_line_stays_a_sentence():
    assert sents("| a | b |\n| --- | --- |\n| x | y |\n") == ["| a | b |\n", "| --- | --- |\n", "| x | y |\n"]
    assert sents("Title\n\n---\n\nText.") == ["Title\n\n", "---\n\n", "Text."]


# --- basic cases -----------------------------------------------------------------------------


def test_empty_text():
    assert split_spans("") == []
    assert split_sentences("") == []


@pytest.mark.parametrize("text", [" ", "   ", "\n", "\r\n\r\n", " \t\n \u3000", "\u2028"])
def test_whitespace_only_is_one_span(text):
    assert split_spans(text) == [(0, len(text))]


def test_single_sentence_without_terminator():
    assert sents("hello world") == ["hello world"]


def test_split_sentences_joins_back():
    text = "First one. Second one!  第三句。第四句？\n\nFifth"
    assert "".join(split_sentences(text)) == text


def test_max_chars_must_be_positive():
    with pytest.raises(ValueError):
        split_spans("abc", 0)


# --- Chinese -----------------------------------------------------------------------------------


def test_chinese_terminators():
    assert sents("今天天气很好。我们去公园吧！你去吗？好的；走吧") == [
        "今天天气很好。",
        "我们去公园吧！",
        "你去吗？",
        "好的；",
        "走吧",
    ]


def test_chinese_ellipsis_and_repeated_terminators():
    assert sents("他说……然后走了。真的？！不会吧") == ["他说……", "然后走了。", "真的？！", "不会吧"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("“你好。”他说。", ["“你好。”", "他说。"]),
        ("「走吧！」她说", ["「走吧！」", "她说"]),
        ("『真的？』是的", ["『真的？』", "是的"]),
        ("（见上文。）下一句", ["（见上文。）", "下一句"]),
        ("他问：“为什么？”我不知道", ["他问：“为什么？”", "我不知道"]),
    ],
)
def test_closing_quotes_stay_with_sentence(text, expected):
    assert sents(text) == expected


def test_chinese_with_ascii_punctuation():
    assert sents("好吗?我们走!马上") == ["好吗?", "我们走!", "马上"]


def test_chinese_comma_does_not_split_short_sentence():
    assert sents("我们使用Python，和LlamaIndex构建系统。") == ["我们使用Python，和LlamaIndex构建系统。"]


# --- English -------------------------------------------------------------------------------------


def test_english_sentences():
    assert sents("Hello world. How are you? I am fine! Thanks.") == [
        "Hello world. ",
        "How are you? ",
        "I am fine! ",
        "Thanks.",
    ]


def test_whitespace_after_boundary_goes_to_previous_sentence():
    assert sents("One.   Two.\t\tThree.") == ["One.   ", "Two.\t\t", "Three."]


def test_period_without_following_space_does_not_split():
    assert sents("Hello.World is one token") == ["Hello.World is one token"]


@pytest.mark.parametrize(
    "abbr",
    ["Dr.", "Mr.", "Mrs.", "Ms.", "Prof.", "St.", "vs.", "etc.", "e.g.", "i.e.", "U.S.", "U.K.",
     "No.", "Fig.", "approx.", "Inc.", "Ltd.", "Co.", "Jr.", "Sr."],
)
def test_abbreviations_do_not_split(abbr):
    text = f"We met {abbr} Smith yesterday. Then we left."
    assert sents(text) == [f"We met {abbr} Smith yesterday. ", "Then we left."]


def test_abbreviation_in_parentheses():
    assert sents("It grew (see Fig. 3) quickly. Next") == ["It grew (see Fig. 3) quickly. ", "Next"]


def test_single_capital_initial():
    assert sents("J. Smith and A. B. Jones wrote it. Done.") == [
        "J. Smith and A. B. Jones wrote it. ",
        "Done.",
    ]


def test_dotted_initialisms():
    assert sents("At 9 a.m. we start. Go.") == ["At 9 a.m. we start. ", "Go."]


@pytest.mark.parametrize("text", ["Pi is 3.5 roughly", "Use v1.2 now", "IP 10.0.0.1 is local"])
def test_numbers_never_split(text):
    assert sents(text) == [text]


def test_year_at_end_of_sentence_splits():
    assert sents("It happened in 2020. The end.") == ["It happened in 2020. ", "The end."]


def test_numbered_list_marker_is_not_a_sentence():
    assert sents("1. Install it.\n2. Run it") == ["1. Install it.\n", "2. Run it"]


def test_quotes_after_english_terminator():
    assert sents('He said "Stop." Then he left.') == ['He said "Stop." ', "Then he left."]
    assert sents("(This is aside.) Next one.") == ["(This is aside.) ", "Next one."]
    assert sents("Was it 'yes?' Maybe") == ["Was it 'yes?' ", "Maybe"]


def test_ascii_question_mark_in_url_does_not_split():
    assert sents("Open http://a.com/?q=1&x=2 now") == ["Open http://a.com/?q=1&x=2 now"]


def test_ellipsis_english():
    assert sents("Wait... what happened") == ["Wait... ", "what happened"]
    assert sents("Well… maybe") == ["Well… ", "maybe"]


def test_mixed_language():
    text = "We use Qdrant. 它很快。It is open source! 我们喜欢它"
    assert sents(text) == ["We use Qdrant. ", "它很快。", "It is open source! ", "我们喜欢它"]


# --- line breaks -------------------------------------------------------------------------------


def test_line_breaks():
    assert sents("a\nb\rc\r\nd\u2028e\u2029f") == ["a\n", "b\r", "c\r\n", "d\u2028", "e\u2029", "f"]


def test_crlf_is_one_unit():
    spans = split_spans("line one\r\nline two\r\n")
    assert spans == [(0, 10), (10, 20)]


def test_blank_lines_stick_to_previous_sentence():
    assert sents("Para one.\n\n\nPara two") == ["Para one.\n\n\n", "Para two"]


def test_leading_whitespace_merges_into_first_sentence():
    assert sents("\n\n  Hello. World") == ["\n\n  Hello. ", "World"]


def test_abbreviation_before_line_break_still_splits():
    assert sents("Signed, Dr.\nNext line") == ["Signed, Dr.\n", "Next line"]


def test_many_short_lines_fast():
    text = "a\n" * 100_000
    t0 = time.perf_counter()
    spans = split_spans(text)
    assert time.perf_counter() - t0 < 2
    assert len(spans) == 100_000


# --- length cap --------------------------------------------------------------------------------


def test_long_chinese_sentence_cut_at_commas():
    clause = "这是一个没有句号的很长的分句"  # 14 chars
    text = "，".join([clause] * 40)
    out = sents(text, max_chars=50)
    assert len(out) > 1
    for piece in out[:-1]:
        assert piece.endswith("，")
        assert len(piece) >= 25  # cut in the second half of the window


def test_long_english_sentence_cut_at_commas_then_whitespace():
    text = ", ".join(["alpha beta gamma"] * 50)
    out = sents(text, max_chars=60)
    assert all(p.rstrip().endswith(",") for p in out[:-1])
    text = " ".join(["word"] * 500)
    out = sents(text, max_chars=60)
    assert len(out) > 1
    assert all(p.endswith(" ") and not p[0].isspace() for p in out[:-1])
    assert all(not p.strip().startswith("ord") for p in out)  # never mid-word


def test_number_commas_not_used_as_cut_points():
    text = " ".join(["1,000,000"] * 100)
    out = sents(text, max_chars=50)
    assert all(p.strip().endswith("0") for p in out)


def test_no_punctuation_hard_cut():
    text = "x" * 1000
    out = sents(text, max_chars=300)
    assert [len(p) for p in out] == [300, 300, 300, 100]


def test_one_megabyte_line_is_fast():
    text = "abcdefghij" * 100_000
    t0 = time.perf_counter()
    spans = split_spans(text, 300)
    elapsed = time.perf_counter() - t0
    assert elapsed < 2
    check_tiling(text, spans, 300)


def test_one_megabyte_of_dots_is_fast():
    text = "." * 1_000_000
    t0 = time.perf_counter()
    spans = split_spans(text, 300)
    assert time.perf_counter() - t0 < 2
    check_tiling(text, spans, 300)


# ZWJ sequences, flags, keycaps, tags: tests/test_graphemes.py checks every cut against UAX #29


def test_hard_cut_keeps_combining_marks():
    text = "e\u0301" * 100  # e + combining acute
    out = sents(text, 11)
    assert all(not p.startswith("\u0301") for p in out)


def test_trailing_whitespace_may_exceed_cap():
    text = "abc" + " " * 50 + "def"
    out = sents(text, 5)
    assert out == ["abc" + " " * 50, "def"]


def test_max_chars_one():
    text = "ab cd。ef"
    out = sents(text, 1)
    assert "".join(out) == text


# --- odd characters ----------------------------------------------------------------------------


def test_emoji_zero_width_and_rtl():
    text = "I love it 😀! Zero\u200bwidth here. مرحبا بالعالم. שלום\u200f עולם! 好😀。"
    out = sents(text)
    assert out == [
        "I love it 😀! ",
        "Zero\u200bwidth here. ",
        "مرحبا بالعالم. ",
        "שלום\u200f עולם! ",
        "好😀。",
    ]


def test_zero_width_only_text_is_not_whitespace():
    text = "\u200b\u200b"
    assert sents(text) == [text]


# --- detect_lang -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,lang",
    [
        ("今天天气很好。", "zh"),
        ("我们用LlamaIndex构建检索系统", "zh"),
        ("The quick brown fox.", "en"),
        ("The city of 北京 is very big and old.", "en"),
        ("", "en"),
        ("12345 !!!", "en"),
        ("繁體中文的句子也可以。", "zh"),
    ],
)
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


# --- properties ----------------------------------------------------------------------------------

ALPHABET = list("。！？；!?.,，、;\n\r \t\u3000\u2028”」)\"'") + list("abcXYZ") + list(
    "中文字句好"
) + list("0123") + ["😀", "\u200d", "\u200b", "\u0301", "ع", "\r\n"]

texts = st.lists(st.sampled_from(ALPHABET), max_size=400).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=texts, max_chars=st.integers(min_value=20, max_value=400))
def test_property_tiling(text, max_chars):
    check_tiling(text, split_spans(text, max_chars), max_chars)


@settings(max_examples=200, deadline=None)
@given(text=texts, max_chars=st.integers(min_value=1, max_value=30))
def test_property_tiling_small_caps(text, max_chars):
    check_tiling(text, split_spans(text, max_chars), max_chars)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_property_arbitrary_unicode(text):
    spans = split_spans(text, 50)
    check_tiling(text, spans, 50)
    assert "".join(split_sentences(text)) == text


@settings(max_examples=100, deadline=None)
@given(text=texts)
def test_property_no_interior_split_for_periods_in_numbers(text):
    # "3.5"-like tokens are never cut by a boundary (a cap far above the text: no length cut)
    text = text + " 3.5 "
    assert any("3.5" in text[a:b] for a, b in split_spans(text, 10_000))


def test_a_numbered_markdown_heading_is_one_sentence():
    assert sents("## 3. 首次使用前\n\n新水壶。\n") == ["## 3. 首次使用前\n\n", "新水壶。\n"]
    assert sents("## 3. Before First Use\n\nText.") == ["## 3. Before First Use\n\n", "Text."]
    assert sents("Call me at #3. Then go.") == ["Call me at #3. ", "Then go."]
