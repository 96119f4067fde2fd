"""Text documents in the document view (``.md .txt .html .docx``, and PDFs as text): the whole
document rebuilt from its stored sentences (they join to the exact document text), every piece
escaped with :func:`swr.manage.escape.esc`.

Every sentence is a ``<span class="swr-dv-s" data-i="N">`` (N: 0-based sentence number), with
``swr-dv-win`` inside the window, ``swr-dv-hit`` on the hit sentence, ``swr-dv-other`` on other
hits of the same answer; a heading sentence (the structure recorded at indexing, or a Markdown
``#`` line) also gets ``swr-dv-h swr-dv-hN`` (N: its level) and is shown without its ``#``
markers. The first window sentence carries the anchor ``id`` the view scrolls to.
"""
from __future__ import annotations

import re

from swr.manage.escape import esc, md_display

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")

CSS = """
.swr-dv-doc{white-space:pre-wrap;line-height:1.6;overflow-wrap:anywhere;font-family:system-ui,-apple-system,
 "Segoe UI",sans-serif;color:#1f2328;background:#fff;padding:.6em .9em;border:1px solid #d0d7de;border-radius:8px}
.swr-dv-win{background:#fff6cc}
.swr-dv-other{background:#dbe8ff;border-radius:3px}
.swr-dv-hit{background:#ffc966;border-radius:3px;outline:1px solid #d66000}
.swr-dv-h{font-weight:700}
.swr-dv-h1{font-size:1.35em}.swr-dv-h2{font-size:1.2em}.swr-dv-h3{font-size:1.08em}
"""


def heading_level(sentence, markdown: bool = True) -> int | None:
    """The heading level of a sentence (structure payload first, else a Markdown ``#`` line)."""
    if getattr(sentence, "block_kind", None) == "heading" and getattr(sentence, "section", None) == sentence.i:
        return int(sentence.heading_level or 1)
    m = _MD_HEADING.match(sentence.text) if markdown else None
    if m and getattr(sentence, "block_kind", None) in (None, "heading"):
        return len(m.group(1))
    return None


def text_html(sentences: list, *, hit: int, first: int, last: int, others: set[int] | frozenset = frozenset(),
              anchor: str = "swr-dv-window", markdown: bool = True) -> str:
    """The whole document (``sentences`` in order) as escaped HTML, marked as the module says;
    ``markdown``: Markdown markers (``#``, ``**``) are hidden as in the passage cards (the Markdown,
    HTML and DOCX loaders write headings as ``#`` lines), else the text is shown as it is."""
    out = [f'<div class="swr-dv-doc" data-hit="{int(hit)}" data-first="{int(first)}" data-last="{int(last)}">']
    prev_nl = True
    for s in sentences:
        cls = ["swr-dv-s"]
        if first <= s.i <= last:
            cls.append("swr-dv-win")
        if s.i == hit:
            cls.append("swr-dv-hit")
        elif s.i in others:
            cls.append("swr-dv-other")
        level = heading_level(s, markdown)
        if level:
            cls += ["swr-dv-h", f"swr-dv-h{min(level, 6)}"]
        ident = f' id="{anchor}"' if s.i == first else ""
        body = esc(md_display(s.text, prev_nl)) if markdown else esc(s.text)
        out.append(f'<span class="{" ".join(cls)}" data-i="{int(s.i)}"{ident}>{body}</span>')
        prev_nl = s.text.endswith("\n")
    out.append("</div>")
    return "".join(out)
