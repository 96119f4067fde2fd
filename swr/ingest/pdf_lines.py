"""The lines of a PDF page as PDFium's text page has them, with the geometry the layout needs.

PDFium cuts a page's text into lines (a generated ``\\r\\n`` where the baseline changes) and
joins a word hyphenated across two lines itself (the hyphen becomes U+FFFE, no line break). For
each line this reads only what :mod:`swr.ingest.pdf_layout` decides on: the loose boxes of its
first and last characters, their font sizes and weight, the width of its first word, and the
gaps at generated spaces (a table's cells). A line is a range of PDFium character indices, so
every character of the text built from it maps back to its box.

Call everything here with :data:`swr.ingest.load.pdf_text.PDFIUM_LOCK` held.
"""
from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

from swr.core.lang import CJK_RE
from swr.ingest.pdf_rules import RULES, LayoutRules

HYPHEN = "\ufffe"  # what PDFium's text holds for a hyphen it joined across a line end
_BREAK = re.compile(r"\r\n|\r|\n")
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag ForceBold (bit 19)


@dataclass(slots=True)
class Line:
    """One PDFium line: characters ``[a, b)`` (its line break, at ``brk``, left out)."""

    a: int
    b: int
    brk: int  # PDFium index of the line break after it; -1 for the page's last line
    text: str  # the page's raw text [a, b)
    s0: int  # first non-space character
    s1: int  # after the last non-space character
    x0: float  # left of the first non-space character
    x1: float  # right of the last one
    base0: float  # bottom of the first character's loose box (baseline minus descent)
    base1: float  # the same for the last character (lower when PDFium joined a hyphenated word)
    top0: float
    size0: float  # font size of the first character
    size1: float  # of the last
    bold: bool  # first and last characters both in a bold font
    word_w: float  # width of the first word (of the first character for CJK)
    cells: list[tuple[int, int]] = field(default_factory=list)  # [a, b) per cell when a table row
    seps: list[int] = field(default_factory=list)  # the generated space between two cells
    cell_x: list[float] = field(default_factory=list)  # the left of each cell


class _Reader:
    """Boxes, sizes and fonts of single characters (one reused ctypes buffer each)."""

    def __init__(self, textpage) -> None:
        import pypdfium2.raw as raw

        self.raw = raw
        self.tp = textpage
        self.rect = raw.FS_RECTF()
        self.name = ctypes.create_string_buffer(128)
        self.flags = ctypes.c_int()

    def box(self, k: int) -> tuple[float, float, float, float]:
        """``(left, bottom, right, top)`` of character ``k``'s loose box."""
        self.raw.FPDFText_GetLooseCharBox(self.tp, k, self.rect)
        r = self.rect
        return r.left, r.bottom, r.right, r.top

    def size(self, k: int) -> float:
        return float(self.raw.FPDFText_GetFontSize(self.tp, k))

    def bold(self, k: int) -> bool:
        if self.raw.FPDFText_GetFontWeight(self.tp, k) >= 600:
            return True
        self.raw.FPDFText_GetFontInfo(self.tp, k, self.name, len(self.name), ctypes.byref(self.flags))
        return bool(self.flags.value & _FORCE_BOLD) or bool(_BOLD.search(self.name.value.decode("latin-1")))

    def generated(self, k: int) -> bool:
        return self.raw.FPDFText_IsGenerated(self.tp, k) == 1


def raw_text(textpage) -> str:
    """The page's text, one character per PDFium character (``raw[k]`` is character ``k``)."""
    import pypdfium2.raw as raw

    n = textpage.count_chars()
    if n <= 0:
        return ""
    text = textpage.get_text_range(0, n)
    if len(text) == n:
        return text
    out = []  # characters beyond the BMP came as surrogate pairs: read one by one
    for k in range(n):
        u = raw.FPDFText_GetUnicode(textpage, k)
        try:
            out.append(chr(u) if u else "\0")
        except (ValueError, OverflowError):
            out.append("\ufffd")
    return "".join(out)


