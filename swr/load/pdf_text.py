"""PDF files: the text layer of every page (pypdf), pages kept as one document."""
from __future__ import annotations

import io

from ..errors import EmptyDocument, SwrError, Undecodable
from .names import describe, normalize_newlines


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
    starts: list[int] = []
    offset = 0
    for text in pages:
        starts.append(offset)
        offset += len(text) + 1
    joined = "\n".join(pages)
    if not joined.strip():
        raise EmptyDocument(
            f"{src}: the PDF has {len(pages)} page(s) but no text layer (probably scanned "
            "images); run OCR on it first",
            source=src,
        )
    return joined, starts


def _pdf_page_texts(data: bytes, src: str) -> list[str]:
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _pdf_open_without_password(reader):
            raise Undecodable(
                f"{src}: the PDF is encrypted / password-protected; remove the password and "
                "upload it again",
                source=src,
            )
        return [normalize_newlines(page.extract_text() or "").replace("\0", "") for page in reader.pages]
    except SwrError:
        raise
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the PDF, it is corrupt or not supported ({describe(e)})",
            source=src,
        ) from None


def _pdf_open_without_password(reader) -> bool:
    """Whether an encrypted PDF opens with the empty user password (owner-only protection)."""
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False
