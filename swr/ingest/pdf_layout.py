"""PDF page layout: PDFium's lines rebuilt into paragraphs, table rows and page furniture.

A line end inside a paragraph becomes a space (nothing between two CJK characters, nothing for
a word hyphenated across the line end); a paragraph end, a heading, a list item and a table row
stay line breaks, for the splitter. Decided from the geometry of :mod:`swr.ingest.pdf_lines`
(each rule a :class:`Why`, every threshold on :class:`LayoutRules`):

- a paragraph ends where the next line starts lower than the page's usual line step allows
  (``break-gap``), in another font size (``break-size``), after a bold line that ends no
  sentence (``break-bold``: a heading in the body's size), indented (``break-indent``) or
  outdented after a continuation line (``break-outdent``), with a list marker (``break-list``),
  as a table row (``break-row``), or where the next line's first word would have fit on this
  line (``break-short``: ragged text, headings, last lines);
- running headers and footers (a line at a page's top or bottom edge repeated on several pages,
  digits aside) are page furniture, left out of the text (:func:`furniture_keys`);
- a page with a column gutter is read left column, then right column; a table row's cells are
  tab-separated and paired with the header row's cells (``Model: KX-2000``), as .docx tables.

Every character of the text built remembers its PDFium character index (-1 for the header
names written before a row's cells), so stored offsets map to boxes (:mod:`swr.manage.docview`).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from swr.ingest.pdf_lines import Line, _is_cjk
from swr.ingest.pdf_rules import RULES, LayoutRules
from swr.text.structure import classify

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_ENDS = set("。！？；….!?;:：")
_MARKS = ("bullet", "circled")
# what a list item of swr.text.structure can start with (a cheap test before its full classification)
_ITEM_START = re.compile(r"\s*(?:[-*+•·▪●○◦■□◆◇➢►√✓✔\d（(①-⑳⑴-⒇❶-❿一二三四五六七八九十百零〇两]"
                         r"|[a-zA-Z][.)]|step|步骤)", re.I)  # list markers that are no word of a sentence




class Why(str, Enum):
    """What was decided at a line end (the trace of :class:`PageText`)."""

    SPACE = "join-space"
    CJK = "join-cjk"
    HYPHEN = "join-hyphen"  # hyphenated word joined, the hyphen dropped
    HYPHEN_KEPT = "join-hyphen-kept"  # a code or model number (KX-2000): hyphen kept, no space
    GAP = "break-gap"
    SIZE = "break-size"
    BOLD = "break-bold"
    INDENT = "break-indent"
    OUTDENT = "break-outdent"
    LIST = "break-list"
    ROW = "break-row"
    SHORT = "break-short"


JOINS = {Why.SPACE: " ", Why.CJK: "", Why.HYPHEN: "", Why.HYPHEN_KEPT: ""}


@dataclass
class PageText:
    """One page's rebuilt text, the PDFium index of each character, and the decisions made."""

    text: str
    idx: list[int]
    trace: list[Why] = field(default_factory=list)
    furniture: list[str] = field(default_factory=list)  # texts of the lines left out as furniture
    first: Line | None = None  # the first and last body lines in reading order (page joins)
    last: Line | None = None
    right: float = 0.0  # the right edge of the last line's column
    left: float = 0.0  # the left edge of the first line's column
    header: list[str] | None = None  # the table header in force after the last line (a table running on)
    carried: bool = False  # the first row paired with the header of the page before


# ------------------------------------------------------------------------------------------
# furniture


def furniture_key(line: Line, edge: str) -> str:
    """The repeated form of an edge line: its edge, lowercase text with digit runs as ``#``."""
    return edge + ":" + _SPACES.sub(" ", _DIGITS.sub("#", line.text.strip().lower()))


