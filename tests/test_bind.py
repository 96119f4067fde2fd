"""The shipped ``.streamlit/config.toml`` binds 127.0.0.1: ``streamlit run app.py`` with no
address flag listens on the loopback address only, never on every interface (0.0.0.0 / ::)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request

import pytest

from conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listeners(port: int) -> list[str]:
    """Local addresses of the LISTEN sockets on ``port`` (IPv4 and IPv6), from /proc/net/tcp*."""
    out = []
    for name, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            addr, hexport = parts[1].split(":")
            if int(hexport, 16) != port or parts[3] != "0A":  # 0A = LISTEN
                continue
            raw = bytes.fromhex(addr)
            if width == 8:
                out.append(socket.inet_ntop(socket.AF_INET, raw[::-1]))
            else:  # four little-endian 32-bit words
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                out.append(socket.inet_ntop(socket.AF_INET6, words))
    return out


def test_the_shipped_config_binds_loopback():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert cfg["server"]["address"] == "127.0.0.1"


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux /proc/net/tcp")
def test_streamlit_run_app_listens_on_127_0_0_1_only(tmp_path):
    port = _free_port()
    env = dict(os.environ, SWR_HOME=str(tmp_path / "home"), SWR_SECRETS=str(tmp_path / "none.toml"),
               SWR_SAMPLE_KB="", HF_HUB_OFFLINE="1")
    log = tmp_path / "streamlit.log"
    with log.open("w") as out:  # no --server.address: the shipped config decides
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                                 "--server.fileWatcherType", "none"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.25)
        listening = _listeners(port)
        assert listening, "no listening socket found for the port"
        assert set(listening) == {"127.0.0.1"}, listening
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
