"""The HTTP API against a real server (uvicorn on a free loopback port, the real embedder and Qdrant
Edge): keys and their narrowing, the native endpoints, errors as JSON with stable codes, per-key
limits, streaming, uploads. Two knowledge bases, two users, keys of several shapes; the fixtures
here are shared by the other tests/test_api_*.py files."""
from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from swr.core.settings import Settings
from swr.engine import Engine
from swr.manage.access import UserStore
from swr.manage.access.keys import KeyStore

ALPHA = {"kettle.txt": "The kettle holds 1.7 litres of water. Descale the kettle every month with white vinegar. "
                       "The kettle switches off by itself when the water boils.\n",
         "fryer.md": "# Air fryer\n\nClean the basket with hot soapy water after each use. Never put the main unit "
                     "in water. Preheat the air fryer for three minutes before cooking.\n"}
BETA = {"pay.txt": "The bonus pool this year is 48,000 dollars. Salaries are reviewed every April.\n",
        "leave.txt": "Staff get 25 days of paid leave. The payroll password is kept by the finance office.\n"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """uvicorn serving ``app`` on a free 127.0.0.1 port in a thread."""

    def __init__(self, app) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """An engine with knowledge bases alpha and beta, users root (admin) and ann (agent on alpha),
    and keys: root's full key, ann's, root's narrowed to alpha, a read-only and a limited one."""
    home = tmp_path_factory.mktemp("apihome")
    settings = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
    eng = Engine(settings)
    for kb, files in (("alpha", ALPHA), ("beta", BETA)):
        assert all(r.ok for r in eng.index_files(kb, [(n, t.encode()) for n, t in files.items()]))
    users = UserStore.for_settings(settings)
    users.add("root", "admin", "admin-passw0rd")
    users.add("ann", "agent", "agent-passw0rd", read=["alpha"])
    users.add("ed", "editor", "editor-passw0rd", read=["alpha"], edit=["alpha"])
    ks = KeyStore.for_settings(settings)
    keys = {"root": ks.create("root", users)[1], "ann": ks.create("ann", users)[1],
            "alpha": ks.create("root", users, kbs=["alpha"])[1],
            "ro": ks.create("ed", users, read_only=True)[1], "ed": ks.create("ed", users)[1],
            "limited": ks.create("root", users, questions_per_min=2)[1]}
    from swr.api.app import create_app

    with Server(create_app(lambda: eng)) as srv:
        yield {"engine": eng, "url": srv.url, "keys": keys, "settings": settings}
    eng.close()


def auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def post(team, path: str, key: str | None, body: dict, **kw) -> httpx.Response:
    return httpx.post(team["url"] + path, json=body, headers=auth(key) if key else {}, timeout=120, **kw)


def get(team, path: str, key: str | None) -> httpx.Response:
    return httpx.get(team["url"] + path, headers=auth(key) if key else {}, timeout=60)


def test_health_needs_no_key_and_everything_else_does(team):
    assert get(team, "/api/v1/health", None).json()["status"] == "ok"
    r = get(team, "/api/v1/knowledge-bases", None)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    assert r.headers["www-authenticate"] == "Bearer"
    r = get(team, "/api/v1/knowledge-bases", "swr_000000000000_" + "x" * 43)
    assert r.status_code == 401 and "Traceback" not in r.text
    r = httpx.get(team["url"] + "/api/v1/knowledge-bases", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad_authorization_header"


def test_a_key_sees_only_what_its_user_and_narrowing_allow(team):
    names = lambda k: [x["name"] for x in get(team, "/api/v1/knowledge-bases", team["keys"][k]).json()
                       ["knowledge_bases"]]
    assert names("root") == ["alpha", "beta"]
    assert names("ann") == ["alpha"] and names("alpha") == ["alpha"]
    for key in ("ann", "alpha"):
        r = post(team, "/api/v1/retrieve", team["keys"][key], {"question": "bonus pool", "knowledge_base": "beta"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        assert "beta" not in r.json()["error"]["message"].split("known:")[-1]


def test_retrieve_gives_windows_split_around_the_hit_with_the_published_version(team):
    eng, key = team["engine"], team["keys"]["root"]
    body = {"question": "How often should I descale the kettle?", "knowledge_base": "alpha"}
    r = post(team, "/api/v1/retrieve", key, body).json()
    top = r["results"][0]
    assert "Descale" in top["sentence"] and top["document"]["name"] == "kettle.txt"
    assert top["window"][top["highlight"]["start"]:top["highlight"]["end"]].strip() == top["sentence"].strip()
    assert any("1.7 litres" in s for s in top["before"]) and any("boils" in s for s in top["after"])
    assert r["answerable"]["answerable"] is True and r["published_version"] is None
    pub = eng.publish("alpha", eng.kb_params("alpha", window_size=0, top_k=1), "root")
    try:
        r = post(team, "/api/v1/retrieve", key, body).json()
        assert r["published_version"] == pub.version and r["overrides"] == []
        assert len(r["results"]) == 1 and r["results"][0]["before"] == [] and r["results"][0]["after"] == []
        r = post(team, "/api/v1/retrieve", key, {**body, "overrides": {"top_k": 2}}).json()
        assert r["published_version"] == pub.version and r["overrides"] == ["top_k"] and len(r["results"]) == 2
    finally:
        eng.restore_published("alpha", pub.version, "root")  # a later version; reset the knobs below
        eng.publish("alpha", eng.default_params(), "root")


def test_ask_streams_deltas_then_sources_then_check(team):
    body = {"question": "How do I clean the basket?", "knowledge_base": "alpha", "stream": True}
    with httpx.stream("POST", team["url"] + "/api/v1/ask", json=body, headers=auth(team["keys"]["ann"]),
                      timeout=120) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [line.split(": ", 1)[1] for line in r.iter_lines() if line.startswith("event: ")]
    assert events[0] == "delta" and events[-3:] == ["sources", "check", "done"]
    r = post(team, "/api/v1/ask", team["keys"]["ann"], {**body, "stream": False}).json()
    assert "soapy water" in r["answer"] and r["results"] and r["answer_kind"] == "extractive"


def test_check_flags_a_wrong_number(team):
    r = post(team, "/api/v1/check", team["keys"]["ann"],
             {"question": "How much water does the kettle hold?", "knowledge_base": "alpha",
              "answer": "The kettle holds 3 litres of water."}).json()
    assert r["sentences"] and not r["sentences"][0]["supported"]


def test_uploads_need_a_writer_and_keep_good_files_when_one_is_bad(team):
    files = [("files", ("note.txt", b"The filter is washed every week.\n", "text/plain")),
             ("files", ("bad.exe", b"MZ\x00\x01", "application/octet-stream"))]
    url = team["url"] + "/api/v1/knowledge-bases/alpha/documents"
    for key in ("ann", "ro"):
        r = httpx.post(url, files=files, headers=auth(team["keys"][key]), timeout=60)
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = httpx.post(url, files=files, headers=auth(team["keys"]["ed"]), timeout=120)
    out = r.json()
    assert r.status_code == 200 and out["indexed"] == 1 and out["failed"] == 1
    bad = next(f for f in out["files"] if not f["ok"])
    assert bad["source"] == "bad.exe" and bad["error"]["kind"] == "unsupported_file"
    doc = next(f for f in out["files"] if f["ok"])["doc_id"]
    r = httpx.delete(f"{url}/{doc}", headers=auth(team["keys"]["ed"]), timeout=60)
    assert r.status_code == 200 and r.json()["deleted_sentences"] == 1
    actions = [e["action"] for e in json.loads("[" + ",".join(
        (team["settings"].home / "audit.jsonl").read_text().splitlines()) + "]")]
    assert "key_use" in actions and "upload" in actions and "delete_doc" in actions


def test_a_key_over_its_limit_gets_429_with_retry_after(team):
    key = team["keys"]["limited"]
    codes = [post(team, "/api/v1/retrieve", key, {"question": f"kettle question {n}", "knowledge_base": "alpha"})
             for n in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 429]
    assert int(codes[-1].headers["retry-after"]) >= 1 and codes[-1].json()["error"]["code"] == "limit"


def test_a_revoked_key_stops_working(team):
    ks = KeyStore.for_settings(team["settings"])
    key, secret = ks.create("ann", UserStore.for_settings(team["settings"]))
    assert get(team, "/api/v1/knowledge-bases", secret).status_code == 200
    ks.revoke(key["id"])
    assert get(team, "/api/v1/knowledge-bases", secret).status_code == 401
    assert all("hash" not in k and "secret" not in k for k in ks.list())


def test_results_carry_the_rule_traces_as_ask_json_does(team):
    """Each hit's ranking rules, the answerability rules and the decision trace: what `ask --json`
    prints for the same question, in rank order."""
    eng, key = team["engine"], team["keys"]["root"]
    q = "How often should I descale the kettle?"
    r = post(team, "/api/v1/retrieve", key, {"question": q, "knowledge_base": "alpha"}).json()
    local = eng.ask(q, "alpha", llm=False).to_dict()
    hits = sorted((h for p in local["passages"] for h in p["hits"]), key=lambda h: h["rank"])
    assert [x["trace"] for x in r["results"]] == [h["trace"] or [] for h in hits]
    assert [x["matched_tokens"] for x in r["results"]] == [h["matched_tokens"] for h in hits]
    assert [(x["scores"]["centred"], x["scores"]["hub"]) for x in r["results"]] == \
        [(h.get("centred"), h.get("hub")) for h in hits]
    assert "descal" in " ".join(r["results"][0]["matched_tokens"])
    assert r["answerable"]["rules"] == local["answerability"]["rules"] and r["answerable"]["rules"]
    assert r["trace"] == local["trace"] and r["trace"][0]["rule"].startswith("answerable.")
    assert r["query_tokens"] == local["query_tokens"]
    a = post(team, "/api/v1/ask", key, {"question": q, "knowledge_base": "alpha", "llm": False}).json()
    assert [t["rule"] for t in a["trace"]][:len(r["trace"])] == [t["rule"] for t in r["trace"]]
    assert len(a["trace"]) > len(r["trace"])  # the answer's check adds its rules
