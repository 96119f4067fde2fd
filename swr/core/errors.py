"""Typed errors raised by the backend and shown by the pages and the CLI.

Every error carries a message written for the user (what went wrong, which file, what to do)
and a short machine-readable ``kind`` that the CLI puts into ``--json`` output.
"""
from __future__ import annotations


class SwrError(Exception):
    """Base class of every error swr raises on purpose."""

    kind = "error"

    def __init__(self, message: str, *, source: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source

    def to_dict(self) -> dict:
        """The error as a JSON-ready dict (kind, message, source)."""
        return {"kind": self.kind, "message": self.message, "source": self.source}


class UnsupportedFile(SwrError):
    """The file's extension is not one swr can read."""

    kind = "unsupported_file"


class Undecodable(SwrError):
    """The file's bytes could not be turned into text (binary, corrupt, encrypted, unknown encoding)."""

    kind = "undecodable"


class EmptyDocument(SwrError):
    """The file decoded, but holds no text (empty, whitespace only, PDF without a text layer)."""

    kind = "empty"


class FileTooLarge(SwrError):
    """The file is above the configured size limit."""

    kind = "too_large"


class ModelMismatch(SwrError):
    """The collection was built with another embedding model than the one configured now."""

    kind = "model_mismatch"


class StoreLocked(SwrError):
    """The embedded store is already opened by another process."""

    kind = "store_locked"


class StoreUnavailable(SwrError):
    """The Qdrant server cannot be reached, or the store failed."""

    kind = "store_unavailable"


class LLMUnavailable(SwrError):
    """The LLM endpoint is down, slow, refused the key, or answered garbage."""

    kind = "llm_unavailable"


class LocalModelError(LLMUnavailable):
    """The local GGUF model (SWR_LLM_GGUF) is missing, unreadable or cannot be loaded."""

    kind = "local_model"


class NotFound(SwrError):
    """A knowledge base or document that does not exist."""

    kind = "not_found"


class BadRequest(SwrError):
    """A parameter out of range or an unusable question."""

    kind = "bad_request"


class ReindexNeeded(SwrError):
    """The collection was indexed before a feature's data was stored (e.g. section windows)."""

    kind = "reindex_needed"


class Forbidden(SwrError):
    """The acting user's role or grants do not allow this (swr.manage.access)."""

    kind = "forbidden"
