"""When the embedded store gives its points an HNSW index: the background build's trigger (a
child process builds a copy, :mod:`swr.store.edge_build`), and the dense search's beam width at
the store's size. Mixed into :class:`swr.store.edge.EdgeStore`, whose ``_edge`` (the live shard),
``_builder``, ``root`` and counters it reads."""
from __future__ import annotations

from swr.store.edge_build import live_folder

# Below this many un-indexed points a search scans them (exact; dense top-50 over 20k: ~4 ms).
OPTIMIZE_MIN_POINTS = 20_000
# HNSW beam width of a dense search (bench/README.md, query latency). Qdrant's default (100) left
# 0.8 % of the exact top 10 out at 100k e5 vectors (counting score ties); 200 found 99.9 % for
# +1.2 ms. Bigger stores need a wider beam for the same recall: it grows linearly from
# EF_SCALE_POINTS on, up to 4x (1M synthetic points: 0.76 at 200, 0.94 at 800 for +6 ms).
HNSW_EF = 200
EF_SCALE_POINTS = 250_000


class BuildScheduling:
    """The HNSW build schedule of an :class:`swr.store.edge.EdgeStore` (module docstring)."""

    def _built(self, shard) -> None:
        """After a build was swapped in (edge_build.Builder): the new folder, the next trigger."""
        self.path = live_folder(self.root)
        self._points = self._unindexed()[1]
        # segments under Qdrant's indexing threshold stay un-indexed: wait for twice as many (what
        # the child left un-indexed in the copy; the writes replayed after it do not count)
        last = self._builder.last or {}
        left = max(0, 2 * int(last.get("points", 0)) - int(last.get("indexed_after", 0)))
        self._optimize_from = 2 * left if left * 2 > self._build_started_with else 0

    def _maybe_optimize(self) -> bool:
        """Start the HNSW build once enough points are un-indexed (bench/README.md, query latency).

        Qdrant Edge indexes only in ``optimize()``; until then a search scans (19-36 ms for a
        dense top-50 at 100k points, 1.2-2 ms with HNSW, recall@10 0.997). ``optimize()`` blocks
        *and holds the GIL* (measured: every thread of the process waited), so it runs in a child
        process on a copy that is swapped in when done (:mod:`swr.store.edge_build`); questions
        scan meanwhile. It starts when a document is complete, once the un-indexed points reach
        OPTIMIZE_MIN_POINTS and the indexed ones: the total work stays under two builds. Below
        that a search scans the un-indexed points exactly (recall 1; 3.7 ms at 10k points).
        """
        if not self._build_wanted():
            return False
        return self._builder.start(self._edge)

    def _build_wanted(self) -> bool:
        """Whether the un-indexed points call for a build now (see ``_maybe_optimize``)."""
        unindexed, points = self._unindexed()
        if unindexed < max(OPTIMIZE_MIN_POINTS, points - unindexed, self._optimize_from):
            return False
        self._build_started_with = unindexed
        return True

    def wait_for_build(self, timeout: float | None = None) -> bool:
        """Wait for a running background HNSW build (tests, benchmarks); True when none runs."""
        return self._builder.wait(timeout)

    @property
    def last_build(self) -> dict | None:
        """Figures of the last background build (copy, build, replayed writes), or its error."""
        return self._builder.last

    def hnsw_ef(self) -> int:
        """The dense search's HNSW beam width at this store's size (a scan ignores it). The size is
        the count taken when the store opened or after the last upsert, not a call per search."""
        return int(HNSW_EF * min(4.0, max(1.0, self._points / EF_SCALE_POINTS)))

    def _unindexed(self) -> tuple[int, int]:
        """(dense vectors without HNSW, points); sparse vectors always count as indexed."""
        st = self._edge.info()
        return max(0, 2 * st.points_count - st.indexed_vectors_count), st.points_count