def edge_keys(lines: list[Line], height: float, rules: LayoutRules = RULES) -> dict[int, str]:
    """Furniture candidates of one page: position in ``lines`` -> key. The outermost line at the
    top and at the bottom (in the page's edge band), and the next one in when it is set smaller
    than the page's body text (a page number under a footer): body text never is furniture."""
    order = sorted(range(len(lines)), key=lambda k: -lines[k].base0)
    weight: Counter = Counter()
    for ln in lines:
        weight[_size_key(ln.size0)] += ln.b - ln.a
    body = weight.most_common(1)[0][0] if weight else 0.0
    out: dict[int, str] = {}
    for edge, seq, inside in (("t", order, lambda ln: ln.base0 >= height * (1 - rules.furniture_band)),
                              ("b", order[::-1], lambda ln: ln.base0 <= height * rules.furniture_band)):
        for n, k in enumerate(seq[: rules.furniture_lines]):
            ln = lines[k]
            if k in out or not inside(ln) or (n and _size_key(ln.size0) >= body):
                break
            out[k] = furniture_key(ln, edge)
    return out


def furniture_keys(pages: list[dict[int, str]], rules: LayoutRules = RULES) -> set[str]:
    """Keys seen on enough pages (:attr:`LayoutRules.furniture_pages`, or all of 2+ pages)."""
    if len(pages) < 2:
        return set()
    need = min(rules.furniture_pages, len(pages))
    seen = Counter(k for keys in pages for k in set(keys.values()))
    return {k for k, c in seen.items() if c >= need}


# ------------------------------------------------------------------------------------------
# columns and reading order


def reading_order(lines: list[Line], width: float, rules: LayoutRules = RULES) -> tuple[list[Line], list[int]]:
    """The lines in reading order and each one's column (0 whole width, 1 left, 2 right)."""
    g = _gutter(lines, width, rules)
    if g is None:
        return lines, [0] * len(lines)
    col = [1 if ln.x1 < g else 2 if ln.x0 > g else 0 for ln in lines]
    top = max(ln.base0 for ln, c in zip(lines, col) if c)
    above = [k for k, c in enumerate(col) if c == 0 and lines[k].base0 > top]
    rest = [k for k, c in enumerate(col) if c == 0 and lines[k].base0 <= top]
    order = above + [k for k, c in enumerate(col) if c == 1] + [k for k, c in enumerate(col) if c == 2] + rest
    return [lines[k] for k in order], [col[k] for k in order]


