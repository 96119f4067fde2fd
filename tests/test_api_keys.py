"""API keys, the open local mode of the API, and published settings, without a server."""
from __future__ import annotations

import json
import stat

import pytest
from fastapi.testclient import TestClient

from swr.core.errors import Forbidden, NotFound
from swr.manage.access import Actor, UserStore
from swr.manage.access.keys import KeyStore, narrowed
from swr.manage.published import PublishedStore


def test_a_key_never_allows_more_than_its_user(tmp_path):
    admin = Actor("root", "admin", frozenset(), frozenset())
    only = narrowed(admin, ["a"])
    assert only.can_edit("a") and not only.can_read("b") and not only.is_admin
    ro = narrowed(admin, ["a"], read_only=True)
    assert ro.can_read("a") and not ro.can_edit("a") and not ro.can_write
    agent = Actor("ann", "agent", frozenset({"a"}))
    assert not narrowed(agent, ["a", "b"]).can_read("b"), "narrowing never widens"
    editor = Actor("ed", "editor", frozenset(), frozenset({"a"}))
    assert not narrowed(editor, read_only=True).can_edit("a") and narrowed(editor, read_only=True).can_read("a")


def test_keys_are_shown_once_stored_hashed_and_revocable(tmp_path):
    users = UserStore(tmp_path / "users.json")
    users.add("ann", "agent", "agent-passw0rd", read=["a"])
    ks = KeyStore(tmp_path / "keys.json")
    key, secret = ks.create("ann", users, kbs=["a"], name="dify")
    raw = (tmp_path / "keys.json").read_text()
    assert secret not in raw and key["id"] in raw and stat.S_IMODE((tmp_path / "keys.json").stat().st_mode) == 0o600
    assert ks.authenticate(secret)["user"] == "ann" and ks.authenticate(secret[:-1] + "x") is None
    assert ks.authenticate("Bearer " + secret) is None and ks.authenticate(None) is None
    ks.revoke(key["id"])
    assert ks.authenticate(secret) is None
    with pytest.raises(NotFound):
        ks.create("nobody", users)


def test_open_mode_answers_loopback_only(fake_engine):
    from swr.api.app import create_app

    app = create_app(lambda: fake_engine)
    fake_engine.index_files("kb", [("a.txt", b"The kettle holds 1.7 litres.\n")])
    local = TestClient(app, client=("127.0.0.1", 5000))  # no lifespan: the native routes need none
    assert local.get("/api/v1/knowledge-bases").json()["knowledge_bases"][0]["name"] == "kb"
    r = TestClient(app, client=("10.1.2.3", 5000)).get("/api/v1/knowledge-bases")
    assert r.status_code == 403 and r.json()["error"]["code"] == "open_mode_loopback_only"


def test_published_settings_are_versioned_with_who_and_evidence_and_restorable(fake_engine):
    eng = fake_engine
    eng.index_files("kb", [("a.txt", b"The kettle holds 1.7 litres.\n")])
    assert eng.published("kb") is None and eng.kb_params("kb") == eng.default_params()
    v1 = eng.publish("kb", eng.default_params(window_size=1, top_k=5, sources=("a.txt",)), "lead", origin="tune",
                     evidence={"hit_rate": 0.8, "n": 40, "question_set": "golden", "nested": {"x": 1}})
    assert v1.version == 1 and v1.evidence == {"hit_rate": 0.8, "n": 40, "question_set": "golden"}
    assert "sources" not in v1.params, "question filters are never published"
    assert eng.kb_params("kb").window_size == 1 and eng.kb_params("kb", top_k=2).top_k == 2
    v2 = eng.publish("kb", eng.default_params(window_size=4), "lead")
    v3 = eng.restore_published("kb", 1, "boss")
    assert (v2.version, v3.version, v3.restored_from, v3.by) == (2, 3, 1, "boss")
    assert [p.version for p in eng.published_versions("kb")] == [3, 2, 1]
    assert eng.kb_params("kb").window_size == 1
    res = eng.ask("How much does the kettle hold?", "kb", llm=False)
    assert res.settings["published"] == {"version": 3, "overrides": []} and res.settings["top_k"] == 5
    res = eng.ask("How much does the kettle hold?", "kb", eng.kb_params("kb", top_k=1), llm=False)
    assert res.settings["published"] == {"version": 3, "overrides": ["top_k"]}
    data = json.loads((eng.settings.home / "published.json").read_text())
    assert [v["version"] for v in data["kbs"]["kb"]] == [1, 2, 3]
    assert PublishedStore(eng.settings.home / "published.json").current("kb").version == 3, "another process reads it"


def test_publishing_needs_an_edit_grant_and_is_audited(fake_engine):
    fake_engine.index_files("kb", [("a.txt", b"The kettle holds 1.7 litres.\n")])
    agent = fake_engine.as_user(Actor("ann", "agent", frozenset({"kb"})))
    with pytest.raises(Forbidden):
        agent.publish("kb", fake_engine.default_params())
    editor = fake_engine.as_user(Actor("ed", "editor", frozenset(), frozenset({"kb"})))
    pub = editor.publish("kb", fake_engine.default_params(top_k=7), origin="compare")
    assert pub.by == "ed" and agent.kb_params("kb").top_k == 7
    editor.restore_published("kb", pub.version)
    log = [e for e in editor.audit.entries() if e["action"] == "publish"]
    assert [e["detail"] for e in log] == [f"restore v{pub.version}", "compare"]
    with pytest.raises(NotFound):
        fake_engine.as_user(Actor("x", "agent", frozenset({"other"}))).published_versions("kb")
