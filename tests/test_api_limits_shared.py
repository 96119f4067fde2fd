"""A key's question and upload limits count across every process on one SWR_HOME: two API
applications, each with its own engine (its own store collection) and its own state, share only
the SWR_HOME folder, as the app and ``python -m swr serve`` do."""
from __future__ import annotations

import httpx

from swr.api.app import create_app
from swr.core.settings import Settings
from swr.engine import Engine
from swr.manage.access import UserStore
from swr.manage.access.keys import KeyStore
from tests.test_api import Server, auth

TEXT = b"The kettle holds 1.7 litres of water. Descale the kettle every month with white vinegar.\n"


def test_two_apps_on_one_home_count_a_key_together(tmp_path):
    base = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    engines = [Engine(base.with_(collection=c)) for c in ("first", "second")]
    try:
        for eng in engines:
            assert all(r.ok for r in eng.index_files("alpha", [("kettle.txt", TEXT)]))
        users = UserStore.for_settings(base)
        users.add("root", "admin", "admin-passw0rd")
        ks = KeyStore.for_settings(base)
        asks = ks.create("root", users, questions_per_min=3)[1]
        uploads = ks.create("root", users, upload_mb_per_hour=0.002)[1]  # 2,097 bytes an hour
        with Server(create_app(lambda: engines[0])) as a, Server(create_app(lambda: engines[1])) as b:
            def ask(srv, n):
                return httpx.post(srv.url + "/api/v1/retrieve", headers=auth(asks), timeout=120,
                                  json={"question": f"How often do I descale? {n}", "knowledge_base": "alpha"})

            codes = [ask(srv, n).status_code for n, srv in enumerate((a, b, a, b))]
            assert codes == [200, 200, 200, 429]  # 3 a minute, counted by both
            r = ask(a, 9)
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1

            def upload(srv, name):
                return httpx.post(srv.url + "/api/v1/knowledge-bases/alpha/documents", headers=auth(uploads),
                                  files=[("files", (name, b"x" * 1200 + b".\n", "text/plain"))], timeout=300)

            assert upload(a, "one.txt").status_code == 200
            r = upload(b, "two.txt")
            assert r.status_code == 429 and r.json()["error"]["code"] == "limit"
        kept = sorted(p.name for p in (base.home / "auth" / "key_limits").glob("*.json"))
        assert len(kept) == 2
    finally:
        for eng in engines:
            eng.close()
