"""Reads of the embedded store's records (the knowledge-base list, a knowledge base's documents)
remembered until the store's next write, and its sentences remembered until their knowledge base's
next write.

Exact for Qdrant Edge: its folder is held by one process (:mod:`swr.store.folder_lock`), so every
write goes through this process's store, which bumps the write count this cache keys on. A read
started before a write is stored under the count it began with and so is never served after the
write. The server store never uses it (another process may write to a shared server)."""
from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Hashable

from swr.core.rules.serving import DEFAULT_SERVING, ServingRules
from swr.core.types import Sentence


class RecordCache:
    """``get(key, read, writes)``: ``read()``'s value, recomputed only when ``writes`` (the store's
    write count) changed since it was read."""

    def __init__(self, rules: ServingRules = DEFAULT_SERVING) -> None:
        self._entries: dict[Hashable, tuple[int, list]] = {}
        self._lock = threading.Lock()
        self._size = rules.record_cache_entries

    def get(self, key: Hashable, read: Callable[[], list], writes: int) -> list:
        hit = self._entries.get(key)
        if hit is None or hit[0] != writes:
            hit = (writes, read())  # ``writes`` read before the read: a write meanwhile makes it stale
            with self._lock:
                if len(self._entries) >= self._size:
                    self._entries.clear()
                self._entries[key] = hit
        return [copy.copy(x) for x in hit[1]]  # the callers' own objects (a DocInfo may be changed)


class SentenceCache:
    """Stored sentences by point id, each served while its knowledge base's generation
    (:meth:`swr.store.base.Store.generation`) is the one read before it was fetched.

    A question fetches the same points again and again (its lists overlap, answerability and the
    windows read the hits again, the next question hits the same sentences); an upload into another
    knowledge base leaves them valid. Exact when every write of sentences bumps the generation after
    the write. The sentences are shared, never changed by readers (as the store's own never were)."""

    def __init__(self, generation: Callable[[str], int], rules: ServingRules = DEFAULT_SERVING) -> None:
        self._entries: dict[str, tuple[int, Sentence]] = {}
        self._generation = generation
        self._size = rules.sentence_cache_points
        self._lock = threading.Lock()

    def lookup(self, ids: list[str]) -> tuple[dict[str, Sentence], list[str]]:
        """The cached sentences of ``ids`` still valid, and the ids to fetch."""
        found, missing, gens = {}, [], {}
        for pid in ids:
            hit = self._entries.get(pid)
            if hit is not None:
                kb = hit[1].kb
                gen = gens[kb] if kb in gens else gens.setdefault(kb, self._generation(kb))
                if hit[0] == gen:
                    found[pid] = hit[1]
                    continue
            missing.append(pid)
        return found, missing

    def keep(self, gens: Callable[[str], int], sentences: dict[str, Sentence]) -> None:
        """Remember ``sentences`` (by point id) fetched after ``gens`` (a knowledge base's
        generation then) was read."""
        with self._lock:
            if len(self._entries) + len(sentences) > self._size:
                self._entries.clear()
            for pid, s in sentences.items():
                self._entries[pid] = (gens(s.kb), s)


class PointIdStrings:
    """``str(pid)`` of a point id, remembered by its number when it is a ``uuid.UUID`` (Qdrant
    Edge's results give each id as one; ``str()`` of it was half a candidate's cost)."""

    def __init__(self, rules: ServingRules = DEFAULT_SERVING) -> None:
        self._strs: dict[int, str] = {}
        self._size = rules.point_id_strings

    def __call__(self, pid) -> str:
        key = getattr(pid, "int", None)
        if key is None:
            return str(pid)
        s = self._strs.get(key)
        if s is None:
            if len(self._strs) >= self._size:
                self._strs.clear()
            s = self._strs[key] = str(pid)
        return s