def page_lines(textpage, rules: LayoutRules = RULES) -> tuple[str, list[Line]]:
    """The page's raw text and its non-blank lines in PDFium's order."""
    raw = raw_text(textpage)
    rd = _Reader(textpage)
    lines: list[Line] = []
    pos = 0
    for m in _BREAK.finditer(raw):
        _add(lines, rd, raw, pos, m.start(), m.start(), rules)
        pos = m.end()
    _add(lines, rd, raw, pos, len(raw), -1, rules)
    _rows_only_in_tables(lines)
    return raw, lines


def _rows_only_in_tables(lines: list[Line]) -> None:
    """A line cut into cells is a table row only near another (next but one at most) with as many cells, aligned
    (each cell's left within 2 font sizes on average): wide gaps of one justified line are not."""
    keep = [False] * len(lines)
    for k, a in enumerate(lines):
        for j in range(k + 1, min(k + 3, len(lines))):  # the next line, or the one after (a footer between)
            b = lines[j]
            if a.cells and len(a.cells) == len(b.cells):
                # cell lefts from the row's start: a table runs on into the next column
                dx = sum(abs((x - a.x0) - (y - b.x0)) for x, y in zip(a.cell_x, b.cell_x)) / len(a.cell_x)
                if dx <= 2 * max(a.size0, b.size0, 1.0):
                    keep[k] = keep[j] = True
    for ln, ok in zip(lines, keep):
        if ln.cells and not ok:
            ln.cells, ln.seps, ln.cell_x = [], [], []


def _add(lines: list[Line], rd: _Reader, raw: str, a: int, b: int, brk: int, rules: LayoutRules) -> None:
    """Measure the line ``raw[a:b]`` and append it, unless it is blank."""
    text = raw[a:b]
    stripped = text.strip(" \t\0\ufeff")
    if not stripped:
        return
    j0 = a + text.index(stripped[0])
    j1 = a + text.rindex(stripped[-1])
    l0, bot0, _r0, top0 = rd.box(j0)
    _l1, bot1, x1, _t1 = rd.box(j1)
    size0 = rd.size(j0)
    size1 = size0 if j1 == j0 else rd.size(j1)
    bold = rd.bold(j0) and (j1 == j0 or rd.bold(j1))
    w_end = _first_word_end(raw, j0, j1)
    word_w = rd.box(w_end)[2] - l0 if w_end != j0 else _r0 - l0
    line = Line(a, b, brk, text, j0, j1 + 1, l0, x1, bot0, bot1, top0, size0, size1, bold, max(0.0, word_w))
    _cells(line, rd, raw, rules)
    lines.append(line)


def _first_word_end(raw: str, j0: int, j1: int) -> int:
    """Index of the last character of the word starting at ``j0`` (``j0`` itself for CJK)."""
    if _is_cjk(raw[j0]):
        return j0
    k = j0
    stop = min(j1, j0 + 24)
    while k < stop and not raw[k + 1].isspace():
        k += 1
    return k


def _cells(line: Line, rd: _Reader, raw: str, rules: LayoutRules) -> None:
    """Cut the line at generated spaces that span a gap of at least ``cell_gap_em`` font sizes."""
    if rd.raw.FPDFText_CountRects(rd.tp, line.a, line.b - line.a) <= 1:
        return  # one text object, one run: no cells (one call instead of one per space)
    gap_min = rules.cell_gap_em * max(line.size0, 1.0)
    k = raw.find(" ", line.a, line.b)
    start = line.a
    xs = [line.x0]
    gaps = []
    while k != -1:
        if line.a < k < line.b - 1 and rd.generated(k) and not raw[k - 1].isspace():
            left = rd.box(k + 1)[0]
            gap = left - rd.box(k - 1)[2]
            if gap >= gap_min:
                line.cells.append((start, k))
                line.seps.append(k)
                xs.append(left)
                gaps.append(gap)
                start = k + 1
        k = raw.find(" ", k + 1, line.b)
    if (len(gaps) >= 2 and max(gaps) - min(gaps) <= rules.even_gap_pt and max(gaps) < rules.even_gap_em * line.size0
            and raw[line.s0:line.s1].count(" ") == len(gaps)):
        line.cells, line.seps = [], []  # every space equally wide: a justified line drawn word by word
    elif line.cells:
        line.cells.append((start, line.b))
        line.cell_x = xs


def _is_cjk(ch: str) -> bool:
    return CJK_RE.match(ch) is not None
