"""MCP at ``/mcp`` (the official ``mcp`` SDK's server, Streamable HTTP, stateless, JSON responses):
read-only tools for AI agents: ``list_knowledge_bases`` (with descriptions, so an agent can choose),
``retrieve`` (windows and answerability, from the published settings), ``get_window`` (the sentences
around one sentence of a document) and ``check_answer``.

The transport asks servers to check ``Origin`` (DNS rebinding): a request with an Origin header is
refused (403) unless it is a loopback origin, the server's own host, or one of ``SWR_API_ORIGINS``
(comma-separated, ``Settings.api_origins``). Authentication is the API's: a Bearer key, or the open local mode."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse

from swr.api import shape
from swr.api.auth import bearer, caller
from swr.api.errors import ApiError, body, status_of
from swr.core.errors import SwrError
from swr.retrieve.window import MAX_WINDOW

INSTRUCTIONS = ("swr answers questions from knowledge bases of product manuals and FAQs: call "
                "list_knowledge_bases, then retrieve with a question; every result is a window of sentences "
                "around a hit sentence. check_answer checks a draft answer sentence by sentence.")


def _view(ctx: Context):
    return ctx.request_context.request.state.swr_caller.view


def build() -> MCPServer:
    # the SDK configures the root logger at construction (logging.basicConfig, a no-op when the process
    # already has handlers): at its default INFO every library's chatter would reach the server's stderr
    mcp = MCPServer("swr", instructions=INSTRUCTIONS, log_level="WARNING")

    @mcp.tool(description="The knowledge bases you may read, with what each holds and its published version.")
    async def list_knowledge_bases(ctx: Context) -> dict[str, Any]:
        view = _view(ctx)
        return {"knowledge_bases": await anyio.to_thread.run_sync(lambda: [shape.kb_row(view, k)
                                                                           for k in view.kbs()])}

    @mcp.tool(description="Search a knowledge base: windows of sentences around the best hits, with scores, "
                          "documents and whether the knowledge base answers the question at all.")
    async def retrieve(question: str, knowledge_base: str, ctx: Context, top_k: int | None = None) -> dict[str, Any]:
        view = _view(ctx)

        def run():
            res = view.ask(question, knowledge_base, view.kb_params(knowledge_base, top_k=top_k), llm=False)
            return shape.retrieval(view, res)

        return await _call(run)

    @mcp.tool(description="The sentences around sentence number `sentence` of document `doc` (its id): "
                          "`before` sentences before and `after` after it (at most 10 each).")
    async def get_window(knowledge_base: str, doc: str, sentence: int, ctx: Context, before: int = 3,
                         after: int = 3) -> dict[str, Any]:
        view = _view(ctx)
        before, after = max(0, min(int(before), MAX_WINDOW)), max(0, min(int(after), MAX_WINDOW))

        def run():
            keys = [(doc, i) for i in range(max(0, sentence - before), sentence + after + 1)]
            got = view.fetch_sentences(knowledge_base, keys)
            rows = [got[k] for k in keys if k in got]
            return {"knowledge_base": knowledge_base, "doc": doc, "sentence": sentence,
                    "sentences": [{"i": s.i, "text": s.text.strip(), "page": s.page, "hit": s.i == sentence}
                                  for s in rows],
                    "document": rows[0].source if rows else None}

        return await _call(run)

    @mcp.tool(description="Check a draft answer sentence by sentence against the knowledge base's evidence "
                          "for the question: supported, contradicted or not found, with reasons.")
    async def check_answer(question: str, answer: str, knowledge_base: str, ctx: Context) -> dict[str, Any]:
        view = _view(ctx)

        def run():
            res = view.ask(question, knowledge_base, view.kb_params(knowledge_base), llm=False)
            res.answer, res.answer_kind, res.answerable = answer, "llm", True
            return view.check(res) or {"support": 0.0, "sentences": []}

        return await _call(run)

    return mcp


async def _call(fn) -> dict[str, Any]:
    try:
        return await anyio.to_thread.run_sync(fn)
    except SwrError as exc:
        return body(exc.kind, exc.message, status=status_of(exc))


def allowed_origin(origin: str | None, host: str | None, extra: tuple[str, ...] = ()) -> bool:
    """Whether a browser ``origin`` may call: none (not a browser), loopback, the server's own
    ``host``, or one of ``extra`` (``Settings.api_origins``, SWR_API_ORIGINS)."""
    if not origin:
        return True
    if origin.rstrip("/") in extra:
        return True
    name = urlsplit(origin).hostname or ""
    return name in ("localhost", "127.0.0.1", "::1") or (bool(host) and urlsplit(origin).netloc == host)


class McpEndpoint:
    """The MCP app behind the API's Origin check and authentication."""

    def __init__(self, api_state) -> None:
        self.server = build()
        self.app = self.server.streamable_http_app(
            streamable_http_path="/mcp", stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.api_state = api_state

    @property
    def session_manager(self):
        return self.server.session_manager

    async def __call__(self, scope, receive, send) -> None:
        request = Request(scope, receive)
        origins = self.api_state.engine.settings.api_origins
        if not allowed_origin(request.headers.get("origin"), request.headers.get("host"), origins):
            resp = JSONResponse(body("origin_refused", "This Origin may not call the MCP endpoint."), status_code=403)
            return await resp(scope, receive, send)
        try:
            who = await anyio.to_thread.run_sync(lambda: caller(request, self.api_state, bearer(request), "MCP"))
        except ApiError as exc:
            return await JSONResponse(body(exc.code, exc.message), status_code=exc.status,
                                      headers=exc.headers)(scope, receive, send)
        scope.setdefault("state", {})["swr_caller"] = who
        scope = dict(scope, path="/mcp", raw_path=b"/mcp")
        await self.app(scope, receive, send)
