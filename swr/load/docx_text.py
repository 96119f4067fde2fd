"""Word files (.docx): paragraphs and table cells in order (python-docx)."""
from __future__ import annotations

import io

from ..errors import EmptyDocument, Undecodable
from .names import describe, normalize_newlines, require_text


def load_docx(data: bytes, src: str) -> str:
    """Paragraphs one per line, table rows one per line (cells tab-separated, merged cells once).
    Heading styles start with ``#`` marks of their level, list styles with ``- `` (Markdown-like,
    for :mod:`swr.structure`)."""
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    try:
        import docx

        document = docx.Document(io.BytesIO(data))
        lines = list(_docx_lines(document))
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the Word document, it is corrupt or not a .docx file (old .doc "
            f"files must be saved as .docx first) ({describe(e)})",
            source=src,
        ) from None
    text = normalize_newlines("\n".join(lines))
    return require_text(src, text, "the document contains no text")


def _docx_lines(container):
    """Non-empty paragraph texts of a document or table cell, tables expanded in order."""
    from docx.table import Table

    for block in container.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                seen: list = []
                cells = []
                for cell in row.cells:
                    if any(cell._tc is tc for tc in seen):
                        continue  # a merged cell is repeated for each grid column it spans
                    seen.append(cell._tc)
                    cells.append(" ".join(x.strip() for x in _docx_lines(cell)))
                if any(cells):
                    yield "\t".join(cells)
        elif block.text.strip():
            yield _mark(block) + block.text


def _mark(paragraph) -> str:
    """``## `` for a "Heading 2" paragraph, ``- `` for a list style, else nothing."""
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    if name.startswith("Heading") and name[7:].strip().isdigit():
        return "#" * min(6, max(1, int(name[7:]))) + " "
    if name == "Title":
        return "# "
    if name.startswith("List"):
        return "- "
    return ""
