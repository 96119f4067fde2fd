"""Reads of the embedded store's records (the knowledge-base list, a knowledge base's documents)
remembered until the store's next write.

Exact for Qdrant Edge: its folder is held by one process (:mod:`swr.store.folder_lock`), so every
write goes through this process's store, which bumps the write count this cache keys on. A read
started before a write is stored under the count it began with and so is never served after the
write. The server store never uses it (another process may write to a shared server)."""
from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Hashable

from swr.core.rules.serving import DEFAULT_SERVING, ServingRules


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
