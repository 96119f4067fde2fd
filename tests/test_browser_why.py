""""Why" in a real browser: ``streamlit run app.py`` on a fresh SWR_HOME (the bundled sample
manuals, no LLM), Debian's Chromium driven by Playwright. A refused answer says why it was not
answered, in words; a Chinese question answered from the English manual says why its hit ranks
where it does. Screenshots in ``tests/artifacts/``.

Skipped without Chromium or playwright, except under CI or ``SWR_REQUIRE_BROWSER=1`` (see
tests/test_browser.py, whose server this starts).
"""
from __future__ import annotations

import pytest
from browser_helpers import (  # noqa: F401  (_browser_present: skip without Chromium, fail under CI)
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    START_TIMEOUT_S,
    _browser_present,
    _serve,
    ask_nth,
)


@pytest.fixture
def server(tmp_path):
    """``streamlit run app.py`` on a fresh SWR_HOME: the sample manuals, no LLM."""
    yield from _serve(tmp_path, tmp_path / "home", {"SWR_LLM_GGUF": ""})


def _open(page, url):
    page.goto(url, wait_until="domcontentloaded")
    page.locator('[data-testid="stChatInputTextArea"]').wait_for(state="visible", timeout=START_TIMEOUT_S * 1000)


def test_why_on_a_refused_and_on_a_cross_lingual_answer(server):
    from playwright.sync_api import sync_playwright

    from swr.core.rules.words import WORDS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            _open(page, server["url"])
            reply = ask_nth(page, "What is the capital of France?", 1)
            why = reply.locator(".swr-why").first
            why.wait_for(state="visible", timeout=30_000)
            text = why.inner_text()
            assert text.startswith("Why not answered"), text
            assert any(w in text for k, w in WORDS.items() if k.startswith("answerable.")), text
            page.screenshot(path=str(ARTIFACTS / "why-refused.png"))

            _open(page, server["url"])  # a fresh session: not a follow-up of the refused question
            reply = ask_nth(page, "空气炸锅显示E2是什么意思？", 1)
            card = reply.locator(".swr-passage").filter(has_text="fan fault").first
            card.wait_for(state="visible", timeout=30_000)
            rank = card.locator(".swr-why").first.inner_text()
            assert rank.startswith("Why this rank"), rank
            xl = [w for k, w in WORDS.items() if "." not in k]  # the ranking rules' words
            assert any(w in rank for w in xl), rank
            page.screenshot(path=str(ARTIFACTS / "why-crosslingual.png"))
        except Exception:
            if page is not None:
                page.screenshot(path=str(ARTIFACTS / "why-failure.png"))
                (ARTIFACTS / "why-failure.html").write_text(page.content())
            raise
        finally:
            browser.close()
