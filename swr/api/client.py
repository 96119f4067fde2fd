"""The command line through a running server: when the server (``streamlit run app.py`` or
``python -m swr serve``) holds the embedded store, ``python -m swr ask|index|kbs|check`` sends its
arguments to ``POST /api/v1/cli/{command}`` with the local token of ``SWR_HOME/server.json`` and
prints the same output (``--json`` included) as it would have alone."""
from __future__ import annotations

from pathlib import Path

import httpx

from swr.api.cli_route import COMMANDS
from swr.api.serve import read_server_file
from swr.core.errors import StoreLocked, StoreUnavailable, SwrError

TIMEOUT_S = 600.0  # an index of many files, or an answer from a slow local model


def _args(a) -> dict:
    out = {}
    for k, v in vars(a).items():
        if isinstance(v, Path):
            v = str(v.resolve())
        elif isinstance(v, list):
            v = [str(x.resolve()) if isinstance(x, Path) else x for x in v]
        out[k] = v
    return out


def run_remote(a, settings, locked: StoreLocked) -> dict:
    """The command ``a`` run by the server that holds the store; ``locked`` is raised again when no
    server is recorded."""
    server = read_server_file(settings)
    if server is None or a.cmd not in COMMANDS:
        raise locked
    try:
        r = httpx.post(f"{server['url']}/api/v1/cli/{a.cmd}", json={"args": _args(a)}, timeout=TIMEOUT_S,
                       headers={"Authorization": f"Bearer {server['token']}"})
    except httpx.HTTPError as exc:
        raise StoreUnavailable(f"The store is held by a server at {server['url']} that did not answer "
                               f"({type(exc).__name__}). {locked.message}") from None
    data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code != 200:
        err = data.get("error", {})
        exc = SwrError(err.get("message") or f"The server answered HTTP {r.status_code}.")
        exc.kind = err.get("code", "error")
        raise exc
    return data


