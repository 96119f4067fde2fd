"""Request and response models of the native API (the OpenAPI schema at ``/api/openapi.json``)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from swr.core.params import (
    MAX_BUDGET_CHARS,
    MAX_QUESTION_CHARS,
    MAX_TOP_K,
    MAX_WINDOW,
    MIN_BUDGET_CHARS,
)


class Turn(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(max_length=20_000)


class Overrides(BaseModel):
    """Knobs that change the knowledge base's published settings for this request only."""

    model_config = ConfigDict(extra="forbid")
    top_k: int | None = Field(None, ge=1, le=MAX_TOP_K)
    window_size: int | None = Field(None, ge=0, le=MAX_WINDOW)
    window_mode: Literal["fixed", "section", "budget"] | None = None
    budget_chars: int | None = Field(None, ge=MIN_BUDGET_CHARS, le=MAX_BUDGET_CHARS)
    mode: Literal["dense", "sparse", "hybrid"] | None = None
    fusion: Literal["dbsf", "rrf", "weighted"] | None = None
    dense_weight: float | None = Field(None, ge=0.0, le=1.0)
    min_score: float | None = Field(None, ge=-1e6, le=1e6)
    sources: list[str] | None = Field(None, max_length=100)
    tags: list[str] | None = Field(None, max_length=100)
    lang: str | None = Field(None, max_length=8)

    def changes(self) -> dict:
        d = self.model_dump(exclude_none=True)
        for k in ("sources", "tags"):
            if k in d:
                d[k] = tuple(d[k])
        return d


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    knowledge_base: str = Field(min_length=1, max_length=64)
    overrides: Overrides | None = None
    history: list[Turn] | None = Field(None, max_length=50)


class AskRequest(RetrieveRequest):
    stream: bool = False
    llm: bool = True


class CheckRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    knowledge_base: str = Field(min_length=1, max_length=64)
    answer: str = Field(min_length=1, max_length=20_000)
    overrides: Overrides | None = None


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")
    code: str
    message: str


class ErrorBody(BaseModel):
    """Every error of the native and OpenAI-compatible API: a stable ``code`` and a message."""

    error: ErrorDetail


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class KnowledgeBase(BaseModel):
    name: str
    documents: int
    sentences: int
    published_version: int | None
    description: str


class KnowledgeBases(BaseModel):
    knowledge_bases: list[KnowledgeBase]


class Highlight(BaseModel):
    start: int
    end: int


class Document(BaseModel):
    id: str
    name: str
    page: int | None


class Scores(BaseModel):
    score: float
    dense: float | None
    sparse: float | None
    fused: float | None
    rerank: float | None
    dense_rank: int | None
    sparse_rank: int | None
    centred: float | None = Field(None, description="a knowledge base of two languages: the hit's cosine less "
                                  "the language means (cross-lingual search compares languages on it)")
    hub: float | None = Field(None, description="its hubness: the mean centred cosine of its nearest sentences "
                              "of the question's language")


class Result(BaseModel):
    rank: int
    sentence: str
    window: str
    before: list[str]
    after: list[str]
    highlight: Highlight
    document: Document
    sentence_index: int
    window_first: int
    window_last: int
    lang: str | None
    scores: Scores
    via: str | None
    trace: list[str] = Field(description="the ids of the ranking rules that placed this hit (cross-lingual "
                                         "search's rules, some with their numbers), as `ask --json` gives them")
    matched_tokens: list[str] | None = Field(description="the question's BM25 terms this sentence holds")


class RuleStep(BaseModel):
    """One rule that decided: its stable id and why it fired."""

    model_config = ConfigDict(extra="allow")
    rule: str
    why: str | None = None


class Answerable(BaseModel):
    answerable: bool
    score: float | None
    reason: str | None
    coverage: float | None = Field(None, description="the share of the question's terms the evidence holds")
    rules: list[str] = Field(description="the ids of the answerability rules that decided")


class Retrieval(BaseModel):
    knowledge_base: str
    question: str
    searched_for: str | None
    results: list[Result]
    answerable: Answerable
    params: dict
    published_version: int | None
    overrides: list[str]
    query_tokens: list[str] | None = Field(description="the question's BM25 terms")
    trace: list[RuleStep] = Field(description="the rules that decided, in order: answerability, the extractive "
                                              "answer and (answers) the check, as `ask --json` gives them")


class Answer(Retrieval):
    answer: str
    answer_kind: str
    llm_error: str | None
    check: dict | None


class Check(BaseModel):
    model_config = ConfigDict(extra="allow")
    support: float
    sentences: list[dict]


class FileOutcome(BaseModel):
    model_config = ConfigDict(extra="allow")
    source: str
    ok: bool
    doc_id: str | None
    sentences: int
    error: dict | None


class Upload(BaseModel):
    knowledge_base: str
    files: list[FileOutcome]
    indexed: int
    failed: int


class Deleted(BaseModel):
    knowledge_base: str
    document: str
    deleted_sentences: int
