"""The sign-in gate through ``AppTest`` (fake embedder on the real store; the browser test signs in
for real): open local mode says so, open mode on a non-loopback address refuses to serve, a users
file brings the sign-in form with one refusal message, and pages can only reach the checked view."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, FakeEmbedder
from swr.access import UserStore
from swr.settings import Settings

APP = str(ROOT / "app.py")


@pytest.fixture
def app_engine(tmp_path, monkeypatch):
    from swr.app import base as ui
    from swr.engine import Engine

    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    eng = Engine(s, embedder=FakeEmbedder())
    eng.index_files("alpha", [("a.txt", b"Alpha text about kettles. Descale monthly.\n")])
    eng.index_files("beta", [("b.txt", b"Beta text about salaries. Paid in March.\n")])
    monkeypatch.setattr(ui, "get_engine", lambda: eng)
    yield eng
    eng.close()


def _run(address: str | None = "127.0.0.1") -> AppTest:
    from streamlit import config

    at = AppTest.from_file(APP, default_timeout=60)
    old = config.get_option("server.address")
    config.set_option("server.address", address)
    try:
        at.run()
    finally:
        config.set_option("server.address", old)
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    return " ".join(str(e.value) for e in list(at.markdown) + list(at.caption) + list(at.error))


def test_open_local_mode_says_so_and_needs_no_sign_in(app_engine):
    at = _run("127.0.0.1")
    assert "Open local mode" in _text(at)
    assert len(at.chat_input) == 1 and not at.error


def test_open_mode_on_a_non_loopback_address_refuses_to_serve(app_engine):
    at = _run("0.0.0.0")
    assert "Refusing to serve" in " ".join(e.value for e in at.error)
    assert len(at.chat_input) == 0 and at.selectbox.len == 0


def test_users_file_brings_sign_in_and_one_refusal_message(app_engine):
    users = UserStore.for_settings(app_engine.settings)
    users.add("ann", "agent", "agent-passw0rd", read=["alpha"])
    at = _run("0.0.0.0")  # users configured: serving a team is allowed, with sign-in
    assert len(at.chat_input) == 0 and at.text_input(key="signin_user")
    refusals = []
    for name, pw in (("ann", "wrong-passw0rd"), ("nobody", "agent-passw0rd")):
        at.text_input(key="signin_user").input(name)
        at.text_input(key="signin_password").input(pw)
        at.button[0].click().run()
        refusals.append([e.value for e in at.error])
    assert refusals == [["Wrong user name or password."]] * 2
    at.text_input(key="signin_user").input("ann")
    at.text_input(key="signin_password").input("agent-passw0rd")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert len(at.chat_input) == 1
    assert at.selectbox(key="w_kb").options == ["alpha"]  # the name alone; counts on their own line


def test_pages_reach_the_engine_only_through_the_checked_view():
    """Only swr/app/base.py touches get_engine or builds an Engine; it hands out ``as_user`` views."""
    offenders = []
    for path in sorted((ROOT / "swr" / "app").rglob("*.py")):
        if path.name == "base.py":
            continue
        src = path.read_text(encoding="utf-8")
        if re.search(r"\bget_engine\b|\bEngine\(|_engine\b", src):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    base = (ROOT / "swr" / "app" / "base.py").read_text(encoding="utf-8")
    body = base.split("def engine_or_stop", 1)[1]
    assert "engine.as_user(" in body and "return engine\n" not in body


def test_repeated_failures_are_throttled_alike_for_known_and_unknown_names(app_engine):
    from swr.app.components import signin

    signin.throttle.clear()
    UserStore.for_settings(app_engine.settings).add("tess", "agent", "agent-passw0rd", read=["alpha"])
    at = _run("127.0.0.1")
    seen = {}
    try:
        for name in ("tess", "nobody-at-all"):
            for pw in ["wrong-passw0rd"] * 5 + ["agent-passw0rd"]:  # the sixth: right for tess, refused
                at.text_input(key="signin_user").input(name)
                at.text_input(key="signin_password").input(pw)
                at.button[0].click().run()
            seen[name] = [re.sub(r"in \d+ s", "in N s", e.value) for e in at.error]
            assert len(at.chat_input) == 0
        assert seen["tess"] == seen["nobody-at-all"]
        assert seen["tess"][0].startswith("Too many failed sign-ins with this user name: try again in N s")
    finally:
        signin.throttle.clear()
