"""The sign-in gate through ``AppTest`` (fake embedder on the real store; the browser test signs in
for real): open local mode says so, open mode on a non-loopback address refuses to serve, a users
file brings the sign-in form with one refusal message, and pages can only reach the checked view."""
from __future__ import annotations

import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, FakeEmbedder
from swr.core.settings import Settings
from swr.manage.access import UserStore

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
    """Only swr/app/base.py touches get_engine or builds an Engine; it hands out ``as_user`` views.
    (swr/app/asgi.py is no page: it hands the cached engine to the API, which checks every request
    through the view of its key's user.)"""
    offenders = []
    for path in sorted((ROOT / "swr" / "app").rglob("*.py")):
        if path.name in ("base.py", "asgi.py"):
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


USERS_PAGE = "pages/6_Users.py"


def _signed_in(name: str, password: str) -> AppTest:
    at = _run("127.0.0.1")
    at.text_input(key="signin_user").input(name)
    at.text_input(key="signin_password").input(password)
    at.button[0].click().run()
    assert not at.exception and len(at.chat_input) == 1, at.exception
    return at


def test_users_page_is_for_admins_only(app_engine):
    users = UserStore.for_settings(app_engine.settings)
    users.add("root", "admin", "admin-passw0rd")
    users.add("ann", "agent", "agent-passw0rd", read=["alpha"])
    at = _signed_in("ann", "agent-passw0rd")
    assert "Users" not in [p.proto.label for p in at.get("page_link")]  # not offered
    at.switch_page(USERS_PAGE).run()
    assert not at.exception, at.exception
    assert any("admins only" in str(i.value) for i in at.info)
    assert len(at.get("form")) == 0 and len(at.table) == 0  # no controls, no user list


def test_admin_manages_users_in_the_app_and_every_change_is_audited(app_engine):
    from swr.manage.access import AuditLog

    users = UserStore.for_settings(app_engine.settings)
    users.add("root", "admin", "admin-passw0rd")
    at = _signed_in("root", "admin-passw0rd")
    assert "Users" in [p.proto.label for p in at.get("page_link")]
    at.switch_page(USERS_PAGE).run()
    assert not at.exception, at.exception

    # add an agent with a generated password: shown once, works, stored only as a hash
    at.text_input(key="new_user_name").input("bea")
    at.selectbox(key="new_user_role").select("agent")
    at.multiselect(key="new_user_read").select("alpha")
    at.button(key="FormSubmitter:add_user-Add user").click().run()
    assert not at.exception, at.exception
    shown = [c.value for c in at.code]
    assert len(shown) == 1 and len(shown[0]) >= 16
    generated = shown[0]
    assert users.authenticate("bea", generated).read == {"alpha"}
    at.run()
    assert not at.code  # shown once only
    # reset with a typed password, change the role, grant edit on beta
    at.selectbox(key="pick_user").select("bea")
    at.text_input(key="reset_password").input("typed-passw0rd")
    at.button(key="FormSubmitter:user_password-Reset password").click().run()
    assert not at.code and users.authenticate("bea", "typed-passw0rd") is not None
    assert users.authenticate("bea", generated) is None
    at.selectbox(key="pick_user").select("bea")
    at.selectbox(key="user_role_pick").select("editor")
    at.button(key="FormSubmitter:user_role-Change role").click().run()
    at.selectbox(key="pick_user").select("bea")
    at.selectbox(key="grant_kb").select("beta")
    at.selectbox(key="grant_access").select("edit")
    at.button(key="FormSubmitter:user_grant-Set access").click().run()
    bea = users.actor("bea")
    assert bea.role == "editor" and bea.edit == {"beta"} and bea.read == {"alpha"}
    table = " ".join(str(t.value) for t in at.table)
    assert "bea" in table and "editor" in table and "$2b$" not in table
    # the only admin cannot remove or demote itself from the app
    at.selectbox(key="pick_user").select("root")
    at.selectbox(key="user_role_pick").select("agent")
    at.button(key="FormSubmitter:user_role-Change role").click().run()
    assert any("only admin" in e.value for e in at.error) and users.actor("root").role == "admin"
    # remove bea (after the confirmation)
    at.selectbox(key="pick_user").select("bea").run()
    at.checkbox(key="confirm_remove_bea").check().run()
    at.button(key="remove_user").click().run()
    assert not at.exception, at.exception
    assert [u["name"] for u in users.list()] == ["root"]

    log = AuditLog.for_settings(app_engine.settings)
    actions = [(e["action"], e["object"], e.get("detail")) for e in reversed(log.entries()) if e["user"] == "root"]
    assert actions == [("sign_in", None, None), ("user_add", "bea", "agent"), ("user_reset", "bea", "password"),
                       ("user_role", "bea", "editor"), ("user_grant", "bea", "edit"),
                       ("user_delete", "bea", None)], actions
    raw = log.path.read_text()
    assert generated not in raw and "typed-passw0rd" not in raw and "$2b$" not in raw


def test_question_limit_in_the_chat_says_so_and_answers_nothing(app_engine, monkeypatch):
    from swr.app import base as ui
    from swr.manage.access import Limits

    limits = Limits(questions_per_min=2)
    monkeypatch.setattr(ui, "_limits", lambda settings: limits)
    UserStore.for_settings(app_engine.settings).add("ann", "agent", "agent-passw0rd", read=["alpha"])
    at = _signed_in("ann", "agent-passw0rd")
    at.chat_input[0].set_value("How often to descale?").run()
    at.chat_input[0].set_value("What about kettles?").run()
    assert not at.exception and not [e.value for e in at.error]
    at.chat_input[0].set_value("And the kettle lid?").run()  # the third question within a minute
    assert not at.exception, at.exception
    errors = [html.unescape(e.value) for e in at.error]  # md(): shown verbatim in the page
    assert any("Question limit reached: 2 per minute per user" in e and "Try again in" in e for e in errors), errors


def test_upload_limit_on_the_kb_page_says_so_and_indexes_nothing(app_engine, monkeypatch):
    from swr.app import base as ui
    from swr.manage.access import Limits

    limits = Limits(upload_mb_per_hour=0.001)  # about 1 KB an hour
    monkeypatch.setattr(ui, "_limits", lambda settings: limits)
    UserStore.for_settings(app_engine.settings).add("ed", "editor", "editor-passw0rd", read=["alpha"],
                                                    edit=["alpha"])
    before = [d.doc_id for d in app_engine.docs("alpha")]
    at = _signed_in("ed", "editor-passw0rd")
    at.switch_page("pages/1_Knowledge_bases.py").run()
    assert not at.exception and at.selectbox(key="w_kb").value == "alpha"
    at.file_uploader(key="uploads").set_value([("big.txt", b"A long kettle note. " * 200, "text/plain")]).run()
    at.button(key="index").click().run()
    assert not at.exception, at.exception
    errors = [html.unescape(e.value) for e in at.error]
    assert any("Upload limit reached: 0.001 MB per hour per user" in e and "Nothing was indexed" in e
               for e in errors), errors
    assert [d.doc_id for d in app_engine.docs("alpha")] == before
