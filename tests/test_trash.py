"""The trash (swr/manage/trash.py): deleted knowledge bases and documents are restorable for
SWR_TRASH_DAYS, from the engine and the command line, without re-embedding anything."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from swr.core.errors import BadRequest, NotFound
from swr.core.settings import Settings

A = b"The E4 code means the basket is out. Put it back. Descale monthly with vinegar."
B = b"Beta one. Beta two is here."


def _hits(engine, kb, q="E4 basket vinegar", mode="hybrid"):
    r = engine.retrieve(q, kb, mode=mode, top_k=5)
    return [(h.sentence.doc_id, h.sentence.i, round(h.score, 5)) for h in r.hits]


def test_delete_kb_then_restore_without_embedding(fake_engine):
    fake_engine.index_files("kb", [("a.txt", A), ("b.txt", B)])
    before = {m: _hits(fake_engine, "kb", mode=m) for m in ("dense", "sparse", "hybrid")}
    n = fake_engine.store.count("kb")
    assert fake_engine.delete_kb("kb") == n
    assert "kb" not in fake_engine.store.kbs()
    [entry] = fake_engine.trash.entries()
    assert (entry.kind, entry.kb, entry.sentences, entry.documents) == ("kb", "kb", n, 2)
    assert (fake_engine.settings.trash_path / entry.id / "points.jsonl.gz").is_file()
    calls = fake_engine.embedder.calls
    assert fake_engine.trash.restore(entry.id).id == entry.id
    assert fake_engine.embedder.calls == calls  # nothing re-embedded
    assert fake_engine.trash.entries() == []
    assert sorted(d.source for d in fake_engine.docs("kb")) == ["a.txt", "b.txt"]
    assert all(d.complete for d in fake_engine.docs("kb"))
    assert {m: _hits(fake_engine, "kb", mode=m) for m in before} == before


def test_delete_doc_then_restore_even_after_its_kb_went(fake_engine):
    res = fake_engine.index_files("kb", [("a.txt", A), ("b.txt", B)])
    fake_engine.delete_doc("kb", res[0].doc_id)
    assert [d.source for d in fake_engine.docs("kb")] == ["b.txt"]
    [doc_entry] = fake_engine.trash.entries()
    assert (doc_entry.kind, doc_entry.source, doc_entry.doc_id) == ("doc", "a.txt", res[0].doc_id)
    fake_engine.delete_kb("kb", trash=False)  # gone for good: no entry
    assert [e.id for e in fake_engine.trash.entries()] == [doc_entry.id]
    fake_engine.trash.restore(doc_entry.id)
    assert [d.source for d in fake_engine.docs("kb")] == ["a.txt"]
    assert fake_engine.retrieve("E4 basket", "kb").hits[0].sentence.source == "a.txt"


def test_restore_refuses_to_overwrite_and_purge_and_expiry(fake_engine):
    fake_engine.index_files("kb", [("a.txt", A)])
    fake_engine.delete_kb("kb")
    [entry] = fake_engine.trash.entries()
    fake_engine.index_files("kb", [("b.txt", B)])  # a new KB of the same name
    with pytest.raises(BadRequest, match="exists again"):
        fake_engine.trash.restore(entry.id)
    assert [d.source for d in fake_engine.docs("kb")] == ["b.txt"]  # nothing written
    with pytest.raises(NotFound):
        fake_engine.trash.restore("nope")
    later = datetime.fromisoformat(entry.expires_at) + timedelta(seconds=1)
    assert fake_engine.trash.expire(datetime.fromisoformat(entry.expires_at) - timedelta(seconds=1)) == []
    assert [e.id for e in fake_engine.trash.expire(later)] == [entry.id]
    assert fake_engine.trash.entries() == [] and not (fake_engine.settings.trash_path / entry.id).exists()
    fake_engine.delete_kb("kb")
    assert len(fake_engine.trash.purge()) == 1 and fake_engine.trash.entries() == []


def test_trash_days_setting_sets_the_expiry(tmp_path):
    s = Settings.from_env(env={"SWR_TRASH_DAYS": "2"}, secrets_path=tmp_path / "none.toml", home=tmp_path)
    assert s.trash_days == 2.0 and s.trash_path == tmp_path / "trash"
    from conftest import FakeEmbedder
    from swr.engine import Engine
    eng = Engine(s, embedder=FakeEmbedder())
    try:
        eng.index_files("kb", [("a.txt", A)])
        eng.delete_kb("kb")
        [e] = eng.trash.entries()
        days = datetime.fromisoformat(e.expires_at) - datetime.fromisoformat(e.deleted_at)
        assert days == timedelta(days=2)
        assert datetime.fromisoformat(e.deleted_at) <= datetime.now(UTC)
    finally:
        eng.close()


def test_cli_delete_moves_to_trash_then_restore(tmp_path, swr_cli):
    f = tmp_path / "a.txt"
    f.write_bytes(A)
    env = {"SWR_HOME": str(tmp_path / "home"), "SWR_SAMPLE_KB": "", "SWR_SECRETS": str(tmp_path / "n.toml")}

    def run(*args):
        out = swr_cli(*args, "--json", env=env, unset=("OPENAI_BASE_URL", "QDRANT_URL"), code=None)
        assert out.code == 0, out.stderr
        return out.doc

    run("index", str(f), "--kb", "k")
    d = run("delete", "--kb", "k")
    assert d["kb"] == "k" and d["doc"] is None and d["deleted_sentences"] == 3  # the old fields
    assert d["trash"]["kind"] == "kb" and d["trash"]["sentences"] == 3
    listed = run("trash", "list")
    assert [e["id"] for e in listed["entries"]] == [d["trash"]["id"]] and listed["days"] == 7
    assert run("kbs")["kbs"] == []
    r = run("trash", "restore", d["trash"]["id"])
    assert r["restored"][0]["kb"] == "k"
    [kb] = run("kbs")["kbs"]
    assert {k: kb[k] for k in ("kb", "documents", "sentences")} == {"kb": "k", "documents": 1, "sentences": 3}
    assert run("trash", "list")["entries"] == []
    d2 = run("delete", "--kb", "k", "--purge")
    assert d2["trash"] is None and run("trash", "list")["entries"] == []

