"""Published settings in a real browser: an editor publishes for a knowledge base (the chat's
knobs from the sidebar; a tested configuration from Tune, "Publish for this knowledge base" beside
"Apply to chat"), and another signed-in agent's answers then say they used that version; the API and
the command line (through the running app) answer with it too; restoring an earlier version does
the same. Skipped, or failed under CI, like tests/test_browser.py when Chromium is missing."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import urllib.request

import pytest
from browser_helpers import (  # noqa: F401  (_browser_present: skip without Chromium, fail under CI)
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    START_TIMEOUT_S,
    _browser_present,
    _serve,
    ask,
    sign_in,
)

EDITOR, AGENT = ("ed", "editor-passw0rd"), ("ann", "agent-passw0rd")
QUESTION = "How often should I descale the kettle?"


@pytest.fixture
def publish_server(tmp_path):
    from swr.core.settings import Settings
    from swr.engine import Engine
    from swr.manage.access import UserStore
    from swr.manage.access.keys import KeyStore

    home = tmp_path / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "no-secrets.toml", home=home, sample_kb=""))
    assert eng.index_files("alpha", [("kettle.txt", b"The kettle holds 1.7 litres. Descale it every month.\n")])[0].ok
    eng.add_golden("alpha", QUESTION, "Descale it every month.", "kettle.txt")  # Tune's question set
    eng.close()
    users = UserStore(home / "users.json")
    users.add(EDITOR[0], "editor", EDITOR[1], read=["alpha"], edit=["alpha"])
    users.add(AGENT[0], "agent", AGENT[1], read=["alpha"])
    key = KeyStore(home / "keys.json").create(AGENT[0], users)[1]
    for server in _serve(tmp_path, home, {"SWR_SAMPLE_KB": ""}):
        yield {**server, "key": key, "home": home, "secrets": tmp_path / "no-secrets.toml"}


def _ask(page, expect: str | None) -> None:
    """Ask QUESTION; wait for an answer whose settings line names ``expect`` (None: any answer,
    and none may name a published version)."""
    n = page.locator(".swr-stamp").count()
    ask(page, QUESTION)
    if expect is None:
        page.wait_for_function(f"() => document.querySelectorAll('.swr-stamp').length > {n}", timeout=120_000)
        assert "published v" not in page.locator(".swr-stamp").last.inner_text()
    else:  # a rerun may draw the earlier answers first: wait for the new one by its text
        page.wait_for_function("(e) => [...document.querySelectorAll('.swr-stamp')].some("
                               "s => s.innerText.includes(e))", arg=expect, timeout=120_000)


def _publish(page, label: str = "Publish these settings") -> None:
    """Open the sidebar's published-settings panel (unless open) and press ``label`` in it."""
    button = page.get_by_role("button", name=label).first
    panel = page.locator('[data-testid="stSidebar"] details').filter(
        has=page.locator("summary", has_text="Published settings")).first
    # a publication renames the panel ("Published settings (v1)") and reruns the page: a button seen a
    # moment before may be redrawn. Open the panel until the button shows
    for _ in range(60):
        if button.is_visible():
            break
        if panel.count() and panel.get_attribute("open") is None:
            panel.locator("summary").first.click()
        page.wait_for_timeout(500)
    button.click(timeout=30_000)


