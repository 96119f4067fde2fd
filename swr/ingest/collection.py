"""What a collection records of the way its sentences were made (model, runtime, dimension,
splitter, sparse and structure versions), and the warning when they were made another way."""
from __future__ import annotations

import logging

from swr.text.split import SPLITTER_VERSION
from swr.text.structure import STRUCTURE_VERSION

log = logging.getLogger("swr.ingest.collection")


def collection_meta(embedder, sparse) -> dict:
    """The metadata a collection of ``embedder``'s vectors and ``sparse``'s BM25 terms records."""
    return {"model": embedder.name, "runtime": embedder.runtime, "dim": embedder.dim,
            "splitter": SPLITTER_VERSION, "sparse": sparse.version, "structure": STRUCTURE_VERSION}


def warn_outdated(stored: dict) -> None:
    """Log what documents of a collection made with an earlier splitter or structure lack (they
    still work; re-indexing them brings them up to date)."""
    if int(stored.get("structure", 0)) < STRUCTURE_VERSION:
        log.warning("This collection was created before document structure was recorded (structure "
                    "version %s < %s): documents indexed then have no section windows; re-index them "
                    "to use section windows.", stored.get("structure", 0), STRUCTURE_VERSION)
    if stored.get("splitter") not in (None, SPLITTER_VERSION):
        log.warning("This collection was created with the sentence splitter %s (now %s): documents "
                    "indexed then keep the sentences it made and still work; re-index them for "
                    "today's sentences (docs/retrieval.md).", stored.get("splitter"),
                    SPLITTER_VERSION)
