"""Document structure (swr/text/structure.py): property tests on generated documents, and the plain-text
patterns one by one."""
from __future__ import annotations

from hypothesis import given, settings as hsettings, strategies as st

from swr.text.split import split_spans
from swr.text.structure import analyze, classify


def _of(text: str):
    spans = split_spans(text)
    return [(text[a:b], s) for (a, b), s in zip(spans, analyze(text, spans))]


@st.composite
def documents(draw):
    """Markdown-ish documents: headings of random levels, paragraphs, numbered and bullet lists,
    tables; returns the text and, per line, the block number it must get (None for blank lines)."""
    parts, expect, block = [], [], -1
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["heading", "paragraph", "numbered", "bullets", "table"]))
        block += 1
        if kind == "heading":
            lines = ["#" * draw(st.integers(1, 4)) + " Heading " + str(block)]
        elif kind == "paragraph":
            lines = [f"Sentence {block} {k} of a paragraph." for k in range(draw(st.integers(1, 4)))]
        elif kind == "numbered":
            lines = [f"{k + 1}. step {k} of list {block}." for k in range(draw(st.integers(1, 6)))]
        elif kind == "bullets":
            lines = [f"- item {k} of {block}" for k in range(draw(st.integers(1, 5)))]
        else:
            lines = ["| a | b |", "| --- | --- |"] + [f"| r{k} | v{k} |" for k in range(draw(st.integers(1, 4)))]
        parts.extend(lines + [""])
        expect.extend([block] * len(lines) + [None])
    return "\n".join(parts), expect


@hsettings(max_examples=200, deadline=None)
@given(documents())
def test_generated_documents_get_their_blocks(doc):
    text, expect = doc
    got = _of(text)
    lines = text.split("\n")
    # every sentence sits on one line; its block id follows the generated blocks (renumbered in order)
    seen: dict[int, int] = {}
    pos, li = 0, 0
    starts = []
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    offset = 0
    for sent, st_ in got:
        content = offset + len(sent) - len(sent.lstrip())
        offset += len(sent)
        while li + 1 < len(starts) and starts[li + 1] <= content:
            li += 1
        want = expect[li]
        if want is None:  # trailing whitespace-only sentence
            continue
        assert seen.setdefault(want, st_.block) == st_.block
    # blocks are contiguous runs, block_first/last bound them, no block crosses a heading
    for k, (_, s) in enumerate(got):
        assert s.block_first <= k <= s.block_last
        assert all(got[j][1].block == s.block for j in range(s.block_first, s.block_last + 1))
        if s.block_kind != "heading":
            assert all(got[j][1].block_kind != "heading" for j in range(s.block_first, s.block_last + 1))
        # the section: its heading precedes it, and no heading of the same or a higher level lies inside
        if s.section >= 0:
            head = got[s.section][1]
            assert head.block_kind == "heading" and s.section <= k <= s.section_last
            for j in range(s.section + 1, s.section_last + 1):
                o = got[j][1]
                if o.block_kind == "heading" and o.block_first == j:
                    assert o.heading_level > s.heading_level


def test_plain_text_patterns():
    assert classify("1. 撕掉包装").kind == "item"
    assert classify("一、安全须知").kind == "item"
    assert classify("（1）检查电源").kind == "item"
    assert classify("(2) check the cord").kind == "item"
    assert classify("① 壶盖").kind == "item"
    assert classify("Step 3: pour the water").kind == "item"
    assert classify("- 电源键").kind == "item"
    assert classify("| E1 | 干烧保护 |").kind == "row"
    assert classify("E1\t干烧保护").kind == "row"
    assert classify("## 3. 首次使用前").kind == "heading"
    assert classify("第二章 操作").kind == "heading"
    assert classify("1.1 电源与插座").kind == "heading"
    assert classify("3.5 kg is the weight of the kettle.").kind == "text"
    assert classify("新水壶可能残留少量异味。").kind == "text"


def test_numbered_steps_are_one_list_and_a_restart_is_another():
    got = _of("Intro:\n1. a.\n2. b.\n\n3. c.\n\n1. x.\n2. y.\n")
    blocks = {t.strip(): s for t, s in got}
    assert blocks["1. a."].block == blocks["3. c."].block  # across a blank line
    assert blocks["1. x."].block != blocks["1. a."].block
    assert blocks["1. a."].block_kind == "list" and blocks["Intro:"].block_kind == "paragraph"


def test_table_rows_are_one_block_headed_by_its_first_row():
    got = _of("故障代码如下。\n| 代码 | 含义 |\n| --- | --- |\n| E1 | 干烧 |\n| E2 | 传感器 |\n\n其他。")
    rows = [s for t, s in got if t.startswith("|")]
    assert len({s.block for s in rows}) == 1 and rows[0].block_kind == "table"
    assert got[rows[0].block_first][0].startswith("| 代码")


def test_kettle_first_use_steps_are_one_list_under_their_heading():
    from conftest import SAMPLES

    text = (SAMPLES / "kettle_manual_zh.md").read_text(encoding="utf-8")
    got = _of(text)
    step5 = next(k for k, (t, _) in enumerate(got) if t.startswith("5. 电热水壶第一次使用前"))
    s = got[step5][1]
    steps = [got[j][0].strip() for j in range(s.block_first, s.block_last + 1)]
    assert [x[:2] for x in steps] == ["1.", "2.", "3.", "4.", "5.", "6."]
    assert s.heading == "3. 首次使用前" and s.heading_level == 2
    assert got[s.section_last + 1][0].startswith("## 4.")


def test_a_table_of_contents_is_known_by_its_heading():
    from swr.text.structure import is_contents

    assert all(is_contents(h) for h in ("目录", "目 录", "Contents", "TABLE OF CONTENTS", "Contents:"))
    assert not any(is_contents(h) for h in (None, "", "内容", "Contents of the box", "保修条款"))
