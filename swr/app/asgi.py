"""One process for the pages and the API: ``streamlit run app.py`` finds the ``st.App`` that
:func:`app_options` configures in ``app.py`` and serves it with uvicorn. The API's paths
(:data:`swr.api.app.PREFIXES`) go to the API application, everything else to Streamlit; both use
the app's one cached engine (``swr.app.base.get_engine``). While it runs, ``SWR_HOME/server.json``
tells the command line where it listens."""
from __future__ import annotations

import contextlib
import logging
import threading

log = logging.getLogger("swr.app.asgi")
_CONTEXT_LOGGER = "streamlit.runtime.scriptrunner_utils.script_run_context"


class _ApiThreads(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext!" warning in a thread that is getting the engine
    for an API request: the cached engine's spinner looks for a page to draw on, and an API request
    has none (the warning says it "can be ignored"; a lead reading the log would still ask)."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.local, "api", False)


_API_THREADS = _ApiThreads()


def api_engine():
    """The app's one cached engine (``swr.app.base.get_engine``), for the API's requests."""
    from swr.app.base import get_engine

    logger = logging.getLogger(_CONTEXT_LOGGER)
    if _API_THREADS not in logger.filters:
        logger.addFilter(_API_THREADS)
    _API_THREADS.local.api = True
    try:
        return get_engine()
    finally:
        _API_THREADS.local.api = False


class ApiDispatch:
    """ASGI middleware: requests under the API's paths to ``api``, the rest to Streamlit."""

    def __init__(self, app, api) -> None:
        self.app, self.api = app, api

    async def __call__(self, scope, receive, send) -> None:
        from swr.api.app import PREFIXES

        path = scope.get("path", "")
        if scope["type"] == "http" and (path.startswith(PREFIXES) or path == "/mcp"):
            await self.api(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def app_options() -> dict:
    """The keywords of ``st.App`` that put the API beside the pages: its lifespan and its dispatch."""
    from starlette.middleware import Middleware

    from swr.api.app import create_app, lifespan_of
    from swr.api.serve import new_token, remove_server_file, url_for, write_server_file
    from swr.cli.main import run_command

    token = new_token()
    api = create_app(api_engine, server_token=token, cli_commands=run_command)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        from streamlit import config

        settings = None
        try:
            from swr.core.settings import Settings

            settings = Settings.from_env()
            url = url_for(config.get_option("server.address") or "127.0.0.1", int(config.get_option("server.port")))
            write_server_file(settings, url, token)
        except OSError as exc:  # the API still answers; only the command line cannot find it
            log.warning("could not write the server file: %s", exc)
        async with lifespan_of(api):
            yield
        if settings is not None:
            remove_server_file(settings, token)

    return {"lifespan": lifespan, "middleware": [Middleware(ApiDispatch, api=api)]}
