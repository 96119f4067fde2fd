"""File names, formats and sizes, and the shared wording of load errors."""
from __future__ import annotations

import os
import unicodedata

from swr.core.errors import EmptyDocument, FileTooLarge, UnsupportedFile

SUPPORTED = (".txt", ".md", ".markdown", ".pdf", ".docx", ".html", ".htm")

FORMATS = {
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


def format_of(src: str) -> str:
    ext = os.path.splitext(src)[1].lower()
    if ext not in FORMATS:
        shown = f"'{ext}'" if ext else "(no extension)"
        raise UnsupportedFile(
            f"{src}: unsupported file type {shown}; supported types are " + ", ".join(SUPPORTED),
            source=src,
        )
    return FORMATS[ext]


def check_size(src: str, size: int, max_bytes: int) -> None:
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


def describe(exc: BaseException) -> str:
    """Short ``Type: message`` of an exception, for the end of a user-facing message."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    msg = msg[:200]
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def normalize_newlines(text: str) -> str:
    """Strip a leading BOM and turn \\r\\n and \\r into \\n."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def require_text(src: str, text: str, what: str) -> str:
    if not text.strip():
        raise EmptyDocument(f"{src}: {what}", source=src)
    return text
