"""JSON errors with a stable code, never a traceback: ``{"error": {"code", "message"}}``."""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from swr.core.errors import (
    BadRequest,
    Forbidden,
    LLMUnavailable,
    NotFound,
    StoreLocked,
    StoreUnavailable,
    SwrError,
)

log = logging.getLogger("swr.api")

# the HTTP status of each typed error (checked in order: subclasses first)
STATUS = ((NotFound, 404), (Forbidden, 403), (LLMUnavailable, 503), (StoreLocked, 503), (StoreUnavailable, 503),
          (BadRequest, 400))


class ApiError(Exception):
    """An error the API answers with ``status`` and ``code`` (auth, open mode, limits)."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


def body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def status_of(exc: SwrError) -> int:
    if getattr(exc, "kind", "") == "limit":
        return 429
    return next((s for cls, s in STATUS if isinstance(exc, cls)), 500)


def swr_response(exc: SwrError) -> JSONResponse:
    status = status_of(exc)
    headers = {"Retry-After": str(getattr(exc, "retry_after", 60))} if status == 429 else None
    return JSONResponse(body(exc.kind, exc.message), status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """The exception handlers of the API (every path, the Dify one answers in its own shape)."""

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError):
        return JSONResponse(body(exc.code, exc.message), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(SwrError)
    async def _swr(request: Request, exc: SwrError):
        return swr_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        details = [{"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in exc.errors()]
        return JSONResponse(body("invalid_request", "The request does not match the schema.", details=details),
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(body(code, str(exc.detail)), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(body("internal", "Internal error; the server log has the details."), status_code=500)
