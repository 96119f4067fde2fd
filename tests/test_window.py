"""Window building is pure: property tests on random hits and documents."""
from __future__ import annotations

from hypothesis import given, settings as hsettings, strategies as st

from swr.core.types import Hit, Sentence
from swr.retrieve import window as win


def _doc(doc_id: str, n: int) -> list[Sentence]:
    sents, pos = [], 0
    for i in range(n):
        t = f"{doc_id}-s{i}. "
        sents.append(Sentence(kb="kb", doc_id=doc_id, source=f"{doc_id}.txt", i=i, n=n, start=pos,
                              end=pos + len(t), text=t))
        pos += len(t)
    return sents


@st.composite
def cases(draw):
    docs = {f"d{k}": _doc(f"d{k}", draw(st.integers(1, 30))) for k in range(draw(st.integers(1, 3)))}
    picks = draw(st.lists(st.tuples(st.sampled_from(sorted(docs)), st.integers(0, 29)), min_size=1, max_size=8,
                          unique=True))
    hits = []
    for rank, (d, i) in enumerate(picks, start=1):
        if i < len(docs[d]):
            hits.append(Hit(sentence=docs[d][i], score=1.0 / rank, rank=rank))
    w = draw(st.integers(0, win.MAX_WINDOW))
    return docs, hits, w


@hsettings(max_examples=300, deadline=None)
@given(cases())
def test_passages_cover_hits_once_and_match_the_document(case):
    docs, hits, w = case
    store = {(s.doc_id, s.i): s for d in docs.values() for s in d}
    calls = []

    def fetch(keys):
        calls.append(keys)
        return {k: store[k] for k in keys if k in store}

    passages = win.build(hits, w, fetch)
    seen = set()
    for p in passages:
        full = "".join(s.text for s in docs[p.doc_id])
        assert p.text == "".join(s.text for s in docs[p.doc_id][p.first:p.last + 1]).strip()
        assert p.text in full
        for i in range(p.first, p.last + 1):
            assert (p.doc_id, i) not in seen, "a sentence appears twice in the context"
            seen.add((p.doc_id, i))
        for h in p.hits:
            assert p.text[h.start:h.end] == h.sentence
    # every hit is in exactly one passage, with its full window
    for h in hits:
        s = h.sentence
        owners = [p for p in passages if p.doc_id == s.doc_id and p.first <= s.i <= p.last]
        assert len(owners) == 1
        assert owners[0].first <= max(0, s.i - w) and owners[0].last >= min(s.n - 1, s.i + w)
    # merged passages of one document neither overlap nor touch
    for d in docs:
        spans = sorted((p.first, p.last) for p in passages if p.doc_id == d)
        for (a1, b1), (a2, b2) in zip(spans, spans[1:]):
            assert a2 > b1 + 1


def test_adjacent_hits_merge_even_at_window_zero():
    doc = _doc("d", 5)
    hits = [Hit(sentence=doc[2], score=0.9, rank=1), Hit(sentence=doc[3], score=0.8, rank=2)]
    ps = win.build(hits, 0, lambda keys: {})
    assert len(ps) == 1 and (ps[0].first, ps[0].last) == (2, 3) and len(ps[0].hits) == 2


def test_missing_neighbour_never_invents_text():
    doc = _doc("d", 7)
    store = {(s.doc_id, s.i): s for s in doc if s.i != 2}  # sentence 2 deleted meanwhile
    hits = [Hit(sentence=doc[3], score=1.0, rank=1)]
    ps = win.build(hits, 2, lambda keys: {k: store[k] for k in keys if k in store})
    assert len(ps) == 1 and (ps[0].first, ps[0].last) == (3, 5)


def test_passages_are_ordered_by_best_hit():
    a, b = _doc("a", 10), _doc("b", 10)
    hits = [Hit(sentence=b[5], score=0.9, rank=1), Hit(sentence=a[1], score=0.5, rank=2)]
    ps = win.build(hits, 1, lambda keys: {k: {**{(s.doc_id, s.i): s for s in a + b}}[k] for k in keys})
    assert [p.doc_id for p in ps] == ["b", "a"]


def _texts_doc(texts: list[str]) -> list[Sentence]:
    sents, pos = [], 0
    for i, t in enumerate(texts):
        sents.append(Sentence(kb="kb", doc_id="t", source="t.md", i=i, n=len(texts), start=pos, end=pos + len(t),
                              text=t))
        pos += len(t)
    return sents


def test_a_window_drops_wordless_sentences_at_its_edges_only():
    # a markdown table split inside its rows: "|" closes the row before, "| --- |" is a rule line
    doc = _texts_doc(["| E0 | 开路。", " |\n", "| --- | --- |\n", "| E1 | 干烧保护。", " |\n", "| E2 | 传感器故障。",
                      " |\n", "---\n", "E3 温度过高。"])
    store = {(s.doc_id, s.i): s for s in doc}

    def fetch(keys):
        return {k: store[k] for k in keys if k in store}

    [p] = win.build([Hit(sentence=doc[3], score=1.0, rank=1)], 2, fetch)
    # the window 1..5 starts at the E1 row (not at the "|" and rule before it) and ends at E2's
    # row with its closing pipe, which is on the same line
    assert (p.first, p.last) == (3, 5) and p.text == "| E1 | 干烧保护。 |\n| E2 | 传感器故障。"
    assert p.stop_before == "cap" and p.stop_after == "cap"  # what ended the window is unchanged
    [p] = win.build([Hit(sentence=doc[5], score=1.0, rank=1)], 2, fetch)
    # ends with the row's own closing pipe; the "---" rule on a line of its own is dropped
    assert (p.first, p.last) == (3, 6) and p.text.endswith("传感器故障。 |")
    [p] = win.build([Hit(sentence=doc[1], score=1.0, rank=1)], 0, fetch)
    assert (p.first, p.last) == (1, 1) and p.text == "|"  # a word-less hit itself stays
    assert p.text[p.hits[0].start:p.hits[0].end] == p.hits[0].sentence
