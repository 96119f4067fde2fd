"""The browser tests' shared parts: Chromium present (or the tests fail under CI), ``streamlit run
app.py`` started on a free port and stopped, and the two things every test does on a page: upload
files on the Knowledge bases page (:func:`upload`) and ask in the chat (:func:`ask`). A test module
imports :func:`_browser_present` (an autouse fixture) to get the skip-or-fail rule."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("SWR_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
START_TIMEOUT_S = 300  # model load + sample KB indexing on a slow CI machine


def _missing() -> str | None:
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is missing: pip install playwright (.ci/run does)"
    return None


def browser_required(env=os.environ) -> bool:
    """Whether a missing browser fails the tests instead of skipping them (CI, or asked for)."""
    return env.get("CI", "").lower() in ("true", "1") or env.get("SWR_REQUIRE_BROWSER", "") == "1"


@pytest.fixture(autouse=True)
def _browser_present():
    why = _missing()
    if why and browser_required():
        pytest.fail(f"{why} (CI or SWR_REQUIRE_BROWSER=1: the browser tests must run, not skip)")
    if why:
        pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_health(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"streamlit did not become healthy in {timeout:.0f} s:\n{log.read_text(errors='replace')[-4000:]}")


def _serve(tmp_path, home, extra_env: dict):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, SWR_HOME=str(home), SWR_SECRETS=str(tmp_path / "no-secrets.toml"),
               HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL", "QDRANT_API_KEY"):
        env.pop(key, None)  # the sample answer must not depend on the developer's LLM or server
    env.update(extra_env)
    log = tmp_path / "streamlit.log"
    with log.open("w") as out:
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_health(url, proc, log)
        yield {"url": url, "t0": t0, "proc": proc, "log": log, "health_s": time.monotonic() - t0}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


CHAT = '[data-testid="stChatInputTextArea"]'  # the chat input


def chat_box(page, timeout_s: float = START_TIMEOUT_S):
    """The chat input, once drawn (the engine is up and the knowledge base indexed)."""
    chat = page.locator(CHAT)
    chat.wait_for(state="visible", timeout=timeout_s * 1000)
    return chat


def open_chat(page, timeout_s: float = 60) -> None:
    """Click the sidebar's Chat link until the chat input is drawn: a click that lands while the page
    still runs (the Knowledge bases page drawing its other tabs after an upload's "Done:") can be lost
    (seen in CI on the PDF test)."""
    link = page.get_by_role("link", name="Chat")
    for attempt in range(3):
        link.click()
        try:
            chat_box(page, timeout_s / 3)
            return
        except Exception:  # noqa: BLE001 - still on the page it was: click again
            if attempt == 2:
                raise


def ask(page, question: str, timeout_s: float = START_TIMEOUT_S) -> None:
    """Type ``question`` in the chat and send it (waiting for the chat input first); the caller
    waits for what the answer should draw."""
    chat = chat_box(page, timeout_s)
    chat.fill(question)
    chat.press("Enter")


def upload(page, *paths) -> None:
    """Open the Upload tab, give its file picker ``paths`` and press "Index N file(s)". A rerun that
    lands between the pick and the press (a delete's or a tab's) can draw a new, empty picker ("Index
    0 file(s)") or put the page back on the tab it drew before (both seen in CI on the team test): the
    tab is selected and the pick made again until the button shows."""
    tab = page.get_by_role("tab", name="Upload")
    picker = page.locator('.st-key-uploads input[type="file"]')
    button = page.get_by_role("button", name=f"Index {len(paths)} file(s)")
    for attempt in range(4):
        if tab.get_attribute("aria-selected") != "true":
            tab.click()
            page.wait_for_function("() => [...document.querySelectorAll('[role=tab]')].some(t => "
                                   "t.textContent.includes('Upload') && t.getAttribute('aria-selected') === 'true')",
                                   timeout=15_000)
        picker.set_input_files([str(p) for p in paths])
        try:
            button.wait_for(timeout=15_000)
            break
        except Exception:  # noqa: BLE001 - the picker or the tabs were drawn again: select and pick again
            if attempt == 3:
                raise
    button.click()


def sign_in(page, url: str, name: str, password: str) -> None:
    """Open ``url`` and sign in with the form (a team server)."""
    page.goto(url, wait_until="domcontentloaded")
    form = page.locator('[data-testid="stForm"]')
    form.wait_for(state="visible", timeout=START_TIMEOUT_S * 1000)
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def ask_nth(page, question: str, n: int):
    """Ask in the chat; wait for the n-th assistant reply (1-based) and its evidence head."""
    ask(page, question)
    reply = page.locator('[data-testid="stChatMessage"]').filter(has=page.locator(".swr-evhead")).nth(n - 1)
    reply.wait_for(state="visible", timeout=120_000)
    reply.locator(".swr-stamp").first.wait_for(state="visible", timeout=120_000)
    return reply
