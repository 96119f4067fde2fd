"""Question translation for the cross-lingual search: an LLM when one is allowed, else CC-CEDICT.

The LLM path (a configured endpoint, or the embedded local model with ``SWR_CROSSLINGUAL=llm``) is
optional: it costs one chat call per new question and language (cached per process by text), and
any failure falls back to the dictionary (:mod:`swr.text.glossary`).
"""
from __future__ import annotations

import logging

from swr.core.lang import detect_lang
from swr.core.rules.crosslingual import DEFAULT_RULES, CrossLingualRules

log = logging.getLogger("swr.retrieve.crosslingual")

TRANSLATIONS_CACHED = 4096  # translations kept per process, per cache (size of the cache)
_LLM_TIMEOUT_S = 10.0  # a translation must not hold the answer up for the answer's own timeout
_LOCAL_TIMEOUT_S = 30.0  # the embedded model on a busy CPU: seconds per question (bench/README.md)
_SYSTEM = ("You translate questions between English and Simplified Chinese. You never answer them. "
           "Keep names, model numbers, codes, numbers and units as written.")
# the instruction in the target language, and one example per direction (the asked direction
# last): a 0.5B model told in English to translate into Chinese answered in English, or answered
# the question instead of translating it
_ASK = {"zh": "把下面的问题翻译成中文（只翻译，不要回答）：",
        "en": "Translate this question into English (translate only, do not answer): "}
_EXAMPLE = {"en": ("KX-2000电热水壶的额定功率是多少？", "What is the rated power of the KX-2000 electric kettle?"),
            "zh": ("When was the company founded?", "公司是什么时候成立的？")}


def llm_messages(text: str, lang: str) -> list[tuple[str, str]]:
    """The chat (role, content) pairs asking for ``text`` in ``lang``."""
    other = "zh" if lang == "en" else "en"
    msgs = [("system", _SYSTEM)]
    for lg in (other, lang):
        msgs += [("user", _ASK[lg] + _EXAMPLE[lg][0]), ("assistant", _EXAMPLE[lg][1])]
    return msgs + [("user", _ASK[lang] + text)]


def check_translation(text: str, out: str | None, lang: str, rules: CrossLingualRules = DEFAULT_RULES) -> str | None:
    """The model's reply as a translation of ``text`` into ``lang``, or None when it is not one:
    empty, in the wrong language (a copy of the question), or far longer (an answer: ``rules.reply_ratio``)."""
    out = (out or "").strip().strip('"“”「」').strip()
    out = out.splitlines()[0].strip() if out else ""
    if not out or out == text.strip() or len(out) > rules.reply_ratio * len(text) + rules.reply_extra_chars:
        return None
    return out if detect_lang(out) == lang else None


class Translator:
    """Question translation: an LLM when one is allowed, else CC-CEDICT word glosses.

    ``llm_config`` with a remote OpenAI-compatible endpoint translates; the embedded local model
    (``llm_config.local``) only when ``local=True`` (``SWR_CROSSLINGUAL=llm``: seconds per
    question on a CPU). An LLM failure or a reply that is no translation falls back to the
    dictionary for that question (logged, never raised): a question is still answered when the
    LLM is down. Translations are cached per process (the LLM's by text alone, in ``llm_cache``).
    """

    def __init__(self, llm_config=None, *, local: bool = False) -> None:
        usable = llm_config is not None and llm_config.configured and (local or not getattr(llm_config, "local", False))
        self.llm_config = llm_config if usable else None
        self._client = None
        self._cache: dict[tuple, tuple[str, str]] = {}
        self.llm_cache: dict[tuple[str, str], str | None] = {}  # (text, lang) -> the LLM's translation
        self.llm_calls = 0

    def __call__(self, text: str, lang: str, known=None, scope: object = None) -> str | None:
        """The translation of ``text`` into ``lang`` (see :meth:`translate`), or None."""
        return self.translate(text, lang, known, scope)[0] or None

    def translate(self, text: str, lang: str, known=None, scope: object = None) -> tuple[str, str]:
        """(translation, how: "llm" | "dictionary"); "" when nothing could be translated.

        ``known(word)`` tells the dictionary which translations the target documents use;
        ``scope`` (e.g. the knowledge base and its version) keys the dictionary's cache with it.
        """
        if self.llm_config:
            if (text, lang) not in self.llm_cache:
                if len(self.llm_cache) > TRANSLATIONS_CACHED:
                    self.llm_cache.clear()
                self.llm_cache[(text, lang)] = self._llm(text, lang)
            if self.llm_cache[(text, lang)]:
                return self.llm_cache[(text, lang)], "llm"
        key = (text, lang, scope)
        if key not in self._cache:
            from swr.text.glossary import glossary

            if len(self._cache) > TRANSLATIONS_CACHED:
                self._cache.clear()
            self._cache[key] = (glossary().translate(text, lang, known), "dictionary")
        return self._cache[key]

    def _llm(self, text: str, lang: str) -> str | None:
        """The LLM's translation, or None (any failure, or a reply that is not a translation)."""
        cfg = self.llm_config
        try:
            if self._client is None:
                from llama_index.llms.openai_like import OpenAILike

                base, model, key, limit = cfg.base_url, cfg.model, cfg.key_or_placeholder, _LLM_TIMEOUT_S
                if getattr(cfg, "local", False):
                    base, model, limit = cfg.endpoint_url(), cfg.model_name, _LOCAL_TIMEOUT_S
                self._client = OpenAILike(model=model, api_base=base.rstrip("/"), api_key=key, is_chat_model=True,
                                          context_window=cfg.context_window, max_tokens=120, temperature=0.0,
                                          timeout=min(cfg.timeout_s, limit), max_retries=0)
            from llama_index.core.llms import ChatMessage

            self.llm_calls += 1
            reply = self._client.chat([ChatMessage(role=r, content=c) for r, c in llm_messages(text, lang)])
            out = check_translation(text, reply.message.content, lang)
            if out is None:
                log.info("the LLM's reply is no %s translation of %r; using the dictionary", lang, text[:80])
            return out
        except Exception as exc:  # noqa: BLE001 - any LLM failure: the dictionary answers instead
            log.warning("question translation by the LLM failed (%s); using the dictionary", type(exc).__name__)
            return None
