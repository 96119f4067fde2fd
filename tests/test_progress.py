"""Indexing progress within one file (swr/ingest/indexer.py): per embedder batch, with sentences/s and
the time left."""
from __future__ import annotations


def test_progress_within_one_large_file(fake_engine):
    """One file of 300 sentences: progress reports within it (every embedder batch, not only at
    the end), counts rising to the total, with sentences/s and the time left; same vectors."""
    text = " ".join(f"Sentence number {k} talks about kettles and lamps." for k in range(300)).encode()
    seen: list[dict] = []
    [r] = fake_engine.index_files("big", [("big.txt", text)], progress=seen.append)
    assert r.ok and r.sentences == 300
    done = [p["done"] for p in seen]
    assert len([d for d in done if d < 300]) >= 4, done  # 64, 128, 192, 256 before the end
    assert done == sorted(done) and done[-1] == 300 and all(p["total"] == 300 for p in seen)
    assert all(p["sentences_per_s"] for p in seen)
    assert seen[0]["eta_s"] > 0 and seen[-1]["eta_s"] == 0
    from swr.core.ids import sentence_id

    ids = [sentence_id("big", r.doc_id, i) for i in (0, 150, 299)]
    got = fake_engine.store.vectors(ids)
    want = fake_engine.embedder.encode_passages([s.text for s in fake_engine.doc_sentences("big", r.doc_id)])
    for i, pid in zip((0, 150, 299), ids):  # the slices' vectors land on their own sentences
        assert abs(float(got[pid] @ want[i]) - 1.0) < 1e-4
