"""Turn a file (path or bytes) into a :class:`swr.types.Document`.

Supported: ``.txt .md .markdown .pdf .docx .html .htm``. Every failure is a typed
:mod:`swr.errors` error whose message starts with the file's safe name and says what is wrong,
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
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import unicodedata
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

from swr.errors import EmptyDocument, FileTooLarge, NotFound, SwrError, Undecodable, UnsupportedFile
from swr.types import Document

SUPPORTED = (".txt", ".md", ".markdown", ".pdf", ".docx", ".html", ".htm")

_FORMATS = {
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
}

_MAX_NAME_BYTES = 200
_MAX_EXT_BYTES = 16
_CONTROL_SHARE_LIMIT = 0.10
_LEGACY_MIN_SCORE = 0.6
_SCORE_SAMPLE_CHARS = 4000


# --------------------------------------------------------------------------------------------
# public API


def load_path(path: str | os.PathLike, *, max_bytes: int | None = None) -> Document:
    """Read the file at ``path`` and load it; the document's name is the path's basename.

    Raises the errors of :func:`load_bytes`, plus :class:`NotFound` for a missing file,
    :class:`UnsupportedFile` for a directory and :class:`SwrError` for other OS errors. The
    extension and ``max_bytes`` are checked before the file is read.
    """
    p = Path(os.fsdecode(os.fspath(path)))
    name = p.name
    src = safe_name(name)
    _format_of(src)  # unsupported extension: fail before reading
    try:
        if p.is_dir():
            raise UnsupportedFile(f"{src}: is a directory, not a file", source=src)
        if max_bytes is not None:
            _check_size(src, p.stat().st_size, max_bytes)
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
    fmt = _format_of(src)
    if max_bytes is not None:  # before any copy: ``data`` may be a memoryview of a large upload
        _check_size(src, memoryview(data).nbytes, max_bytes)
    data = bytes(data)
    page_starts: list[int] = []
    encoding: str | None = None
    if fmt == "pdf":
        text, page_starts = _load_pdf(data, src)
    elif fmt == "docx":
        text = _load_docx(data, src)
    elif fmt == "html":
        text, encoding = _load_html(data, src)
    else:
        text, encoding = _load_text(data, src)
    return Document(
        source=src,
        text=text,
        doc_id=make_doc_id(src, data),
        page_starts=page_starts,
        format=fmt,
        encoding=encoding,
    )


def make_doc_id(source: str, data: bytes) -> str:
    """First 16 hex chars of sha256(source UTF-8 + NUL + data)."""
    h = hashlib.sha256(source.encode("utf-8", "replace") + b"\0" + data)
    return h.hexdigest()[:16]


def safe_name(name: str | bytes | os.PathLike) -> str:
    """A display/source name that is safe to show and store.

    Keeps only the last path component (``/`` and ``\\`` both separate, ``.``/``..`` are
    dropped), removes control, line-separator and bidi-override characters, trims
    whitespace and trailing dots, and trims to at most 200 bytes of UTF-8 keeping the
    extension. Never empty: ``"unnamed"`` when nothing is left.
    """
    s = name if isinstance(name, str) else os.fsdecode(os.fspath(name))
    s = s.encode("utf-8", "replace").decode("utf-8")  # lone surrogates -> "?"
    s = "".join(ch for ch in s if not _is_unsafe_char(ch))
    parts = [p.strip() for p in s.replace("\\", "/").split("/")]
    parts = [p for p in parts if p and p not in (".", "..")]
    s = parts[-1].rstrip(". ") if parts else ""
    if not s.strip("."):
        return "unnamed"
    return _trim_utf8(s, _MAX_NAME_BYTES) or "unnamed"


# --------------------------------------------------------------------------------------------
# names, sizes, errors


def _is_unsafe_char(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Zl", "Zp", "Cs"):
        return True
    return ch in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"


def _trim_utf8(name: str, limit: int) -> str:
    """``name`` cut to ``limit`` bytes of UTF-8, keeping a (short) extension."""
    if len(name.encode("utf-8")) <= limit:
        return name
    stem, ext = os.path.splitext(name)
    ext_bytes = ext.encode("utf-8")
    if len(ext_bytes) > _MAX_EXT_BYTES:
        stem, ext_bytes = name, b""
    budget = limit - len(ext_bytes)
    stem = stem.encode("utf-8")[:budget].decode("utf-8", "ignore").rstrip(". ")
    return stem + ext_bytes.decode("utf-8") if stem else ""


def _format_of(src: str) -> str:
    ext = os.path.splitext(src)[1].lower()
    if ext not in _FORMATS:
        shown = f"'{ext}'" if ext else "(no extension)"
        raise UnsupportedFile(
            f"{src}: unsupported file type {shown}; supported types are " + ", ".join(SUPPORTED),
            source=src,
        )
    return _FORMATS[ext]


def _check_size(src: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise FileTooLarge(
            f"{src}: file is {_human(size)} ({size} bytes), above the limit of "
            f"{_human(max_bytes)} ({max_bytes} bytes, SWR_MAX_FILE_MB); split the file "
            "or ask the administrator to raise the limit",
            source=src,
        )


def _human(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def _describe(exc: BaseException) -> str:
    """Short ``Type: message`` of an exception, for the end of a user-facing message."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    msg = msg[:200]
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def _normalize(text: str) -> str:
    """Strip a leading BOM and turn \\r\\n and \\r into \\n."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _require_text(src: str, text: str, what: str) -> str:
    if not text.strip():
        raise EmptyDocument(f"{src}: {what}", source=src)
    return text


# --------------------------------------------------------------------------------------------
# plain text


def _load_text(data: bytes, src: str) -> tuple[str, str]:
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    text, encoding = decode_bytes(data, src)
    text = _normalize(text)
    _require_text(src, text, "the file contains only whitespace, no text")
    return text, encoding


def decode_bytes(data: bytes, src: str) -> tuple[str, str]:
    """Decode a text file's bytes by detection (see the module docstring): (text, encoding).

    Raises :class:`Undecodable` (naming ``src``) for binary data.
    """
    result = _decode_bom(data, src)
    if result is None and b"\0" in data:
        result = _decode_utf16_without_bom(data, src)
    if result is None:
        result = _decode_utf8(data)
    if result is None:
        result = _decode_legacy(data)
    text, encoding = result
    _reject_binary_text(text, src)
    return text, encoding


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be", "utf-16-be"),
)


def _decode_bom(data: bytes, src: str) -> tuple[str, str] | None:
    for bom, label, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec), label
            except UnicodeDecodeError as e:
                raise Undecodable(
                    f"{src}: starts with a {label.upper()} byte-order mark but is not valid "
                    f"{label.upper()} at byte {e.start + len(bom)}",
                    source=src,
                ) from None
    return None


def _decode_utf16_without_bom(data: bytes, src: str) -> tuple[str, str]:
    """UTF-16 when the NUL bytes say so (ASCII-heavy UTF-16), or when one byte order decodes
    to plausible text (CJK-heavy UTF-16: ``一`` is ``00 4E`` in UTF-16-LE, so its NULs sit on
    the other parity than those of ASCII); else the data is binary."""
    even = data[0::2].count(0)
    odd = data[1::2].count(0)
    total = even + odd
    if len(data) % 2 == 0 and total:
        likely = "utf-16-le" if odd >= even else "utf-16-be"
        by_nul = max(even, odd) >= 0.95 * total
        best: tuple[float, str, str] | None = None
        for codec in (likely, "utf-16-be" if likely == "utf-16-le" else "utf-16-le"):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if _control_share(text) > _CONTROL_SHARE_LIMIT:
                continue
            if codec == likely and by_nul:
                return text, codec
            score = _utf16_score(text)
            if best is None or score > best[0]:
                best = (score, text, codec)
        if best is not None and best[0] >= _UTF16_MIN_SCORE:
            return best[1], best[2]
    raise Undecodable(f"{src}: the file is binary (contains NUL bytes), not text", source=src)


_UTF16_MIN_SCORE = 0.9


def _utf16_score(text: str) -> float:
    """Share of characters of the first ~4000 that are ordinary text in a common script.

    Bytes read in the wrong order (or binary data) land mostly on rare ideographs, Hangul or
    private-use characters, far below 0.9; text read in the right order scores near 1.
    """
    sample = text[:_SCORE_SAMPLE_CHARS]
    if not sample:
        return 0.0
    common = _common_cjk()
    good = 0
    for ch in sample:
        cp = ord(ch)
        if (0x20 <= cp < 0x7F or ch in "\t\n\r\f\v" or 0xA0 <= cp <= 0x6FF or 0x2000 <= cp <= 0x206F
                or 0x3000 <= cp <= 0x30FF or 0xFF01 <= cp <= 0xFF65 or ch in common):
            good += 1
    return good / len(sample)


def _decode_utf8(data: bytes) -> tuple[str, str] | None:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    non_ascii = sum(len(m) for m in _NON_ASCII_RUN.findall(text[:200_000]))
    if non_ascii >= 100 and bad * 100 <= non_ascii:
        return text, "utf-8 (repaired)"
    return None


def _decode_legacy(data: bytes) -> tuple[str, str]:
    """Best of gb18030 / big5 / cp1252 (or latin-1) by plausibility; charset-normalizer after."""
    candidates: list[tuple[float, str, str]] = []
    latin = "cp1252"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        latin, text = "latin-1", data.decode("latin-1")
    candidates.append((_latin_score(text), text, latin))
    for codec in ("gb18030", "big5"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        candidates.append((_cjk_score(text), text, codec))
    best = candidates[0]
    for cand in candidates[1:]:
        if cand[0] > best[0]:
            best = cand
    if best[0] >= _LEGACY_MIN_SCORE:
        return best[1], best[2]
    guess = _charset_normalizer_guess(data)
    return guess if guess is not None else (best[1], best[2])


def _charset_normalizer_guess(data: bytes) -> tuple[str, str] | None:
    try:
        from charset_normalizer import from_bytes

        match = from_bytes(data).best()
    except Exception:  # a detector failure is not the user's problem
        return None
    if match is None or not match.encoding:
        return None
    return str(match), match.encoding


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def _control_share(text: str) -> float:
    sample = text[:200_000]
    if not sample:
        return 0.0
    return len(_CONTROL_CHARS.findall(sample)) / len(sample)


def _reject_binary_text(text: str, src: str) -> None:
    if _control_share(text) > _CONTROL_SHARE_LIMIT:
        raise Undecodable(
            f"{src}: the file looks binary (too many control characters), not text", source=src
        )


def _non_ascii_runs(text: str) -> list[re.Match]:
    """The first non-ASCII runs of ``text``, about _SCORE_SAMPLE_CHARS characters in all."""
    runs: list[re.Match] = []
    total = 0
    for m in _NON_ASCII_RUN.finditer(text):
        runs.append(m)
        total += m.end() - m.start()
        if total >= _SCORE_SAMPLE_CHARS:
            break
    return runs


def _cjk_score(text: str) -> float:
    """Share of non-ASCII characters that are common CJK ideographs or CJK punctuation."""
    runs = [m.group() for m in _non_ascii_runs(text)]
    total = sum(len(r) for r in runs)
    if not total:
        return 0.0
    common = _common_cjk()
    good = sum(1 for r in runs for ch in r if ch in common or _is_cjk_punct(ch))
    return good / total


def _latin_score(text: str) -> float:
    """Share of non-ASCII characters that look like accents inside Latin words.

    A run counts when it is short (<= 3 characters), made of Latin-1/Latin Extended letters or
    typographic punctuation, and is a single character or touches an ASCII letter (``café``,
    ``naïve``, ``à la``, `` – ``, ``“Hi”``). CJK bytes read as Latin-1 come in long runs, or in
    pairs between spaces and digits.
    """
    runs = _non_ascii_runs(text)
    total = sum(m.end() - m.start() for m in runs)
    if not total:
        return 0.0
    good = 0
    for m in runs:
        a, b = m.start(), m.end()
        run = m.group()
        if b - a > 3 or not all(_is_latin_char(ch) for ch in run):
            continue
        before = text[a - 1] if a else ""
        after = text[b] if b < len(text) else ""
        if b - a == 1 or _ascii_letter(before) or _ascii_letter(after):
            good += b - a
    return good / total


def _ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _is_latin_char(ch: str) -> bool:
    cp = ord(ch)
    if 0xA0 <= cp <= 0x24F:
        return True
    return ch in "‘’‚“”„–—…•†‡‰‹›€™ˆ˜"


def _is_cjk_punct(ch: str) -> bool:
    cp = ord(ch)
    return 0x3000 <= cp <= 0x303F or 0xFF01 <= cp <= 0xFF65 or ch in "‘’“”…—·•"


@lru_cache(maxsize=1)
def _common_cjk() -> frozenset[str]:
    """GB2312 level-1 hanzi (simplified) and Big5 level-1 characters (traditional)."""
    chars: set[str] = set()
    for lead in range(0xB0, 0xD8):
        for trail in range(0xA1, 0xFF):
            try:
                chars.add(bytes((lead, trail)).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    trails = list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF))
    for lead in range(0xA4, 0xC7):
        for trail in trails:
            try:
                chars.add(bytes((lead, trail)).decode("big5"))
            except UnicodeDecodeError:
                pass
    return frozenset(chars)


# --------------------------------------------------------------------------------------------
# HTML


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
}


def _load_html(data: bytes, src: str) -> tuple[str, str]:
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    text, encoding = _decode_html(data, src)
    try:
        visible = html_to_text(_normalize(text))
    except Exception as e:
        raise Undecodable(f"{src}: cannot parse the HTML ({_describe(e)})", source=src) from None
    _require_text(src, visible, "the page contains no visible text")
    return visible, encoding


def _decode_html(data: bytes, src: str) -> tuple[str, str]:
    """BOM, then a ``<meta charset>`` in the first 4 KB, then detection."""
    if _decode_bom(data, src) is None and b"\0" not in data:
        m = _META_CHARSET.search(data[:4096])
        if m:
            label = m.group(1).decode("ascii").lower()
            codec = _CHARSET_ALIASES.get(label, label)
            try:
                text = data.decode(codec)
            except (LookupError, UnicodeDecodeError):
                pass
            else:
                _reject_binary_text(text, src)
                return text, codec
    return decode_bytes(data, src)


class _VisibleText(HTMLParser):
    """Collects visible text; block elements become line breaks, table cells tabs."""

    SKIP = {"script", "style", "noscript", "template", "svg", "object", "iframe"}
    BLOCK = {
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
        "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
        "table", "tbody", "tfoot", "thead", "tr", "ul", "body", "html",
    }
    CELL = {"td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.skip = 0
        self.pre = 0
        self.in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "title":
            self.in_title = True
        elif tag in self.BLOCK:
            self.parts.append("\n")
            self.pre += tag == "pre"
        elif tag in self.CELL:
            self.parts.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "title":
            self.in_title = False
        elif tag in self.BLOCK:
            self.parts.append("\n")
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title.append(data)
        elif self.pre:
            self.parts.append(data)
        else:
            self.parts.append(re.sub(r"[ \t\n\r\f\v\xa0]+", " ", data))


def html_to_text(html: str) -> str:
    """Visible text of an HTML document: title first, one line per block, entities unescaped.

    ``<script>``, ``<style>``, ``<noscript>``, ``<template>``, ``<svg>`` content is dropped;
    whitespace runs inside a line collapse to one space (kept inside ``<pre>``); empty lines
    are dropped.
    """
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    title = " ".join("".join(parser.title).split())
    body = "".join(parser.parts).replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.strip() for line in body.split("\n")]
    if title:
        lines.insert(0, title)
    return "\n".join(line for line in lines if line)


# --------------------------------------------------------------------------------------------
# PDF


def _load_pdf(data: bytes, src: str) -> tuple[str, list[int]]:
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
        return [_normalize(page.extract_text() or "").replace("\0", "") for page in reader.pages]
    except SwrError:
        raise
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the PDF, it is corrupt or not supported ({_describe(e)})",
            source=src,
        ) from None


def _pdf_open_without_password(reader) -> bool:
    """Whether an encrypted PDF opens with the empty user password (owner-only protection)."""
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False


# --------------------------------------------------------------------------------------------
# DOCX


def _load_docx(data: bytes, src: str) -> str:
    """Paragraphs and table cells (row by row, merged cells once), one per line."""
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    try:
        import docx

        document = docx.Document(io.BytesIO(data))
        lines = list(_docx_lines(document))
    except Exception as e:
        raise Undecodable(
            f"{src}: cannot read the Word document, it is corrupt or not a .docx file (old .doc "
            f"files must be saved as .docx first) ({_describe(e)})",
            source=src,
        ) from None
    text = _normalize("\n".join(lines))
    return _require_text(src, text, "the document contains no text")


def _docx_lines(container):
    """Non-empty paragraph texts of a document or table cell, tables expanded in order."""
    from docx.table import Table

    for block in container.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                seen: list = []
                for cell in row.cells:
                    if any(cell._tc is tc for tc in seen):
                        continue  # a merged cell is repeated for each grid column it spans
                    seen.append(cell._tc)
                    yield from _docx_lines(cell)
        elif block.text.strip():
            yield block.text
