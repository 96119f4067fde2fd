"""End to end in a real browser: ``streamlit run app.py`` on a fresh SWR_HOME, Debian's Chromium
driven by Playwright. Asks the sample question, checks the answer and a highlighted hit inside a
window, moves the window slider with the keyboard and checks the window grew. Screenshots go to
``tests/artifacts/``; the time from ``streamlit run`` to the first answer is printed and saved
in ``tests/artifacts/timings.json``.

Skipped when /usr/bin/chromium (or ``SWR_CHROMIUM``) or the playwright package is missing, except
under CI (``CI=true``) or ``SWR_REQUIRE_BROWSER=1``, where a missing browser FAILS them: CI must
not go green without a browser test run (``.ci/run`` installs both).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from browser_helpers import (  # noqa: F401  (_browser_present: skip without Chromium, fail under CI)
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    START_TIMEOUT_S,
    _browser_present,
    _serve,
    ask,
    chat_box,
    upload,
)

QUESTION = "电热水壶第一次使用前要做什么？"


@pytest.fixture
def server(tmp_path):
    """``streamlit run app.py`` headless on a free 127.0.0.1 port with a fresh SWR_HOME."""
    yield from _serve(tmp_path, tmp_path / "home", {})


_VISIBLE_WINDOW_CHARS = """() => [...document.querySelectorAll('.swr-passage .swr-text')]
    .filter(e => e.checkVisibility())
    .reduce((n, e) => n + e.textContent.length, 0)"""
FIRST_USE = "电热水壶第一次使用前"  # samples/kb/kettle_manual_zh.md, step 5: the sentence that answers
# every visible window whose highlight holds FIRST_USE: its text before, in and after that <mark>
_FIRST_USE_WINDOWS = """() => [...document.querySelectorAll('.swr-passage .swr-text')]
    .filter(e => e.checkVisibility())
    .flatMap(t => [...t.querySelectorAll('mark')].filter(m => m.textContent.includes('%s')).map(m => {
        const before = document.createRange(), after = document.createRange();
        before.selectNodeContents(t); before.setEndBefore(m);
        after.selectNodeContents(t); after.setStartAfter(m);
        return {before: before.toString(), mark: m.textContent, after: after.toString()};
    }))""" % FIRST_USE


BUDGET = 400  # characters: the sample question's kettle window then takes 8 sentences before its hit, 3 after
# per visible card whose highlight holds FIRST_USE: its stop note and its text before and after the hit
_FIRST_USE_CARDS = """() => [...document.querySelectorAll('.swr-passage')]
    .filter(c => c.checkVisibility())
    .flatMap(c => {
        const t = c.querySelector('.swr-text'), s = c.querySelector('.swr-stops');
        return [...t.querySelectorAll('mark')].filter(m => m.textContent.includes('%s')).map(m => {
            const before = document.createRange(), after = document.createRange();
            before.selectNodeContents(t); before.setEndBefore(m);
            after.selectNodeContents(t); after.setStartAfter(m);
            return {stops: s ? s.textContent : '', before: before.toString(), after: after.toString()};
        });
    })""" % FIRST_USE
_VISIBLE_CARD_CHARS = """() => [...document.querySelectorAll('.swr-passage .swr-text')]
    .filter(e => e.checkVisibility()).map(e => e.textContent.length)"""


def test_ask_and_resize_window_in_chromium(server, capsys):
    """The sample question in the chat: answer, highlighted hit, the window slider grows the window
    around it; then budget mode gives an asymmetric window with its stop reasons."""
    from playwright.sync_api import sync_playwright

    from swr.text.split import split_spans

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server["url"], wait_until="domcontentloaded")
            # the chat input appears once the engine is up and the sample KB is indexed
            chat_box(page)
            ready_s = time.monotonic() - server["t0"]
            kb_value = page.locator('.st-key-w_kb input').input_value()
            assert kb_value.startswith("sample"), kb_value  # the sidebar's KB selector

            ask(page, QUESTION)
            page.locator(".swr-passage .swr-text mark").first.wait_for(state="visible", timeout=120_000)
            # the top hit's mark (a passage marks its hits in text order: the section's heading
            # "## 3. 首次使用前" comes before its step 5)
            mark = page.locator('.swr-passage .swr-text mark[title*="rank #1 "]').first
            answer = page.locator(".swr-answer").first
            answer.wait_for(state="visible", timeout=60_000)
            answer_s = time.monotonic() - server["t0"]
            assert answer.inner_text().strip()
            assert FIRST_USE in mark.inner_text(), mark.inner_text()  # the top hit is the first-use step
            assert "煮沸后倒掉" in mark.inner_text()  # the whole sentence is highlighted, not a fragment
            first = page.evaluate(_FIRST_USE_WINDOWS)[0]
            page.wait_for_timeout(500)  # let the last element settle before the picture
            before = page.evaluate(_VISIBLE_WINDOW_CHARS)
            assert before > 0
            page.screenshot(path=str(ARTIFACTS / "1-answer.png"))

            thumb = page.locator('.st-key-w_window input[type="range"]')  # the slider's thumb
            start_value = int(thumb.input_value())
            thumb.focus()
            for _ in range(3):
                thumb.press("ArrowRight")
            # the rerun is over once the preview names the new window
            page.get_by_text(f"window {start_value} → {start_value + 3}").first.wait_for(timeout=60_000)
            page.wait_for_function(f"() => ({_VISIBLE_WINDOW_CHARS})() > {before}", timeout=60_000)
            after = page.evaluate(_VISIBLE_WINDOW_CHARS)
            assert int(thumb.input_value()) == start_value + 3
            page.get_by_role("button", name="Regenerate answer with this context").wait_for(timeout=30_000)
            assert page.locator(".swr-passage .swr-text mark").first.is_visible()
            # the window grew around the same highlighted sentence: more text on both sides of it
            grown = max(page.evaluate(_FIRST_USE_WINDOWS), key=lambda w: len(w["before"] + w["after"]))
            assert grown["mark"] == first["mark"]
            assert grown["before"].endswith(first["before"]) and len(grown["before"]) > len(first["before"]), \
                (first["before"][-80:], grown["before"][-200:])
            assert grown["after"].startswith(first["after"]) and len(grown["after"]) > len(first["after"]), \
                (first["after"][:80], grown["after"][:200])
            page.wait_for_timeout(500)
            page.screenshot(path=str(ARTIFACTS / "2-window-grown.png"))

            # a budget window grows toward the neighbours most like the question, so it
            # may take more on one side than the other; the card says which mode made it and why
            # each side stopped
            page.locator(".st-key-w_window_mode").get_by_text("budget", exact=True).click()
            budget = page.locator(".st-key-w_window_budget input")
            budget.wait_for(state="visible", timeout=60_000)
            budget.fill(str(BUDGET))
            budget.press("Enter")
            page.locator(".swr-passage .swr-stops").first.wait_for(state="visible", timeout=60_000)
            page.wait_for_function(
                "() => [...document.querySelectorAll('.swr-passage .swr-stops')].some(e => e.checkVisibility()"
                " && e.textContent.startsWith('budget window'))", timeout=60_000)
            page.wait_for_timeout(1000)  # the rerun settles
            cards = page.evaluate(_FIRST_USE_CARDS)
            assert cards, "the first-use hit is still shown in a budget window"
            card = cards[0]
            assert card["stops"].startswith("budget window · stopped:"), card["stops"]
            n_before, n_after = len(split_spans(card["before"])), len(split_spans(card["after"]))
            assert n_before != n_after, ("asymmetric", n_before, n_after, card)
            assert sum(page.evaluate(_VISIBLE_CARD_CHARS)) <= BUDGET, "the windows' text fits the budget"
            page.screenshot(path=str(ARTIFACTS / "3-budget-window.png"))
        except Exception:
            if page is not None:  # what the page looked like when it failed
                page.screenshot(path=str(ARTIFACTS / "failure.png"))
                (ARTIFACTS / "failure.html").write_text(page.content())
            raise
        finally:
            browser.close()

    assert after > before
    timings = {"health_s": round(server["health_s"], 2), "chat_ready_s": round(ready_s, 2),
               "first_answer_s": round(answer_s, 2), "window_chars_before": before, "window_chars_after": after,
               "window_before": start_value, "window_after": start_value + 3}
    (ARTIFACTS / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    with capsys.disabled():
        print(f"\n[browser] streamlit run -> healthy {timings['health_s']} s, sample KB ready "
              f"{timings['chat_ready_s']} s, first answer {timings['first_answer_s']} s; window "
              f"{start_value}->{start_value + 3}: {before}->{after} chars; screenshots in {ARTIFACTS}")


HOSTILE = ("The QZ-7 toaster warranty lasts five years from the date of purchase. "
           "<script>window.__xss = 1; alert('xss-script')</script> "
           "<img src=x onerror=\"window.__xss = 2; alert('xss-img')\"> "
           "[click here](javascript:window.__xss=3) or javascript:alert('xss-url') "
           "<b>bold</b> <a href=\"javascript:window.__xss=5\">a link</a>. "
           "Descale the QZ-7 toaster every month with white vinegar.\n")
_INJECTED = """() => ({
    xss: window.__xss === undefined ? null : window.__xss,
    scripts: document.querySelectorAll('.swr-passage script, .swr-split script, .swr-q script').length,
    imgs: document.querySelectorAll('.swr-passage img, .swr-split img').length,
    bolds: document.querySelectorAll('.swr-passage b, .swr-split b').length,
    jsLinks: [...document.querySelectorAll('a')].filter(a => (a.getAttribute('href') || '')
        .trim().toLowerCase().startsWith('javascript:')).length,
})"""


@pytest.fixture
def hostile_server(tmp_path):
    """A server whose only knowledge base holds a document full of markup and script (indexed
    before the server starts, with the same default engine)."""
    from swr.core.settings import Settings
    from swr.engine import Engine

    home = tmp_path / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "no-secrets.toml", home=home, sample_kb=""))
    assert eng.index_files("hostile", [("evil<script>.txt", HOSTILE.encode())])[0].ok
    eng.close()
    yield from _serve(tmp_path, home, {"SWR_SAMPLE_KB": ""})


def test_document_markup_and_scripts_are_text_everywhere_in_chromium(hostile_server):
    """Evidence, the question bubble, the split preview and the exported card show the document's
    <script>, tags, Markdown links and javascript: URLs as text: nothing runs, no element made."""
    from playwright.sync_api import sync_playwright

    url = hostile_server["url"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        dialogs: list[str] = []
        page = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(url, wait_until="domcontentloaded")
            chat_box(page)
            assert page.locator('.st-key-w_kb input').input_value().startswith("hostile")
            ask(page, "How long is the QZ-7 toaster warranty? <script>alert('q')</script>")
            passage = page.locator(".swr-passage .swr-text").first
            passage.wait_for(state="visible", timeout=120_000)
            page.wait_for_timeout(1000)
            text = passage.inner_text()
            assert "<script>window.__xss = 1; alert('xss-script')</script>" in text, text
            assert "[click here](javascript:window.__xss=3)" in text and "<b>bold</b>" in text
            assert "<script>alert('q')</script>" in page.locator(".swr-q").first.inner_text()
            assert page.evaluate(_INJECTED) == {"xss": None, "scripts": 0, "imgs": 0, "bolds": 0, "jsLinks": 0}

            with page.expect_download(timeout=60_000) as dl:
                page.get_by_role("button", name="Export evidence card").first.click()
            card = Path(dl.value.path()).read_text(encoding="utf-8")
            assert "five years" in card
            for raw in ("<script>window.__xss", "<img src=x", "<b>bold</b>", 'href="javascript:', "<script>alert('q')"):
                assert raw not in card, raw
            page.screenshot(path=str(ARTIFACTS / "3-hostile-evidence.png"))

            page.goto(f"{url}/Knowledge_bases", wait_until="domcontentloaded")
            page.get_by_role("tab", name="Documents").click()
            split = page.locator(".swr-split").first
            split.wait_for(state="visible", timeout=60_000)
            assert "<script>window.__xss = 1;" in split.inner_text()
            assert "evil<script>.txt" in page.locator('.st-key-doc_pick input').input_value()
            assert page.evaluate(_INJECTED) == {"xss": None, "scripts": 0, "imgs": 0, "bolds": 0, "jsLinks": 0}
            page.screenshot(path=str(ARTIFACTS / "4-hostile-preview.png"))
            assert dialogs == [], dialogs
        except Exception:
            if page is not None:
                page.screenshot(path=str(ARTIFACTS / "failure-hostile.png"))
                (ARTIFACTS / "failure-hostile.html").write_text(page.content())
            raise
        finally:
            browser.close()


def test_local_model_gives_a_written_streamed_answer_offline_in_chromium(tmp_path):
    """With the GGUF of scripts/setup.sh --test present, the app's first answer is written by the
    local model (no server, no key), streamed, with its evidence beside it."""
    from playwright.sync_api import sync_playwright

    from swr.core.settings import SMALL_GGUF

    if not SMALL_GGUF.is_file():
        msg = f"{SMALL_GGUF} is missing: run scripts/setup.sh --test"
        pytest.fail(msg) if os.environ.get("CI") else pytest.skip(msg)
    serving = _serve(tmp_path, tmp_path / "home", {"SWR_LLM_GGUF": str(SMALL_GGUF), "SWR_LLM_THREADS": "1"})
    server = next(serving)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(server["url"], wait_until="domcontentloaded")
                ask(page, QUESTION)
                page.get_by_text("LLM answer · streaming…").first.wait_for(timeout=120_000)
                done = page.locator(".swr-kind.llm", has_text="qwen2.5-coder-0.5b-instruct-q4_k_m").first
                done.wait_for(state="visible", timeout=300_000)
                answer = page.locator(".swr-answer").first.inner_text().strip()
                assert answer and not answer.startswith("摘录式回答"), answer
                assert page.locator(".swr-passage .swr-text mark").first.is_visible()
                assert "The LLM failed" not in page.content()
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "local-llm-answer.png"))
            finally:
                browser.close()
    finally:
        serving.close()


def test_chinese_question_gets_the_english_air_fryer_fan_fault_in_chromium(server):
    """A question in Chinese finds the answer that only the English manual has."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server["url"], wait_until="domcontentloaded")
            ask(page, "空气炸锅显示E2是什么意思？")
            page.locator(".swr-passage .swr-text mark").first.wait_for(state="visible", timeout=120_000)
            page.locator(".swr-answer").first.wait_for(state="visible", timeout=60_000)
            marks = [m.inner_text() for m in page.locator(".swr-passage .swr-text mark").all()]
            assert any("fan fault" in m.lower() for m in marks), marks  # highlighted as a hit
            # the evidence says the hit came through the cross-lingual search (translation / alias)
            titles = [m.get_attribute("title") or "" for m in page.locator(".swr-passage .swr-text mark").all()
                      if "fan fault" in m.inner_text().lower()]
            assert any(" · via " in t for t in titles), titles
            assert "fan fault" in page.locator(".swr-answer").first.inner_text().lower() or \
                any("E2 means fan fault" in m for m in marks)
            page.screenshot(path=str(ARTIFACTS / "3-crosslingual-e2.png"))
        except Exception:
            if page is not None:
                page.screenshot(path=str(ARTIFACTS / "failure-crosslingual.png"))
            raise
        finally:
            browser.close()


