"""A PDF's text rebuilt from its layout (:mod:`swr.ingest.pdf_layout`): pages, then the document.

:func:`document_pages` reads every page once, finds the page furniture across pages and builds
each page's text; :func:`build_page` builds one page again from the furniture keys kept with the
document (the document view rebuilds the page it shows, and gets the same text and character
map). :func:`page_joint` says whether a paragraph runs on from one page to the next (the
character joining two pages is then a space, not a line break).

Call with :data:`swr.ingest.load.pdf_text.PDFIUM_LOCK` held.
"""
from __future__ import annotations

import re

from swr.ingest.pdf_layout import (
    _ENDS,
    _ITEM_START,
    JOINS,
    PageText,
    Why,
    _drop_hyphen,
    _Page,
    decide,
    edge_keys,
    furniture_keys,
    reading_order,
)
from swr.ingest.pdf_lines import HYPHEN, Line, page_lines
from swr.ingest.pdf_rules import RULES, LayoutRules
from swr.text.structure import classify

_SPECIAL = re.compile("[\0\ufeff\ufffe]")  # NUL and BOM (left out), PDFium's joined hyphen


def document_pages(pdf, rules: LayoutRules = RULES) -> tuple[list[PageText], list[str]]:
    """Every page's rebuilt text, and the furniture keys found (sorted)."""
    read = []
    for k in range(len(pdf)):
        page = pdf[k]
        tp = page.get_textpage()
        try:
            raw, lines = page_lines(tp, rules)
            w, h = page.get_width(), page.get_height()
        finally:
            tp.close()
            page.close()
        read.append((raw, lines, w, h, edge_keys(lines, h, rules)))
    keys = furniture_keys([r[4] for r in read], rules)
    out: list[PageText] = []
    for raw, lines, w, _h, edges in read:
        out.append(_build(raw, lines, w, edges, keys, rules, out[-1].header if out else None))
    return out, sorted(keys)


def build_page(page, textpage, keys: set[str] | frozenset[str], header: list[str] | None = None,
               rules: LayoutRules = RULES) -> PageText:
    """One page's rebuilt text, given the document's furniture keys and the table header the
    page before left in force (:func:`carried_headers`)."""
    raw, lines = page_lines(textpage, rules)
    edges = edge_keys(lines, page.get_height(), rules)
    return _build(raw, lines, page.get_width(), edges, set(keys), rules, header)


def carried_headers(pages: list[PageText]) -> dict[str, list[str]]:
    """``{page number (1-based, as text): header}`` for pages a table runs on to (kept with the
    file, so one page is rebuilt alone with the same text)."""
    return {str(k + 2): p.header for k, p in enumerate(pages[:-1]) if p.header and pages[k + 1].carried}


def page_joint(prev: PageText, nxt: PageText, rules: LayoutRules = RULES) -> str:
    """``" "`` when the last paragraph of ``prev`` runs on at the top of ``nxt``, else ``"\\n"``."""
    L, N = prev.last, nxt.first
    if L is None or N is None or L.cells or N.cells or L.text.rstrip()[-1:] in _ENDS:
        return "\n"  # (a sentence that ends a page ends there: the page break stays a line break)
    geometry = _Page([], [], rules)
    geometry.right = {(0, _k(L.size1)): prev.right}
    geometry.left = {(1, _k(N.size0)): nxt.left}
    why = decide(L, N, geometry, (0, 1), first=False, item=False)
    return " " if why in (Why.SPACE, Why.CJK) else "\n"


def _k(size: float) -> float:
    return round(size * 2) / 2


def _build(raw: str, lines: list[Line], width: float, edges: dict[int, str], keys: set[str],
           rules: LayoutRules, carry: list[str] | None = None) -> PageText:
    """The page's text from its lines: furniture left out, reading order, joins and rows."""
    furniture = [k for k, key in edges.items() if key in keys]
    out = PageText("", [], furniture=[lines[k].text.strip() for k in sorted(furniture)])
    drop = set(furniture)
    body = [ln for k, ln in enumerate(lines) if k not in drop]
    if not body:
        return out
    order, cols = reading_order(body, width, rules)
    geometry = _Page(order, cols, rules)
    parts: list[str] = []
    idx: list[int] = []
    first, item = True, False
    header = carry if carry and len(order[0].cells) == len(carry) else None
    out.carried = header is not None
    for k, ln in enumerate(order):
        if first:
            item = not ln.cells and _is_item(ln)
        header = _emit(raw, ln, parts, idx, header)
        if k + 1 == len(order):
            break
        why = decide(ln, order[k + 1], geometry, (cols[k], cols[k + 1]), first, item)
        out.trace.append(why)
        if why is Why.HYPHEN:
            parts[-1] = parts[-1][:-1]  # the hyphen closing the line
            idx.pop()
        sep = JOINS.get(why, "\n")
        if sep:
            parts.append(sep)
            idx.append(ln.brk if ln.brk >= 0 else ln.s1 - 1)
        first = sep == "\n"
        if why is not Why.ROW:
            header = None
    out.header = header if order[-1].cells else None
    out.text = "".join(parts)
    out.idx = idx
    out.first, out.last = order[0], order[-1]
    out.right = geometry.right.get((cols[-1], _k(order[-1].size1)), order[-1].x1)
    out.left = geometry.left.get((cols[0], _k(order[0].size0)), order[0].x0)
    return out


def _is_item(ln: Line) -> bool:
    return _ITEM_START.match(ln.text) is not None and classify(ln.text).kind == "item"


def _emit(raw: str, ln: Line, parts: list[str], idx: list[int], header: list[str] | None) -> list[str] | None:
    """Append the line's text (a table row's cells tab-separated, paired with ``header``); the
    header for the rows after it."""
    if not ln.cells:
        _span(raw, ln.s0, ln.s1, parts, idx)
        return None
    cells = [_strip(raw, a, b) for a, b in ln.cells]
    names = [raw[a:b] for a, b in cells]
    pair = header is not None and len(header) == len(cells)
    for c, (a, b) in enumerate(cells):
        if c:
            parts.append("\t")
            idx.append(ln.seps[c - 1])
        if pair and header[c] and a < b:
            name = header[c] + ": "
            parts.append(name)
            idx.extend([-1] * len(name))
        _span(raw, a, b, parts, idx)
    return header if pair else names


def _strip(raw: str, a: int, b: int) -> tuple[int, int]:
    while a < b and raw[a].isspace():
        a += 1
    while b > a and raw[b - 1].isspace():
        b -= 1
    return a, b


def _span(raw: str, a: int, b: int, parts: list[str], idx: list[int]) -> None:
    """``raw[a:b]`` with its PDFium indices; a joined hyphen (U+FFFE) dropped inside a word and
    kept as ``-`` in a code, NULs and BOMs left out."""
    seg = raw[a:b]
    special = _SPECIAL.search(seg)
    if special is None:
        parts.append(seg)
        idx.extend(range(a, b))
        return
    out = []
    pos = a
    while special is not None:
        k = a + special.start()
        out.append(raw[pos:k])
        idx.extend(range(pos, k))
        if raw[k] == HYPHEN and not _drop_hyphen(raw[max(a, k - 24):k], raw[k + 1:k + 2]):
            out.append("-")
            idx.append(k)
        pos = k + 1
        special = _SPECIAL.search(seg, pos - a)
    out.append(raw[pos:b])
    idx.extend(range(pos, b))
    parts.append("".join(out))
