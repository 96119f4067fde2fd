"""Turn a file (path or bytes) into a :class:`swr.core.types.Document`.

Supported: ``.txt .md .markdown .pdf .docx .html .htm``. Every failure is a typed
:mod:`swr.core.errors` error whose message starts with the file's safe name and says what is wrong,
e.g. ``"notes.txt: the file is binary (contains NUL bytes), not text"``.

Text normalisation (all formats): a leading BOM is removed and ``\\r\\n`` / ``\\r`` become
``\\n``; nothing else is changed (no Unicode normalisation, no whitespace folding for plain
text and markdown).

Text decoding (``.txt``, ``.md``, and ``.html`` without a usable ``<meta charset>``) is by
detection, in this order:

1. a BOM: UTF-8 (``utf-8-sig``), UTF-32 LE/BE, UTF-16 LE/BE;
2. NUL bytes: UTF-16 LE/BE without BOM when the NULs sit (almost) all on odd/even offsets and
   the text decodes cleanly, otherwise the file is binary (:class:`Undecodable`);
3. strict UTF-8 (``utf-8``); UTF-8 with at most 1 bad sequence per 100 non-ASCII characters is
   still taken as UTF-8 (bad bytes replaced by U+FFFD, encoding ``"utf-8 (repaired)"``);
4. legacy candidates ``gb18030``, ``big5`` and ``cp1252`` (``latin-1`` when cp1252 cannot
   decode), each decoded strictly and scored on its non-ASCII characters: for the CJK codecs
   the share that are common ideographs (GB2312 level 1 or Big5 level 1) or CJK punctuation,
   for the Latin codec the share that sit in short runs of Latin letters/typographic
   punctuation between ASCII (as accents do). The best score wins (the Latin codec on a tie);
5. when no candidate scores at least 0.6, charset-normalizer's best guess (e.g. Shift-JIS,
   cp1251), else the best candidate anyway.

Decoded text with more than 10% control characters is rejected as binary.

PDF text is rebuilt from the page layout (:mod:`swr.ingest.pdf_build`: paragraphs joined across
line ends, page furniture left out, columns in reading order); ``Document.layout`` holds what the
document view needs to rebuild a page the same way. Line breaks of the other formats stay in the
text; the splitter decides which of them only wrap a paragraph (``split_spans(wraps=True)``).

Modules: :mod:`.names` (safe names, formats, sizes), :mod:`.decode` (text decoding),
:mod:`.html_text`, :mod:`.pdf_text`, :mod:`.docx_text`; this one ties them together.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from swr.core.errors import NotFound, SwrError, UnsupportedFile
from swr.core.types import Document
from swr.ingest.load.decode import decode_bytes, load_text
from swr.ingest.load.docx_text import load_docx
from swr.ingest.load.html_text import html_to_text, load_html
from swr.ingest.load.names import FORMATS, SUPPORTED, check_size, format_of, safe_name
from swr.ingest.load.pdf_text import load_pdf

__all__ = ["load_path", "load_bytes", "make_doc_id", "safe_name", "decode_bytes", "html_to_text", "SUPPORTED",
           "FORMATS"]


def load_path(path: str | os.PathLike, *, max_bytes: int | None = None) -> Document:
    """Read the file at ``path`` and load it; the document's name is the path's basename.

    Raises the errors of :func:`load_bytes`, plus :class:`NotFound` for a missing file,
    :class:`UnsupportedFile` for a directory and :class:`SwrError` for other OS errors. The
    extension and ``max_bytes`` are checked before the file is read.
    """
    p = Path(os.fsdecode(os.fspath(path)))
    name = p.name
    src = safe_name(name)
    format_of(src)  # unsupported extension: fail before reading
    try:
        if p.is_dir():
            raise UnsupportedFile(f"{src}: is a directory, not a file", source=src)
        if max_bytes is not None:
            check_size(src, p.stat().st_size, max_bytes)
        data = p.read_bytes()
    except FileNotFoundError:
        raise NotFound(f"{src}: file not found", source=src) from None
    except OSError as e:
        raise SwrError(f"{src}: cannot read the file ({e.strerror or e})", source=src) from None
    return load_bytes(name, data, max_bytes=max_bytes)


def load_bytes(name: str, data: bytes, *, max_bytes: int | None = None) -> Document:
    """Load the bytes of a file called ``name`` (only its extension and basename matter).

    ``source`` is ``safe_name(name)``; ``doc_id`` is the first 16 hex digits of
    ``sha256(source.encode() + b"\\0" + data)``. Raises :class:`UnsupportedFile`,
    :class:`FileTooLarge` (above ``max_bytes``), :class:`Undecodable` or :class:`EmptyDocument`.
    """
    src = safe_name(name)
    fmt = format_of(src)
    if max_bytes is not None:  # before any copy: ``data`` may be a memoryview of a large upload
        check_size(src, memoryview(data).nbytes, max_bytes)
    data = bytes(data)
    page_starts: list[int] = []
    encoding: str | None = None
    layout: dict = {}
    if fmt == "pdf":
        text, page_starts, layout = load_pdf(data, src)
    elif fmt == "docx":
        text = load_docx(data, src)
    elif fmt == "html":
        text, encoding = load_html(data, src)
    else:
        text, encoding = load_text(data, src)
    return Document(
        source=src,
        text=text,
        doc_id=make_doc_id(src, data),
        page_starts=page_starts,
        format=fmt,
        encoding=encoding,
        layout=layout,
    )


def make_doc_id(source: str, data: bytes) -> str:
    """First 16 hex chars of sha256(source UTF-8 + NUL + data)."""
    h = hashlib.sha256(source.encode("utf-8", "replace") + b"\0" + data)
    return h.hexdigest()[:16]


