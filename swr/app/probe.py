""""Why not retrieved?": pick a document and one of its sentences; the probe
(:func:`swr.evaluate.probe`) gives its ranks and scores for the question with one Compare side's
params (the chat's, with that side's window, top-k, mode, fusion) and names the limit that cut it."""
from __future__ import annotations

import streamlit as st

from swr import evaluate
from swr.app import state
from swr.app.components.errors import md
from swr.app.state import COMPARE, KEYS
from swr.core.errors import SwrError
from swr.core.params import RetrievalParams
from swr.engine import Engine
from swr.manage.render import esc

CUT_LABELS = {None: "nothing (retrieved)", "top_k": "top-k", "candidates": "candidate pool", "filter": "filter",
              "no_shared_terms": "no shared term (BM25)", "missing": "not in the KB", "cutoff": "score cutoff"}


def short_text(text: str, n: int = 110) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[:n - 1] + "…"


def run_probe(engine: Engine, params: RetrievalParams, question: str, kb: str, doc_id: str, i: int) -> dict:
    """The probe with these params (the one call: a test checks the params it gets)."""
    return evaluate.probe(engine, params, question, kb, doc_id, i)


def probe_panel(engine: Engine, kb: str, question: str, sides: dict[str, RetrievalParams]) -> None:
    """Pick a document and one of its sentences; show why it was (not) retrieved for the question."""
    docs = [d for d in engine.docs(kb) if d.complete]
    if not docs:
        st.info("No documents in this knowledge base.")
        return
    by_id = {d.doc_id: d for d in docs}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    doc_id = c1.selectbox("Document", list(by_id), key=COMPARE.probe_doc,
                          format_func=lambda i: f"{by_id[i].source} ({by_id[i].sentences:,} sentences)")
    side = c2.radio("With the settings of", ["a", "b"], format_func=str.upper, horizontal=True,
                    key=COMPARE.probe_side)
    sentences = engine.doc_sentences(kb, doc_id)
    if not sentences:
        st.info("This document has no sentences.")
        return
    by_i = {s.i: s for s in sentences}
    i = st.selectbox("Sentence (type to search)", list(by_i), key=COMPARE.probe_sentence(doc_id),
                     format_func=lambda i: f"{i + 1}: {short_text(by_i[i].text)}")
    params = sides[side]
    if st.button("Why (not) retrieved?", key=KEYS.probe_go, icon=":material/search:", disabled=not question.strip()):
        try:
            state.PROBE_RESULT.set({"side": side, "params": params,
                                    "probe": run_probe(engine, params, question, kb, doc_id, i)})
        except SwrError as exc:
            st.error(md(exc.message))
    got = state.PROBE_RESULT.get()
    if got and got["probe"]["kb"] == kb:
        probe_view(got["probe"], got["side"], got["params"])


def score_meaning(mode: str, fusion: str | None) -> str:
    """What a ranking score of this mode (and fusion) is, on which scale, and what it cannot say."""
    if mode == "dense":
        return ("cosine between the question and the sentence (e5-small: unrelated sentences of one language "
                "often score 0.75-0.82, a sentence that answers ~0.85 and up)")
    if mode == "sparse":
        return "BM25 over the shared terms: unbounded, grows with rare shared terms; 0 when none is shared"
    if (fusion or "dbsf") == "dbsf":
        return ("DBSF fused score: each list's scores normalised by that list's own mean ± 3 std, then added "
                "(0 to 2); relative to this question's lists, so it says nothing across questions")
    return ("RRF fused score: the sum of 1/(60 + rank) over the lists (at most about 0.033); ranks only, "
            "so it says nothing across questions")


def _rank(r) -> str:
    return "–" if r is None else f"#{r}"


def _score(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def score_caption(p: dict) -> str:
    """The sentence's ranking score beside the top-k cutoff, both on the ranking's own scale (in hybrid
    mode a fused score: never set beside a cosine), and what that scale means."""
    pp = p["params"]
    mode, fusion = pp["mode"], pp.get("fusion")
    scale = {"dense": "cosine", "sparse": "BM25"}.get(mode, f"{(fusion or 'dbsf').upper()} fused")
    parts = []
    if p.get("cutoff_score") is not None:
        mine = (f"this sentence's is {p['score']:.4g}" if p.get("score") is not None
                else f"this sentence has none (not in the first {p['probe_limit']})")
        shown = p.get("shown") or pp["top_k"]
        parts.append(f"The {shown} results shown end at {scale} score {p['cutoff_score']:.4g}; {mine}.")
    parts.append(f"A {mode} score is the {score_meaning(mode, fusion)}. The dense and sparse scores above are "
                 "on scales of their own.")
    return " ".join(parts)


def probe_view(p: dict, side: str, params: RetrievalParams | None = None) -> None:
    """The probe's answer: the sentence, its ranks and scores, and which limit cut it."""
    pp = p["params"]
    st.html(f'<div class="swr-cmphead">Sentence {p["i"] + 1} of <b>{esc(p.get("source") or p["doc_id"])}</b>'
            f' for <b>{esc(p["question"])}</b> with the settings of {side.upper()} ({esc(pp["mode"])}, '
            f'top-k {pp["top_k"]}, candidates {pp["dense_k"]}/{pp["sparse_k"]})</div>'
            + (f'<div class="swr-probe-text">{esc(p["text"])}</div>' if p.get("text") else "")
            + f'<div class="swr-probe-reason">{esc(p["reason"])}</div>')
    c = st.columns([2, 1, 1, 1, 1, 1])
    c[0].metric("Cut by", CUT_LABELS.get(p["cut_by"], str(p["cut_by"])))
    c[1].metric(f"Rank ({pp['mode']})", _rank(p["rank"]), help=f"Ranks are looked up to {p['probe_limit']}.")
    c[2].metric("Dense rank", _rank(p["dense_rank"]), help=f"In the dense candidates (dense_k {pp['dense_k']}): "
                                                           f"{'yes' if p['in_dense_candidates'] else 'no'}")
    c[3].metric("Dense score", _score(p["dense_score"]), help="Cosine between the question and the sentence: "
                f"{score_meaning('dense', None)}.")
    c[4].metric("Sparse rank", _rank(p["sparse_rank"]), help=f"In the sparse candidates (sparse_k {pp['sparse_k']}): "
                                                             f"{'yes' if p['in_sparse_candidates'] else 'no'}")
    c[5].metric("Sparse score", _score(p["sparse_score"]), help=f"{p['shared_terms']} term(s) shared with the "
                f"question; {score_meaning('sparse', None)}.")
    st.caption(score_caption(p))
    if params is not None and (params.min_score is not None or "rerank" in params.stages):
        st.caption("Note: the probe ranks before the score cutoff and the reranker of the chat's settings.")
