"""The API application: :func:`create_app` around one engine getter (the app's cached engine, or
the engine of ``python -m swr serve``). OpenAPI at ``/api/openapi.json``, its page at ``/api/docs``."""
from __future__ import annotations

import contextlib

from fastapi import FastAPI
from starlette.routing import Route

from swr import __version__
from swr.api import cli_route, dify, errors, native, openai_compat
from swr.api.auth import ApiState
from swr.api.mcp_server import McpEndpoint

PREFIXES = ("/api/", "/dify/", "/v1/", "/mcp")  # the paths this application answers (beside the pages)


def create_app(get_engine, *, server_token: str | None = None, cli_commands=None) -> FastAPI:
    state = ApiState(get_engine, server_token, cli_commands=cli_commands)
    mcp = McpEndpoint(state)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async with mcp.session_manager.run():
            yield

    app = FastAPI(title="swr API", version=__version__, lifespan=lifespan, docs_url="/api/docs",
                  openapi_url="/api/openapi.json", redoc_url=None,
                  description="Sentence-window retrieval over knowledge bases: the published settings of each "
                              "knowledge base, Dify external knowledge, OpenAI-compatible chat and MCP. "
                              "Authenticate with 'Authorization: Bearer <api-key>'.")
    app.state.api = state
    errors.install(app)
    app.include_router(native.router)
    app.include_router(dify.router)
    app.include_router(openai_compat.router)
    app.include_router(cli_route.router)
    app.router.routes.append(Route("/mcp", endpoint=mcp, methods=["GET", "POST", "DELETE"],
                                   include_in_schema=False))
    return app


def lifespan_of(api: FastAPI):
    """The API's lifespan, to run inside another application's (Streamlit's ``App``)."""
    return api.router.lifespan_context(api)
