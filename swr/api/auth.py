"""Who is calling: a Bearer API key (:mod:`swr.manage.access.keys`), the local server token of the command
line (``SWR_HOME/server.json``), or nobody, which only the open local mode allows (no users
configured, a loopback client), as in the app. Every keyed call is audited (``key_use``) and
counted against the key's own limits."""
from __future__ import annotations

import getpass
import hmac
import threading
from dataclasses import dataclass, field

from fastapi import Request

from swr.api.errors import ApiError
from swr.manage.access import Actor, AuditLog, GuardedEngine, Limits, UserStore, is_loopback
from swr.manage.access.keys import KeyStore


@dataclass
class ApiState:
    """What every request of one API application shares."""

    get_engine: object  # () -> Engine
    server_token: str | None = None  # the command line's token (swr.api.serve)
    cli_commands: object = None  # (command, args, view) -> dict: the command line's, run here (cli_route)
    limits: dict = field(default_factory=dict)  # key id -> Limits
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def engine(self):
        return self.get_engine()

    def key_limits(self, key: dict) -> Limits:
        """The key's limits, counted in ``SWR_HOME/auth/key_limits/<key id>.json`` so that every
        process on this ``SWR_HOME`` (the app, ``serve``) counts into the same windows."""
        with self.lock:
            lim = self.limits.get(key["id"])
            if lim is None or (lim.questions_per_min, lim.upload_mb_per_hour) != \
                    (key["questions_per_min"], key["upload_mb_per_hour"]):
                path = self.engine.settings.home / "auth" / "key_limits" / f"{key['id']}.json"
                lim = self.limits[key["id"]] = Limits(key["questions_per_min"], key["upload_mb_per_hour"],
                                                      path=path, shared=True)
            return lim


@dataclass
class Caller:
    view: GuardedEngine
    key: dict | None

    @property
    def actor(self) -> Actor:
        return self.view.actor


def bearer(request: Request) -> str | None:
    """The Bearer token of the request (None without an Authorization header); ApiError 401 when
    the header is there but not ``Bearer <token>``."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_authorization_header", "Expected the header 'Authorization: Bearer <api-key>'.",
                       {"WWW-Authenticate": "Bearer"})
    return token.strip()


def _operator() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def caller(request: Request, state: ApiState, token: str | None, where: str) -> Caller:
    """The checked engine view of whoever sent ``request`` (ApiError 401/403 when nobody may)."""
    engine = state.engine
    settings = engine.settings
    users = UserStore.for_settings(settings)
    client = request.client.host if request.client else None
    if token is not None and state.server_token and hmac.compare_digest(token, state.server_token):
        if not is_loopback(client):
            raise ApiError(401, "unauthorized", "The local server token is accepted from this machine only.")
        return Caller(engine.as_user(Actor(_operator(), "admin", frozenset({"*"}), frozenset({"*"}))), None)
    if token is None:
        if users.configured():
            raise ApiError(401, "unauthorized", "An API key is required: 'Authorization: Bearer <api-key>' "
                                                "(python -m swr keys create, or the Users page).",
                           {"WWW-Authenticate": "Bearer"})
        if not is_loopback(client):
            raise ApiError(403, "open_mode_loopback_only", "No users are configured: the API answers this "
                                                           "machine only (create users and API keys first).")
        return Caller(engine.as_user(Actor.local_user(), limits=Limits()), None)
    key = KeyStore.for_settings(settings).authenticate(token)
    if key is None:
        raise ApiError(401, "unauthorized", "The API key is not valid (unknown, revoked or mistyped).",
                       {"WWW-Authenticate": "Bearer"})
    try:
        actor = KeyStore.for_settings(settings).actor(key, users)
    except Exception:  # its user was deleted
        raise ApiError(401, "unauthorized", "The API key's user no longer exists.") from None
    view = engine.as_user(actor, limits=state.key_limits(key))
    AuditLog.for_settings(settings).append(actor.name, actor.role, "key_use", object=key["id"], detail=where)
    return Caller(view, key)
