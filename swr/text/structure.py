"""Document structure at index time: for each sentence, the block it sits in and its section.

A pure function of the document text and its sentence spans (stdlib only); nothing here changes
what is embedded. The text is read line by line and every non-blank line is classified; a
sentence belongs to the block of the line it starts on (the splitter ends a sentence at a line
break unless the break only wraps a paragraph, so a sentence spans lines only inside one block):

- **heading**: Markdown ``#``..``######`` (the HTML and DOCX loaders write their headings this
  way), ``第一章`` / ``第二节`` style chapter lines, and short dotted-number lines such as
  ``1.1 电源与插座`` (level = number of parts) that do not end like a sentence;
- **list item**: bullets (``- * + • ·``), ``1.`` ``1)`` ``1、``, ``（1）`` ``(a)``, ``一、``,
  ``①``, ``a)``, ``Step 3:`` / ``步骤3``; an indented line right after an item continues it;
- **table row**: ``| a | b |`` rows (the ``|---|`` rule included) and tab-separated rows (the
  HTML and DOCX loaders write table rows with tabs);
- otherwise **text**.

Blocks: a heading is a block of its own; consecutive table rows are one table (its first row is
the header); list items of one marker family are one list, across blank lines, until a line of
another kind or an item numbered 1 again; consecutive text lines are one paragraph (a blank line
ends it). No block crosses a heading. A heading's section runs to the next heading of the same
or a higher level (lower levels are inside it).

Hand-written (no library does this for plain text, and Markdown parsers would not see the
loaders' plain text or Chinese numbering); :data:`STRUCTURE_VERSION` is recorded in the
collection meta so collections indexed before it are recognised.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from swr.core.rules.text import DEFAULT_STRUCTURE, StructureRules

STRUCTURE_VERSION = 1
KINDS = ("heading", "paragraph", "list", "table")
# a section under one of these headings is a table of contents: lines that repeat the headings
# of the document, no answer (normalised: lowercase, no spaces)
CONTENTS_HEADINGS = frozenset({"目录", "目次", "contents", "tableofcontents"})

_ZH_NUM = "一二三四五六七八九十百零〇两"
_MD_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_ZH_CHAPTER = re.compile(rf"^\s*第[{_ZH_NUM}\d]+([章篇部编卷节条])(?:\s|$|[：:、.．])")
_DOTTED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})+)\.?\s+(\S.*)$")
_SENTENCE_END = tuple("。！？；.!?;：:，,")
# (family, pattern); the first that matches names the item's marker family
_ITEMS = (
    ("bullet", re.compile(r"^\s*[-*+•·▪●○◦■□◆◇➢►√✓✔]\s+\S")),
    ("number", re.compile(r"^\s*(\d{1,3})\s*[.)．、](?!\d)\s*\S")),  # not 3.5
    ("paren", re.compile(rf"^\s*[（(]\s*([\d{_ZH_NUM}a-zA-Z]{{1,3}})\s*[）)]\s*\S")),
    ("zh", re.compile(rf"^\s*([{_ZH_NUM}]{{1,3}})\s*[、．.]\s*\S")),
    ("circled", re.compile(r"^\s*([①-⑳⑴-⒇❶-❿])\s*\S")),
    ("letter", re.compile(r"^\s*([a-zA-Z])[.)]\s+\S")),
    ("step", re.compile(r"^\s*(?:step|步骤)\s*(\d{1,3})\s*[:：.、]?\s*\S", re.I)),
)
_FIRST = {"1", "一", "a", "A", "①", "⑴", "❶"}
_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")


@dataclass
class SentenceStructure:
    """Where one sentence sits. Sentence numbers are 0-based positions in the document."""

    block: int  # block number in the document
    block_kind: str  # heading | paragraph | list | table
    block_first: int  # first sentence of the block (a table's header row starts here)
    block_last: int
    heading: str | None  # the text of the heading whose section holds the sentence (itself for a heading)
    heading_level: int  # that heading's level (1 highest); 0 before the first heading
    section: int  # sentence number of that heading; -1 before the first heading
    section_last: int  # last sentence of that section (before the next heading of the same or higher level)

    def payload(self) -> dict:
        return dict(self.__dict__)


@dataclass
class _Line:
    kind: str  # heading | item | row | text | blank
    level: int = 0
    family: str = ""
    first_item: bool = False
    title: str = ""
    indented: bool = False


def is_contents(heading: str | None) -> bool:
    """Whether a section under ``heading`` is a table of contents ("## 目录", "Contents", "TABLE OF
    CONTENTS", "目 录")."""
    return bool(heading) and "".join(heading.split()).lower().strip("#:：") in CONTENTS_HEADINGS


def classify(line: str, rules: StructureRules = DEFAULT_STRUCTURE) -> _Line:
    """The kind of one line (see the module docstring)."""
    if not line.strip():
        return _Line("blank")
    m = _MD_HEADING.match(line)
    if m and m.group(2):
        return _Line("heading", level=len(m.group(1)), title=m.group(2).strip())
    m = _ZH_CHAPTER.match(line)
    if m and len(line.strip()) <= rules.heading_chars:
        return _Line("heading", level=2 if m.group(1) in "节条" else 1, title=line.strip())
    stripped = line.strip()
    m = _DOTTED.match(line)
    if m and len(stripped) <= rules.heading_chars and not stripped.endswith(_SENTENCE_END):
        return _Line("heading", level=min(6, m.group(1).count(".") + 1), title=stripped)
    if _PIPE_ROW.match(line) or "\t" in stripped:
        return _Line("row")
    for family, pat in _ITEMS:
        m = pat.match(line)
        if m:
            first = bool(m.groups()) and m.group(1) in _FIRST
            return _Line("item", family=family, first_item=first)
    return _Line("text", indented=line[:1] in (" ", "\t", "\u3000"))


def _lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every line of ``text`` (line break excluded)."""
    out, pos = [], 0
    for m in re.finditer(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]", text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return out


def analyze(text: str, spans: list[tuple[int, int]]) -> list[SentenceStructure]:
    """The structure of every sentence ``text[a:b]`` of ``spans`` (the splitter's spans): the lines
    grouped into blocks, each sentence put in the block of its first line, the sections read from
    the heading sentences."""
    lines = _lines(text)
    blocks, line_block = _blocks([classify(text[a:b]) for a, b in lines])
    sent_block = _sentence_blocks(text, lines, line_block, spans)
    if not blocks:
        blocks.append(["paragraph", "", 0, ""])
    return _sections(blocks, sent_block, len(spans))


def _blocks(kinds: list) -> tuple[list[list], list[int]]:
    """Lines grouped into blocks: each block ``[kind, family, heading level, title]``, and the block
    of every line (-1: blank)."""
    line_block: list[int] = [-1] * len(kinds)
    blocks: list[list] = []
    prev = -1  # index of the previous non-blank line
    blank_since = False
    for k, c in enumerate(kinds):
        if c.kind == "blank":
            blank_since = True
            continue
        last = blocks[-1] if blocks and prev >= 0 else None
        joined = False
        if last is not None and c.kind != "heading" and last[0] != "heading":
            if c.kind == "row" and last[0] == "table" and not blank_since:
                joined = True
            elif c.kind == "item" and last[0] == "list" and last[1] == c.family and not c.first_item:
                joined = True
            elif c.kind == "text" and last[0] == "list" and c.indented and not blank_since:
                joined = True  # an item's continuation line
            elif c.kind == "text" and last[0] == "paragraph" and not blank_since:
                joined = True
        if not joined:
            kind = {"heading": "heading", "item": "list", "row": "table", "text": "paragraph"}[c.kind]
            blocks.append([kind, c.family, c.level, c.title])
        line_block[k] = len(blocks) - 1
        prev, blank_since = k, False
    return blocks, line_block


def _sentence_blocks(text: str, lines: list[tuple[int, int]], line_block: list[int],
                     spans: list[tuple[int, int]]) -> list[int]:
    """Each sentence's block: that of the line holding its first non-blank character
    (whitespace-only: the next line; trailing whitespace: the last block)."""
    starts = [a for a, _ in lines]
    sent_block: list[int] = []
    li = 0
    for a, b in spans:
        content = a + (len(text[a:b]) - len(text[a:b].lstrip()))
        while li + 1 < len(starts) and starts[li + 1] <= content:
            li += 1
        j = li
        while j < len(lines) and line_block[j] < 0:
            j += 1
        if j >= len(lines):  # trailing whitespace: the last block
            j = max((x for x in range(len(lines)) if line_block[x] >= 0), default=-1)
        sent_block.append(line_block[j] if j >= 0 else 0)
    return sent_block


def _sections(blocks: list[list], sent_block: list[int], n: int) -> list[SentenceStructure]:
    """Every sentence's structure: its block's extent, and its section (each heading sentence
    governs until the next heading of the same or higher level)."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for i, blk in enumerate(sent_block):
        first.setdefault(blk, i)
        last[blk] = i
    heads = [i for i, blk in enumerate(sent_block) if blocks[blk][0] == "heading" and first[blk] == i]
    section_last: dict[int, int] = {}
    for x, h in enumerate(heads):
        lvl = blocks[sent_block[h]][2]
        end = next((h2 for h2 in heads[x + 1:] if blocks[sent_block[h2]][2] <= lvl), n)
        section_last[h] = end - 1
    out = []
    cur = -1
    for i, blk in enumerate(sent_block):
        if blocks[blk][0] == "heading" and first[blk] == i:
            cur = i
        if cur >= 0:
            hb = blocks[sent_block[cur]]
            heading, level, sec_last = hb[3], hb[2], section_last[cur]
        else:
            heading, level, sec_last = None, 0, (heads[0] - 1 if heads else n - 1)
        out.append(SentenceStructure(block=blk, block_kind=blocks[blk][0], block_first=first[blk],
                                     block_last=last[blk], heading=heading, heading_level=level, section=cur,
                                     section_last=sec_last))
    return out


def annotate(sentences: list, text: str, spans: list[tuple[int, int]]) -> list:
    """Set the structure fields of ``sentences`` (:class:`swr.core.types.Sentence`, one per span of
    ``text``, in order) in place; returns them."""
    for s, st in zip(sentences, analyze(text, spans)):
        for k, v in st.payload().items():
            setattr(s, k, v)
    return sentences
