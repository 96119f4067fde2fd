"""URL masking and secret redaction: the one place that decides what of an address or a key may
be shown, logged or exported (the LLM endpoint, the Qdrant server, error messages)."""
from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")
_QUERY_VALUE = re.compile(r"=[^&]*")


def safe_url(url: str) -> str:
    """``url`` without user:password and with query values masked, safe to show and log
    (``https://u:p@host:6333/x?key=s`` -> ``https://host:6333/x?key=***``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = _QUERY_VALUE.sub("=" + MASK, parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with each secret (4 characters or more) and any bearer token replaced by a mask."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return _BEARER.sub(r"\1" + MASK, text)


__all__ = ["MASK", "safe_url", "redact"]
