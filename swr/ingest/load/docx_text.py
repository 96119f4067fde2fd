"""Word files (.docx): paragraphs and table cells in order (python-docx)."""
from __future__ import annotations

import io

from swr.core.errors import EmptyDocument, Undecodable
from swr.ingest.load.names import describe, normalize_newlines, require_text


def load_docx(data: bytes, src: str) -> str:
    """Paragraphs one per line; a table row per line, cells tab-separated and paired with their
    header ("header: cell"; merged cells once). Heading styles start with ``#`` marks of their level,
    list styles with ``- `` (Markdown-like, for :mod:`swr.text.structure`)."""
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
    """Non-empty paragraph texts of a document or table cell, tables expanded in order: a table
    row is ONE line, each cell paired with its column's header (the first row), so a row's
    values stay together and keep their meaning: ``Model: KX-2000<TAB>Warranty: 2 years``."""
    from docx.table import Table

    for block in container.iter_inner_content():
        if isinstance(block, Table):
            rows = [_row_cells(row) for row in block.rows]
            rows = [r for r in rows if any(r)]
            header = rows[0] if len(rows) > 1 else []
            for k, cells in enumerate(rows):
                if k == 0 or len(header) != len(cells):  # merged cells: no sure pairing, the row as is
                    yield "\t".join(c for c in cells if c)
                else:
                    yield "\t".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c)
        elif block.text.strip():
            yield _mark(block) + block.text


def _row_cells(row) -> list[str]:
    """The texts of a row's cells (a merged cell once), each on one line."""
    seen: list = []
    out = []
    for cell in row.cells:
        if any(cell._tc is tc for tc in seen):
            continue  # a merged cell is repeated for each grid column it spans
        seen.append(cell._tc)
        out.append(" ".join(line.strip() for line in _docx_lines(cell) if line.strip()))
    return out


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
