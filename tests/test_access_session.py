"""Whose is what the app keeps (ASVS V3 session management, V4 access control, V8 data
protection) through ``AppTest``, on the real store with the fake embedder: conversations belong
to the signed-in user, sign-out leaves nothing of the user in the session, an id in the URL that
is not the user's starts a new conversation, and a grant taken away hides the earlier answers.

Every check reads the whole rendered tree (:func:`rendered`), not only the engine's calls."""
from __future__ import annotations

import html

import pytest
from google.protobuf import text_format
from streamlit.testing.v1 import AppTest

from conftest import ROOT, FakeEmbedder
from swr.core.settings import Settings
from swr.manage.access import UserStore

APP = str(ROOT / "app.py")
ALPHA = ("Alpha text about kettles.", "Descale monthly.")
BETA = ("Beta text about salaries.", "Paid in March.")


@pytest.fixture
def app_engine(tmp_path, monkeypatch):
    from swr.app import base as ui
    from swr.engine import Engine

    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    eng = Engine(s, embedder=FakeEmbedder())
    eng.index_files("alpha", [("a.txt", (" ".join(ALPHA) + "\n").encode())])
    eng.index_files("beta", [("b.txt", (" ".join(BETA) + "\n").encode())])
    monkeypatch.setattr(ui, "get_engine", lambda: eng)
    users = UserStore.for_settings(s)
    users.add("ann", "agent", "agent-passw0rd", read=["alpha"])
    users.add("bob", "agent", "agent-passw0rd", read=["beta"])
    users.add("cat", "agent", "agent-passw0rd", read=["alpha"])
    yield eng
    eng.close()


def rendered(at: AppTest) -> str:
    """Every string of every element and block drawn (labels, bodies, options, values), unescaped."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            out.append(text_format.MessageToString(proto, as_utf8=True))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return html.unescape(" ".join(out))


def new_app(sid: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if sid:
        at.query_params["s"] = sid
    at.run()
    assert not at.exception, at.exception
    return at


def sign_in(at: AppTest, name: str, password: str = "agent-passw0rd") -> AppTest:
    at.text_input(key="signin_user").input(name)
    at.text_input(key="signin_password").input(password)
    at.button[0].click().run()
    assert not at.exception and len(at.chat_input) == 1, at.exception
    return at


def sign_out(at: AppTest) -> AppTest:
    at.button(key="signout").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="signin_user")
    return at


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_shared_desk_next_user_sees_nothing_of_the_last(app_engine):
    """A asks on alpha and signs out; B signs in in the same tab: nothing of A's anywhere."""
    at = sign_in(new_app(), "ann")
    ask(at, "How often to descale the kettle?")
    assert "Descale monthly." in rendered(at)
    sign_out(at)
    text = rendered(at)
    assert not any(s in text for s in ALPHA) and "descale the kettle" not in text
    sign_in(at, "bob")
    text = rendered(at)
    assert not any(s in text for s in ALPHA), "bob sees alpha"
    assert "descale the kettle" not in text, "bob sees ann's question"


def test_sign_out_keeps_nothing_of_the_user_in_the_session(app_engine):

    at = sign_in(new_app(), "ann")
    ask(at, "How often to descale the kettle?")
    sign_out(at)
    assert user_keys(at) == set(), user_keys(at)


def user_keys(at: AppTest) -> set[str]:
    """The session's keys beyond the sign-out allow-list and the empty sign-in form."""
    from swr.app import state

    left = {k for k, v in at.session_state.to_dict().items()
            if k not in state.SURVIVES_SIGN_OUT and not k.startswith("FormSubmitter:signin")
            and not (k in ("signin_user", "signin_password") and not v)}
    return left


def test_conversations_are_kept_per_user_and_a_foreign_id_starts_a_new_one(app_engine):
    home = app_engine.settings.home
    at = sign_in(new_app(), "ann")
    ask(at, "How often to descale the kettle?")
    sid = at.query_params["s"][0] if isinstance(at.query_params["s"], list) else at.query_params["s"]
    files = sorted(p.relative_to(home / "sessions").parts[0] for p in (home / "sessions").rglob("*.json"))
    assert files and "anonymous" not in files and all(f.startswith("ann") for f in files), files
    # cat may read alpha too: ann's id in a link is not cat's, so cat starts a new conversation
    other = sign_in(new_app(sid), "cat")
    assert "descale the kettle" not in rendered(other)
    assert other.query_params["s"] != at.query_params["s"]
    # ann, on a new tab with her own id, gets her conversation back
    again = sign_in(new_app(sid), "ann")
    assert "descale the kettle" in rendered(again) and "Descale monthly." in rendered(again)


def test_a_grant_taken_away_hides_the_earlier_answers(app_engine):
    users = UserStore.for_settings(app_engine.settings)
    at = sign_in(new_app(), "ann")
    ask(at, "How often to descale the kettle?")
    users.grant("ann", "beta", "read")
    users.grant("ann", "alpha", "none")
    at.run()
    assert not at.exception, at.exception
    text = rendered(at)
    assert not any(s in text for s in ALPHA), "a revoked grant still shows alpha"
    assert "no longer available to you" in text


def test_a_grant_taken_away_drops_that_kbs_tune_and_compare_results(app_engine):
    users = UserStore.for_settings(app_engine.settings)
    users.grant("ann", "beta", "read")
    at = sign_in(new_app(), "ann")
    at.session_state["tune_result"] = {"kb": "alpha", "rows": [ALPHA[1]]}
    at.session_state["cmp_result"] = {"kb": "beta", "sides": []}
    at.session_state["verify_results"] = ("alpha", [ALPHA[1]])
    users.grant("ann", "alpha", "none")
    at.run()
    assert not at.exception, at.exception
    assert "tune_result" not in at.session_state and "verify_results" not in at.session_state
    assert at.session_state["cmp_result"]["kb"] == "beta"  # still readable: kept


