"""Published retrieval settings per knowledge base: ``SWR_HOME/published.json``.

A knowledge base's publication is the :class:`swr.core.params.RetrievalParams` every consumer starts
from (every agent's chat, the HTTP API, MCP, the Dify endpoint, the command line, the LlamaIndex
retriever). Each publication is a new version with who published it, when, and the evidence it was
chosen on (a Tune sweep row or a Compare run) when it came from one; restoring an earlier version
publishes its knobs again as a new version (the history only grows). The question-scoped filters
(``sources``, ``tags``, ``lang``) are never published: they belong to one question.

The file is written atomically (temp file + rename) under an exclusive ``flock`` on a lock file
beside it, so several processes on one machine publish safely; it is per machine (see
docs/deploy.md for several machines). Reads are cached until the file's mtime or size changes.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from swr.core.errors import BadRequest, NotFound
from swr.core.files import write_json_atomic
from swr.core.params import RetrievalParams

QUESTION_SCOPED = ("sources", "tags", "lang")  # filters of one question, never published
MAX_VERSIONS = 200  # versions kept per knowledge base (the oldest dropped first)


@dataclass(frozen=True)
class Publication:
    """One published version of a knowledge base's retrieval settings."""

    kb: str
    version: int
    params: dict  # RetrievalParams.to_dict() without the question-scoped filters
    by: str
    at: str
    origin: str = "sidebar"  # sidebar | tune | compare | restore | cli | api | words
    evidence: dict | None = None  # e.g. {"hit_rate": 0.82, "n": 40, "question_set": "golden"}
    restored_from: int | None = None
    note: str = ""

    def retrieval_params(self) -> RetrievalParams:
        return RetrievalParams.from_dict(self.params)

    def to_dict(self) -> dict:
        return asdict(self)


def publishable(params: RetrievalParams) -> dict:
    """The knobs a publication keeps: every field but the question-scoped filters."""
    d = params.validate().to_dict()
    for k in QUESTION_SCOPED:
        d.pop(k, None)
    return d


def overrides(params: RetrievalParams, published: RetrievalParams) -> list[str]:
    """The knobs of ``params`` that differ from ``published`` (filters aside): what a request changed."""
    return sorted(k for k in params.changed_from(published) if k not in QUESTION_SCOPED)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@dataclass
class _Cache:
    stamp: tuple = ()
    data: dict = field(default_factory=dict)


class PublishedStore:
    """The publications of every knowledge base of one SWR_HOME. Thread- and process-safe."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._cache = _Cache()

    @classmethod
    def for_settings(cls, settings) -> "PublishedStore":
        return cls(settings.home / "published.json")

    # -- file --------------------------------------------------------------------------------
    def _stamp(self) -> tuple:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return ("missing",)
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _load(self) -> dict:
        stamp = self._stamp()
        with self._lock:
            if stamp == self._cache.stamp:
                return self._cache.data
            data = {}
            if stamp != ("missing",):
                data = json.loads(self.path.read_text(encoding="utf-8") or "{}").get("kbs", {})
            self._cache = _Cache(stamp, data)
            return data

    @contextmanager
    def _writing(self):
        """The whole file, for changing, under an exclusive lock (threads and processes)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                data = {}
                if self.path.is_file():
                    data = json.loads(self.path.read_text(encoding="utf-8") or "{}").get("kbs", {})
                yield data
                write_json_atomic(self.path, {"version": 1, "kbs": data}, indent=1, ensure_ascii=False)
                self._cache = _Cache()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    # -- reading -----------------------------------------------------------------------------
    def versions(self, kb: str) -> list[Publication]:
        """Every kept version of ``kb``, newest first."""
        return [Publication(**v) for v in reversed(self._load().get(kb, []))]

    def current(self, kb: str) -> Publication | None:
        rows = self._load().get(kb)
        return Publication(**rows[-1]) if rows else None

    def params(self, kb: str, defaults: RetrievalParams) -> tuple[RetrievalParams, int | None]:
        """The published knobs of ``kb`` over ``defaults`` (filters from ``defaults``), and the version."""
        pub = self.current(kb)
        if pub is None:
            return defaults, None
        return defaults.with_(**pub.params), pub.version

    # -- changes -----------------------------------------------------------------------------
    def publish(self, kb: str, params: RetrievalParams, by: str, *, origin: str = "sidebar",
                evidence: dict | None = None, note: str = "", restored_from: int | None = None) -> Publication:
        """Publish ``params`` as the next version of ``kb``; returns it."""
        kb = (kb or "").strip()
        if not kb:
            raise BadRequest("Name the knowledge base to publish settings for.")
        knobs = publishable(params)
        with self._writing() as data:
            rows = data.setdefault(kb, [])
            version = (rows[-1]["version"] + 1) if rows else 1
            pub = Publication(kb, version, knobs, by, _now(), origin, _clean_evidence(evidence), restored_from,
                              (note or "")[:500])
            rows.append(pub.to_dict())
            del rows[:-MAX_VERSIONS]
        return pub

    def restore(self, kb: str, version: int, by: str) -> Publication:
        """Publish version ``version``'s knobs again (a new version that says where it came from)."""
        old = next((p for p in self.versions(kb) if p.version == int(version)), None)
        if old is None:
            raise NotFound(f"No published version {version} of knowledge base {kb!r}.")
        return self.publish(kb, old.retrieval_params(), by, origin="restore", evidence=old.evidence,
                            restored_from=old.version)

    def drop(self, kb: str) -> None:
        """Forget ``kb``'s publications (its knowledge base was deleted: the trash keeps a copy)."""
        with self._writing() as data:
            data.pop(kb, None)

    def adopt(self, kb: str, rows: list[dict]) -> None:
        """Take back ``kb``'s publications ``rows`` (a knowledge base restored from the trash), unless
        it has some written since."""
        with self._writing() as data:
            if rows and not data.get(kb):
                data[kb] = [Publication(**r).to_dict() for r in rows][-MAX_VERSIONS:]


def _clean_evidence(evidence: dict | None) -> dict | None:
    """Evidence is a few figures and names: JSON scalars only, at most 20 of them."""
    if not evidence:
        return None
    out = {}
    for k, v in list(evidence.items())[:20]:
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)[:64]] = v[:200] if isinstance(v, str) else v
    return out
