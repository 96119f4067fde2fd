"""A real, scriptable OpenAI-compatible HTTP server on 127.0.0.1 for tests.

It speaks ``POST /v1/chat/completions`` (plain JSON and ``"stream": true`` server-sent events,
chunked), a minimal ``POST /v1/completions`` and ``GET /v1/models``. Every request is recorded in
``server.requests`` (method, path, headers, parsed JSON body).

Script it with ``server.reply`` (a string, or a function of the request body returning one) and
``server.mode``:

- ``"ok"``        normal answer
- ``"401"``       invalid key (the error message echoes the key, as careless servers do)
- ``"429"``       rate limited
- ``"500"``       server error
- ``"slow"``      sleeps ``slow_s`` seconds before answering (longer than the client timeout)
- ``"cut"``       streams ``cut_after`` content chunks, then drops the connection mid-body
- ``"stall"``     streams ``cut_after`` content chunks, then sends nothing for ``slow_s`` seconds
- ``"truncated"`` streams some chunks, then ends the body cleanly with no finish_reason / [DONE]
- ``"malformed"`` answers 200 with invalid JSON

Use the ``fake_llm`` fixture (import it into the test module), or ``with FakeLLM() as server:``.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

MODES = ("ok", "401", "429", "500", "slow", "cut", "stall", "truncated", "malformed")


class FakeLLM:
    """The server; ``base_url`` is ``http://127.0.0.1:<port>/v1``."""

    def __init__(self, reply: str | Callable[[dict], str] = "Hello from the fake LLM [1].",
                 mode: str = "ok", *, model: str = "fake-model", chunk_chars: int = 4,
                 cut_after: int = 2, slow_s: float = 30.0):
        self.reply = reply
        self.mode = mode
        self.model = model
        self.chunk_chars = chunk_chars
        self.cut_after = cut_after
        self.slow_s = slow_s
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> "FakeLLM":
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Wake sleeping handlers, stop serving and close the socket."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- helpers for tests -------------------------------------------------------------------

    @property
    def last_body(self) -> dict:
        """The JSON body of the last request."""
        return self.requests[-1]["body"]

    def reply_for(self, body: dict) -> str:
        """The scripted reply text for this request."""
        return self.reply(body) if callable(self.reply) else str(self.reply)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeLLM  # set on the subclass made by FakeLLM.start

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    # -- plumbing ----------------------------------------------------------------------------

    def _read_body(self) -> Any:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, payload: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _event(self, payload: Any) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._chunk(f"data: {text}\n\n".encode())

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close the connection abruptly, in the middle of the chunked body."""
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    # -- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802
        self.fake.requests.append({"method": "GET", "path": self.path,
                                   "headers": dict(self.headers), "body": None})
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [
                {"id": self.fake.model, "object": "model", "owned_by": "fake"}]})
        else:
            self._send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def _post(self) -> None:
        body = self._read_body()
        self.fake.requests.append({"method": "POST", "path": self.path,
                                   "headers": dict(self.headers), "body": body})
        if not self.path.rstrip("/").endswith(("/chat/completions", "/completions")):
            self._send_json(404, {"error": {"message": f"unknown path {self.path}"}})
            return
        if self._scripted_failure():
            return
        chat = self.path.rstrip("/").endswith("/chat/completions")
        stream = isinstance(body, dict) and bool(body.get("stream"))
        text = self.fake.reply_for(body if isinstance(body, dict) else {})
        mode = self.fake.mode
        if stream:
            self._stream(text, chat, mode)
        elif mode == "malformed":
            self._send_json(200, None, raw=b'{"choices": [{"message": {"content": "oops"')
        else:
            self._send_json(200, _completion(text, self.fake.model, chat))

    def _scripted_failure(self) -> bool:
        """Answer the error modes (and sleep for "slow"); True when the request is done."""
        mode = self.fake.mode
        if mode == "slow":
            self.fake.stopping.wait(self.fake.slow_s)
            return False
        if mode == "401":
            key = self.headers.get("Authorization", "").removeprefix("Bearer ")
            self._send_json(401, {"error": {"message": f"Incorrect API key provided: {key}.",
                                            "type": "invalid_request_error",
                                            "code": "invalid_api_key"}})
            return True
        if mode == "429":
            self._send_json(429, {"error": {"message": "Rate limit reached, slow down.",
                                            "type": "rate_limit_error"}})
            return True
        if mode == "500":
            self._send_json(500, {"error": {"message": "Internal server error (fake).",
                                            "type": "server_error"}})
            return True
        return False

    def _stream(self, text: str, chat: bool, mode: str) -> None:
        """Send the reply as SSE chunks, or fail in the middle as the mode says."""
        model, n = self.fake.model, self.fake.chunk_chars
        pieces = [text[i:i + n] for i in range(0, len(text), n)] or [""]
        try:
            self._start_sse()
            if mode == "malformed":
                self._event('{"choices": [{"delta": {"content": "Hel')
                self._end_chunks()
                return
            if chat:
                self._event(_chunk(model, {"role": "assistant", "content": ""}, None))
            for k, piece in enumerate(pieces):
                if mode in ("cut", "truncated", "stall") and k >= self.fake.cut_after:
                    break
                self._event(_chunk(model, {"content": piece}, None) if chat
                            else _text_chunk(model, piece, None))
                time.sleep(0.005)
            if mode == "stall":  # the connection stays open, silent (a model that hangs mid-answer)
                self.fake.stopping.wait(self.fake.slow_s)
            if mode in ("cut", "stall"):
                self._drop()
                return
            if mode != "truncated":
                self._event(_chunk(model, {}, "stop") if chat else _text_chunk(model, "", "stop"))
                self._event("[DONE]")
            self._end_chunks()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _chunk(model: str, delta: dict, finish: str | None) -> dict:
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _text_chunk(model: str, text: str, finish: str | None) -> dict:
    return {"id": "cmpl-fake", "object": "text_completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "text": text, "finish_reason": finish}]}


def _completion(text: str, model: str, chat: bool) -> dict:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if chat:
        choice = {"index": 0, "message": {"role": "assistant", "content": text},
                  "finish_reason": "stop"}
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                "model": model, "choices": [choice], "usage": usage}
    choice = {"index": 0, "text": text, "finish_reason": "stop"}
    return {"id": "cmpl-fake", "object": "text_completion", "created": int(time.time()),
            "model": model, "choices": [choice], "usage": usage}


@pytest.fixture
def fake_llm():
    """A running :class:`FakeLLM` (mode "ok"), stopped after the test."""
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()
