"""The embedded store's HNSW build in a child process, swapped in when done.

Qdrant Edge builds its HNSW index only in ``EdgeShard.optimize()``, which blocks *and holds the
GIL* (about a minute per 100k new sentences on this 2-core machine): run in the app's process,
every browser session froze until it ended. A thread cannot hide that, and Edge has no way to
build a segment incrementally or without the GIL, so the build runs in another process, on a
copy of the shard, and the copy replaces the live shard when it is done:

1. with writes paused (reads go on): flush, copy the shard folder to the next generation's
   folder, start journaling every write of the live shard;
2. a child process (``python swr/store/edge_build.py FOLDER``, niced so questions keep the
   CPU) loads the copy, optimizes it, flushes and exits; meanwhile questions are answered by
   the live shard (an exact scan of its un-indexed points, as before the build);
3. with writes paused again: load the built copy, replay the journal onto it (what was written
   during the build), flush, point ``<collection>.live`` at it, and swap the reference (a swap
   waits only for the store calls in flight, microseconds); close and delete the old folder.

A crash at any step leaves either the old folder or the new one named by the pointer, complete;
the other is removed when the store opens next. Hand-written because neither Qdrant Edge nor
qdrant-client offers a background build for an embedded shard.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger("swr.store.edge")

POINTER_SUFFIX = ".live"  # <collection>.live names the live generation's folder
BUILD_NICE = 10  # the child's niceness: questions in the app's process come first
WARM_CHUNK = 8 << 20  # bytes per read when warming the built copy (each read releases the GIL)


class LiveShard:
    """The open ``EdgeShard`` behind a reference that can be swapped while threads use it.

    Every attribute is the shard's method, called with a use count held so that :meth:`swap`
    waits for the calls in flight (Edge is thread-safe; the swap is not, by itself). Writes
    (``update``) also take :attr:`writes`, which the builder holds while it copies the folder and
    swaps, and are journaled while a build runs.
    """

    def __init__(self, shard) -> None:
        self._shard = shard
        self._cond = threading.Condition()
        self._users = 0
        self._swapping = False
        self.writes = threading.RLock()
        self.journal: list | None = None  # the writes made since the build's copy, or None
        self.written = 0  # writes (and swaps) so far: what caches of its records key on (swr.store.records)

    def _call(self, name: str, *args, **kwargs):
        with self._cond:
            while self._swapping:
                self._cond.wait()
            self._users += 1
            shard = self._shard
        try:
            return getattr(shard, name)(*args, **kwargs)
        finally:
            with self._cond:
                self._users -= 1
                if not self._users:
                    self._cond.notify_all()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._call(name, *args, **kwargs)

    def update(self, op) -> None:
        """Apply a write; journaled while a build runs, so the built copy gets it too."""
        with self.writes:
            self.written += 1  # before the write too: a read meanwhile is cached under a stale count
            try:
                self._call("update", op)
            finally:
                self.written += 1
            if self.journal is not None:
                self.journal.append(op)

    def flush(self) -> None:
        """Write the segments to disk (never while the builder copies the folder)."""
        with self.writes:
            self._call("flush")

    def optimize(self) -> None:
        """Build in this process (blocks, GIL held): benchmarks and tools only."""
        with self.writes:
            self._call("optimize")

    def swap(self, shard):
        """Make ``shard`` the live one once the calls in flight have returned; the old one back."""
        with self._cond:
            self._swapping = True
            while self._users:
                self._cond.wait()
            old, self._shard = self._shard, shard
            self.written += 1
            self._swapping = False
            self._cond.notify_all()
        return old


def live_folder(root: Path) -> Path:
    """The folder of the live generation: the one ``<root>.live`` names, else ``root`` itself."""
    pointer = root.with_name(root.name + POINTER_SUFFIX)
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return root
    return root.with_name(name) if name else root


def remove_stale(root: Path) -> None:
    """Remove the generations a crash left behind (every one but the live folder)."""
    live = live_folder(root)
    for p in [root, *root.parent.glob(root.name + ".g*")]:
        if p != live and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
            log.info("removed the stale store folder %s", p)


def _next_folder(root: Path, live: Path) -> Path:
    gen = int(live.name.rsplit(".g", 1)[1]) + 1 if live != root else 1
    return root.with_name(f"{root.name}.g{gen}")


def _set_pointer(root: Path, folder: Path) -> None:
    pointer = root.with_name(root.name + POINTER_SUFFIX)
    tmp = pointer.with_name(pointer.name + ".tmp")
    tmp.write_text(folder.name, encoding="utf-8")
    os.replace(tmp, pointer)


class Builder:
    """One background HNSW build at a time for an :class:`swr.store.edge.EdgeStore`."""

    # the child's command line, the copy's folder appended (a test wraps it to slow it down)
    command = [sys.executable, str(Path(__file__).resolve())]

    def __init__(self, root: Path, load) -> None:
        self.root = root
        self._load = load  # path -> EdgeShard
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen | None = None
        self._closing = False
        self.last: dict | None = None  # figures of the last build (logs, benchmarks)
        self.history: list[dict] = []  # the figures of the last ten builds
        self.on_done = None  # called with the new live shard after a swap
        self.wanted = None  # () -> bool: whether the un-indexed points call for another build
        self._pending = False  # a trigger came while a build ran: check again after it
        self._active = False  # a build loop runs (set and cleared under _state)
        self._state = threading.Lock()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, live: LiveShard) -> bool:
        """Start a build unless one runs (then it builds again after, if still wanted); False
        when one already runs."""
        with self._state:
            if self._closing:
                return False
            if self._active:
                self._pending = True
                return False
            self._active, self._pending = True, False
            self._thread = threading.Thread(target=self._loop, args=(live,), name="swr-hnsw-build", daemon=True)
            self._thread.start()
            return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running build (tests, benchmarks); True when none runs any more."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def close(self) -> None:
        """Stop a running build (the child is killed, its copy removed); the live shard is untouched."""
        self._closing = True
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        self.wait(30)

    def _loop(self, live: LiveShard) -> None:
        """Build; again while triggers came meanwhile and the points still call for it (writes
        made during a build are replayed un-indexed). The decision to stop is taken under the
        same lock as :meth:`start`'s, so a trigger is never lost between them."""
        while True:
            self._run(live)
            with self._state:
                if (self._closing or not self._pending or "error" in (self.last or {})
                        or (self.wanted is not None and not self.wanted())):
                    self._active = self._pending = False
                    return
                self._pending = False

    def _run(self, live: LiveShard) -> None:
        t0 = time.monotonic()
        current = live_folder(self.root)
        target = _next_folder(self.root, current)
        try:
            with live.writes:
                live.flush()
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(current, target)
                live.journal = []
            t_copy = time.monotonic() - t0
            self._proc = subprocess.Popen([*self.command, str(target)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            out, err = self._proc.communicate()
            if self._proc.returncode != 0 or self._closing:
                raise RuntimeError(f"the build process exited with {self._proc.returncode}: {err.strip()[-500:]}")
            t1 = time.monotonic()
            t_build = t1 - t0 - t_copy
            warmed = warm(target)  # before the load, outside the write pause
            t2 = time.monotonic()
            with live.writes:
                shard = self._load(target)
                t_load = time.monotonic() - t2
                journal, live.journal = live.journal or [], None
                for op in journal:
                    shard.update(op)
                shard.flush()
                _set_pointer(self.root, target)
                old = live.swap(shard)
            old.close()
            shutil.rmtree(current, ignore_errors=True)
            self.last = {"copy_s": round(t_copy, 2), "build_s": round(t_build, 1), "replayed": len(journal),
                         "warm_s": round(t2 - t1, 2), "warmed_mb": round(warmed / 2**20, 1),
                         "load_s": round(t_load, 3),
                         "total_s": round(time.monotonic() - t0, 1), **json.loads(out or "{}")}
            self.history = [*self.history[-9:], self.last]
            log.info("HNSW build in a child process: %s", self.last)
            if self.on_done:
                self.on_done(shard)
        except Exception as exc:  # the live shard is untouched: log it, the next trigger retries
            live.journal = None
            shutil.rmtree(target, ignore_errors=True)
            if not self._closing:
                log.warning("HNSW build failed (questions keep the exact scan): %s", exc)
            self.last = {"error": str(exc)}


def warm(folder: Path, limit: int | None = None) -> int:
    """Read every file under ``folder`` once and return the bytes read, so that loading the
    built copy finds its pages in memory.

    ``EdgeShard.load`` holds the GIL while it reads the shard: 200-490 ms with the files in the
    page cache, 0.9-1.0 s after ``drop_caches`` (bench/README.md, "Speed and memory"), every question
    of the process waiting meanwhile. Plain reads release the GIL, so the disk time moves here,
    to the builder's thread, and the load pays only its in-memory work: 0.29 s instead of 0.60 s
    for a 100k-point copy read from disk (``bench/concurrency.py --phases hnsw-cold
    hnsw-cold-nowarm``). ``posix_fadvise``'s WILLNEED would only start the reads, not wait for
    them. A file that cannot be read is skipped: the load reads it and reports the error. At most
    ``limit`` bytes are read (default: half the machine's memory).
    """
    total, cap = 0, limit if limit is not None else _half_memory()
    buf = bytearray(WARM_CHUNK)
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if total >= cap:
                return total
            try:
                with open(os.path.join(dirpath, name), "rb", buffering=0) as f:
                    while total < cap and (n := f.readinto(buf)):
                        total += n
            except OSError:
                continue
    return total


def _half_memory() -> int:
    """Half the machine's memory in bytes (a shard larger than that is warmed only that far:
    the page cache would drop the first pages before the load reads them)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def main(argv: list[str]) -> int:
    """The child: load the copied shard, optimize, flush, print figures as JSON."""
    import qdrant_edge as q

    try:
        os.nice(BUILD_NICE)
    except OSError:
        pass
    t0 = time.monotonic()
    shard = q.EdgeShard.load(argv[0])
    before = shard.info().indexed_vectors_count
    shard.optimize()
    shard.flush()
    info = shard.info()
    shard.close()
    print(json.dumps({"child_s": round(time.monotonic() - t0, 1), "points": info.points_count,
                      "indexed_before": before, "indexed_after": info.indexed_vectors_count}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
