"""No sentence boundary or length-cap cut of swr.text.split falls inside a grapheme cluster.

The reference is Unicode's own segmentation (UAX #29) as the ``regex`` module's ``\\X`` implements
it, over the whole text: the test does not share the splitter's shortcuts (slices, pair rules).
"""
from __future__ import annotations

import time

import regex
from hypothesis import given, settings, strategies as st

from swr.text.split import split_spans

CLUSTER = regex.compile(r"\X")


def cluster_bounds(text: str) -> set[int]:
    return {m.end() for m in CLUSTER.finditer(text)} | {0}


def longest_cluster(text: str) -> int:
    return max((len(m.group()) for m in CLUSTER.finditer(text)), default=0)


def check_cuts(text: str, max_chars: int) -> list[tuple[int, int]]:
    spans = split_spans(text, max_chars)
    assert "".join(text[a:b] for a, b in spans) == text  # lossless, as ever
    assert all(len(text[a:b].strip()) <= max_chars for a, b in spans)
    bounds = cluster_bounds(text)
    torn = [(a, text[max(0, a - 3):a + 3]) for a, _ in spans if a not in bounds]
    assert not torn, torn
    return spans


def regional(k: int) -> str:
    return chr(0x1F1E6 + k % 26)


FLAGS = st.tuples(st.integers(0, 25), st.integers(0, 25)).map(lambda p: regional(p[0]) + regional(p[1]))
KEYCAPS = st.sampled_from("0123456789#*").map(lambda d: d + "\ufe0f\u20e3")
TAG_FLAGS = st.sampled_from(["gbeng", "gbsct", "gbwls", "usca"]).map(
    lambda t: "\U0001F3F4" + "".join(chr(0xE0000 + ord(c)) for c in t) + "\U000E007F")
ZWJ = st.lists(st.sampled_from(["\U0001F468", "\U0001F469", "\U0001F467", "\U0001F466", "\u2764\ufe0f",
                                "\U0001F9D1", "\U0001F52C"]), min_size=2, max_size=4).map("\u200d".join)
SKIN = st.sampled_from(["\U0001F44D", "\U0001F44B", "\U0001F9D1"]).flatmap(
    lambda e: st.sampled_from([chr(c) for c in range(0x1F3FB, 0x1F400)]).map(lambda t: e + t))
COMBINING = st.tuples(st.sampled_from("aeoAEnç中 ,，。"),
                      st.lists(st.sampled_from("\u0301\u0300\u0308\u0323\u0302\u20dd\u0903"), min_size=1,
                               max_size=3)).map(lambda p: p[0] + "".join(p[1]))
OTHER = st.sampled_from(["\uac01", "\u1100\u1161\u11a8", "\u0915\u094d\u0937\u093f", "\u0600\u0661", "\r\n",
                         "\U0001F600", "\u263a\ufe0f", "\U0001F1E6"])  # Hangul, conjunct, Prepend, lone RI
PLAIN = st.sampled_from(list("abc XYZ 中文字句 ,，、;；。.!? \n") + ["  "])
ATOMS = st.one_of(FLAGS, KEYCAPS, TAG_FLAGS, ZWJ, SKIN, COMBINING, OTHER, PLAIN, PLAIN)
texts = st.lists(ATOMS, max_size=200).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=texts, max_chars=st.integers(min_value=1, max_value=60))
def test_every_cut_falls_on_a_grapheme_cluster_boundary(text, max_chars):
    if longest_cluster(text) > max_chars:  # a cluster longer than the cap is the one thing cut
        max_chars = longest_cluster(text)
    check_cuts(text, max_chars)


@settings(max_examples=300, deadline=None)
@given(atom=st.one_of(FLAGS, KEYCAPS, TAG_FLAGS, ZWJ, SKIN, COMBINING), n=st.integers(1, 120),
       prefix=st.sampled_from(["", "a", "ab", "\U0001F1E6"]), max_chars=st.integers(min_value=7, max_value=40))
def test_runs_of_one_kind_of_cluster(atom, n, prefix, max_chars):
    """A run of flags (odd or even offset), keycaps, tags... with no place to cut but hard."""
    check_cuts(prefix + atom * n, max(max_chars, longest_cluster(atom)))


def test_the_flag_line_of_the_issue():
    text = "a" + "\U0001F1E8\U0001F1F3" * 400
    spans = check_cuts(text, 300)
    assert [b - a for a, b in spans] == [299, 300, 202]


def test_a_cluster_longer_than_the_cap_is_cut_at_the_cap():
    text = "e" + "\u0301" * 50 + " ok"
    spans = split_spans(text, 20)
    assert "".join(text[a:b] for a, b in spans) == text
    assert all(len(text[a:b].strip()) <= 20 for a, b in spans)


def test_nothing_below_u0300_extends_or_joins():
    """split.py skips the cluster check for characters below U+0300 (speed); Unicode agrees."""
    special = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}"
                            r"\p{GCB=Regional_Indicator}\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=LV}\p{GCB=LVT}]")
    assert special.findall("".join(map(chr, range(0x300)))) == []


def test_a_megabyte_of_flags_splits_in_linear_time():
    """regex's \\X looks back over every indicator before it: the splitter must not call it there."""
    text = "a" + "\U0001F1E8\U0001F1F3" * 500_000
    t0 = time.perf_counter()
    spans = split_spans(text, 300)
    assert time.perf_counter() - t0 < 10  # quadratic took minutes; linear is well under a second
    assert len(spans) == 3334 and "".join(text[a:b] for a, b in spans) == text
