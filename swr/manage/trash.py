"""The trash: a deleted knowledge base or document stays restorable for ``SWR_TRASH_DAYS``.

Deleting first exports the points (payloads, dense and sparse vectors) through the store's public
:meth:`swr.store.base.Store.export_points` into ``SWR_HOME/trash/<id>/``, and only then removes
them from the store: a failed export deletes nothing. Restoring writes the very same points back
(:meth:`~swr.store.base.Store.import_points`): nothing is re-embedded, the ids are the same, and
searches return what they returned before the delete.

One folder per entry: ``entry.json`` (what it is, when it goes), ``points.jsonl.gz`` (one
exported point per line), ``files/`` (the kept PDFs of the document view, :mod:`swr.ingest.originals`,
moved there and back) and ``kb_files/`` (a knowledge base's golden questions and feedback,
:func:`kb_files`, copied there and back, and its published settings, ``published.json``, taken out of
``SWR_HOME/published.json`` and put back). An entry is written to a ``.tmp`` folder and renamed when
complete, so a half-written entry is never listed. Entries older than ``SWR_TRASH_DAYS`` are purged
whenever the trash is listed or written.
"""
from __future__ import annotations

import gzip
import json
import shutil
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from swr.core.errors import BadRequest, ModelMismatch, NotFound
from swr.core.settings import Settings
from swr.ingest import originals as kept
from swr.manage.published import PublishedStore
from swr.store.base import Store

ENTRY_FILE = "entry.json"
POINTS_FILE = "points.jsonl.gz"
FILES_DIR = "files"
KB_FILES_DIR = "kb_files"  # a knowledge base's golden questions and feedback (kb_files)


def kb_files(settings: Settings, kb: str) -> dict[str, Path]:
    """The files kept next to knowledge base ``kb`` under ``SWR_HOME`` (by a name used inside a
    trash entry): its golden questions (:mod:`swr.manage.golden`) and its feedback (:mod:`swr.manage.feedback`).
    They are deleted, trashed and restored with it."""
    from swr.manage.feedback import feedback_path
    from swr.manage.golden import golden_path

    return {"golden.csv": golden_path(settings, kb), "feedback.json": feedback_path(settings, kb)}


PUBLISHED_FILE = "published.json"  # in kb_files/: a knowledge base's published settings, every version


def drop_kb_files(settings: Settings, kb: str) -> None:
    """Delete :func:`kb_files` of ``kb`` and its published settings (a knowledge base deleted for good:
    a new one of the same name starts from the defaults, never from another's settings and words)."""
    for path in kb_files(settings, kb).values():
        path.unlink(missing_ok=True)
    PublishedStore.for_settings(settings).drop(kb)


@dataclass(frozen=True)
class TrashEntry:
    """One deleted knowledge base (``kind="kb"``) or document (``kind="doc"``)."""

    id: str
    kind: str
    kb: str
    doc_id: str | None
    source: str | None  # the document's file name (kind "doc")
    documents: int
    sentences: int
    points: int
    deleted_at: str  # ISO 8601, UTC
    expires_at: str
    meta: dict  # the collection's metadata when it was deleted (model, dim, ...): restore checks it

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("meta")
        return d

    @property
    def label(self) -> str:
        """``knowledge base 'x'`` / ``a.txt from 'x'``."""
        return f"knowledge base {self.kb!r}" if self.kind == "kb" else f"{self.source} from {self.kb!r}"


def _now() -> datetime:
    return datetime.now(UTC)


