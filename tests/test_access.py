"""Who may do what (swr.manage.access): the users file, the checked engine view, the audit trail, limits,
the bind rule and ``python -m swr users``. A property test draws random users, roles and grants and
checks that no call of the checked view returns another knowledge base's text or performs a write
the role does not allow (fast fake embedder on the real Qdrant Edge store), and one case on the real
e5 model."""
from __future__ import annotations

import io
import json
import stat

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from conftest import FakeEmbedder
import swr.cli.main as cli
from swr.core.errors import Forbidden, NotFound, SwrError
from swr.core.settings import Settings
from swr.manage.access import Actor, AuditLog, Limits, UserStore, is_loopback, open_mode_refusal
from swr.manage.access.limits import LimitReached, SignInThrottle

KBS = ("alpha", "beta", "gamma")
MARK = {kb: f"zq{kb}mark" for kb in KBS}  # a token only that knowledge base's text contains


def _doc(kb: str, n: int = 6) -> bytes:
    lines = [f"The {kb} kettle manual part {i} says {MARK[kb]} descale monthly with vinegar." for i in range(n)]
    return "\n".join(lines).encode()


# -- users file ------------------------------------------------------------------------------

def test_users_file_hashes_passwords_and_never_lists_a_hash(tmp_path):
    users = UserStore(tmp_path / "users.json")
    assert not users.configured()
    users.add("alice", "agent", "correct horse", read=["alpha"])
    assert users.configured()
    raw = (tmp_path / "users.json").read_text()
    assert "correct horse" not in raw and "$2b$" in raw  # bcrypt
    assert stat.S_IMODE((tmp_path / "users.json").stat().st_mode) == 0o600
    listed = json.dumps(users.list())
    assert "$2b$" not in listed and "hash" not in listed
    assert users.authenticate("alice", "correct horse") == Actor("alice", "agent", frozenset({"alpha"}))
    assert users.authenticate("alice", "wrong horse!") is None
    assert users.authenticate("mallory", "correct horse") is None  # same answer: no hint which part
    with pytest.raises(SwrError, match="at least 8"):
        users.add("bob", "agent", "short")
    with pytest.raises(SwrError, match="exists"):
        users.add("alice", "agent", "another password")
    users.reset("alice", "new password 1")
    assert users.authenticate("alice", "correct horse") is None
    assert users.authenticate("alice", "new password 1") is not None
    users.grant("alice", "beta", "edit")
    users.grant("alice", "alpha", "none")
    a = users.actor("alice")
    assert a.edit == {"beta"} and a.read == set()
    users.delete("alice")
    assert users.authenticate("alice", "new password 1") is None