def _share_last(at: AppTest) -> str:
    """Press "Copy link" under the last answer; the permalink's id."""
    at.button(key=[b.key for b in at.button if (b.key or "").startswith("share-")][-1]).click().run()
    assert not at.exception, at.exception
    links = [c.value for c in at.code if "?a=" in c.value]
    assert len(links) == 1, links
    return links[0].split("?a=")[1]


def open_link(name: str, answer_id: str) -> AppTest:
    at = sign_in(new_app(), name)
    at.query_params["a"] = answer_id
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_permalink_opens_for_readers_of_its_kb_only_and_is_audited(app_engine):
    from swr.manage.access import AuditLog
    from swr.manage.access.guard import SHARED_NOT_FOUND

    at = sign_in(new_app(), "ann")
    ask(at, "How often to descale the kettle?")
    answer_id = _share_last(at)
    assert len(answer_id) == 22
    seen = open_link("cat", answer_id)  # may read alpha: the answer, its evidence, its question
    text = rendered(seen)
    assert "Descale monthly." in text and "descale the kettle" in text
    refused, unknown = open_link("bob", answer_id), open_link("bob", "A" * 22)
    assert not any(s in rendered(refused) for s in ALPHA) and "descale the kettle" not in rendered(refused)
    shown = [[html.unescape(e.value) for e in t.error] for t in (refused, unknown)]
    assert shown[0] == shown[1] == [SHARED_NOT_FOUND], shown  # exactly what a missing answer shows
    # a grant taken away: the link no longer opens for cat
    UserStore.for_settings(app_engine.settings).grant("cat", "beta", "read")
    UserStore.for_settings(app_engine.settings).grant("cat", "alpha", "none")
    assert [html.unescape(e.value) for e in open_link("cat", answer_id).error] == [SHARED_NOT_FOUND]
    log = [(e["user"], e["action"], e.get("ok")) for e in reversed(AuditLog.for_settings(app_engine.settings).entries())
           if e["action"] in ("share", "open_shared")]
    assert log == [("ann", "share", None), ("cat", "open_shared", True), ("bob", "open_shared", False),
                   ("bob", "open_shared", False), ("cat", "open_shared", False)], log


def test_failed_sign_ins_are_audited_without_the_password(app_engine):
    from swr.manage.access import AuditLog

    at = new_app()
    at.text_input(key="signin_user").input("ann")
    at.text_input(key="signin_password").input("wrong-passw0rd-7")
    at.button[0].click().run()
    log = AuditLog.for_settings(app_engine.settings)
    failed = [e for e in log.entries() if e["action"] == "sign_in_failed"]
    assert [(e["user"], bool(e["time"])) for e in failed] == [("ann", True)]
    assert "wrong-passw0rd-7" not in log.path.read_text()


def test_users_page_set_access_starts_empty_and_unknown_kbs_are_refused(app_engine):
    from swr.core.errors import BadRequest

    UserStore.for_settings(app_engine.settings).add("root", "admin", "admin-passw0rd")
    at = sign_in(new_app(), "root", "admin-passw0rd")
    at.switch_page("pages/6_Users.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="grant_kb").value is None  # never "*" by default
    view = app_engine.as_user(UserStore.for_settings(app_engine.settings).actor("root"))
    with pytest.raises(BadRequest, match="No knowledge base named 'gamma'"):
        view.add_user("dan", "agent", "agent-passw0rd", read=["gamma"])
    with pytest.raises(BadRequest, match="No knowledge base named 'gamma'"):
        view.grant("ann", "gamma", "read")
    assert view.grant("ann", "gamma", "none")["read"] == ["alpha"]  # taking away always works


def test_feedback_and_golden_questions_record_who_and_admins_filter_by_user(app_engine):
    store = UserStore.for_settings(app_engine.settings)
    store.add("root", "admin", "admin-passw0rd")
    ann, cat = (app_engine.as_user(store.actor(n)) for n in ("ann", "cat"))
    for view, verdict in ((ann, "helpful"), (cat, "not_helpful")):
        view.record_feedback("alpha", "answer", answer=f"k-{view.actor.name}", question="How often?",
                             answer_text="Descale monthly.", verdict=verdict)
    made = cat.record_feedback("alpha", "right_sentence", answer="k-cat", question="How often?",
                               answer_text="Descale monthly.", sentence="Descale monthly.", doc_id="d", i=1,
                               source="a.txt")["golden"]
    assert made["by"] == "cat"  # a golden question from feedback names who made it
    root = app_engine.as_user(store.actor("root"))
    assert root.add_golden("alpha", "How often to descale?", "Descale monthly.")["by"] == "root"
    assert root.feedback("alpha")["users"] == ["ann", "cat"]
    only = root.feedback("alpha", "cat")
    assert only["summary"]["not_helpful"] == 1 and only["summary"]["helpful"] == 0
    from swr.core.errors import Forbidden

    with pytest.raises(Forbidden):
        ann.feedback("alpha", "cat")
    at = sign_in(new_app(), "root", "admin-passw0rd")
    at.switch_page("pages/5_Feedback.py").run()
    assert not at.exception, at.exception
    at.selectbox(key="w_kb").select("alpha").run()
    at.selectbox(key="feedback-user").select("cat").run()
    assert not at.exception, at.exception
    assert [m.value for m in at.metric][:2] == ["0", "1"]
