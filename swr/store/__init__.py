"""The store: one interface (`base.Store`), two backends (Qdrant Edge embedded, Qdrant server)."""
from __future__ import annotations

from ..settings import Settings
from .base import SearchRequest, Store


def open_store(settings: Settings) -> Store:
    """Qdrant server when ``QDRANT_URL`` is set, else the embedded Qdrant Edge shard."""
    if settings.qdrant_url:
        from .server import ServerStore

        return ServerStore(settings)
    from .edge import EdgeStore

    return EdgeStore(settings)


__all__ = ["open_store", "Store", "SearchRequest"]
