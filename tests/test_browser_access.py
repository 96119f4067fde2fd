"""Sign-in, roles and the audit view in a real browser: ``streamlit run app.py`` with two users
(an admin and an agent granted one of two knowledge bases), Debian's Chromium driven by Playwright,
two browser contexts at once. The agent sees only its knowledge base and no delete controls; a
wrong password and an unknown user get the same refusal; the admin deletes a document and the
deletion appears in the audit view; the Users page is offered to the admin only. Skipped, or failed under CI, like tests/test_browser.py
when Chromium is missing."""
from __future__ import annotations

import re

import pytest
from browser_helpers import (  # noqa: F401  (_browser_present: skip without Chromium, fail under CI)
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    START_TIMEOUT_S,
    _browser_present,
    _serve,
    ask,
    sign_in,
)

ADMIN, AGENT, OTHER = ("root", "admin-passw0rd"), ("ann", "agent-passw0rd"), ("bob", "agent-passw0rd")
ALPHA_TEXT = ("1.7 litres", "Descale it monthly")  # what only alpha-faq's readers may see


@pytest.fixture
def team_server(tmp_path):
    from swr.core.settings import Settings
    from swr.engine import Engine
    from swr.manage.access import UserStore

    home = tmp_path / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "no-secrets.toml", home=home, sample_kb=""))
    assert eng.index_files("alpha-faq", [("kettle.txt", b"The kettle holds 1.7 litres. Descale it monthly.\n")])[0].ok
    assert eng.index_files("beta-hr", [("pay.txt", b"The bonus pool is 48,000 dollars.\n"),
                                       ("leave.txt", b"Staff get 25 days of leave.\n")])[0].ok
    eng.close()
    users = UserStore(home / "users.json")
    users.add(ADMIN[0], "admin", ADMIN[1])
    users.add(AGENT[0], "agent", AGENT[1], read=["alpha-faq"])
    users.add(OTHER[0], "agent", OTHER[1], read=["beta-hr"])
    yield from _serve(tmp_path, home, {"SWR_SAMPLE_KB": ""})


def _open(page, name: str) -> None:
    """Follow a sidebar link and wait until that page is drawn (its URL, then its heading)."""
    page.get_by_role("link", name=name, exact=True).click()
    page.wait_for_url(re.compile(name.replace(" ", "_") + "$"), timeout=60_000)
    page.get_by_role("heading", name=re.compile(name)).first.wait_for(timeout=60_000)


def _kb_options(page) -> list[str]:
    page.locator(".st-key-w_kb").click()
    opts = page.locator('[role="option"]')
    opts.first.wait_for(timeout=30_000)
    names = [t.split(" — ")[0].strip() for t in opts.all_inner_texts()]
    page.keyboard.press("Escape")
    return names


