"""The answer stage: turn a question and its retrieved passages into an answer.

This is the only module that talks to the LLM. It streams the answer from any OpenAI-compatible
server through llama-index's ``OpenAILike``: a remote endpoint (``OPENAI_BASE_URL`` + model) or the
embedded llama.cpp server of :mod:`swr.answer.llm_local` (``SWR_LLM_GGUF``), started on first use. Every
failure becomes :class:`swr.core.errors.LLMUnavailable` with a message written for the user
(:mod:`swr.answer.llm_errors`). The prompt is built by :mod:`swr.answer.prompt`.

When no LLM is configured the caller uses :func:`extractive_answer` (:mod:`swr.answer.extractive`)
instead. The caller reports which one it used as the answer *kind*: :data:`KIND_LLM` (``"llm"``)
or :data:`KIND_EXTRACTIVE` (``"extractive"``); :attr:`Answerer.kind` says which one an answerer
will produce.

The API key never appears in a message, a log line or a repr: it is masked everywhere.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import swr.answer.llm_local as llm_local
from swr.answer.extractive import not_found_message
from swr.answer.llm_errors import finish_reason, reason, safe_url, unavailable
from swr.answer.prompt import build_prompt, fit_passages, prompt_tokens
from swr.core.errors import LLMUnavailable
from swr.core.redact import MASK
from swr.core.tokens import offline_encoding
from swr.core.types import Passage

log = logging.getLogger("swr.answer.llm")

KIND_LLM = "llm"
KIND_EXTRACTIVE = "extractive"

#: Sent as the API key when none is configured: local servers accept any key.
NO_KEY = "sk-none"
_MASK = MASK
_offline_encoding = offline_encoding  # the old private name (tests clear its cache)


@dataclass
class LLMConfig:
    """Where and how to reach an OpenAI-compatible chat endpoint.

    ``api_key`` is optional (local servers accept any key; :data:`NO_KEY` is sent when missing)
    and is masked in ``repr``/``str``. ``gguf`` (with no ``base_url``) is a local model file
    served by :mod:`swr.answer.llm_local` with ``threads`` threads.
    """

    base_url: str = ""
    api_key: str | None = field(default=None, repr=False)
    model: str = ""
    timeout_s: float = 60.0
    temperature: float = 0.1
    max_tokens: int = 512
    context_window: int = 8192
    gguf: str = ""
    threads: int = 1

    @classmethod
    def from_settings(cls, settings) -> "LLMConfig":
        """The answering LLM of ``settings`` (:class:`swr.core.settings.Settings`): the remote endpoint,
        else the local GGUF model with its own context, answer length and patience."""
        local = {"gguf": settings.llm_gguf, "threads": settings.llm_threads,
                 "context_window": settings.llm_local_context_window, "max_tokens": settings.llm_local_max_tokens,
                 "timeout_s": max(settings.llm_timeout_s, settings.llm_local_min_timeout_s)} \
            if settings.llm_gguf else {}
        return cls(base_url=settings.llm_base_url or "", api_key=settings.llm_api_key, model=settings.llm_model or "",
                   **{"timeout_s": settings.llm_timeout_s, **local})

    @property
    def local(self) -> bool:
        """True when answers come from the embedded server (a GGUF and no remote endpoint)."""
        return bool((self.gguf or "").strip()) and not (self.base_url or "").strip()

    @property
    def configured(self) -> bool:
        """True when a base URL and a model are set, or a local GGUF file."""
        return self.local or bool((self.base_url or "").strip() and (self.model or "").strip())

    @property
    def model_name(self) -> str:
        """The model's name as shown to the user."""
        return llm_local.model_name(self.gguf) if self.local else self.model

    @property
    def key_or_placeholder(self) -> str:
        """The key to send: the configured one, or :data:`NO_KEY`."""
        return self.api_key or NO_KEY

    def endpoint_url(self) -> str:
        """The base URL to call: the remote endpoint, or the embedded server's (started now if needed).
        Stages below ``answer`` (cross-lingual translation) reach the local model through this."""
        if self.local:
            return llm_local.server_for(self.gguf, self.threads, self.context_window).start()
        return self.base_url

    def safe_dict(self) -> dict[str, Any]:
        """The settings as a dict with the key masked and the URL cleaned, for display."""
        return {
            "base_url": safe_url(self.base_url) if self.base_url else "",
            "api_key": _MASK if self.api_key else None,
            "model": self.model,
            "timeout_s": self.timeout_s,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "context_window": self.context_window,
            "gguf": self.gguf,
            "threads": self.threads,
        }

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.safe_dict().items())
        return f"LLMConfig({fields})"

    __str__ = __repr__


