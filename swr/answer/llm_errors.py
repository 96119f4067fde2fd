"""Why a call to the LLM failed, in words for the user, with every secret masked.

:func:`safe_url` and :func:`redact` clean URLs and messages; :func:`reason` turns any exception
raised while talking to an OpenAI-compatible server into one sentence (refused key, 404, timeout,
connection cut mid-answer, malformed JSON, ...); :func:`unavailable` wraps it in
:class:`swr.core.errors.LLMUnavailable`.
"""
from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

from swr.core.errors import LLMUnavailable
from swr.core.redact import redact, safe_url

if TYPE_CHECKING:
    from swr.answer.llm import LLMConfig



def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and its chain of causes/contexts (no cycles)."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _server_detail(exc: BaseException) -> str:
    """The server's own error message from an OpenAI status error body, shortened."""
    body = getattr(exc, "body", None)
    msg = None
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
    if not msg:
        msg = getattr(exc, "message", None) or str(exc)
    msg = " ".join(str(msg).split())
    return msg[:200] + ("…" if len(msg) > 200 else "")


def _status_reason(status: int, exc: BaseException, model: str) -> str:
    """What an HTTP error status means for the user."""
    if status == 401:
        return "refused the API key (401). Check the API key in the LLM settings"
    if status == 403:
        return "denied access (403). Check the API key and its permissions"
    if status == 404:
        return (
            f"answered 404 (not found). Check the base URL (it usually ends in /v1) "
            f"and the model name {model!r}"
        )
    if status == 429:
        return "is rate limited (429). Wait a moment and try again"
    if status >= 500:
        return f"had a server error ({status}): {_server_detail(exc)}"
    return f"rejected the request ({status}): {_server_detail(exc)}"


def _network_reason(chain: list[BaseException], timeout_s: float, started: bool) -> str | None:
    """Reason for a transport-level failure (refused, timeout, cut), or None if not one."""
    import httpx
    import openai

    if any(isinstance(e, (openai.APITimeoutError, httpx.TimeoutException, TimeoutError))
           for e in chain):
        where = "while streaming the answer" if started else ""
        return f"timed out after {timeout_s:g} s {where}".strip()
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or any(
        "refused" in str(e).lower() for e in chain if isinstance(e, (OSError, httpx.ConnectError))
    ):
        return "could not be reached (connection refused). Is the server running?"
    if any(isinstance(e, socket.gaierror) for e in chain):
        return "could not be reached (unknown host name)"
    if started and any(isinstance(e, (httpx.TransportError, OSError, openai.APIConnectionError))
                       for e in chain):
        return "stopped in the middle of the answer (connection closed)"
    if any(isinstance(e, (httpx.RemoteProtocolError, httpx.ReadError)) for e in chain):
        return "closed the connection before sending a complete response"
    if any(isinstance(e, (httpx.TransportError, openai.APIConnectionError, OSError))
           for e in chain):
        return f"could not be reached ({type(chain[-1]).__name__})"
    return None


def reason(exc: BaseException, config: LLMConfig, started: bool) -> str:
    """Human explanation of any exception raised while talking to the LLM."""
    import openai

    chain = _causes(exc)
    status = next((e for e in chain if isinstance(e, openai.APIStatusError)), None)
    if status is not None:
        return _status_reason(status.status_code, status, config.model)
    network = _network_reason(chain, config.timeout_s, started)
    if network:
        return network
    if any(isinstance(e, (json.JSONDecodeError, openai.APIResponseValidationError)) for e in chain):
        return "returned a malformed response (not valid OpenAI-compatible JSON)"
    if isinstance(exc, openai.APIError):
        return f"reported an error: {_server_detail(exc)}"
    if isinstance(exc, (TypeError, AttributeError, KeyError, ValueError, IndexError)):
        return f"returned a malformed response ({type(exc).__name__})"
    return f"failed ({type(exc).__name__}: {str(exc)[:200]})"


def unavailable(reason: str, config: LLMConfig, partial: str) -> LLMUnavailable:
    """An LLMUnavailable with a masked message; ``partial_text`` holds what was already shown."""
    reason = reason.rstrip()
    message = f"The LLM at {safe_url(config.base_url)} {reason}"
    message += "" if message.endswith((".", "?", "!")) else "."
    if partial:
        message += " The answer shown so far is incomplete."
    err = LLMUnavailable(redact(message, config.api_key), source=safe_url(config.base_url))
    err.partial_text = partial  # type: ignore[attr-defined]
    return err


def finish_reason(raw: Any) -> str | None:
    """``choices[0].finish_reason`` of a raw streamed chunk, if any."""
    choices = getattr(raw, "choices", None) or []
    return getattr(choices[0], "finish_reason", None) if choices else None