def test_cli_users_json_never_prints_password_or_hash(tmp_path, monkeypatch, capsys):
    from swr.engine import Engine

    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home"),
                 embedder=FakeEmbedder())
    for kb in ("alpha", "beta"):  # a grant names a knowledge base that exists
        eng.create_kb(kb)
    eng.close()
    monkeypatch.setenv("SWR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SWR_SECRETS", str(tmp_path / "none.toml"))
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-passw0rd\n"))
    assert cli.main(["users", "add", "carol", "--role", "editor", "--edit", "alpha", "--password-stdin",
                     "--json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # ONE JSON document
    assert doc["user"]["name"] == "carol" and doc["user"]["role"] == "editor" and doc["user"]["edit"] == ["alpha"]
    assert "s3cret" not in out and "$2b$" not in out
    for argv in (["users", "list", "--json"], ["users", "grant", "carol", "--kb", "beta", "--access", "read",
                                                "--json"]):
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        assert "$2b$" not in out and "s3cret" not in out
    monkeypatch.setattr("sys.stdin", io.StringIO("an0ther-passw0rd\n"))
    assert cli.main(["users", "reset", "carol", "--password-stdin", "--json"]) == 0
    assert "an0ther" not in capsys.readouterr().out
    assert cli.main(["users", "delete", "carol", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["deleted"]["name"] == "carol"
    assert cli.main(["users", "delete", "carol", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "not_found"
    log = (tmp_path / "home" / "audit.jsonl").read_text()
    actions = [json.loads(line)["action"] for line in log.splitlines()]
    assert actions == ["user_add", "user_grant", "user_reset", "user_delete"]
    assert "s3cret" not in log and "an0ther" not in log and "$2b$" not in log


def test_unknown_name_costs_the_same_bcrypt_time_as_a_wrong_password(tmp_path):
    """No timing hint which part was wrong: an unknown name is checked against a dummy hash of the same
    bcrypt cost (a cheaper dummy, or none, as in streamlit-authenticator 0.4.2, is several times faster)."""
    import time

    users = UserStore(tmp_path / "users.json")
    users.add("alice", "agent", "correct horse")
    users.authenticate("nobody", "x" * 9)  # the dummy hash is made on first use

    times = {"alice": [], "mallory": []}
    for _ in range(7):  # interleaved, so both see the same machine load
        for name, ts in times.items():
            t = time.perf_counter()
            assert users.authenticate(name, "wrong horse!") is None
            ts.append(time.perf_counter() - t)
    known, unknown = (sorted(ts)[3] for ts in times.values())
    assert 0.5 < unknown / known < 2.0, (known, unknown)  # a cost-10 dummy was 0.29, none ~0


def test_sign_in_throttle_is_per_name_expires_and_gives_no_hint():
    now = [0.0]
    t = SignInThrottle(max_failures=3, window_s=60, clock=lambda: now[0])
    for name in ("alice", "nobody"):  # a known and an unknown name: counted and refused alike
        for _ in range(3):
            assert t.wait_s(name) == 0
            t.failed(name)
        assert t.wait_s(name) == 61
    assert t.wait_s(" ALICE ") == 61  # the typed name, trimmed, any case
    assert t.wait_s("carol") == 0  # other names are not affected
    assert "try again in 61 s" in t.message(61) and "alice" not in t.message(61)
    now[0] = 30
    assert t.wait_s("alice") == 31
    now[0] = 60  # the oldest failure is a window old: the lock expires by itself
    assert t.wait_s("alice") == 0
    t.failed("alice")
    assert t.wait_s("alice") == 0  # two failures in the window now
    t.succeeded("alice")
    t.failed("alice"), t.failed("alice")
    assert t.wait_s("alice") == 0
    small = SignInThrottle(max_failures=1, window_s=60, clock=lambda: now[0], max_names=2)
    for name in ("a", "b", "c"):
        small.failed(name)
    assert len(small._fails) == 2 and small.wait_s("c") > 0  # bounded memory, the stalest dropped


# -- bind rule, limits -----------------------------------------------------------------------

def test_open_mode_only_on_loopback():
    for a in ("127.0.0.1", "127.0.1.1", "::1", "localhost", "[::1]"):
        assert is_loopback(a) and open_mode_refusal(a, users_configured=False) is None
    for a in ("0.0.0.0", "", None, "::", "192.168.1.5", "myhost"):
        assert not is_loopback(a)
        assert "Refusing to serve" in open_mode_refusal(a, users_configured=False)
        assert open_mode_refusal(a, users_configured=True) is None


def test_limits_per_user():
    now = [0.0]
    lim = Limits(questions_per_min=2, upload_mb_per_hour=1, clock=lambda: now[0])
    lim.question("a"), lim.question("a"), lim.question("b")
    with pytest.raises(LimitReached, match="2 per minute"):
        lim.question("a")
    now[0] = 61
    lim.question("a")
    lim.upload("a", 600_000)
    with pytest.raises(LimitReached, match="1 MB per hour"):
        lim.upload("a", 600_000)
    lim.upload("b", 600_000)
    now[0] = 61 + 3600
    lim.upload("a", 600_000)


# -- the checked view ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One engine (fake embedder, real Qdrant Edge) with three knowledge bases, each its own marker."""
    from swr.engine import Engine

    home = tmp_path_factory.mktemp("accesshome")
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
    eng = Engine(s, embedder=FakeEmbedder())
    for kb in KBS:
        assert all(r.ok for r in eng.index_files(kb, [(f"{kb}.txt", _doc(kb))]))
    yield eng
    eng.close()


def _view(eng, actor, **kw):
    return eng.as_user(actor, audit=AuditLog(eng.settings.home / "audit.jsonl"), **kw)


def test_agent_sees_granted_kbs_only_and_writes_nothing(world):
    v = _view(world, Actor("ann", "agent", frozenset({"alpha"})))
    assert [k["kb"] for k in v.kbs()] == ["alpha"]
    assert [k["kb"] for k in v.system_info()["kbs"]] == ["alpha"]
    r = v.ask("descale vinegar", "alpha")
    assert r.passages and all(MARK["alpha"] in p.text for p in r.passages)
    with pytest.raises(NotFound) as e:
        v.retrieve("descale", "beta")
    assert "beta" not in e.value.message.split("known:")[1]  # does not list what it may not read
    doc = world.docs("alpha")[0]
    with pytest.raises(Forbidden):
        v.delete_doc("alpha", doc.doc_id)
    with pytest.raises(Forbidden):
        v.index_files("alpha", [("x.txt", b"new text here.")])
    with pytest.raises(Forbidden):
        v.delete_kb("alpha")
    with pytest.raises(Forbidden):
        v.save_golden("alpha", pd.DataFrame({"question": ["q?"], "expected_answer": ["a"], "source": [""]}))
    assert world.docs("alpha")[0].doc_id == doc.doc_id


def test_the_view_exposes_no_back_door(world):
    v = _view(world, Actor("ann", "agent", frozenset({"alpha"})))
    for name in ("indexer", "answerer", "_engine_store", "store_"):
        with pytest.raises(AttributeError):
            getattr(v, name)
    with pytest.raises(AttributeError):
        v.store.close()
    with pytest.raises(AttributeError):
        v.actor = Actor("root", "admin")
    with pytest.raises(NotFound):
        v.store.scroll_doc("beta", world.docs("beta")[0].doc_id)
    with pytest.raises(Forbidden):
        v.store.delete_doc("alpha", world.docs("alpha")[0].doc_id)


def test_editor_writes_where_granted_and_the_audit_has_names_not_text(world, tmp_path):
    audit = AuditLog(tmp_path / "audit.jsonl")
    v = world.as_user(Actor("ed", "editor", frozenset({"beta"}), frozenset({"gamma"})), audit=audit)
    res = v.index_files("gamma", [("extra.txt", b"Extra gamma notes zqgammamark secret body text.")])
    assert res[0].ok
    n = v.delete_doc("gamma", res[0].doc_id)
    assert n > 0
    v.save_golden("gamma", pd.DataFrame({"question": ["How to descale?"], "expected_answer": ["vinegar"],
                                         "source": [""]}))
    with pytest.raises(Forbidden):
        v.index_files("beta", [("y.txt", b"x y.")])  # readable, not editable
    with pytest.raises(Forbidden):
        v.create_kb("delta")
    entries = audit.entries()
    assert [e["action"] for e in reversed(entries)] == ["upload", "delete_doc", "golden", "refused", "refused"]
    assert entries[-1]["user"] == "ed" and entries[-1]["kb"] == "gamma" and entries[-1]["object"] == "extra.txt"
    assert entries[-2]["doc_id"] == res[0].doc_id and entries[-2]["object"] == "extra.txt"
    log = (tmp_path / "audit.jsonl").read_text()
    assert "secret body" not in log and "descale" not in log.lower()


def test_viewer_asks_presets_with_default_knobs_only(world):
    from swr.manage import presets

    admin = _view(world, Actor("root", "admin"))
    admin.save_golden("alpha", pd.DataFrame({"question": ["How to descale the kettle?"],
                                             "expected_answer": ["vinegar"], "source": [""]}))
    v = _view(world, Actor("vic", "viewer", frozenset({"alpha"})))
    assert presets.preset_questions(world.settings, "alpha") == ["How to descale the kettle?"]
    assert v.ask("How to descale the kettle?", "alpha").passages
    with pytest.raises(Forbidden, match="preset"):
        v.ask("What else is in there?", "alpha")
    with pytest.raises(Forbidden, match="preset"):
        v.ask("How to descale the kettle?", "alpha", top_k=10)


def test_question_rate_limit_reached_with_a_clear_message(world):
    v = _view(world, Actor("ann", "agent", frozenset({"alpha"})), limits=Limits(questions_per_min=2))
    v.ask("descale", "alpha")
    v.ask("descale", "alpha")
    with pytest.raises(LimitReached, match="Question limit reached: 2 per minute"):
        v.ask("descale", "alpha")


def test_what_counts_as_a_question(world):
    """Every answer counts; a search counts unless the same question was searched in the last minute;
    the chat's search-then-answer is one; a batch (Tune sweep, Verify run, Compare) is one."""
    now = [0.0]
    lim = Limits(questions_per_min=3, clock=lambda: now[0])
    assert lim.question("a", "How to descale?") is True
    assert lim.question("a", "  how to   DESCALE? ") is False  # the same question, re-searched: free
    assert lim.question("b", "How to descale?") is True  # per user
    now[0] = 61
    assert lim.question("a", "How to descale?") is True  # a minute later it counts again

    def view():
        return _view(world, Actor("ann", "agent", frozenset({"alpha"})), limits=limits)

    limits = Limits(questions_per_min=3)
    v = view()
    r = v.retrieve("descale vinegar", "alpha")  # the chat: search, then answer that search: one
    v.ask_stream("descale vinegar", "alpha", retrieval=r)
    v.retrieve("descale vinegar", "alpha", top_k=5)  # other knobs, same question: free
    with v.batch("tune sweep"):  # a sweep of many questions and settings: one
        for q in ("kettle manual part 1", "kettle manual part 2", "monthly", "vinegar"):
            for k in (1, 3, 5):
                v.retrieve(q, "alpha", top_k=k)
    view().ask("descale vinegar", "alpha")  # an answer counts, even of the same question: three
    with pytest.raises(LimitReached, match="Question limit reached: 3 per minute"):
        view().ask("descale vinegar", "alpha")
    with pytest.raises(LimitReached):
        view().retrieve("a question never searched", "alpha")
    with pytest.raises(LimitReached):
        with view().batch("verify"):
            pass
    assert view().retrieve("descale vinegar", "alpha").hits  # searched in the last minute: still free


def test_upload_size_limit_per_user(world):
    v = _view(world, Actor("ed", "editor", frozenset(), frozenset({"gamma"})),
              limits=Limits(upload_mb_per_hour=0.001))
    before = [d.doc_id for d in world.docs("gamma")]
    with pytest.raises(LimitReached, match="Upload limit reached"):
        v.index_files("gamma", [("big.txt", b"Big file. " * 200)])
    assert [d.doc_id for d in world.docs("gamma")] == before


# -- the property ----------------------------------------------------------------------------

grants = st.frozensets(st.sampled_from(KBS + ("*",)), max_size=3)
actors = st.builds(lambda name, role, read, edit: Actor(name, role, read, edit),
                   st.sampled_from(["u1", "u2", "u3"]), st.sampled_from(["admin", "editor", "agent", "viewer"]),
                   grants, grants)
OPS = ["kbs", "kbs_hidden", "docs", "doc_sentences", "fetch", "retrieve", "ask", "passages", "system",
       "store_get", "store_docs", "store_search", "index", "delete_doc", "delete_kb", "create_kb", "golden",
       "store_write", "chunks", "users", "user_grant", "user_role", "user_reset", "user_delete", "feedback",
       "golden_add", "golden_list", "store_fetch", "store_count", "open_document"]
USER_OPS = ("users", "user_grant", "user_role", "user_reset", "user_delete")


def _readable(actor: Actor) -> set[str]:
    return {kb for kb in KBS if actor.is_admin or {"*", kb} & (actor.read | actor.edit)}


def _editable(actor: Actor) -> set[str]:
    if actor.is_admin:
        return set(KBS)
    return {kb for kb in KBS if actor.role == "editor" and {"*", kb} & actor.edit}


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actor=actors, question=st.sampled_from(["descale vinegar", "kettle manual part 3", "beta kettle",
                                                "alpha monthly"]))
def test_no_call_leaks_another_kbs_text_or_writes_beyond_the_role(world, tmp_path, actor, question):
    """Every call of the view, on every knowledge base, for a random actor."""
    v = world.as_user(actor, audit=AuditLog(tmp_path / "audit.jsonl"))
    for kb in KBS:
        for op in OPS:
            _check(world, v, actor, op, kb, question)


def _check(world, v, actor, op, kb, question):
    from swr.evaluate.chunks import ensure_chunks
    from swr.store import SearchRequest

    readable, editable = _readable(actor), _editable(actor)
    before = {k: sorted(d.doc_id for d in world.docs(k)) for k in KBS}
    doc_id = world.docs(kb)[0].doc_id
    try:
        if op == "kbs":
            out = v.kbs()
        elif op == "kbs_hidden":
            out = v.kbs(hidden=True)
        elif op == "docs":
            out = v.docs(kb)
        elif op == "doc_sentences":
            out = v.doc_sentences(kb, doc_id)
        elif op == "fetch":
            out = v.fetch_sentences(kb, [(doc_id, i) for i in range(4)])
        elif op == "retrieve":
            out = v.retrieve(question, kb, top_k=10)
        elif op == "ask":
            out = v.ask(question, kb, top_k=10, window_size=5)
        elif op == "passages":
            out = v.passages(world.retrieve(question, kb, top_k=10), 5)  # a retrieval made past the view
        elif op == "system":
            out = v.system_info()
        elif op == "store_get":
            hits = world.retrieve(question, kb, top_k=10).hits
            from swr.core.ids import sentence_id

            out = v.store.get([sentence_id(h.sentence.kb, h.sentence.doc_id, h.sentence.i) for h in hits])
        elif op == "store_docs":
            out = v.store.docs(kb)
        elif op == "store_fetch":
            out = v.store.fetch_sentences(kb, [(doc_id, i) for i in range(4)])
        elif op == "store_count":
            out = v.store.count(kb)
        elif op == "open_document":
            out = v.open_document(kb, doc_id, hit=0)
        elif op == "store_search":
            q = world.embedder.encode_query(question)
            out = v.store.search(SearchRequest.from_params(kb, q, world.sparse.encode_query(question),
                                                           world.default_params(top_k=10)))
        elif op == "index":  # an unchanged file: allowed means skipped, nothing changes
            out = v.index_files(kb, [(f"{kb}.txt", _doc(kb))])
        elif op == "delete_doc":
            out = v.delete_doc(kb, "no-such-doc")
        elif op == "delete_kb":
            out = v.delete_kb(kb if kb != "gamma" else "gamma")
        elif op == "create_kb":
            out = v.create_kb(f"new-{kb}")
        elif op == "golden":
            out = v.save_golden(kb, pd.DataFrame({"question": ["q?"], "expected_answer": ["a"], "source": [""]}))
        elif op == "store_write":
            out = v.store.delete_doc(kb, "no-such-doc")
        elif op == "users":
            out = v.users()
        elif op == "user_grant":  # a made-up user: allowed means past the checks, then not found
            out = v.grant("nobody", kb, "edit")
        elif op == "user_role":
            out = v.set_role("nobody", "admin")
        elif op == "user_reset":
            out = v.reset_password("nobody", "new-passw0rd")
        elif op == "user_delete":
            out = v.delete_user("nobody")
        elif op == "feedback":  # agents and up, on readable knowledge bases (issue #14)
            out = v.record_feedback(kb, "answer", question=question, answer="prop", verdict="helpful")
        elif op == "golden_add":
            out = v.add_golden(kb, "q?", "a")
        elif op == "golden_list":
            out = v.golden(kb)
        else:  # the chunk baseline of Tune writes a hidden knowledge base derived from a readable one
            out = ensure_chunks(v, kb, 64, 0)
    except NotFound as exc:
        if exc.message.startswith("No document"):  # past the checks: the document id is made up
            assert kb in editable and op == "delete_doc"
            out = "allowed"
        elif exc.message.startswith("No user"):  # past the checks: the user is made up
            assert actor.is_admin and op in USER_OPS
            out = "allowed"
        else:
            out = "refused"
    except Forbidden:
        out = "refused"
    if out == "refused":
        if op in ("kbs", "kbs_hidden", "system", "store_get"):
            raise
        if op in ("index", "golden", "delete_doc", "golden_add"):
            assert kb not in editable or kb not in readable
        elif op == "feedback":
            assert kb not in readable or actor.demo_only
        elif op in ("delete_kb", "create_kb", "store_write") + USER_OPS:
            assert not actor.is_admin or op == "store_write"
        elif op == "chunks":
            assert kb not in readable or actor.demo_only
        else:
            assert kb not in readable or (actor.demo_only and op in ("retrieve", "ask"))
    else:
        if op in ("index", "golden", "delete_doc", "golden_add"):
            assert kb in editable, f"{actor} wrote to {kb} with {op}"
        if op == "feedback":
            assert kb in readable and not actor.demo_only, f"{actor} gave feedback on {kb}"
        if op in ("delete_kb", "create_kb") + USER_OPS:
            assert actor.is_admin, f"{actor} did {op}"
        if op == "chunks":
            assert kb in readable and not actor.demo_only
        if op in ("docs", "doc_sentences", "fetch", "retrieve", "ask", "passages", "store_docs", "store_search",
                  "golden_list", "store_fetch", "store_count", "open_document"):
            assert kb in readable
    text = repr(out)  # dataclass reprs carry every field, text included
    for other in set(KBS) - readable:
        assert MARK[other] not in text, f"{actor} got text of {other} through {op}"
        assert f"'{other}'" not in text or op not in ("kbs", "kbs_hidden", "system"), f"{actor} saw {other}"
    # restore what an admin's allowed delete/create did, so the next example sees the same world
    if op == "delete_kb" and out != "refused":
        assert all(r.ok for r in world.index_files(kb, [(f"{kb}.txt", _doc(kb))]))
    if op == "create_kb" and out != "refused":
        world.delete_kb(f"new-{kb}")
    after = {k: sorted(d.doc_id for d in world.docs(k)) for k in KBS}
    assert after == before
    assert not (world.settings.home / "users.json").exists()  # no user op wrote the users file


def test_real_e5_agent_never_gets_the_secret_kb(tmp_path):
    """The real model: the question is answered word for word by a knowledge base the agent may not
    read; the agent gets only its own knowledge base's text, and the other one does not exist for it."""
    from swr.engine import Engine

    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    eng = Engine(s)
    try:
        eng.index_files("public", [("faq.txt", "The kettle holds 1.7 litres. Descale it every month.\n".encode())])
        eng.index_files("secret", [("salary.txt", "The support team's bonus pool is 48,000 dollars this year.\n"
                                                  "Bonuses are paid in March.\n".encode())])
        v = eng.as_user(Actor("ann", "agent", frozenset({"public"})), audit=AuditLog(tmp_path / "audit.jsonl"))
        q = "How big is the support team's bonus pool this year?"
        assert "48,000" in eng.ask(q, "secret").passages[0].text  # the model finds it when allowed
        r = v.ask(q, "public", top_k=5, window_size=3)
        assert all("48,000" not in p.text and "Bonuses" not in p.text for p in r.passages)
        assert "48,000" not in r.answer
        with pytest.raises(NotFound):
            v.ask(q, "secret")
        assert [k["kb"] for k in v.kbs()] == ["public"]
    finally:
        eng.close()


# -- sign-in tokens, the throttle's pair and kept state ----------------------------------------

def test_sign_in_tokens_are_signed_expire_and_end_on_the_server(tmp_path):
    from swr.manage.access.session_token import KEY_FILE, RECORDS_FILE, SessionTokens, TokenRules

    now = [1000.0]
    tokens = SessionTokens(tmp_path / "auth", TokenRules(lifetime_s=60), clock=lambda: now[0])
    t = tokens.issue("ann")
    assert tokens.check(t) == "ann"
    for mode in ((tmp_path / "auth" / KEY_FILE).stat().st_mode, (tmp_path / "auth" / RECORDS_FILE).stat().st_mode):
        assert stat.S_IMODE(mode) == 0o600
    token_id, mac = t.split(".")
    assert t not in (tmp_path / "auth" / RECORDS_FILE).read_text() and token_id not in \
        (tmp_path / "auth" / RECORDS_FILE).read_text()  # only a hash of the id is kept
    forged = token_id + "." + ("0" if mac[0] != "0" else "1") + mac[1:]
    for junk in (forged, "", None, "x", "x.y", "é.é", t + "x", 5):
        assert tokens.check(junk) is None, junk
    other = SessionTokens(tmp_path / "other", clock=lambda: now[0])  # another SWR_HOME's secret
    assert other.check(t) is None
    tokens.revoke(t)
    assert tokens.check(t) is None  # signed out: a copied cookie no longer works
    t2 = tokens.issue("ann")
    now[0] += 61
    assert tokens.check(t2) is None  # expired
    t3, t4 = tokens.issue("ann"), tokens.issue("bob")
    assert tokens.revoke_user("ann") == 1 and tokens.check(t3) is None and tokens.check(t4) == "bob"


def test_sign_in_throttle_keys_on_name_and_address_and_survives_a_restart(tmp_path):
    now = [0.0]
    path = tmp_path / "fails.json"
    t = SignInThrottle(max_failures=3, window_s=60, clock=lambda: now[0], path=path)
    for _ in range(3):
        t.failed("alice", "10.0.0.9")
    assert t.wait_s("alice", "10.0.0.9") == 61
    assert t.wait_s("alice", "10.0.0.7") == 0  # an attacker elsewhere cannot keep alice out
    again = SignInThrottle(max_failures=3, window_s=60, clock=lambda: now[0], path=path)
    assert again.wait_s("alice", "10.0.0.9") == 61  # a restart keeps it
    now[0] = 60
    assert again.wait_s("alice", "10.0.0.9") == 0  # after the wait one try (a right password) goes through
    again.succeeded("alice", "10.0.0.9")
    assert SignInThrottle(max_failures=3, window_s=60, clock=lambda: now[0], path=path).wait_s(
        "alice", "10.0.0.9") == 0


def test_limits_survive_a_restart(tmp_path):
    from swr.manage.access.limits import LimitReached

    now = [0.0]
    path = tmp_path / "limits.json"
    Limits(questions_per_min=2, clock=lambda: now[0], path=path).question("ann")
    Limits(questions_per_min=2, clock=lambda: now[0], path=path).question("ann")
    with pytest.raises(LimitReached):
        Limits(questions_per_min=2, clock=lambda: now[0], path=path).question("ann")
    Limits(upload_mb_per_hour=1, clock=lambda: now[0], path=path).upload("ann", 900_000)
    with pytest.raises(LimitReached):
        Limits(upload_mb_per_hour=1, clock=lambda: now[0], path=path).upload("ann", 900_000)