class Answerer:
    """Streams answers from the configured OpenAI-compatible LLM.

    ``Answerer(None)`` (or an unconfigured :class:`LLMConfig`) has ``kind == "extractive"``: the
    caller should use :func:`extractive_answer` instead of :meth:`stream`.
    """

    def __init__(self, config: LLMConfig | None):
        self.config = config
        self._llm: Any = None
        self._llm_key: int | None = None

    def __repr__(self) -> str:
        return f"Answerer(config={self.config!r})"

    __str__ = __repr__

    @property
    def configured(self) -> bool:
        """True when an LLM is configured."""
        return bool(self.config and self.config.configured)

    @property
    def kind(self) -> str:
        """``"llm"`` when answers come from the LLM, ``"extractive"`` otherwise."""
        return KIND_LLM if self.configured else KIND_EXTRACTIVE

    @property
    def model_name(self) -> str | None:
        """The model answers come from (the GGUF's name for the local model), or None."""
        return self.config.model_name if self.configured else None

    def local_server(self) -> llm_local.LocalServer | None:
        """The embedded server of a local config (not started by this call), else None."""
        cfg = self.config
        if cfg is None or not cfg.local:
            return None
        return llm_local.server_for(cfg.gguf, cfg.threads, cfg.context_window)

    def health(self) -> dict:
        """For the system panel: configured, model, where, and the local server's health."""
        out: dict[str, Any] = {"configured": self.configured, "model": self.model_name,
                               "local": bool(self.config and self.config.local)}
        server = self.local_server()
        if server is not None:
            out["local_server"] = server.health()
        elif self.config is not None:
            out["base_url"] = safe_url(self.config.base_url) if self.config.base_url else ""
        return out

    def _endpoint(self) -> LLMConfig:
        """The config to call: for a local model, its server's URL (started now if needed)."""
        cfg = self.config
        assert cfg is not None
        server = self.local_server()
        if server is None:
            return cfg
        return replace(cfg, base_url=server.start(), model=cfg.model_name, api_key=None)

    def _client(self, cfg: LLMConfig) -> Any:
        """The llama-index OpenAILike client (imported lazily: it is slow), rebuilt only when
        the config changed since the last call."""
        key = hash((cfg.base_url, cfg.api_key, cfg.model, cfg.timeout_s, cfg.temperature,
                    cfg.max_tokens, cfg.context_window))  # a hash: the key is not kept twice
        if self._llm is None or key != self._llm_key:
            from llama_index.llms.openai_like import OpenAILike

            self._llm_key = key
            self._llm = OpenAILike(
                model=cfg.model,
                api_base=cfg.base_url.rstrip("/"),
                api_key=cfg.key_or_placeholder,
                is_chat_model=True,
                context_window=cfg.context_window,
                max_tokens=cfg.max_tokens,
                temperature=cfg.temperature,
                timeout=cfg.timeout_s,
                max_retries=0,
            )
        return self._llm

    def _check(self) -> None:
        if not self.configured:
            raise LLMUnavailable(
                "No LLM is configured (set its base URL and model); use the extractive answer."
            )
        if not self.config.local and not self.config.base_url.strip().lower().startswith(
                ("http://", "https://")):
            raise LLMUnavailable(
                f"The LLM base URL {safe_url(self.config.base_url)!r} is invalid: it must start "
                "with http:// or https:// (for example http://127.0.0.1:8000/v1)."
            )

    def stream(self, question: str, passages: list[Passage], hint: str | None = None) -> Iterator[str]:
        """Yield the answer's text deltas as the LLM produces them.

        Raises :class:`LLMUnavailable` right away when no LLM is configured, and while iterating
        on any failure (also after some deltas: ``err.partial_text`` holds them; a local model
        that cannot be loaded raises :class:`swr.core.errors.LocalModelError` on the first step).
        Without passages it yields the "nothing found" message and does not call the LLM.
        """
        self._check()
        if not passages:
            return iter([not_found_message(question)])
        sent = fit_passages(question, passages, self.config)
        return self._stream(build_prompt(question, sent, hint), f"{len(sent)} passages")

    def chat(self, messages: list[dict], *, max_tokens: int | None = None,
             temperature: float | None = None) -> str:
        """One whole reply to ``messages`` (any task, e.g. the follow-up condense step of
        :mod:`swr.answer.condense`), through the same client, errors and timeouts as answers;
        ``temperature`` overrides the configured one for this call."""
        self._check()
        return "".join(self._stream(messages, "a chat request", max_tokens=max_tokens, temperature=temperature))

    def _stream(self, messages: list[dict], what: str, *, max_tokens: int | None = None,
                temperature: float | None = None) -> Iterator[str]:
        shown: list[str] = []
        error: LLMUnavailable | None = None
        cfg = self.config
        assert cfg is not None
        try:
            cfg = self._endpoint()
            if max_tokens:
                cfg = replace(cfg, max_tokens=max_tokens)
            if temperature is not None:
                cfg = replace(cfg, temperature=temperature)
            log.info("asking %s (model %s) with %s, ~%d prompt tokens",
                     safe_url(cfg.base_url), cfg.model, what, prompt_tokens(messages))
            finished = False
            for chunk in self._chat_stream(cfg, messages):
                finished = finished or finish_reason(chunk.raw) is not None
                if chunk.delta:
                    shown.append(chunk.delta)
                    yield chunk.delta
            if not finished:
                why = "stopped in the middle of the answer (the stream ended early)"
                error = unavailable(why, cfg, "".join(shown))
        except LLMUnavailable as exc:  # the local model could not be loaded
            error = exc
        except Exception as exc:  # noqa: BLE001 - every failure becomes LLMUnavailable
            error = unavailable(reason(exc, cfg, bool(shown)), cfg, "".join(shown))
        if error is not None:
            log.warning("%s", error.message)
            raise error  # raised outside the handler: no chained exception carries server text

    def _chat_stream(self, cfg: LLMConfig, messages: list[dict]) -> Iterator[Any]:
        """llama-index ``stream_chat`` over the given message dicts."""
        from llama_index.core.llms import ChatMessage

        chat = [ChatMessage(role=m["role"], content=m["content"]) for m in messages]
        return self._client(cfg).stream_chat(chat)

    def answer(self, question: str, passages: list[Passage]) -> str:
        """The whole answer: :meth:`stream` joined."""
        return "".join(self.stream(question, passages))
