"""One process per embedded store folder.

Before Qdrant Edge sees the folder we take our own advisory lock (``<collection>.lock`` beside it):
measured with qdrant-edge-py 0.9, a *failed* second ``EdgeShard.load`` on a shard that another
process holds open breaks the holder's sparse-vector storage ("Tracker journal ... is shorter
than expected" on its next flush, and on every flush after). With the lock, a second process is
refused before it touches any file of the shard.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

from swr.core.errors import StoreLocked


def locked_message(location: str) -> str:
    return (f"The embedded store at {location} is already open in another process. "
            "Qdrant Edge allows one process per data folder: stop the other process, use "
            "another SWR_HOME, or run a Qdrant server and set QDRANT_URL so several "
            "processes can share it.")


def acquire(root: Path, location: str) -> int:
    """The lock file's descriptor, held; :class:`StoreLocked` when another process holds it."""
    root.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(root.parent / f"{root.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        raise StoreLocked(locked_message(location)) from exc
    return fd


def release(fd: int) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