def test_agent_and_admin_sign_in_side_by_side_in_chromium(team_server):
    from playwright.sync_api import sync_playwright

    url = team_server["url"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        agent_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        admin_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        agent, admin = agent_ctx.new_page(), admin_ctx.new_page()
        try:
            # a wrong password and an unknown user: the same refusal, no hint which part was wrong
            messages = []
            for name, pw in ((AGENT[0], "wrong-passw0rd"), ("nobody", AGENT[1])):
                sign_in(agent, url, name, pw)
                err = agent.locator('[data-testid="stAlert"]').first
                err.wait_for(timeout=60_000)
                messages.append(err.inner_text().strip())
                assert agent.locator('[data-testid="stChatInputTextArea"]').count() == 0
            assert messages == ["Wrong user name or password."] * 2, messages

            sign_in(agent, url, *AGENT)
            sign_in(admin, url, *ADMIN)  # both sessions live at once
            for page in (agent, admin):
                page.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=START_TIMEOUT_S * 1000)
            assert _kb_options(agent) == ["alpha-faq"]
            assert sorted(_kb_options(admin)) == ["alpha-faq", "beta-hr"]
            assert "ann · agent" in agent.locator('[data-testid="stSidebar"]').inner_text()

            # the agent's Knowledge bases page: no upload, no delete controls
            _open(agent, "Knowledge bases")
            agent.get_by_role("tab", name="Documents").click()
            agent.locator(".st-key-doc_pick").wait_for(timeout=60_000)
            for label in ("Delete knowledge base", "Delete document", "Create"):
                assert agent.get_by_role("button", name=label).count() == 0, label
            assert agent.get_by_role("tab", name="Upload").count() == 0
            assert agent.get_by_role("tab", name="Audit").count() == 0
            agent.screenshot(path=str(ARTIFACTS / "access-agent.png"))

            # the admin deletes a document of beta-hr; the audit view shows it
            _open(admin, "Knowledge bases")
            admin.locator(".st-key-w_kb").click()
            admin.get_by_role("option", name=re.compile("^beta-hr")).click()
            admin.get_by_text("Selected: beta-hr").wait_for(timeout=60_000)
            admin.get_by_role("tab", name="Documents").click()
            pick = admin.locator(".st-key-doc_pick input")
            pick.wait_for(timeout=60_000)
            admin.wait_for_function("() => /^(pay|leave)\\.txt/.test(document.querySelector("
                                    "'.st-key-doc_pick input').value)", timeout=60_000)
            doc = pick.input_value().split(" (")[0]
            admin.get_by_role("button", name="Delete document").click()  # "Delete document…" asks first
            admin.locator(".st-key-delete-doc-yes button").click()
            admin.get_by_text(f"Moved {doc}").first.wait_for(timeout=60_000)
            admin.get_by_role("tab", name="Audit").click()
            # the tab's content is drawn lazily and may be redrawn by a rerun: read it in the same step
            # that finds the deletion in it
            text = admin.wait_for_function(
                "(doc) => { const t = document.querySelector('.st-key-audit_table');"
                " const s = t ? t.innerText : ''; return s.includes('delete_doc') && s.includes(doc) ? s : null; }",
                arg=doc, timeout=60_000).json_value()
            assert "delete_doc" in text and doc in text and "root" in text and "beta-hr" in text, text
            assert "48,000" not in text and "25 days" not in text  # names, never document text
            admin.screenshot(path=str(ARTIFACTS / "access-admin-audit.png"))
            # the Users page: offered to the admin only; names, roles and grants, never a hash
            assert agent.get_by_role("link", name="Users", exact=True).count() == 0
            _open(admin, "Users")
            text = admin.wait_for_function(
                "() => { const t = document.querySelector('.st-key-users_table');"
                " const s = t ? t.innerText : ''; return s.includes('ann') ? s : null; }", timeout=60_000).json_value()
            assert "root" in text and "agent" in text and "alpha-faq" in text and "$2b$" not in text, text
            assert _kb_options(agent) == ["alpha-faq"]  # the agent's session is untouched
        except Exception:
            for name, page in (("agent", agent), ("admin", admin)):
                page.screenshot(path=str(ARTIFACTS / f"failure-access-{name}.png"))
                (ARTIFACTS / f"failure-access-{name}.html").write_text(page.content())
            raise
        finally:
            browser.close()


def _ask(page, question: str) -> None:
    ask(page, question)
    page.locator(".swr-stamp").first.wait_for(state="visible", timeout=120_000)


def _signed_in_as(page, name: str) -> None:
    page.locator('[data-testid="stChatInputTextArea"]').wait_for(timeout=START_TIMEOUT_S * 1000)
    page.get_by_text(f"{name} · agent").wait_for(timeout=60_000)


def _body(page) -> str:
    page.wait_for_timeout(1500)  # let a rerun that might still draw something finish
    return page.locator("body").inner_text()


