"""Text from documents as inert HTML: escaping, Markdown markers hidden (never interpreted), and
the passage anchors every card and citation link shares."""
from __future__ import annotations

import re
from typing import Any

# Characters HTML, Markdown or Streamlit (LaTeX, emoji shortcodes, autolinks) give a meaning to.
_SPECIAL = "&<>\"'[]()*_`~$\\|:#!{}=@"
ESCAPES = {ord(c): f"&#{ord(c)};" for c in _SPECIAL}
ESCAPES[ord("\n")] = f"&#{0x0A};"  # a newline kept as a character reference
ESCAPES[ord("\r")] = ""


def esc(value: Any) -> str:
    """``value`` as inert HTML text: HTML-escaped, Markdown/LaTeX characters and newlines
    encoded as character references (browsers display the same text)."""
    text = "" if value is None else str(value)
    return text.translate(ESCAPES)


# Markdown syntax the documents carry (``**bold**``, ``## heading``) is hidden when shown, never
# interpreted: the markers are removed before escaping (hand-written: two patterns, and a
# Markdown renderer would also turn the document's links and HTML into elements).
_MD_BOLD = re.compile(r"(\*\*)(?=\S)(.+?)(?<=\S)\1")  # not __x__: __init__ is a name
_MD_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+")
# a Markdown table's border row (|---|:--:|): never highlighted as a "sentence"
_TABLE_BORDER = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*")


def is_table_border(sentence: str) -> bool:
    """A sentence that is nothing but a Markdown table border (``|---|---|``)."""
    return bool(_TABLE_BORDER.fullmatch(sentence or "")) and "-" in (sentence or "")


def md_display(text: str, at_line_start: bool = True) -> str:
    """``text`` with Markdown's bold markers and heading hashes removed (for display only)."""
    if not at_line_start:
        head, nl, rest = text.partition("\n")
        return _MD_BOLD.sub(r"\2", head) + (nl + md_display(rest) if nl else "")
    return _MD_HEADING.sub("", _MD_BOLD.sub(r"\2", text))


_ANCHOR_PREFIX = re.compile(r"[A-Za-z0-9_-]*")

def passage_anchor(prefix: str, n: int) -> str:
    """``{prefix}passage-{n}``; the prefix is code-chosen (``a3-``), checked to stay a plain id."""
    if not _ANCHOR_PREFIX.fullmatch(prefix):
        raise ValueError(f"anchor prefix {prefix!r}: letters, digits, '-' and '_' only")
    return f"{prefix}passage-{int(n)}"
