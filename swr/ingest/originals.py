"""The original files the document view renders: kept under ``SWR_HOME/files`` at indexing.

Only PDFs are kept (a text document is rebuilt exactly from its stored sentences). Layout:
``SWR_HOME/files/<collection>/<kb key>/<doc_id>/original.pdf`` beside ``layout.json``
(``{"format", "text_layer", "page_starts", "pages", "chars", "source"}``: where each page's text
starts in the document text, so a sentence maps to its page without reading the pages before it).
The knowledge-base key is the name percent-encoded (any printable name is a safe folder name).

A deleted document or knowledge base takes its folder into its trash entry
(:mod:`swr.manage.trash`) and gets it back when restored; a purged entry removes it with the rest.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

ORIGINAL = "original.pdf"
LAYOUT = "layout.json"


def files_root(settings) -> Path:
    """``SWR_HOME/files/<collection>``: the kept files of this collection."""
    return Path(settings.home) / "files" / settings.collection


def kb_dir(settings, kb: str) -> Path:
    """The folder of one knowledge base's kept files."""
    return files_root(settings) / quote(kb, safe="")


def doc_dir(settings, kb: str, doc_id: str) -> Path:
    """The folder of one document's kept file (``doc_id`` is 16 hex digits)."""
    if not doc_id or not all(c in "0123456789abcdef" for c in doc_id):
        raise ValueError(f"not a document id: {doc_id!r}")
    return kb_dir(settings, kb) / doc_id


def keep(settings, kb: str, doc_id: str, data: bytes, layout: dict) -> Path:
    """Write a document's original bytes and layout (atomically: a folder renamed when whole)."""
    d = doc_dir(settings, kb, doc_id)
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{doc_id}.", dir=d.parent))
    try:
        (tmp / ORIGINAL).write_bytes(bytes(data))
        (tmp / LAYOUT).write_text(json.dumps(layout, ensure_ascii=False), encoding="utf-8")
        if d.exists():
            shutil.rmtree(d, ignore_errors=True)
        os.replace(tmp, d)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return d


def has(settings, kb: str, doc_id: str) -> bool:
    """Whether the original file and layout of a document are kept."""
    d = doc_dir(settings, kb, doc_id)
    return (d / ORIGINAL).is_file() and (d / LAYOUT).is_file()


def read(settings, kb: str, doc_id: str) -> tuple[bytes, dict] | None:
    """The kept bytes and layout of a document, or None when it is not kept."""
    d = doc_dir(settings, kb, doc_id)
    try:
        return (d / ORIGINAL).read_bytes(), json.loads((d / LAYOUT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def remove(settings, kb: str, doc_id: str | None = None) -> None:
    """Delete the kept files of a document (or of a whole knowledge base) for good."""
    d = doc_dir(settings, kb, doc_id) if doc_id else kb_dir(settings, kb)
    shutil.rmtree(d, ignore_errors=True)


def move_out(settings, kb: str, doc_id: str | None, dest: Path) -> bool:
    """Move the kept files of a document (or knowledge base) to ``dest`` (the trash); False when
    there were none."""
    d = doc_dir(settings, kb, doc_id) if doc_id else kb_dir(settings, kb)
    if not d.is_dir():
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(d), str(dest))
    return True


def move_back(settings, kb: str, doc_id: str | None, src: Path) -> bool:
    """Put files moved out by :func:`move_out` back (a restore); False when ``src`` is missing."""
    if not src.is_dir():
        return False
    d = doc_dir(settings, kb, doc_id) if doc_id else kb_dir(settings, kb)
    if d.exists():
        shutil.rmtree(d, ignore_errors=True)
    d.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(src), str(d))
    return True
