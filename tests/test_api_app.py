"""One process: a real ``streamlit run app.py`` answers its pages and the API, records where it
listens in ``SWR_HOME/server.json`` (owner-only), and the command line, which cannot open the store
the app holds, answers through it with the same ``--json`` output, published settings included."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request

import pytest
from test_api import ALPHA, free_port

from swr.core.settings import Settings
from swr.engine import Engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLEARED = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL")  # not in the app's environment


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("app")
    home = tmp / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp / "none.toml", home=home, sample_kb=""))
    assert all(r.ok for r in eng.index_files("alpha", [(n, t.encode()) for n, t in ALPHA.items()]))
    eng.publish("alpha", eng.kb_params("alpha", window_size=1, top_k=2), "lead")
    eng.close()
    port = free_port()
    env = dict(os.environ, SWR_HOME=str(home), SWR_SECRETS=str(tmp / "none.toml"), SWR_SAMPLE_KB="",
               HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", PYTHONPATH=ROOT)
    for k in CLEARED:
        env.pop(k, None)
    log = (tmp / "streamlit.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (home / "server.json").is_file():
            assert proc.poll() is None, (tmp / "streamlit.log").read_text()[-3000:]
            time.sleep(0.3)
        yield {"url": url, "home": home, "env": env}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.status, r.read().decode("utf-8", "replace")


def test_one_process_serves_a_page_and_the_api(app_server):
    status, page = _get(app_server["url"] + "/")
    assert status == 200 and "<html" in page.lower()
    assert _get(app_server["url"] + "/_stcore/health")[0] == 200
    status, body = _get(app_server["url"] + "/api/v1/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    assert _get(app_server["url"] + "/api/docs")[0] == 200
    server = app_server["home"] / "server.json"
    assert stat.S_IMODE(server.stat().st_mode) == 0o600 and json.loads(server.read_text())["url"] == app_server["url"]


def _cli(swr_cli, app_server, *args) -> dict:
    """The command line in this process (conftest's ``swr_cli``) with the app's environment: the
    server (another process) holds the store, so the command is refused it and goes through the server."""
    out = swr_cli(*args, "--json", env=app_server["env"], unset=CLEARED, code=None)
    assert out.code == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_command_line_goes_through_the_running_app(app_server, swr_cli):
    cli = lambda *args: _cli(swr_cli, app_server, *args)
    kbs = cli("kbs")["kbs"]
    assert kbs[0]["kb"] == "alpha" and kbs[0]["documents"] == 2 and kbs[0]["published_version"] == 1
    ans = cli("ask", "How often should I descale the kettle?", "--kb", "alpha")
    assert "Descale" in ans["answer"] and ans["settings"]["published"] == {"version": 1, "overrides": []}
    assert ans["settings"]["top_k"] == 2 and ans["settings"]["window_size"] == 1 and ans["check"] is not None
    note = app_server["home"].parent / "filter.txt"
    note.write_text("The filter of the kettle is rinsed every week.\n", encoding="utf-8")
    indexed = cli("index", str(note), "--kb", "alpha")
    assert indexed["indexed"] == 1 and indexed["files"][0]["source"] == "filter.txt"
    checked = cli("check", "How much water does the kettle hold?", "--kb", "alpha",
                  "--answer", "The kettle holds 1.7 litres.")
    assert checked["sentences"][0]["supported"]


def test_swr_serve_runs_the_api_alone_and_refuses_open_mode_beyond_loopback(app_server, tmp_path, swr_cli):
    env = dict(app_server["env"], SWR_HOME=str(tmp_path / "home2"))
    out = subprocess.run([sys.executable, "-m", "swr", "serve", "--host", "0.0.0.0", "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Refusing to serve" in json.loads(out.stdout)["error"]["message"]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "swr", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = tmp_path / "home2" / "server.json"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not server.is_file():
            time.sleep(0.3)
        for _ in range(200):
            try:
                assert json.loads(_get(f"http://127.0.0.1:{port}/api/v1/health")[1])["status"] == "ok"
                break
            except OSError:
                time.sleep(0.3)
        assert _cli(swr_cli, {"env": env}, "kbs")["kbs"] == []  # through the server that holds the store
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert not server.exists(), "a stopped server removes its server file"


def test_building_the_mcp_server_leaves_the_root_logger_quiet(tmp_path):
    """The SDK configures the root logger when its server is built: at WARNING, not its INFO, so the
    server's stderr carries no library's per-request chatter (a fresh process: nothing configured before)."""
    code = "import logging; from swr.api.mcp_server import build; build(); print(logging.getLogger().level)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SWR_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "30"
