"""``POST /api/v1/cli/{command}``: the command line's commands run by the server that holds the
store (:mod:`swr.api.client`). The local server token only (``SWR_HOME/server.json``, from this
machine); not in the OpenAPI schema. The commands themselves are the command line's: whoever builds
the application passes them in (``create_app(..., cli_commands=...)``), so the API never imports the
command line."""
from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from pydantic import BaseModel

from swr.api.auth import bearer, caller
from swr.api.errors import ApiError

router = APIRouter(prefix="/api/v1/cli", include_in_schema=False)
#: The commands a command line may run through the server.
COMMANDS = ("ask", "index", "kbs", "check")


class CliRequest(BaseModel):
    args: dict


@router.post("/{command}")
def run(command: str, req: CliRequest, request: Request) -> dict:
    state = request.app.state.api
    token = bearer(request)
    if not (token and state.server_token and hmac.compare_digest(token, state.server_token)):
        raise ApiError(401, "unauthorized", "The command-line route takes the local server token only.")
    if command not in COMMANDS or state.cli_commands is None:
        raise ApiError(404, "not_found", f"No command {command!r} through the server.")
    view = caller(request, state, token, f"cli {command}").view
    args = dict(req.args, json=True)  # progress bars and prints stay with the client
    return state.cli_commands(command, args, view)