class Trash:
    """The trash of one store, under ``settings.trash_path``."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.path = Path(settings.trash_path)

    # -- writing ---------------------------------------------------------------------------
    def keep(self, kb: str, doc_id: str | None = None, *, source: str | None = None) -> TrashEntry:
        """Export knowledge base ``kb`` (or its document ``doc_id``) into a new entry; the caller
        deletes it from the store afterwards. Returns the entry."""
        self.expire()
        records = self.store.export_points(kb, doc_id)
        now = _now()
        entry = TrashEntry(
            id=now.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6], kind="doc" if doc_id else "kb", kb=kb,
            doc_id=doc_id, source=source, documents=sum(r["payload"].get("type") == "d" for r in records),
            sentences=sum(r["payload"].get("type") == "s" for r in records), points=len(records),
            deleted_at=now.isoformat(timespec="seconds"),
            expires_at=(now + timedelta(days=self.settings.trash_days)).isoformat(timespec="seconds"),
            meta=self.store.meta() or {})
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.path / f"{entry.id}.tmp"
        tmp.mkdir()
        try:
            with gzip.open(tmp / POINTS_FILE, "wt", encoding="utf-8", compresslevel=3) as fh:
                for r in records:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            side = {n: p for n, p in kb_files(self.settings, kb).items() if p.is_file()} if not doc_id else {}
            for name, path in side.items():  # copied now, removed once the entry is complete
                (tmp / KB_FILES_DIR).mkdir(exist_ok=True)
                shutil.copy2(path, tmp / KB_FILES_DIR / name)
            pubs = PublishedStore.for_settings(self.settings)
            versions = [] if doc_id else pubs.versions(kb)  # its published settings go along (and come back)
            if versions:
                (tmp / KB_FILES_DIR).mkdir(exist_ok=True)
                (tmp / KB_FILES_DIR / PUBLISHED_FILE).write_text(json.dumps(
                    [p.to_dict() for p in reversed(versions)], ensure_ascii=False), encoding="utf-8")
            (tmp / ENTRY_FILE).write_text(json.dumps(asdict(entry), ensure_ascii=False, indent=1), encoding="utf-8")
            moved = kept.move_out(self.settings, kb, doc_id, tmp / FILES_DIR)
            try:
                tmp.rename(self.path / entry.id)
            except BaseException:
                if moved:
                    kept.move_back(self.settings, kb, doc_id, tmp / FILES_DIR)
                raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        for path in side.values():
            path.unlink(missing_ok=True)
        if not doc_id:
            pubs.drop(kb)
        return entry

    # -- reading ---------------------------------------------------------------------------
    def entries(self) -> list[TrashEntry]:
        """Every restorable entry, newest first (expired ones are purged first)."""
        self.expire()
        return self._entries()

    def _entries(self) -> list[TrashEntry]:
        out = []
        if not self.path.is_dir():
            return out
        for d in self.path.iterdir():
            f = d / ENTRY_FILE
            if d.suffix == ".tmp" or not f.is_file():
                continue
            try:
                out.append(TrashEntry(**json.loads(f.read_text(encoding="utf-8"))))
            except (ValueError, TypeError):
                continue  # a damaged entry is left on disk, not listed
        return sorted(out, key=lambda e: e.deleted_at + e.id, reverse=True)

    def get(self, entry_id: str) -> TrashEntry:
        for e in self._entries():
            if e.id == entry_id:
                return e
        raise NotFound(f"Nothing with id {entry_id!r} in the trash (see `python -m swr trash list`).")

    # -- restore and purge -----------------------------------------------------------------
    def restore(self, entry_id: str) -> TrashEntry:
        """Write the entry's points back and remove it from the trash. Refused (nothing written)
        when the collection's model changed, when a knowledge base of that name exists again
        (kind "kb"), or when the knowledge base holds that document again (kind "doc")."""
        e = self.get(entry_id)
        meta = self.store.meta() or {}
        if e.meta and meta and any(meta.get(k) != e.meta.get(k) for k in ("model", "dim")):
            raise ModelMismatch(f"Cannot restore {e.label}: it was embedded with {e.meta.get('model')} "
                                f"({e.meta.get('dim')} dimensions), the store now holds {meta.get('model')} "
                                f"({meta.get('dim')} dimensions). Index its files again instead.")
        kbs = self.store.kbs()
        if e.kind == "kb" and e.kb in kbs:
            raise BadRequest(f"Cannot restore {e.label}: a knowledge base named {e.kb!r} exists again. "
                             "Delete or rename that one first.")
        if e.kind == "doc" and e.kb in kbs and self.store.docs(e.kb, doc_id=e.doc_id):
            raise BadRequest(f"Cannot restore {e.label}: that knowledge base holds this document again.")
        with gzip.open(self.path / e.id / POINTS_FILE, "rt", encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh if line.strip()]
        # the knowledge-base record first, the document records last: a document interrupted
        # mid-restore is never listed as complete (as when indexing)
        records.sort(key=lambda r: {"k": 0, "s": 1, "d": 2}.get(r["payload"].get("type"), 1))
        if e.kind == "doc":
            self.store.create_kb(e.kb)
        self.store.import_points(records)
        kept.move_back(self.settings, e.kb, e.doc_id, self.path / e.id / FILES_DIR)
        if e.kind == "kb":
            for name, path in kb_files(self.settings, e.kb).items():
                saved = self.path / e.id / KB_FILES_DIR / name
                if saved.is_file() and not path.exists():  # never over a file written since
                    path.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(saved, path)
            saved = self.path / e.id / KB_FILES_DIR / PUBLISHED_FILE
            if saved.is_file():
                PublishedStore.for_settings(self.settings).adopt(e.kb, json.loads(saved.read_text(encoding="utf-8")))
        shutil.rmtree(self.path / e.id, ignore_errors=True)
        return e

    def purge(self, entry_id: str | None = None) -> list[TrashEntry]:
        """Delete one entry for good, or every entry; returns what went."""
        gone = [self.get(entry_id)] if entry_id else self._entries()
        for e in gone:
            shutil.rmtree(self.path / e.id, ignore_errors=True)
        return gone

    def expire(self, now: datetime | None = None) -> list[TrashEntry]:
        """Purge the entries whose time is up; returns them."""
        now = now or _now()
        gone = [e for e in self._entries() if datetime.fromisoformat(e.expires_at) <= now]
        for e in gone:
            shutil.rmtree(self.path / e.id, ignore_errors=True)
        return gone
