"""The embedded LLM: llama.cpp's own OpenAI-compatible server inside this process (xllamacpp).

``SWR_LLM_GGUF=/path/model.gguf`` (or, when it is not set, a model ``scripts/setup.sh
--local-llm`` placed under ``models/``, :data:`DEFAULT_GGUFS`) makes :func:`server_for` start
``xllamacpp.Server`` lazily, once per process and model, on a free port of 127.0.0.1. swr then
talks to it over HTTP through the same OpenAI-compatible answer path as any other endpoint
(:class:`swr.answer.llm.Answerer`): streaming, timeouts and error messages are the same.

Threads: ``SWR_LLM_THREADS`` (default 1). Measured on the 2-core CI machine: with 2 threads
generation fell to 1-6 tokens/s whenever another process used the CPU; with 1 it held ~29 tokens/s.

A missing, unreadable or corrupt file raises :class:`swr.core.errors.LocalModelError` (an
``LLMUnavailable``) naming the file and what is wrong; the answer falls back to extractive.
"""
from __future__ import annotations

import logging
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from swr.core.errors import LocalModelError
from swr.core.settings import SMALL_GGUF

log = logging.getLogger("swr.answer.llm_local")

DEFAULT_GGUF = SMALL_GGUF  # the model the tests and the end-to-end benchmark run
GGUF_MAGIC = b"GGUF"
MIN_GGUF_BYTES = 1 << 20  # a header plus anything worth loading is far larger than this


@dataclass(frozen=True)
class LocalSpec:
    """Which model and how to run it; one server per distinct spec per process."""

    path: str
    threads: int = 1
    n_ctx: int = 4096


def model_name(path: str) -> str:
    """The name shown for a local model: its file name without ``.gguf``."""
    return Path(path).name.removesuffix(".gguf") or "local-gguf"


def check_file(path: str) -> Path:
    """``path`` as a Path when it looks like a GGUF file; else :class:`LocalModelError`."""
    p = Path(path).expanduser()
    name = p.name or str(p)
    if not p.exists():
        raise LocalModelError(
            f"The local model file {p} does not exist. Run scripts/setup.sh --local-llm, or set "
            "SWR_LLM_GGUF to a .gguf file (empty SWR_LLM_GGUF turns the local model off).", source=name)
    if not p.is_file():
        raise LocalModelError(f"The local model path {p} is not a file.", source=name)
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
        size = p.stat().st_size
    except OSError as exc:
        raise LocalModelError(f"The local model file {p} cannot be read ({exc.strerror or exc}).",
                              source=name) from None
    if magic != GGUF_MAGIC:
        raise LocalModelError(f"The local model file {p} is not a GGUF model (it does not start with "
                              "the GGUF signature).", source=name)
    if size < MIN_GGUF_BYTES:
        raise LocalModelError(f"The local model file {p} is only {size:,} bytes: it is truncated.",
                              source=name)
    return p


class LocalServer:
    """One xllamacpp server; :meth:`start` loads the model on first use (thread-safe)."""

    def __init__(self, spec: LocalSpec):
        self.spec = spec
        self._server = None
        self._url: str | None = None
        self._error: LocalModelError | None = None
        self._lock = threading.Lock()
        self.load_s: float | None = None

    @property
    def started(self) -> bool:
        return self._url is not None

    def start(self) -> str:
        """The server's ``http://127.0.0.1:PORT/v1`` base URL, loading the model the first time.

        A failure is remembered (the same error is raised again without retrying the load) so
        that a corrupt file does not cost a load attempt per question.
        """
        with self._lock:
            if self._url:
                return self._url
            if self._error is not None:
                raise self._error
            try:
                self._url = self._load()
            except LocalModelError as exc:
                self._error = exc
                raise
            return self._url

    def _load(self) -> str:
        path = check_file(self.spec.path)
        try:
            import xllamacpp as xlc
        except ImportError:
            raise LocalModelError("The local model needs the xllamacpp package: run "
                                  "scripts/setup.sh --local-llm (or pip install xllamacpp).") from None
        params = xlc.CommonParams()
        params.model.path = str(path)
        params.n_ctx = self.spec.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.spec.threads
        params.cpuparams_batch.n_threads = self.spec.threads
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # a free port chosen by the OS
        params.verbosity = 0
        t0 = time.perf_counter()
        try:
            self._server = xlc.Server(params)
        except Exception as exc:  # noqa: BLE001 - xllamacpp raises a bare RuntimeError
            raise LocalModelError(
                f"llama.cpp could not load the local model {path} ({type(exc).__name__}: {exc}); the "
                "file may be corrupt or incomplete: run scripts/setup.sh --local-llm again.",
                source=path.name) from None
        self.load_s = round(time.perf_counter() - t0, 2)
        url = self._server.listening_address.rstrip("/")
        log.info("local model %s loaded in %.1f s, serving on %s (%d threads)",
                 path.name, self.load_s, url, self.spec.threads)
        return url + "/v1"

    def health(self) -> dict:
        """For the system panel: file, threads, whether loaded, and the server's /health answer."""
        out = {"path": self.spec.path, "model": model_name(self.spec.path), "threads": self.spec.threads,
               "context_window": self.spec.n_ctx, "loaded": self.started, "load_s": self.load_s,
               "status": "not started", "error": self._error.message if self._error else None}
        if self._error is not None:
            out["status"] = "error"
        elif self._url:
            try:
                with urllib.request.urlopen(self._url.removesuffix("/v1") + "/health", timeout=2) as resp:
                    out["status"] = "ok" if resp.status == 200 else f"HTTP {resp.status}"
            except OSError as exc:  # busy or gone
                out["status"] = f"unreachable ({type(exc).__name__})"
        else:
            try:
                check_file(self.spec.path)
            except LocalModelError as exc:
                out["status"], out["error"] = "error", exc.message
        return out


_SERVERS: dict[LocalSpec, LocalServer] = {}
_SERVERS_LOCK = threading.Lock()


def server_for(path: str, threads: int = 1, n_ctx: int = 4096) -> LocalServer:
    """The process-wide :class:`LocalServer` of this model and settings (not started yet)."""
    spec = LocalSpec(str(Path(path).expanduser()), max(1, int(threads)), int(n_ctx))
    with _SERVERS_LOCK:
        if spec not in _SERVERS:
            _SERVERS[spec] = LocalServer(spec)
        return _SERVERS[spec]