def _gutter(lines: list[Line], width: float, rules: LayoutRules) -> float | None:
    """The x of a column gutter (a vertical strip few lines cross, enough lines either side), or None."""
    m = rules.gutter_min_lines
    if len(lines) < 2 * m or width <= 0:
        return None
    n = int(width) + 2
    diff = [0] * (n + 1)
    for ln in lines:
        diff[min(n, max(0, int(ln.x0)))] += 1
        diff[min(n, max(0, int(ln.x1) + 1))] -= 1
    cov, run = [], 0
    for d in diff:
        run += d
        cov.append(run)
    lo, hi = int(width * 0.3), int(width * 0.7)
    low = min(cov[lo:hi])
    if low > rules.gutter_cross * len(lines):
        return None
    xs = [x for x in range(lo, hi) if cov[x] == low]
    g = xs[len(xs) // 2] + 0.5
    left = sum(ln.x1 < g for ln in lines)
    right = sum(ln.x0 > g for ln in lines)
    return g if left >= m and right >= m else None


# ------------------------------------------------------------------------------------------
# line ends


class _Page:
    """The geometry a page's decisions share: column edges and usual line steps per font size."""

    def __init__(self, lines: list[Line], cols: list[int], rules: LayoutRules) -> None:
        self.rules = rules
        self.right: dict[tuple[int, float], float] = {}
        self.left: dict[tuple[int, float], float] = {}
        for ln, c in zip(lines, cols):
            if ln.cells:
                continue  # a table may be wider than the text column
            key = (c, _size_key(ln.size1))
            self.right[key] = max(self.right.get(key, 0.0), ln.x1)
            key0 = (c, _size_key(ln.size0))
            self.left[key0] = min(self.left.get(key0, 1e9), ln.x0)
        steps: dict[float, Counter] = {}
        for (a, ca), (b, cb) in zip(zip(lines, cols), zip(lines[1:], cols[1:])):
            d = a.base1 - b.base0
            line_step = rules.step_min * a.size1 < d < rules.step_max * a.size1
            if ca == cb and _same_size(a.size1, b.size0, rules) and line_step:
                steps.setdefault(_size_key(a.size1), Counter())[round(d * 4) / 4] += 1
        self.step = {k: c.most_common(1)[0][0] for k, c in steps.items()}
        # a table row's step: the one from the row above it (the first two rows set the table's pitch)
        self.row_step: dict[int, float] = {}
        for a, b, c in zip(lines, lines[1:], lines[2:]):
            if a.cells and b.cells and c.cells:
                self.row_step[id(b)] = max(a.base1 - b.base0, rules.min_row_step)


def _size_key(size: float) -> float:
    return round(size * 2) / 2


def _same_size(a: float, b: float, rules: LayoutRules) -> bool:
    return abs(a - b) <= rules.size_change * max(a, b, 1.0)


def decide(L: Line, N: Line, page: _Page, cols: tuple[int, int], first: bool, item: bool) -> Why:
    """What the end of line ``L`` is, ``N`` the next line in reading order. ``first``: ``L``
    starts its block; ``item``: that block is a list item."""
    r = page.rules
    size = max(L.size1, 1.0)
    if L.cells or N.cells:  # a row: another table after a gap or a bold (header) row
        if L.cells and N.cells and (L.bold or not N.bold) and L.base1 - N.base0 <= r.gap_ratio * _row_step(L, N, page):
            return Why.ROW
        return Why.GAP if L.cells and N.cells else Why.ROW
    c = classify(N.text) if _ITEM_START.match(N.text) else None
    if c is not None and c.kind == "item" and (c.family in _MARKS or L.text.rstrip()[-1:] in _ENDS):
        return Why.LIST  # a number starting a line after an unfinished one ("... under\n336. Check") is no item
    if not _same_size(L.size1, N.size0, r):
        return Why.SIZE
    if L.bold and not N.bold and L.text.rstrip()[-1:] not in _ENDS:
        return Why.BOLD  # a bold line (a heading in the body's size) before text
    jump = N.base0 > L.base1 + r.jump_em * size or cols[0] != cols[1]
    if not jump:
        step = page.step.get(_size_key(L.size1), r.default_step * size)
        if L.base1 - N.base0 > r.gap_ratio * step:
            return Why.GAP
        if N.x0 > L.x0 + r.indent_em * size and not (first and item):
            return Why.INDENT
        if N.x0 < L.x0 - r.indent_em * size and not first:
            return Why.OUTDENT
    elif not item and N.x0 > page.left.get((cols[1], _size_key(N.size0)), N.x0) + r.indent_em * size:
        return Why.INDENT  # (a list item runs on at its hanging indent)
    right = page.right.get((cols[0], _size_key(L.size1)), L.x1)
    if L.x1 + r.space_em * size + N.word_w <= right:
        return Why.SHORT
    return _join(L.text[L.s1 - L.a - 1], N.text[N.s0 - N.a], L.text[: L.s1 - L.a])


def _row_step(L: Line, N: Line, page: _Page) -> float:
    """The usual step between two rows of a table: the step from the row before, else the page's."""
    return page.row_step.get(id(L), page.step.get(_size_key(L.size1), page.rules.default_step * L.size1) * 1.5)


def _join(last: str, nxt: str, before: str) -> Why:
    """How two lines of one paragraph join: by the last character of one and the first of the next."""
    if last == "-" and len(before) > 1 and before[-2].isalpha() and nxt.isalnum():
        return Why.HYPHEN if _drop_hyphen(before[:-1], nxt) else Why.HYPHEN_KEPT
    if _is_cjk(last) and _is_cjk(nxt):
        return Why.CJK
    return Why.SPACE


def _drop_hyphen(before: str, nxt: str) -> bool:
    """Whether a hyphen between ``before`` and a word starting ``nxt`` only split a word: both
    sides lowercase letters and no digit in the word before (``KX-2000``, ``Wi-Fi`` keep theirs)."""
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    return nxt.islower() and word[-1:].islower() and not any(ch.isdigit() for ch in word)
