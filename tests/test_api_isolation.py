"""Property: a key narrowed to knowledge base alpha never returns a sentence of beta, through any
endpoint or MCP tool, whatever the question and whichever knowledge base it names."""
from __future__ import annotations

import asyncio
import json

import httpx
from hypothesis import HealthCheck, given, settings, strategies as st
from test_api import BETA, auth, team  # noqa: F401  (the shared server fixture)
from test_api_clients import _mcp

SECRETS = [s.strip() for text in BETA.values() for s in text.replace("\n", " ").split(". ") if s.strip()]
WORDS = sorted({w.strip(".,") for s in SECRETS for w in s.split()})
ENDPOINTS = ("retrieve", "ask", "check", "dify", "openai", "mcp_retrieve", "mcp_window", "mcp_list", "kbs")


def _fragments() -> list[str]:
    """Pieces of beta's text that would show a leak (a sentence, or a long enough part of one)."""
    return [s[:24] for s in SECRETS] + ["48,000", "payroll password", "25 days"]


def _call(team, endpoint: str, question: str, kb: str, doc: str) -> str:  # noqa: F811
    key = team["keys"]["alpha"]
    url, h = team["url"], auth(key)
    if endpoint in ("retrieve", "ask", "check"):
        body = {"question": question, "knowledge_base": kb}
        if endpoint == "check":
            body["answer"] = question
        return httpx.post(f"{url}/api/v1/{endpoint}", json=body, headers=h, timeout=120).text
    if endpoint == "dify":
        return httpx.post(f"{url}/dify/retrieval", headers=h, timeout=120, json={
            "knowledge_id": kb, "query": question, "retrieval_setting": {"top_k": 5, "score_threshold": 0}}).text
    if endpoint == "openai":
        return httpx.post(f"{url}/v1/chat/completions", headers=h, timeout=120, json={
            "model": kb, "messages": [{"role": "user", "content": question}]}).text
    if endpoint == "kbs":
        return httpx.get(f"{url}/api/v1/knowledge-bases", headers=h, timeout=60).text
    calls = {"mcp_retrieve": ("retrieve", {"question": question, "knowledge_base": kb}),
             "mcp_window": ("get_window", {"knowledge_base": kb, "doc": doc, "sentence": 0, "after": 5}),
             "mcp_list": ("list_knowledge_bases", {})}
    _, (res,) = asyncio.run(_mcp(f"{url}/mcp", key, [calls[endpoint]]))
    return json.dumps(res.model_dump(), ensure_ascii=False)


@given(endpoint=st.sampled_from(ENDPOINTS), kb=st.sampled_from(["alpha", "beta", "Beta", "beta ", "*", "~chunks:beta:1:1"]),
       words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), noise=st.text(max_size=12))
@settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_a_key_narrowed_to_alpha_never_returns_a_sentence_of_beta(team, endpoint, kb, words, noise):  # noqa: F811
    doc = next(d.doc_id for d in team["engine"].docs("beta"))
    question = (" ".join(words) + " " + noise).strip() or "bonus"
    text = _call(team, endpoint, question, kb, doc)
    leaks = [f for f in _fragments() if f in text and f not in question]
    assert not leaks, f"{endpoint} on {kb!r} returned beta's text: {leaks}"
