"""The store: one interface (`base.Store`), two backends (Qdrant Edge embedded, Qdrant server)."""
from __future__ import annotations

from swr.core.settings import Settings
from swr.store.base import SearchRequest, Store


def open_store(settings: Settings) -> Store:
    """Qdrant server when ``QDRANT_URL`` is set, else the embedded Qdrant Edge shard."""
    if settings.qdrant_url:
        from swr.store.server import ServerStore

        return ServerStore(settings)
    from swr.store.edge import EdgeStore

    return EdgeStore(settings)


__all__ = ["open_store", "Store", "SearchRequest"]
