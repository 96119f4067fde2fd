"""Running the API: ``python -m swr serve`` (uvicorn, the API alone) and the server file
``SWR_HOME/server.json`` (mode 0600: the owner only) where a running server (this one or
``streamlit run app.py``) records where it listens and the local token the command line uses to go
through it while the server holds the embedded store."""
from __future__ import annotations

import json
import os
import secrets
import signal
import sys
from pathlib import Path

from swr.core.errors import BadRequest
from swr.core.files import write_json_atomic

SERVER_FILE = "server.json"


def server_file(settings) -> Path:
    return Path(settings.home) / SERVER_FILE


def write_server_file(settings, url: str, token: str) -> Path:
    """Record ``url`` and ``token`` for the command line; readable and writable by the owner only."""
    path = server_file(settings)
    return write_json_atomic(path, {"url": url, "token": token, "pid": os.getpid()})


def read_server_file(settings) -> dict | None:
    path = server_file(settings)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("url") and data.get("token") else None


def remove_server_file(settings, token: str) -> None:
    """Remove the server file if it is still this server's (another may have started since)."""
    data = read_server_file(settings)
    if data and data.get("token") == token:
        server_file(settings).unlink(missing_ok=True)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else "[::1]" if host == "::" else host
    return f"http://{shown}:{port}"


def run(host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "warning", cli_commands=None) -> None:
    """Serve the API alone with uvicorn on ``host``:``port`` (no pages); blocks until stopped.
    ``cli_commands``: the command line's commands, run here for a command line on this machine."""
    import uvicorn

    from swr.api.app import create_app
    from swr.core.settings import Settings
    from swr.engine import Engine
    from swr.manage.access import UserStore, open_mode_refusal

    settings = Settings.from_env()
    why = open_mode_refusal(host, UserStore.for_settings(settings).configured())
    if why:
        raise BadRequest(why.replace("(server.address in .streamlit/config.toml)", "(--host 127.0.0.1)"))
    engine = Engine(settings)
    token = new_token()
    app = create_app(lambda: engine, server_token=token, cli_commands=cli_commands)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    write_server_file(settings, url_for(host, port), token)
    # uvicorn stops gracefully on SIGTERM, then raises the signal again to its previous handler:
    # make that an exit, so the server file is removed and the store closed below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.run()
    finally:
        remove_server_file(settings, token)
        engine.close()
