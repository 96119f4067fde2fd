"""OpenAI-compatible chat: ``GET /v1/models`` (one model per readable knowledge base, its name) and
``POST /v1/chat/completions`` (the last user message is the question, the earlier messages its
history; system messages are ignored). The written answer, or the extractive one without an LLM;
``sources`` (the retrieval) and ``check`` ride in the response, and in the final chunk when
streaming (``data: [DONE]`` after it)."""
from __future__ import annotations

import json
import time
import uuid
from typing import Literal

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import iterate_in_threadpool

from swr.api import shape
from swr.api.auth import Caller
from swr.api.errors import body, status_of
from swr.api.native import AUTH, stream_answer, who
from swr.core.errors import BadRequest, SwrError

router = APIRouter(prefix="/v1", tags=["openai"])


class Message(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict] | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = Field(min_length=1, max_length=64)
    messages: list[Message] = Field(min_length=1, max_length=100)
    stream: bool = False


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content or ""


def split(messages: list[Message]) -> tuple[str, list[dict]]:
    """The question (the last user message) and the history before it."""
    turns = [{"role": m.role, "content": _text(m.content)} for m in messages if m.role in ("user", "assistant")]
    if not turns or turns[-1]["role"] != "user" or not turns[-1]["content"].strip():
        raise BadRequest("The last message must be the user's question.")
    return turns[-1]["content"], turns[:-1]


@router.get("/models", responses=AUTH)
def models(c: Caller = Depends(who)) -> dict:
    """One model per readable knowledge base."""
    return {"object": "list", "data": [{"id": k["kb"], "object": "model", "created": 0, "owned_by": "swr"}
                                       for k in c.view.kbs()]}


@router.post("/chat/completions", responses=AUTH)
def chat(req: ChatRequest, c: Caller = Depends(who)):
    question, history = split(req.messages)
    result, stream = c.view.ask_stream(question, req.model, c.view.kb_params(req.model), history=history or None)
    cid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    if not req.stream:
        if stream is not None:
            c.view.finish(result, stream)
        c.view.check(result)
        return {"id": cid, "object": "chat.completion", "created": created, "model": req.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": result.answer},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": result.context_tokens, "completion_tokens": 0,
                          "total_tokens": result.context_tokens},
                "sources": shape.retrieval(c.view, result), "check": result.check}
    return StreamingResponse(iterate_in_threadpool(_chunks(c.view, result, stream, cid, created, req.model)),
                             media_type="text/event-stream", headers={"Cache-Control": "no-store"})


def _chunks(view, result, stream, cid: str, created: int, model: str):
    def chunk(delta: dict, finish=None, **extra) -> str:
        data = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"

    try:
        yield chunk({"role": "assistant", "content": ""})
        if stream is None:
            yield chunk({"content": result.answer})
        else:
            yield from stream_answer(view, result, stream, lambda d: chunk({"content": d}))
        view.check(result)
        yield chunk({}, "stop", sources=shape.retrieval(view, result), check=result.check)
    except SwrError as exc:
        yield f"data: {json.dumps(body(exc.kind, exc.message, status=status_of(exc)))}\n\n"
    yield "data: [DONE]\n\n"
