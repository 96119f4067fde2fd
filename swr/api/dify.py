"""Dify's External Knowledge API at ``POST /dify/retrieval`` (register ``http://HOST:PORT/dify`` in
Dify as the endpoint and the knowledge base's name as the External Knowledge ID).

``score`` is the hit sentence's cosine similarity to the question (multilingual-e5), clipped to
0..1, and 0 for a hit the dense search did not return; ``score_threshold`` is applied to it.
``content`` is the hit's window, ``title`` the document's name; ``metadata`` (never null) holds
the string ``document_id``, the page, the hit sentence, its offsets in the window and its
language. ``metadata_condition``: the document name (``title``/``source``/``document_name``:
``is``, ``in``), ``tags`` (``is``, ``in``, ``contains``) and ``lang``/``language`` (``is``) map
onto swr's filters (``and`` only, or a single condition); anything else is refused with HTTP 400
and ``error_code`` 4001. Errors: 1001 (no ``Bearer`` header), 1002 (key refused), 2001 (no such
knowledge base readable by the key), as Dify suggests."""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from swr.api import shape
from swr.api.auth import bearer, caller
from swr.api.errors import ApiError, status_of
from swr.api.models import ErrorBody
from swr.core.errors import NotFound, SwrError
from swr.core.params import MAX_QUESTION_CHARS, MAX_TOP_K

router = APIRouter(prefix="/dify", tags=["dify"])
NAMES = {"title": "sources", "source": "sources", "document_name": "sources", "tag": "tags", "tags": "tags",
         "lang": "lang", "language": "lang"}
OPERATORS = {"sources": {"is", "in"}, "tags": {"is", "in", "contains"}, "lang": {"is"}}


class RetrievalSetting(BaseModel):
    top_k: int = Field(ge=1, le=MAX_TOP_K)
    score_threshold: float = Field(0.0, ge=0.0, le=1.0)


class Condition(BaseModel):
    name: str | list[str]
    comparison_operator: str = Field(max_length=32)
    value: str | float | list[str] | None = None


class MetadataCondition(BaseModel):
    logical_operator: Literal["and", "or"] = "and"
    conditions: list[Condition] = Field(default_factory=list, max_length=20)


class DifyRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    knowledge_id: str = Field(min_length=1, max_length=64)
    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    retrieval_setting: RetrievalSetting
    metadata_condition: MetadataCondition | None = None


class Record(BaseModel):
    content: str
    score: float
    title: str
    metadata: dict


class DifyRecords(BaseModel):
    records: list[Record]


class DifyError(BaseModel):
    error_code: int
    error_msg: str


def err(status: int, code: int, msg: str) -> JSONResponse:
    return JSONResponse({"error_code": code, "error_msg": msg}, status_code=status)


def filters(cond: MetadataCondition | None) -> dict:
    """swr's filters for Dify's ``metadata_condition``; ValueError names what cannot be mapped."""
    if cond is None or not cond.conditions:
        return {}
    if cond.logical_operator == "or" and len(cond.conditions) > 1:
        raise ValueError("logical_operator 'or' across several conditions is not supported (use 'and').")
    out: dict = {}
    for c in cond.conditions:
        for name in [c.name] if isinstance(c.name, str) else c.name:
            field = NAMES.get(name)
            if field is None:
                raise ValueError(f"metadata field {name!r} cannot be filtered on; use one of {', '.join(NAMES)}.")
            if c.comparison_operator not in OPERATORS[field]:
                raise ValueError(f"operator {c.comparison_operator!r} is not supported on {name!r}; use "
                                 f"{', '.join(sorted(OPERATORS[field]))}.")
            values = c.value if isinstance(c.value, list) else [c.value]
            values = [str(v) for v in values if v is not None and str(v)]
            if not values:
                raise ValueError(f"condition on {name!r} needs a value.")
            if field == "lang":
                out["lang"] = values[0]
            else:
                out[field] = tuple(sorted(set(out.get(field, ())) | set(values)))
    return out


@router.post("/retrieval", response_model=DifyRecords,
             responses={400: {"model": DifyError}, 403: {"model": DifyError}, 404: {"model": DifyError},
                        422: {"model": ErrorBody}, 503: {"model": DifyError}})
def retrieval(req: DifyRequest, request: Request):
    """Records for a Dify knowledge-retrieval node, from the knowledge base's published settings."""
    try:
        c = caller(request, request.app.state.api, bearer(request), "POST /dify/retrieval")
    except ApiError as exc:
        return err(403, 1001 if exc.code == "bad_authorization_header" else 1002, exc.message)
    try:
        changes = filters(req.metadata_condition)
    except ValueError as exc:
        return err(400, 4001, str(exc))
    try:
        params = c.view.kb_params(req.knowledge_id, top_k=req.retrieval_setting.top_k, **changes)
        res = c.view.ask(req.query, req.knowledge_id, params, llm=False)
    except NotFound:
        return err(404, 2001, f"The knowledge base {req.knowledge_id!r} does not exist.")
    except SwrError as exc:
        return err(status_of(exc), 500 if status_of(exc) >= 500 else 400, exc.message)
    return {"records": records(c.view, res, req.retrieval_setting.score_threshold, req.retrieval_setting.top_k)}


def records(view, res, threshold: float, limit: int | None = None) -> list[dict]:
    """Dify's records of ``res``: at most ``limit`` (Dify's top_k is a maximum; cross-lingual search
    adds places beside the top k, the first ``limit`` in rank order are kept), none below ``threshold``."""
    out = []
    for r in shape.results(view, res):
        score = min(1.0, max(0.0, r["scores"]["dense"] or 0.0))
        if score < threshold:
            continue
        doc = r["document"]
        out.append({"content": r["window"], "score": round(score, 6), "title": doc["name"],
                    "metadata": {"document_id": str(doc["id"]), "document_name": doc["name"],
                                 "page": doc["page"], "sentence": r["sentence"], "sentence_index": r["sentence_index"],
                                 "start": r["highlight"]["start"], "end": r["highlight"]["end"],
                                 "lang": r["lang"], "knowledge_base": res.kb, "rank": r["rank"]}})
    return out[:limit] if limit else out