def test_reload_keeps_the_sign_in_and_the_shared_desk_and_a_pasted_link_leak_nothing(team_server):
    """ann signs in, asks and copies a permalink; a reload keeps her signed in with her
    conversation; she signs out, a reload stays signed out; bob signs in at the same desk and sees
    nothing of hers; ann's URL and her permalink pasted into bob's own browser show him nothing of
    hers either (the permalink: the same "not found" as a wrong one)."""
    from playwright.sync_api import sync_playwright

    url = team_server["url"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        desk = browser.new_context(viewport={"width": 1280, "height": 900})
        own = browser.new_context(viewport={"width": 1280, "height": 900})
        page, other = desk.new_page(), own.new_page()
        try:
            sign_in(page, url, *AGENT)
            _signed_in_as(page, AGENT[0])
            _ask(page, "How often should I descale the kettle?")
            assert "Descale it monthly" in page.locator("body").inner_text()
            page.wait_for_url(re.compile(r"\?s=[0-9a-f]{32}"), timeout=60_000)
            ann_url = page.url
            page.get_by_role("button", name="Copy link").click()  # a permalink to this one answer
            code = page.locator('[data-testid="stCode"]').filter(has_text="?a=").first
            code.wait_for(timeout=60_000)
            permalink = code.inner_text().strip()
            assert permalink.startswith(url) and re.search(r"\?a=[A-Za-z0-9_-]{22}$", permalink), permalink
            cookies = {c["name"]: c for c in desk.cookies()}
            assert "swr_signin" in cookies and AGENT[1] not in cookies["swr_signin"]["value"]
            assert cookies["swr_signin"]["sameSite"] == "Strict"

            page.reload(wait_until="domcontentloaded")  # F5: still signed in, the conversation back
            _signed_in_as(page, AGENT[0])
            page.locator(".swr-stamp").first.wait_for(state="visible", timeout=60_000)
            assert "Descale it monthly" in page.locator("body").inner_text()

            page.get_by_role("button", name="Sign out").click()
            page.locator('[data-testid="stForm"]').wait_for(timeout=60_000)
            page.reload(wait_until="domcontentloaded")  # signed out stays signed out
            page.locator('[data-testid="stForm"]').wait_for(timeout=60_000)
            assert page.locator('[data-testid="stChatInputTextArea"]').count() == 0
            assert "swr_signin" not in {c["name"] for c in desk.cookies()}

            # the next agent at the same desk, in the same tab
            page.get_by_label("User name").fill(OTHER[0])
            page.get_by_label("Password", exact=True).fill(OTHER[1])
            page.get_by_role("button", name="Sign in").click()
            _signed_in_as(page, OTHER[0])
            text = _body(page)
            assert not any(t in text for t in ALPHA_TEXT) and "descale the kettle" not in text, text
            page.screenshot(path=str(ARTIFACTS / "access-shared-desk.png"))

            # ann's URL (her conversation id) pasted into bob's own browser
            sign_in(other, url, *OTHER)
            _signed_in_as(other, OTHER[0])
            other.goto(ann_url, wait_until="domcontentloaded")
            _signed_in_as(other, OTHER[0])
            text = _body(other)
            assert not any(t in text for t in ALPHA_TEXT) and "descale the kettle" not in text, text
            assert ann_url.split("s=")[1][:32] not in other.url  # a new conversation of his own
            # ann's permalink pasted into bob's browser: the same "not found" as a wrong link
            for link in (permalink, permalink[:-4] + "AAAA"):
                other.goto(link, wait_until="domcontentloaded")
                other.get_by_text("No shared answer here").wait_for(timeout=60_000)
                text = _body(other)
                assert not any(t in text for t in ALPHA_TEXT) and "descale the kettle" not in text, text
        except Exception:
            for name, pg in (("desk", page), ("other", other)):
                pg.screenshot(path=str(ARTIFACTS / f"failure-access-desk-{name}.png"))
                (ARTIFACTS / f"failure-access-desk-{name}.html").write_text(pg.content())
            raise
        finally:
            browser.close()