@contextlib.contextmanager
def _editor_and_agent(url: str, failure: str):
    """The editor's and the agent's pages, each signed in and at the chat (screenshots
    ``failure-<failure>-<name>.png`` when the block fails)."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        editor = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        agent = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        try:
            sign_in(editor, url, *EDITOR)
            sign_in(agent, url, *AGENT)
            for page in (editor, agent):
                page.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=START_TIMEOUT_S * 1000)
            yield editor, agent
        except Exception:
            for name, page in (("editor", editor), ("agent", agent)):
                page.screenshot(path=str(ARTIFACTS / f"failure-{failure}-{name}.png"))
            raise
        finally:
            browser.close()


def test_an_editor_publishes_and_another_agents_chat_and_the_api_use_that_version(publish_server):
    url = publish_server["url"]
    with _editor_and_agent(url, "publish") as (editor, agent):
        _ask(agent, None)  # nothing published yet
        assert agent.get_by_role("button", name="Publish these settings").count() == 0  # agents may not
        _publish(editor)
        editor.get_by_text("Published version 1").first.wait_for(timeout=60_000)
        renamed = editor.locator('[data-testid="stSidebar"] details').filter(
            has=editor.locator("summary", has_text="Published settings (v1)")).first
        renamed.wait_for(timeout=60_000)
        assert renamed.get_attribute("open") is not None  # the panel stays open under the editor
        _publish(editor)  # version 2
        editor.get_by_text("Published version 2").first.wait_for(timeout=60_000)
        _ask(agent, "published v2")
        _publish(editor, "Restore")  # the older version (1) again, as version 3
        editor.get_by_text("restored as version 3").first.wait_for(timeout=60_000)
        _ask(agent, "published v3")
        req = urllib.request.Request(url + "/api/v1/retrieve", method="POST",
                                     data=json.dumps({"question": QUESTION, "knowledge_base": "alpha"}).encode(),
                                     headers={"Authorization": f"Bearer {publish_server['key']}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            assert json.loads(r.read())["published_version"] == 3
        audit = [json.loads(x) for x in (publish_server["log"].parent / "home" / "audit.jsonl")
                 .read_text().splitlines()]
        assert [e["object"] for e in audit if e["action"] == "publish"] == ["v1", "v2", "v3"]
        agent.screenshot(path=str(ARTIFACTS / "publish-agent.png"))


def _api_version(server) -> int | None:
    """The published version the API's answer to QUESTION used (the agent's key)."""
    req = urllib.request.Request(server["url"] + "/api/v1/retrieve", method="POST",
                                 data=json.dumps({"question": QUESTION, "knowledge_base": "alpha"}).encode(),
                                 headers={"Authorization": f"Bearer {server['key']}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())["published_version"]


def _cli(server) -> dict:
    """``python -m swr ask --json`` on the app's SWR_HOME: it goes through the running app."""
    env = dict(os.environ, SWR_HOME=str(server["home"]), SWR_SECRETS=str(server["secrets"]), SWR_SAMPLE_KB="",
               HF_HUB_OFFLINE="1")
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL", "QDRANT_API_KEY"):
        env.pop(k, None)
    out = subprocess.run([sys.executable, "-m", "swr", "ask", QUESTION, "--kb", "alpha", "--json"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)["settings"]


def test_an_editor_publishes_from_tune_and_every_consumer_uses_that_version(publish_server):
    from swr.manage.published import PublishedStore

    url = publish_server["url"]
    store = PublishedStore(publish_server["home"] / "published.json")
    with _editor_and_agent(url, "publish-tune") as (editor, agent):
        editor.get_by_role("link", name="Tune").click()
        editor.get_by_role("button", name="Run sweep").first.click()
        publish = editor.get_by_role("button", name="Publish for this knowledge base")
        publish.wait_for(state="visible", timeout=300_000)
        assert editor.get_by_role("button", name="Apply to chat").is_visible()  # beside it
        publish.click()
        editor.get_by_text("Published version 1").first.wait_for(timeout=60_000)
        v1 = store.current("alpha")
        assert v1.version == 1 and v1.origin == "tune" and v1.by == EDITOR[0] and v1.evidence
        _ask(agent, "published v1")
        assert _api_version(publish_server) == 1
        assert _cli(publish_server)["published"] == {"version": 1, "overrides": []}
        agent.get_by_role("link", name="Tune").click()  # agents may run Tune but not publish
        agent.get_by_role("button", name="Run sweep").first.click()
        agent.get_by_role("button", name="Apply to chat").wait_for(state="visible", timeout=300_000)
        assert agent.get_by_role("button", name="Publish for this knowledge base").count() == 0
        agent.get_by_role("link", name="Chat").click()
        agent.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=60_000)
        publish.click()  # version 2
        editor.get_by_text("Published version 2").first.wait_for(timeout=60_000)
        editor.get_by_role("link", name="Chat").click()  # the chat's sidebar lists the versions
        editor.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=60_000)
        _publish(editor, "Restore")  # version 1 again, from the sidebar, as version 3
        editor.get_by_text("restored as version 3").first.wait_for(timeout=60_000)
        assert store.current("alpha").params == v1.params
        _ask(agent, "published v3")
        assert _api_version(publish_server) == 3
        assert _cli(publish_server)["published"] == {"version": 3, "overrides": []}
        editor.screenshot(path=str(ARTIFACTS / "publish-tune-editor.png"))
