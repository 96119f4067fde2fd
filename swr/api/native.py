"""The native API under ``/api/v1``: health, knowledge bases, retrieve, ask (streamed as Server-Sent
Events when asked), check, and document upload/delete for a helpdesk's sync job (writers only)."""
from __future__ import annotations

import json
from collections.abc import Iterator

from fastapi import APIRouter, Depends, File, Request, UploadFile
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool

from swr import __version__
from swr.api import models as m, shape
from swr.api.auth import Caller, bearer, caller
from swr.api.errors import body, status_of
from swr.core.errors import LLMUnavailable, SwrError
from swr.core.rules.serving import DEFAULT_SERVING
from swr.ingest.priority import run_below

router = APIRouter(prefix="/api/v1")
AUTH = {code: {"model": m.ErrorBody, "description": why} for code, why in (
    (400, "a parameter out of range or an unusable question"), (401, "no or bad API key"),
    (403, "the key's user may not do this"), (404, "no such knowledge base readable by the key"),
    (422, "the request does not match the schema"), (429, "the key's limit was reached (Retry-After)"),
    (503, "the store or the LLM is unavailable"))}


def who(request: Request) -> Caller:
    return caller(request, request.app.state.api, bearer(request), f"{request.method} {request.url.path}")


def _params(view, kb: str, overrides: m.Overrides | None):
    return view.kb_params(kb, **(overrides.changes() if overrides else {}))


def _history(req) -> list[dict] | None:
    return [t.model_dump() for t in req.history] if req.history else None


@router.get("/health", response_model=m.Health, tags=["native"])
def health() -> dict:
    """Liveness: no key needed."""
    return {"status": "ok", "version": __version__}


@router.get("/knowledge-bases", response_model=m.KnowledgeBases, responses=AUTH, tags=["native"])
def knowledge_bases(c: Caller = Depends(who)) -> dict:
    """The knowledge bases this key may read, with their published version and document counts."""
    return {"knowledge_bases": [shape.kb_row(c.view, k) for k in c.view.kbs()]}


@router.post("/retrieve", response_model=m.Retrieval, responses=AUTH, tags=["native"])
def retrieve(req: m.RetrieveRequest, request: Request) -> dict:
    """Windows around the best sentences for a question, from the published settings (or ``overrides``)."""
    c = who(request)  # here, not as a dependency: one threadpool hop a question instead of two
    res = c.view.ask(req.question, req.knowledge_base, _params(c.view, req.knowledge_base, req.overrides),
                     llm=False, history=_history(req))
    return shape.retrieval(c.view, res)


@router.post("/ask", response_model=m.Answer, responses=AUTH, tags=["native"])
def ask(req: m.AskRequest, request: Request):
    """An answer with its evidence and per-sentence check; ``stream: true`` answers with Server-Sent
    Events: ``delta`` events (``{"text"}``), then ``sources`` (the retrieval) and ``check``, then ``done``."""
    c = who(request)
    params = _params(c.view, req.knowledge_base, req.overrides)
    result, stream = c.view.ask_stream(req.question, req.knowledge_base, params, llm=req.llm, history=_history(req))
    if not req.stream:
        if stream is not None:
            c.view.finish(result, stream)
        c.view.check(result)
        return shape.answer(c.view, result)
    return StreamingResponse(iterate_in_threadpool(_events(c.view, result, stream)), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _events(view, result, stream) -> Iterator[str]:
    try:
        if stream is None:
            yield sse("delta", {"text": result.answer})
        else:
            yield from stream_answer(view, result, stream, lambda d: sse("delta", {"text": d}))
        view.check(result)
        yield sse("sources", shape.retrieval(view, result))
        yield sse("check", {"check": result.check, "answer": result.answer, "answer_kind": result.answer_kind,
                            "llm_error": result.llm_error})
        yield sse("done", {})
    except SwrError as exc:
        yield sse("error", body(exc.kind, exc.message, status=status_of(exc)))


def stream_answer(view, result, stream, frame) -> Iterator:
    """``frame(delta)`` for each delta as the LLM writes it; the answer kept in ``result``. When the
    LLM fails midway, the extractive answer follows as one more delta (``result.llm_error`` says why)."""
    parts: list[str] = []
    try:
        for d in stream:
            parts.append(d)
            yield frame(d)
        result.answer = "".join(parts)
    except LLMUnavailable as exc:
        view.finish(result, _failing(exc))
        yield frame(("\n\n" if parts else "") + result.answer)


def _failing(exc):
    raise exc
    yield  # a generator that fails at once


@router.post("/check", response_model=m.Check, responses=AUTH, tags=["native"])
def check(req: m.CheckRequest, request: Request) -> dict:
    """Any answer checked sentence by sentence against the evidence for the question (as ``swr check``)."""
    c = who(request)
    res = c.view.ask(req.question, req.knowledge_base, _params(c.view, req.knowledge_base, req.overrides),
                     llm=False)
    res.answer, res.answer_kind, res.answerable = req.answer, "llm", True
    out = c.view.check(res) or {"support": 0.0, "sentences": []}
    return {**out, "question": res.question, "knowledge_base": res.kb,
            "passages": [{"n": n, "source": p.source, "first": p.first, "last": p.last, "text": p.text}
                         for n, p in enumerate(res.passages, 1)]}


@router.post("/knowledge-bases/{kb}/documents", response_model=m.Upload, responses=AUTH, tags=["native"])
def upload(kb: str, files: list[UploadFile] = File(...), c: Caller = Depends(who)) -> dict:
    """Index files into ``kb`` with the app's loaders and limits; a bad file gets its own error and
    the others are still indexed. Editors with an edit grant and admins only."""
    items = [(f.filename or "upload", f.file.read()) for f in files]
    # on a thread below the questions: askers meanwhile get the cores first
    results = run_below(lambda: c.view.index_files(kb, items), DEFAULT_SERVING.upload_nice)
    return {"knowledge_base": kb, "files": [r.to_dict() for r in results],
            "indexed": sum(r.ok for r in results), "failed": sum(not r.ok for r in results)}


@router.delete("/knowledge-bases/{kb}/documents/{doc_id}", response_model=m.Deleted, responses=AUTH,
               tags=["native"])
def delete_document(kb: str, doc_id: str, c: Caller = Depends(who)) -> dict:
    """Move a document to the trash (restorable). Editors with an edit grant and admins only."""
    return {"knowledge_base": kb, "document": doc_id, "deleted_sentences": c.view.delete_doc(kb, doc_id)}
