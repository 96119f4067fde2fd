"""PDF files: the text of every page rebuilt from its layout (pypdfium2), pages kept as one document.

A page's text is rebuilt from PDFium's lines and character boxes (:mod:`swr.ingest.pdf_build`):
paragraphs joined across line ends, page furniture (running headers, footers, page numbers) left
out, columns in reading order, table rows paired with their header. Every character of it
remembers the index of the PDFium character it came from, so a stored sentence (offsets into the
joined text) maps back onto the page's characters, and their boxes, exactly (:mod:`swr.manage.docview`).
Two pages are joined by ``"\n"``, or by a space where a paragraph runs on to the next page.

:data:`TEXT_LAYER` names this extraction (recorded with the kept file); documents kept with the
earlier one (:data:`LINES_LAYER`: PDFium's text in its own order, one line per PDFium line,
:func:`page_text`) are still mapped that way by the document view until they are re-indexed. The
document view checks that a stored sentence still equals the text it maps to before it
highlights anything.
"""
from __future__ import annotations

import threading

from swr.core.errors import EmptyDocument, SwrError, Undecodable
from swr.ingest.load.names import describe

TEXT_LAYER = "pdfium-layout-1"  # bump when the rebuilt page text changes: older offsets no longer map
LINES_LAYER = "pdfium-1"  # the text layer as PDFium orders it (page_text), before the layout

# PDFium is not thread-safe: every call into it (here and in swr.manage.docview) holds this lock
PDFIUM_LOCK = threading.RLock()


def load_pdf(data: bytes, src: str, *, layout: bool = True) -> tuple[str, list[int], dict]:
    """All pages' text (joined by ``"\\n"``, or a space where a paragraph runs on), each page's
    start offset, and the layout to keep with the file (``text_layer``; ``furniture``: the keys of
    the page furniture left out; ``table_headers``: the header of a table running on to a page).
    ``layout=False``: the earlier extraction (:data:`LINES_LAYER`)."""
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    if b"%PDF-" not in data[:1024]:
        raise Undecodable(f"{src}: not a PDF file (no %PDF header)", source=src)
    if b"%%EOF" not in data[-4096:]:
        raise Undecodable(
            f"{src}: the PDF is truncated or incomplete (no end-of-file marker); "
            "download or export it again",
            source=src,
        )
    pages, joints, kept = _pdf_page_texts(data, src, layout)
    if not pages:
        raise EmptyDocument(f"{src}: the PDF has no pages", source=src)
    starts = page_starts(pages)
    joined = "".join(p + j for p, j in zip(pages, joints + [""]))
    if not joined.strip():
        raise EmptyDocument(
            f"{src}: the PDF has {len(pages)} page(s) but no text layer (probably scanned "
            "images); run OCR on it first",
            source=src,
        )
    return joined, starts, kept


def page_starts(pages: list[str]) -> list[int]:
    """Start offset of every page's text in the pages joined by "\\n"."""
    starts: list[int] = []
    offset = 0
    for text in pages:
        starts.append(offset)
        offset += len(text) + 1
    return starts


def open_pdf(data: bytes, src: str):
    """A ``pypdfium2.PdfDocument`` of ``data``; :class:`Undecodable` when it cannot be opened
    (encrypted with a user password, corrupt). Call with :data:`PDFIUM_LOCK` held."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        if getattr(e, "err_code", None) == 4 or "password" in str(e).lower():  # FPDF_ERR_PASSWORD
            raise Undecodable(
                f"{src}: the PDF is encrypted / password-protected; remove the password and "
                "upload it again",
                source=src,
            ) from None
        raise Undecodable(f"{src}: cannot read the PDF, it is corrupt or not supported ({describe(e)})",
                          source=src) from None


def page_text(textpage) -> tuple[str, list[int]]:
    """The text of one PDFium text page and, for every character of it, the PDFium character
    index it came from: ``\\r\\n`` and ``\\r`` become ``\\n`` (mapped to the ``\\r``), NULs and
    BOMs are dropped. Call with :data:`PDFIUM_LOCK` held."""
    import pypdfium2.raw as raw

    n = textpage.count_chars()
    out: list[str] = []
    idx: list[int] = []
    k = 0
    while k < n:
        u = raw.FPDFText_GetUnicode(textpage, k)
        if u == 0x0D:
            out.append("\n")
            idx.append(k)
            if k + 1 < n and raw.FPDFText_GetUnicode(textpage, k + 1) == 0x0A:
                k += 1
        elif u not in (0, 0xFEFF):
            try:
                out.append(chr(u))
            except (ValueError, OverflowError):
                out.append("\ufffd")
            idx.append(k)
        k += 1
    return "".join(out), idx


def _pdf_page_texts(data: bytes, src: str, layout: bool) -> tuple[list[str], list[str], dict]:
    """Every page's text, the characters joining them, and the layout kept; typed errors for
    unreadable files."""
    from swr.ingest.pdf_build import carried_headers, document_pages, page_joint

    try:
        with PDFIUM_LOCK:
            pdf = open_pdf(data, src)
            try:
                if layout:
                    pages, keys = document_pages(pdf)
                    joints = [page_joint(a, b) for a, b in zip(pages, pages[1:])]
                    return [p.text for p in pages], joints, {"text_layer": TEXT_LAYER, "furniture": keys,
                                                             "table_headers": carried_headers(pages)}
                texts = []
                for k in range(len(pdf)):
                    page = pdf[k]
                    tp = page.get_textpage()
                    texts.append(page_text(tp)[0])
                    tp.close()
                    page.close()
                return texts, ["\n"] * (len(texts) - 1), {"text_layer": LINES_LAYER}
            finally:
                pdf.close()
    except SwrError:
        raise
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the PDF, it is corrupt or not supported ({describe(e)})",
            source=src,
        ) from None
