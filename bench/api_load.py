"""The API under load, side by side with the same questions asked in-process.

    python bench/api_load.py                      # 16 clients, 60 s per side, an upload running
    python bench/api_load.py --clients 4 --seconds 10 --upload-kb 40   # a quick run

Two phases on one fresh SWR_HOME (the sample knowledge base, indexed first):

1. in-process: ``--clients`` threads ask the checked engine view exactly what ``POST
   /api/v1/retrieve`` does (``ask`` without an LLM, then the result shape), for ``--seconds``;
2. API: ``python -m swr serve`` in a child process, ``--clients`` threads posting
   ``/api/v1/retrieve`` with a key for ``--seconds``.

In both an upload of ``--upload-kb`` KB of text runs from the start (in-process: ``index_files``;
API: the upload endpoint). Per phase: p50, p95, max (ms), errors, questions/s. Floors: p95 <= 300
ms, 0 errors, API questions/s >= 0.8 of in-process. One JSON line goes to stdout (and
bench/out/api_load.json).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import OUT, pct  # noqa: E402

QUESTIONS = ["电热水壶第一次使用前要做什么？", "How do I clean the air fryer basket?", "电饭煲显示E1是什么意思？",
             "How long does the rice cooker keep food warm?", "What does the kettle do when the water boils?",
             "空气炸锅可以用来煮咖啡吗？", "How do I descale the kettle?", "What is the warranty period?"]
FLOORS = {"p95_ms": 300.0, "errors": 0, "api_share": 0.8}


def upload_text(kb_size: int) -> bytes:
    line = "The filter of the model X{n} is washed every {n} weeks with warm water and dried in the air. "
    out, n = [], 0
    while sum(len(x) for x in out) < kb_size * 1024:
        out.append(line.format(n=n))
        n += 1
    return "".join(out).encode()


def run_clients(ask, clients: int, seconds: float) -> dict:
    """``clients`` threads calling ``ask(question)`` for ``seconds``: latencies and errors."""
    lat, errors, stop = [], [], time.monotonic() + seconds
    lock = threading.Lock()

    def worker(k: int) -> None:
        n = k
        while time.monotonic() < stop:
            q = QUESTIONS[n % len(QUESTIONS)]
            n += 1
            t0 = time.perf_counter()
            try:
                ask(q)
                ok = True
            except Exception as exc:  # counted, never raised: the load goes on
                ok = False
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
            with lock:
                if ok:
                    lat.append((time.perf_counter() - t0) * 1000)

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    return {"n": len(lat), "p50_ms": round(pct(lat, 50), 1), "p95_ms": round(pct(lat, 95), 1),
            "max_ms": round(max(lat, default=0.0), 1), "errors": len(errors), "error_samples": errors[:3],
            "qps": round(len(lat) / wall, 2), "seconds": round(wall, 1)}


def in_process(settings, args, data: bytes) -> dict:
    from swr.api import shape
    from swr.engine import Engine
    from swr.manage.access import Actor

    eng = Engine(settings)
    eng.ensure_sample()
    view = eng.as_user(Actor.local_user())
    kb = settings.sample_kb
    view.ask(QUESTIONS[0], kb, view.kb_params(kb), llm=False)  # warm
    up = threading.Thread(target=lambda: view.index_files("upload-inproc", [("upload.txt", data)]))
    up.start()
    res = run_clients(lambda q: shape.retrieval(view, view.ask(q, kb, view.kb_params(kb), llm=False)),
                      args.clients, args.seconds)
    up.join()
    eng.close()
    return res


def over_api(settings, args, data: bytes, env: dict) -> dict:
    import httpx

    from swr.manage.access import UserStore
    from swr.manage.access.keys import KeyStore

    users = UserStore.for_settings(settings)
    users.add("bench", "admin", "bench-passw0rd")
    key = KeyStore.for_settings(settings).create("bench", users, questions_per_min=0, upload_mb_per_hour=0)[1]
    port = args.port
    proc = subprocess.Popen([sys.executable, "-m", "swr", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url, hdr = f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {key}"}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        client = httpx.Client(headers=hdr, timeout=60, limits=httpx.Limits(max_connections=args.clients * 2))
        body = lambda q: {"question": q, "knowledge_base": settings.sample_kb}  # noqa: E731

        def ask(q: str) -> None:
            client.post(url + "/api/v1/retrieve", json=body(q)).raise_for_status()

        ask(QUESTIONS[0])  # warm
        up = threading.Thread(target=lambda: client.post(url + "/api/v1/knowledge-bases/upload-api/documents",
                                                         files=[("files", ("upload.txt", data, "text/plain"))],
                                                         timeout=600))
        up.start()
        res = run_clients(ask, args.clients, args.seconds)
        up.join()
        return res
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--upload-kb", type=int, default=400, help="size of the text uploaded during each phase")
    ap.add_argument("--port", type=int, default=18931)
    args = ap.parse_args()
    from swr.core.settings import Settings

    home = Path(tempfile.mkdtemp(prefix="swr-api-load-"))
    env = dict(os.environ, SWR_HOME=str(home), SWR_SECRETS=str(home / "none.toml"), HF_HUB_OFFLINE="1",
               PYTHONPATH=str(ROOT))
    for k in ("OPENAI_BASE_URL", "SWR_LLM_MODEL", "QDRANT_URL"):
        env.pop(k, None)
    settings = Settings.from_env(env=env, secrets_path=home / "none.toml", home=home)
    data = upload_text(args.upload_kb)
    inproc = in_process(settings, args, data)
    api = over_api(settings, args, data, env)
    share = round(api["qps"] / inproc["qps"], 3) if inproc["qps"] else None
    out = {"clients": args.clients, "seconds": args.seconds, "upload_kb": args.upload_kb,
           "in_process": inproc, "api": api, "api_share": share, "floors": FLOORS,
           "floors_met": {"p95_ms": api["p95_ms"] <= FLOORS["p95_ms"], "errors": api["errors"] == 0,
                          "api_share": share is not None and share >= FLOORS["api_share"]}}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "api_load.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
