"""PDF files: the text layer of every page (pypdfium2's text page), pages kept as one document.

The text of a page is built character by character from PDFium's text page
(:func:`page_text`), and every character of it remembers the index of the PDFium character it
came from. So a stored sentence (offsets into the joined text) maps back onto the page's
characters, and their boxes, exactly (:mod:`swr.manage.docview`), whatever order the text layer is in:
the text is in the order of the text layer (PDFium's content-stream order, as pypdf gave before),
never reordered, so an offset is always one character drawn on the page.

:data:`TEXT_LAYER` names this extraction; the document view checks that a stored sentence still
equals the text it maps to before it highlights anything.
"""
from __future__ import annotations

import threading

from swr.core.errors import EmptyDocument, SwrError, Undecodable
from swr.ingest.load.names import describe

TEXT_LAYER = "pdfium-1"  # bump when page_text changes: older offsets no longer map

# PDFium is not thread-safe: every call into it (here and in swr.manage.docview) holds this lock
PDFIUM_LOCK = threading.RLock()


def load_pdf(data: bytes, src: str) -> tuple[str, list[int]]:
    """All pages' text joined by "\\n", with each page's start offset."""
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
    pages = _pdf_page_texts(data, src)
    if not pages:
        raise EmptyDocument(f"{src}: the PDF has no pages", source=src)
    starts = page_starts(pages)
    joined = "\n".join(pages)
    if not joined.strip():
        raise EmptyDocument(
            f"{src}: the PDF has {len(pages)} page(s) but no text layer (probably scanned "
            "images); run OCR on it first",
            source=src,
        )
    return joined, starts


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


def _pdf_page_texts(data: bytes, src: str) -> list[str]:
    """Every page's text (:func:`page_text`), typed errors for unreadable files."""
    try:
        with PDFIUM_LOCK:
            pdf = open_pdf(data, src)
            try:
                texts = []
                for k in range(len(pdf)):
                    page = pdf[k]
                    tp = page.get_textpage()
                    texts.append(page_text(tp)[0])
                    tp.close()
                    page.close()
                return texts
            finally:
                pdf.close()
    except SwrError:
        raise
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the PDF, it is corrupt or not supported ({describe(e)})",
            source=src,
        ) from None