ALPHA = ("The AX-3 blender has a two-year warranty. Clean the AX-3 jar with warm water after each use. "
         "Never run the AX-3 blender empty.\n")
BETA = "The BX-9 lamp uses a 5 W LED. Replace the BX-9 bulb only when cold.\n"
BIG_SENTENCES = 320


@pytest.fixture
def team_server(tmp_path):
    """Two small knowledge bases (alpha, beta; no sample) indexed before the server starts."""
    from swr.core.settings import Settings
    from swr.engine import Engine

    home = tmp_path / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "no-secrets.toml", home=home, sample_kb=""))
    assert eng.index_files("alpha", [("blender.txt", ALPHA.encode()), ("extra.txt", BETA.encode())])[0].ok
    assert eng.index_files("beta", [("lamp.txt", BETA.encode())])[0].ok
    eng.close()
    yield from _serve(tmp_path, home, {"SWR_SAMPLE_KB": ""})


def _pick_kb(page, name: str) -> None:
    page.locator(".st-key-w_kb").click()
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_function(f"() => document.querySelector('.st-key-w_kb input').value === {json.dumps(name)}")


def test_team_lead_slips_cost_nothing_in_chromium(team_server, tmp_path):
    """Delete confirmations and the trash (delete, restore), the notice when another user deleted
    my knowledge base (question kept), the history surviving a reload, progress within one large
    file; and the server log of the whole run holds no warning."""
    from playwright.sync_api import sync_playwright

    url = team_server["url"]
    big = tmp_path / "big.txt"
    big.write_text(" ".join(f"Item {k} of the AX-3 manual says to check the seal." for k in range(BIG_SENTENCES)))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = other = None
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url, wait_until="domcontentloaded")
            chat_box(page)
            assert page.locator(".st-key-w_kb input").input_value() == "alpha"
            ask(page, "How long is the AX-3 warranty?")
            page.locator(".swr-answer").first.wait_for(timeout=120_000)
            page.get_by_text("knowledge base “alpha”").first.wait_for(timeout=30_000)  # the answer names its KB
            page.wait_for_function("() => new URL(location.href).searchParams.get('s')", timeout=30_000)

            # a reload keeps the conversation
            page.reload(wait_until="domcontentloaded")
            page.locator(".swr-q", has_text="How long is the AX-3 warranty?").wait_for(timeout=60_000)
            page.locator(".swr-answer").first.wait_for(timeout=30_000)
            page.screenshot(path=str(ARTIFACTS / "5-history-after-reload.png"))

            # another user deletes "alpha" (confirmation named, then reset on the new selection)
            other = browser.new_page(viewport={"width": 1280, "height": 900})
            other.goto(f"{url}/Knowledge_bases", wait_until="domcontentloaded")
            other.locator(".st-key-w_kb").wait_for(timeout=120_000)
            delete = other.get_by_role("button", name="Delete “alpha”")
            assert delete.is_disabled()
            other.get_by_text("Delete “alpha” with its 2 documents").click()
            other.wait_for_function("() => !document.querySelector('.st-key-delete-kb button').disabled")
            delete.click()
            other.get_by_text("Moved knowledge base “alpha”").wait_for(timeout=60_000)
            assert other.locator(".st-key-w_kb input").input_value() == "beta"
            assert other.get_by_role("button", name="Delete “beta”").is_disabled()  # no second click wipes beta
            assert not other.get_by_role("checkbox").first.is_checked()

            # my next question is not run against "beta": a notice, the question kept
            ask(page, "Does the AX-3 run empty?")
            page.get_by_text("Your question was not asked").wait_for(timeout=60_000)
            page.locator(".swr-q", has_text="Does the AX-3 run empty?").wait_for(timeout=10_000)
            page.get_by_role("button", name="Ask again").wait_for(timeout=10_000)
            page.get_by_text("has been deleted since this answer").wait_for(timeout=10_000)
            page.screenshot(path=str(ARTIFACTS / "6-kb-gone-notice.png"))

            # restore from the trash: back with its documents, no re-embedding
            other.get_by_text("Trash (1)").click()
            other.get_by_role("button", name="Restore").click()
            other.get_by_text("Restored").wait_for(timeout=60_000)
            assert other.locator(".st-key-w_kb input").input_value() == "alpha"

            # a document delete asks first; the page stays on the Documents tab
            other.get_by_role("tab", name="Documents").click()
            other.get_by_role("button", name="Delete document…").click()
            other.get_by_text("Delete blender.txt (").first.wait_for(timeout=30_000)
            other.get_by_role("button", name="Cancel").click()
            other.wait_for_function("() => !document.querySelector('.st-key-doc-confirm')", timeout=30_000)
            other.get_by_role("button", name="Delete document…").click()
            other.get_by_role("button", name="Delete blender.txt").click()
            other.get_by_text("Moved blender.txt").wait_for(timeout=60_000)
            # the rerun that shows the message redraws the tabs: read the selection once they settle
            other.wait_for_function("() => [...document.querySelectorAll('[role=tab]')].some(t => "
                                    "t.textContent.includes('Documents') && t.getAttribute('aria-selected') === 'true')",
                                    timeout=15_000)
            assert other.get_by_role("tab", name="Documents").get_attribute("aria-selected") == "true"
            other.screenshot(path=str(ARTIFACTS / "7-doc-deleted.png"))

            # progress within one large file, in a page of its own: in CI the picker of the page that had
            # just deleted, restored and deleted stayed empty after every pick ("Index 0 file(s)", four
            # picks over a minute; twice in six runs, never here)
            fresh = browser.new_page(viewport={"width": 1280, "height": 900})
            fresh.goto(f"{url}/Knowledge_bases", wait_until="domcontentloaded")
            fresh.locator(".st-key-w_kb").wait_for(timeout=START_TIMEOUT_S * 1000)
            assert fresh.locator(".st-key-w_kb input").input_value() == "alpha"
            other = fresh  # what the failure shots show from here on
            upload(other, big)
            partial = other.wait_for_function(
                f"""() => {{ const m = document.body.innerText.match(
                    /big\\.txt · ([\\d,]+)\\/{BIG_SENTENCES} sentences · [\\d,]+ sentences\\/s · about [\\d,]+ s left/);
                    return m && parseInt(m[1].replace(',', '')) < {BIG_SENTENCES} ? m[0] : null; }}""",
                timeout=120_000, polling=50)
            assert "sentences/s" in partial.json_value()
            other.get_by_text("Done:").wait_for(timeout=120_000)
            other.screenshot(path=str(ARTIFACTS / "8-progress-done.png"))
        except Exception:
            for name, pg in (("page", page), ("other", other)):
                if pg is not None:
                    pg.screenshot(path=str(ARTIFACTS / f"failure-team-{name}.png"))
                    (ARTIFACTS / f"failure-team-{name}.html").write_text(pg.content())
            # the server's side of it (pytest keeps only its last three temporary folders)
            (ARTIFACTS / "failure-team-server.log").write_text(team_server["log"].read_text(errors="replace"))
            raise
        finally:
            browser.close()
    log = team_server["log"].read_text(errors="replace")
    bad = [ln for ln in log.splitlines() if any(w in ln.lower() for w in ("warning", "deprecat", "traceback", "error"))]
    assert not bad, "\n".join(bad[:20])
