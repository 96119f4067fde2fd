"""Real clients against a real server: the official ``openai`` client (streaming and not), the
``mcp`` SDK's client (list and call the tools), a Dify request built from Dify's published spec,
and a LlamaIndex query engine over the published settings. The server and keys: tests/test_api.py."""
from __future__ import annotations

import asyncio

import httpx
import pytest
from test_api import auth, team  # noqa: F401  (the shared server fixture)

from swr.api.mcp_server import allowed_origin


def test_openai_client_gets_the_answer_with_its_sources(team):  # noqa: F811
    from openai import OpenAI

    client = OpenAI(base_url=team["url"] + "/v1", api_key=team["keys"]["ann"])
    assert [m.id for m in client.models.list().data] == ["alpha"]
    done = client.chat.completions.create(model="alpha", messages=[
        {"role": "system", "content": "Answer from the manuals."},
        {"role": "user", "content": "How much water does the kettle hold?"}])
    assert "1.7" in done.choices[0].message.content
    extra = done.model_extra
    assert extra["sources"]["results"][0]["document"]["name"] == "kettle.txt" and "check" in extra
    chunks = list(client.chat.completions.create(model="alpha", stream=True, messages=[
        {"role": "user", "content": "How much water does the kettle hold?"}]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "1.7" in text and chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["sources"]["results"], "the final chunk carries the sources"
    with pytest.raises(Exception) as exc:  # a knowledge base the key may not read is no model
        client.chat.completions.create(model="beta", messages=[{"role": "user", "content": "bonus pool?"}])
    assert getattr(exc.value, "status_code", None) == 404


async def _mcp(url: str, key: str | None, calls):
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=auth(key) if key else None) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = await session.list_tools()
                results = [await session.call_tool(name, args) for name, args in calls]
                return [t.name for t in tools.tools], results


def test_mcp_client_lists_and_calls_the_read_only_tools(team):  # noqa: F811
    calls = [("list_knowledge_bases", {}),
             ("retrieve", {"question": "How often do I descale the kettle?", "knowledge_base": "alpha"}),
             ("retrieve", {"question": "bonus pool", "knowledge_base": "beta"}),
             ("check_answer", {"question": "How much water does the kettle hold?", "knowledge_base": "alpha",
                               "answer": "The kettle holds 1.7 litres of water."})]
    names, results = asyncio.run(_mcp(team["url"] + "/mcp", team["keys"]["alpha"], calls))
    assert set(names) == {"list_knowledge_bases", "retrieve", "get_window", "check_answer"}
    kbs, found, hidden, checked = [r.structured_content for r in results]
    assert [k["name"] for k in kbs["knowledge_bases"]] == ["alpha"] and "kettle.txt" in kbs["knowledge_bases"][0][
        "description"]
    hit = found["results"][0]
    assert "Descale" in hit["sentence"]
    assert hidden["error"]["code"] == "not_found"
    assert checked["sentences"][0]["supported"]
    _, (window,) = asyncio.run(_mcp(team["url"] + "/mcp", team["keys"]["alpha"], [
        ("get_window", {"knowledge_base": "alpha", "doc": hit["document"]["id"], "sentence": hit["sentence_index"],
                        "before": 1, "after": 0})]))
    rows = window.structured_content["sentences"]
    assert len(rows) == 2 and rows[-1]["hit"] and "Descale" in rows[-1]["text"]


def test_mcp_refuses_a_foreign_origin_and_a_missing_key(team):  # noqa: F811
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    hdr = {"Accept": "application/json, text/event-stream", **auth(team["keys"]["ann"])}
    r = httpx.post(team["url"] + "/mcp", json=body, headers={**hdr, "Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "origin_refused"
    r = httpx.post(team["url"] + "/mcp", json=body, headers={"Accept": hdr["Accept"]})
    assert r.status_code == 401
    assert allowed_origin("http://localhost:3000", "x:1") and allowed_origin(None, None)
    assert allowed_origin("http://swr.example:8501", "swr.example:8501")
    assert not allowed_origin("https://helpdesk.example", "swr.example:8501")
    assert allowed_origin("https://helpdesk.example/", "swr.example:8501", ("https://helpdesk.example",))


def test_api_origins_is_a_setting_read_once(tmp_path, monkeypatch):
    """SWR_API_ORIGINS is read by Settings (environment or secrets file), not at each request."""
    from swr.core.settings import Settings

    s = Settings.from_env(env={"SWR_API_ORIGINS": " https://a.example/, https://b.example ,,"},
                          secrets_path=tmp_path / "none.toml", home=tmp_path)
    assert s.api_origins == ("https://a.example", "https://b.example")
    (tmp_path / "s.toml").write_text('SWR_API_ORIGINS = ["https://c.example/"]\n')
    assert Settings.from_env(env={}, secrets_path=tmp_path / "s.toml", home=tmp_path).api_origins == ("https://c.example",)
    assert Settings(home=tmp_path).api_origins == ()
    monkeypatch.setenv("SWR_API_ORIGINS", "https://evil.example")  # after the settings were built: no effect
    assert s.api_origins == ("https://a.example", "https://b.example")


def _dify(team, key: str | None, **body):  # noqa: F811
    base = {"knowledge_id": "alpha", "query": "How do I clean the basket?",
            "retrieval_setting": {"top_k": 3, "score_threshold": 0.5}}
    return httpx.post(team["url"] + "/dify/retrieval", json={**base, **body},
                      headers=auth(key) if key else {}, timeout=60)


def test_dify_request_per_spec_gets_records_dify_accepts(team):  # noqa: F811
    r = _dify(team, team["keys"]["ann"])
    recs = r.json()["records"]
    assert r.status_code == 200 and recs and "soapy water" in recs[0]["content"]
    for rec in recs:
        assert set(rec) == {"content", "score", "title", "metadata"} and 0.5 <= rec["score"] <= 1
        assert isinstance(rec["metadata"], dict) and isinstance(rec["metadata"]["document_id"], str)
    assert _dify(team, team["keys"]["ann"], retrieval_setting={"top_k": 3, "score_threshold": 1.0}).json() == \
        {"records": []}
    one = _dify(team, team["keys"]["ann"], metadata_condition={"conditions": [
        {"name": ["title"], "comparison_operator": "is", "value": "kettle.txt"}]}).json()["records"]
    assert one and {x["title"] for x in one} == {"kettle.txt"}
    refused = _dify(team, team["keys"]["ann"], metadata_condition={"conditions": [
        {"name": ["title"], "comparison_operator": "before", "value": "2024"}]})
    assert refused.status_code == 400 and refused.json()["error_code"] == 4001
    assert _dify(team, None).json()["error_code"] == 1002
    bad = httpx.post(team["url"] + "/dify/retrieval", headers={"Authorization": "Token x"},
                     json={"knowledge_id": "alpha", "query": "q", "retrieval_setting": {"top_k": 1,
                                                                                        "score_threshold": 0}})
    assert bad.status_code == 403 and bad.json()["error_code"] == 1001
    assert _dify(team, "swr_000000000000_" + "y" * 43).json()["error_code"] == 1002
    missing = _dify(team, team["keys"]["ann"], knowledge_id="beta")
    assert missing.status_code == 404 and missing.json()["error_code"] == 2001


def test_llamaindex_query_engine_follows_the_published_settings(team):  # noqa: F811
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine

    from swr.llamaindex import SentenceWindowRetriever

    eng = team["engine"]
    view = eng.as_user(__import__("swr.manage.access", fromlist=["Actor"]).Actor("ann", "agent", frozenset({"alpha"})))
    qe = RetrieverQueryEngine.from_args(SentenceWindowRetriever(view, "alpha"), llm=MockLLM())
    pub = eng.publish("alpha", eng.kb_params("alpha", window_size=0, top_k=1), "root")
    try:
        nodes = qe.query("How often do I descale the kettle?").source_nodes
        assert len(nodes) == 1 and nodes[0].node.metadata["published_version"] == pub.version
        assert nodes[0].node.get_content().strip().startswith("Descale")
    finally:
        eng.publish("alpha", eng.default_params(), "root")


def test_dify_gets_at_most_its_top_k_records(monkeypatch):
    """Dify's top_k is a maximum: cross-lingual search adds places beside the top k (CrossLingualRules
    .other_places), and the records keep the first top_k in rank order."""
    from types import SimpleNamespace

    from swr.api import dify, shape

    rows = [{"scores": {"dense": 0.9 - r / 100}, "document": {"name": f"d{r}", "id": r, "page": None},
             "window": f"w{r}", "sentence": f"s{r}", "sentence_index": r, "highlight": {"start": 0, "end": 1},
             "lang": "en", "rank": r} for r in range(1, 7)]
    monkeypatch.setattr(shape, "results", lambda view, res: rows)
    res = SimpleNamespace(kb="kb")
    assert [x["metadata"]["rank"] for x in dify.records(None, res, 0.0, 3)] == [1, 2, 3]
    assert len(dify.records(None, res, 0.0)) == 6
