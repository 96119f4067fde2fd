"""The length cap packs pieces as full as the rule allows: a line with no punctuation is cut at the
last whitespace before ``max_chars``, so every piece but the last holds at least ``max_chars``
minus the longest word and the widest gap between words (the gap and word that did not fit);
without whitespace, exactly ``max_chars``."""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from swr.text.split import split_spans

LONG_LINE = " ".join(f"word{k % 997}" for k in range(130_000))[:1_000_000]  # as in test_bad_input.py


def check_full(text: str, max_chars: int) -> list[str]:
    pieces = [text[a:b].strip() for a, b in split_spans(text, max_chars)]
    longest = max(len(w) for w in text.split())
    gap = max((len(g) for g in re.findall(r"\s+", text)), default=0)  # "aa  aaaa": a 2-space gap did not fit
    assert "".join(text[a:b] for a, b in split_spans(text, max_chars)) == text
    short = [(k, len(p)) for k, p in enumerate(pieces[:-1]) if not max_chars - longest - gap < len(p) <= max_chars]
    assert not short, short[:5]
    return pieces


def test_the_one_megabyte_line_is_cut_as_late_as_the_rule_allows():
    pieces = check_full(LONG_LINE, 300)
    assert len(pieces) == 3375
    assert max(len(w) for w in LONG_LINE.split()) == 7


def test_a_line_without_spaces_is_cut_at_exactly_the_cap():
    text = "电热水壶第一次使用前要煮沸后倒掉" * 100
    pieces = [text[a:b] for a, b in split_spans(text, 300)]
    assert [len(p) for p in pieces] == [300] * 5 + [100]


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.text(alphabet="abcdefghij中文", min_size=1, max_size=25), min_size=1, max_size=120),
       seps=st.sampled_from([" ", "  ", "\t", " \u3000"]), max_chars=st.integers(min_value=26, max_value=200))
def test_pieces_are_full_for_any_words(words, seps, max_chars):
    check_full(seps.join(words), max_chars)
