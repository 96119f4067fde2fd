"""``swr users ...`` as a user runs it, on a fresh SWR_HOME (the command line in this process,
isolated as a subprocess would be: conftest's ``swr_cli``). Every command with ``--json`` prints
exactly one JSON document on stdout; no output (stdout or stderr, JSON or human) ever contains a
password or a bcrypt hash; every change lands in the users file and in the audit trail (as the
operating-system user, ``cli:<login>``), without secrets."""
from __future__ import annotations

import json

import pytest

from conftest import CliRun
from swr.manage.access import UserStore

PASSWORDS = ("first-passw0rd-17", "second-passw0rd-42")


@pytest.fixture
def swr_users(tmp_path, swr_cli):
    from conftest import FakeEmbedder
    from swr.core.settings import Settings
    from swr.engine import Engine

    home = tmp_path / "home"
    env = {"SWR_HOME": str(home), "SWR_SECRETS": str(tmp_path / "none.toml")}
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=home), embedder=FakeEmbedder())
    for kb in ("faq", "manuals"):  # a grant names a knowledge base that exists
        eng.create_kb(kb)
    eng.close()
    outputs: list[str] = []

    def run(*args: str, stdin: str | None = None, ok: bool = True) -> CliRun:
        p = swr_cli("users", *args, env=env, stdin=stdin or "", code=None)
        outputs.append(p.stdout + p.stderr)
        assert (p.code == 0) == ok, (args, p.code, p.stdout, p.stderr)
        return p

    run.home, run.outputs = home, outputs
    yield run
    for out in outputs:  # whatever a command printed: never a password or a hash
        assert "$2b$" not in out and "hash" not in out.lower()
        for pw in PASSWORDS:
            assert pw not in out


def _doc(p: CliRun) -> dict:
    return json.loads(p.stdout)  # the whole of stdout: ONE JSON document (json.loads refuses extra data)


def test_a_grant_on_a_knowledge_base_that_does_not_exist_is_refused(swr_users):
    p = swr_users("add", "ann", "--role", "agent", "--read", "fqa", "--password-stdin", stdin=PASSWORDS[0] + "\n",
                  ok=False)
    assert "No knowledge base named 'fqa'" in p.stderr + p.stdout
    assert not UserStore(swr_users.home / "users.json").configured()  # nothing written
    swr_users("add", "ann", "--role", "agent", "--read", "*", "--password-stdin", stdin=PASSWORDS[0] + "\n")
    p = swr_users("grant", "ann", "--kb", "nope", "--access", "read", ok=False)
    assert "No knowledge base named 'nope'" in p.stderr + p.stdout


def test_users_commands_round_trip(swr_users):
    run = swr_users
    users = UserStore(run.home / "users.json")
    doc = _doc(run("add", "ann", "--role", "agent", "--read", "faq", "--password-stdin", "--json",
                   stdin=PASSWORDS[0] + "\n"))
    assert doc == {"user": {"name": "ann", "role": "agent", "read": ["faq"], "edit": [],
                            "created_at": doc["user"]["created_at"], "changed_at": doc["user"]["changed_at"]}}
    assert users.authenticate("ann", PASSWORDS[0]) is not None
    run("add", "root", "--role", "admin", "--password-stdin", stdin=PASSWORDS[1] + "\n")  # human output

    listed = _doc(run("list", "--json"))
    assert [(u["name"], u["role"]) for u in listed["users"]] == [("ann", "agent"), ("root", "admin")]
    human = run("list").stdout
    assert "ann: agent (read faq)" in human and "root: admin (no grants)" in human

    doc = _doc(run("reset", "ann", "--password-stdin", "--json", stdin=PASSWORDS[1] + "\n"))
    assert doc["user"]["name"] == "ann"
    assert users.authenticate("ann", PASSWORDS[0]) is None and users.authenticate("ann", PASSWORDS[1])

    assert _doc(run("role", "ann", "editor", "--json"))["user"]["role"] == "editor"
    assert users.authenticate("ann", PASSWORDS[1]).role == "editor"  # the password stays
    assert _doc(run("grant", "ann", "--kb", "manuals", "--access", "edit", "--json"))["user"]["edit"] == ["manuals"]
    assert _doc(run("grant", "ann", "--kb", "faq", "--access", "none", "--json"))["user"]["read"] == []
    assert users.actor("ann").edit == {"manuals"}

    assert _doc(run("delete", "ann", "--json"))["deleted"]["name"] == "ann"
    err = _doc(run("delete", "ann", "--json", ok=False))
    assert err["error"]["kind"] == "not_found" and "ann" in err["error"]["message"]
    assert [u["name"] for u in users.list()] == ["root"]

    entries = [json.loads(line) for line in (run.home / "audit.jsonl").read_text().splitlines()]
    assert [(e["action"], e["object"]) for e in entries] == [
        ("user_add", "ann"), ("user_add", "root"), ("user_reset", "ann"), ("user_role", "ann"),
        ("user_grant", "ann"), ("user_grant", "ann"), ("user_delete", "ann")]
    assert all(e["user"].startswith("cli:") for e in entries)
    raw = (run.home / "audit.jsonl").read_text()
    assert "$2b$" not in raw and not any(pw in raw for pw in PASSWORDS)


def test_users_commands_refuse_bad_input_with_one_json_error(swr_users):
    run = swr_users
    # no terminal and no --password-stdin: refused, nothing created
    err = _doc(run("add", "bob", "--role", "agent", "--json", ok=False))
    assert err["error"]["kind"] == "bad_request" and "--password-stdin" in err["error"]["message"]
    # too short a password: refused with the rule, and the password is not echoed
    err = _doc(run("add", "bob", "--role", "agent", "--password-stdin", "--json", stdin="short\n", ok=False))
    assert "at least 8" in err["error"]["message"] and "short" not in json.dumps(err).replace("at least", "")
    # a password is never an argument (it would sit in the shell history and the process list)
    p = run("add", "bob", "--role", "agent", "--password", "typed-on-the-command-line", ok=False)
    assert p.code == 2 and "unrecognized arguments" in p.stderr
    # an unknown role is refused by the parser
    assert run("add", "bob", "--role", "owner", "--password-stdin", stdin=PASSWORDS[0] + "\n", ok=False).code == 2
    assert not UserStore(run.home / "users.json").configured()
