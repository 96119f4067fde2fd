"""The LLM API key never reaches the page or the exported evidence card.

The app runs (``streamlit.testing.v1.AppTest``) with ``OPENAI_API_KEY`` set and a real HTTP LLM
(tests/fake_llm.py) answering; every element of every page is dumped (its protobuf, so labels,
Markdown, HTML, captions, errors, tables, JSON, download buttons alike) and searched for the key,
after an LLM answer and after a failure whose server error echoes the key. The exported evidence
card of each answer is searched too. The bundled MiniLM indexes the sample KB (fast; the model
is not what is under test).
"""
from __future__ import annotations

import html
import os
import urllib.parse
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fake_llm import fake_llm  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))
KEY = "sk-live-7f3a9c0d2e5b4a61-SECRET"
Q = "电热水壶第一次使用前要做什么？"
ENV_KEYS = ("SWR_HOME", "SWR_SECRETS", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL",
            "QDRANT_API_KEY", "SWR_EMBED_MODEL", "SWR_SAMPLE_KB", "SWR_LLM_TIMEOUT")


def _ui():
    """The Streamlit side's ``get_engine`` and ``evidence_card``."""
    from swr.app import base
    from swr.app.components.answer import evidence_card

    return base.get_engine, evidence_card


@pytest.fixture
def keyed_app(tmp_path, fake_llm):  # noqa: F811
    """The app's environment with an API key and a reachable LLM; the cached engine is rebuilt
    for it and closed after."""
    get_engine, _ = _ui()
    saved = {k: os.environ.get(k) for k in ENV_KEYS}
    for k in ENV_KEYS:
        os.environ.pop(k, None)
    os.environ.update({"SWR_HOME": str(tmp_path / "home"), "SWR_SECRETS": str(tmp_path / "no-secrets.toml"),
                       "OPENAI_BASE_URL": fake_llm.base_url, "OPENAI_API_KEY": KEY, "SWR_LLM_MODEL": "fake-model",
                       "SWR_EMBED_MODEL": "all-MiniLM-L6-v2", "SWR_LLM_TIMEOUT": "10", "HF_HUB_OFFLINE": "1"})
    get_engine.clear()
    try:
        yield fake_llm
    finally:
        try:
            get_engine().close()
        finally:
            get_engine.clear()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def dump(node) -> str:
    """Everything an element tree would send to the browser, as text."""
    out = [str(node.proto)] if getattr(node, "proto", None) is not None else []
    for child in getattr(node, "children", {}).values():
        out.append(dump(child))
    return "\n".join(out)


def page_text(at: AppTest) -> str:
    raw = dump(at.main) + "\n" + dump(at.sidebar)
    return raw + "\n" + html.unescape(raw) + "\n" + urllib.parse.unquote(raw)


def assert_hidden(text: str, where: str) -> None:
    assert KEY not in text and KEY[8:24] not in text, f"the API key appears in {where}"


def test_the_api_key_is_in_no_page_and_no_exported_card(keyed_app):
    _, evidence_card = _ui()
    llm = keyed_app
    llm.reply = "Fill it to MAX, boil and pour the water away [1]."
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    at.chat_input[0].set_value(Q).run()
    assert not at.exception, at.exception
    assert llm.requests and llm.requests[-1]["headers"].get("Authorization") == f"Bearer {KEY}"  # it was used
    text = page_text(at)
    assert "fake-model" in text and "pour the water away" in text  # the LLM answer is on the page
    assert_hidden(text, "the chat page")

    llm.mode = "401"  # the server's error message echoes the key, as careless servers do
    # (an English question: the English-only test model finds no grounds for a Chinese one in
    # this mixed knowledge base, and an unanswerable question never reaches the LLM)
    at.chat_input[0].set_value("How do I clean the air fryer basket?").run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "LLM failed" in text
    assert_hidden(text, "the chat page after an LLM error")

    history = at.session_state["history"]
    assert len(history) == 2 and history[0]["result"].answer_kind == "llm" and history[1]["result"].llm_error
    for k, entry in enumerate(history):
        card = evidence_card(entry["result"])
        assert card.startswith("<!DOCTYPE html>") and "fake-model" in card
        assert_hidden(card + html.unescape(card), f"exported evidence card {k + 1}")

    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert_hidden(page_text(at), page)
