"""``POST /api/v1/cli/{command}``: the command line's commands run by the server that holds the
store (:mod:`swr.api.client`). The local server token only (``SWR_HOME/server.json``, from this
machine); not in the OpenAPI schema."""
from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from pydantic import BaseModel

from .auth import bearer, caller
from .client import COMMANDS
from .errors import ApiError

router = APIRouter(prefix="/api/v1/cli", include_in_schema=False)


class CliRequest(BaseModel):
    args: dict


@router.post("/{command}")
def run(command: str, req: CliRequest, request: Request) -> dict:
    from .. import cli, cli_serve

    state = request.app.state.api
    token = bearer(request)
    if not (token and state.server_token and hmac.compare_digest(token, state.server_token)):
        raise ApiError(401, "unauthorized", "The command-line route takes the local server token only.")
    if command not in COMMANDS:
        raise ApiError(404, "not_found", f"No command {command!r} through the server.")
    view = caller(request, state, token, f"cli {command}").view
    handler = {"ask": cli.cmd_ask, "index": cli.cmd_index, "kbs": cli.cmd_kbs, "check": cli.cmd_check}[command]
    args = dict(req.args, json=True)  # progress bars and prints stay with the client
    return handler(cli_serve.namespace(command, args), eng=view)
