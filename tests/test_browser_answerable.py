"""Answerability in a real browser: ``streamlit run app.py`` on a fresh
SWR_HOME (the bundled sample manuals), Debian's Chromium driven by Playwright. Off-topic
questions, each asked in a fresh session, get the plain "not in the knowledge base" answer, with
the closest passages below headed "Closest, not an answer"; the sample question asked next in the
same chat is still answered, its passages headed "Evidence". Screenshots in ``tests/artifacts/``.

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

OFF_TOPIC = ["What is the capital of France?", "今天天气怎么样？"]
SMALL_TALK = "Tell me a joke."  # refused as small talk: the reply says what the assistant answers
SAMPLE = "电热水壶第一次使用前要做什么？"


@pytest.fixture
def server(tmp_path):
    """``streamlit run app.py`` on a fresh SWR_HOME: the sample manuals, no LLM."""
    yield from _serve(tmp_path, tmp_path / "home", {"SWR_LLM_GGUF": ""})


def test_off_topic_questions_get_not_in_the_kb_and_the_closest_passages(server):
    from playwright.sync_api import sync_playwright

    from swr.answer.extractive import not_found_message

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for n, q in enumerate([*OFF_TOPIC, SMALL_TALK], 1):
                # each in a fresh session: a chat's next question may be taken as a follow-up of the last
                page.goto(server["url"], wait_until="domcontentloaded")
                page.locator('[data-testid="stChatInputTextArea"]').wait_for(state="visible",
                                                                              timeout=START_TIMEOUT_S * 1000)
                reply = ask_nth(page, q, 1)
                assert "follow-up" not in reply.inner_text()
                text = reply.inner_text()
                assert "Not in the knowledge base" in text, text[:800]
                assert not_found_message(q, small_talk=q == SMALL_TALK) in text, text[:800]  # in its language
                assert "closest ones, not an answer" in text, text[:800]
                head = reply.locator(".swr-evhead").first.inner_text()
                assert head.startswith("Closest, not an answer"), head
                assert reply.locator(".swr-passage").count() >= 1  # the closest passages are still shown
                assert reply.locator(".swr-answer mark").count() == 0  # nothing is marked as the answer
                page.screenshot(path=str(ARTIFACTS / f"answerable-off-topic-{n}.png"))
            reply = ask_nth(page, SAMPLE, 2)  # in the same chat, after an off-topic question
            text = reply.inner_text()
            assert "Not in the knowledge base" not in text, text[:800]
            assert reply.locator(".swr-evhead").first.inner_text().startswith("Evidence")
            assert "电热水壶第一次使用前" in reply.locator(".swr-answer").first.inner_text()
            page.screenshot(path=str(ARTIFACTS / "answerable-sample.png"))
        except Exception:
            if page is not None:
                page.screenshot(path=str(ARTIFACTS / "answerable-failure.png"))
                (ARTIFACTS / "answerable-failure.html").write_text(page.content())
            raise
        finally:
            browser.close()

