"""The store and the trash as an actor of the checked engine view may see them
(:class:`swr.manage.access.guard.GuardedEngine` holds both)."""
from __future__ import annotations

from swr.core.errors import Forbidden, NotFound
from swr.manage.access.users import Actor


class ScopedStore:
    """The store as the actor may see it: reads of readable knowledge bases, writes only to the hidden
    chunk-baseline knowledge bases of readable ones (Tune) for non-viewers, and everything for admins."""

    _PASS = ("meta", "backend", "location", "vectors")

    def __init__(self, store, actor: Actor) -> None:
        self._store, self._actor = store, actor

    def __getattr__(self, name: str):
        if name in self._PASS:
            return getattr(self._store, name)
        raise AttributeError(f"store.{name} is not part of the checked engine view")

    def _read(self, kb: str) -> None:
        if not self._actor.can_read(kb):
            raise NotFound(f"No knowledge base named {kb!r}.")

    def _write(self, kb: str) -> None:
        self._read(kb)
        if not (self._actor.is_admin or (kb.startswith("~") and not self._actor.demo_only)):
            raise Forbidden(f"{self._actor.name} ({self._actor.role}) may not write to {kb!r} directly.")

    def kbs(self) -> list[str]:
        return [k for k in self._store.kbs() if self._actor.can_read(k)]

    def docs(self, kb: str, *args, **kw):
        self._read(kb)
        return self._store.docs(kb, *args, **kw)

    def count(self, kb: str | None = None) -> int:
        if kb is None:
            return sum(self._store.count(k) for k in self.kbs())
        self._read(kb)
        return self._store.count(kb)

    def scroll_doc(self, kb: str, doc_id: str):
        self._read(kb)
        return self._store.scroll_doc(kb, doc_id)

    def fetch_sentences(self, kb: str, keys):
        self._read(kb)
        return self._store.fetch_sentences(kb, keys)

    def search(self, req):
        self._read(req.kb)
        return self._store.search(req)

    def search_many(self, reqs):
        for req in reqs:
            self._read(req.kb)
        return self._store.search_many(reqs)

    def get(self, ids):
        return [s for s in self._store.get(ids) if self._actor.can_read(s.kb)]

    def create_kb(self, kb: str) -> None:
        self._write(kb)
        self._store.create_kb(kb)

    def delete_kb(self, kb: str) -> int:
        self._write(kb)
        return self._store.delete_kb(kb)

    def delete_doc(self, kb: str, doc_id: str) -> int:
        self._write(kb)
        return self._store.delete_doc(kb, doc_id)

    def put_doc(self, kb: str, info) -> None:
        self._write(kb)
        self._store.put_doc(kb, info)

    def upsert(self, sentences, dense, sparse) -> None:
        for kb in {s.kb for s in sentences}:
            self._write(kb)
        self._store.upsert(sentences, dense, sparse)


class TrashView:
    """:class:`swr.manage.trash.Trash` through a checked engine view (``view``, a
    :class:`swr.manage.access.guard.GuardedEngine`): checked and audited."""

    def __init__(self, view) -> None:
        self._view = view

    def _trash(self):
        return self._view._engine.trash

    def entries(self):
        return [e for e in self._trash().entries() if self._view.actor.can_read(e.kb)]

    def restore(self, entry_id: str):
        entry = next((e for e in self._trash().entries() if e.id == entry_id), None)
        if entry is not None:
            if entry.kind == "kb":
                self._view._require_admin("restore knowledge bases", entry.kb)
            else:
                self._view._require_edit(entry.kb, "restore documents")
        restored = self._trash().restore(entry_id)
        self._view._log("restore", kb=restored.kb, object=restored.source or restored.kb)
        return restored

    def purge(self, entry_id: str | None = None):
        self._view._require_admin("empty the trash")
        return self._trash().purge(entry_id)
