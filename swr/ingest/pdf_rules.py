"""The thresholds of the PDF layout (:mod:`swr.ingest.pdf_layout`), named once."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LayoutRules:
    """Thresholds of the PDF layout, calibrated on bench/pdf_sentences.py's generated manuals
    (seeds 0-15 looked at while tuning, 16-23 held out: Helvetica, Times and Courier at 9-12 pt,
    justified and ragged, 1.15-1.45 leading, paragraph spacing 0.5-1.2 font sizes or first-line
    indents, one and two columns, tables, bullet lists, running headers and footers)."""

    gap_ratio: float = 1.25  # a baseline step above this x the page's usual step (same font size): paragraph end
    default_step: float = 1.3  # the usual step in font sizes when the page shows none
    size_change: float = 0.12  # font sizes differing by more than this share: another block (a heading)
    indent_em: float = 0.8  # a line starting this many font sizes right (or left) of the one before: new paragraph
    space_em: float = 0.25  # width of a space in font sizes, when asking whether the next word would have fit
    cell_gap_em: float = 1.0  # a gap of at least this many font sizes at a generated space: a table cell boundary
    even_gap_pt: float = 0.5  # cell gaps this close (points), and no other space in the line: justified words
    even_gap_em: float = 3.0  # ... when narrower than this many font sizes (wider even gaps: a table of equal cells)
    jump_em: float = 0.3  # the next line starting this many font sizes above this one: a new column
    furniture_pages: int = 3  # an edge line repeated on this many pages (every page of a shorter file): furniture
    furniture_band: float = 0.15  # share of the page height at the top and bottom where furniture lies
    furniture_lines: int = 2  # lines at each edge of a page looked at for furniture (the inner one only if smaller)
    gutter_min_lines: int = 3  # lines needed on each side of a vertical gap to read it as a column gutter
    gutter_cross: float = 0.15  # share of the page's lines that may cross a gutter (a full-width title)
    step_min: float = 0.9  # a baseline step counts toward the page's usual step from this many font sizes
    step_max: float = 3.0  # ... up to this many (wider: a paragraph or section gap, not a line step)
    min_row_step: float = 0.1  # a table row's step is at least this (points): a ratio to it stays finite


RULES = LayoutRules()
