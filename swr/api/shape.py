"""The JSON shapes the API answers with: one result per hit (its window, the sentences before and
after, highlight offsets, document, scores), answerability and the settings used."""
from __future__ import annotations

from swr.answer.result import AskResult


def kb_description(view, kb: dict) -> str:
    """What a knowledge base holds, for an agent choosing one: its documents and languages."""
    docs = [d for d in view.docs(kb["kb"]) if d.complete]
    names = ", ".join(d.source for d in docs[:8]) + (f" and {len(docs) - 8} more" if len(docs) > 8 else "")
    return f"{kb['documents']} documents ({kb['sentences']} sentences): {names}" if docs else "empty"


def kb_row(view, kb: dict) -> dict:
    pub = view.published(kb["kb"])
    return {"name": kb["kb"], "documents": kb["documents"], "sentences": kb["sentences"],
            "published_version": pub.version if pub else None, "description": kb_description(view, kb)}


def results(view, res: AskResult) -> list[dict]:
    """One row per hit, in rank order, each with its window split around the hit."""
    keys = [(p.doc_id, i) for p in res.passages for i in range(p.first, p.last + 1)]
    sents = dict(res.window_sentences or {})  # what the windows were built from (Engine.ask_stream)
    missing = [k for k in keys if k not in sents]
    if missing:
        sents.update(view.fetch_sentences(res.kb, missing))
    rows = []
    for p in res.passages:
        for h in p.hits:
            text = lambda i, d=p.doc_id: sents[(d, i)].text.strip() if (d, i) in sents else ""  # noqa: E731
            rows.append({
                "rank": h.rank, "sentence": h.sentence, "window": p.text,
                "before": [t for t in (text(i) for i in range(p.first, h.i)) if t],
                "after": [t for t in (text(i) for i in range(h.i + 1, p.last + 1)) if t],
                "highlight": {"start": h.start, "end": h.end},
                "document": {"id": p.doc_id, "name": p.source, "page": h.page},
                "sentence_index": h.i, "window_first": p.first, "window_last": p.last,
                "lang": getattr(sents.get((p.doc_id, h.i)), "lang", None),
                "scores": {"score": h.score, "dense": h.dense_score, "sparse": h.sparse_score,
                           "fused": h.fused_score, "rerank": h.rerank_score, "dense_rank": h.dense_rank,
                           "sparse_rank": h.sparse_rank,
                           # cross-lingual: cosine less the language means, and the sentence's hubness
                           "centred": getattr(h, "centred", None), "hub": getattr(h, "hub", None)},
                "via": h.via, "trace": list(h.trace or []), "matched_tokens": h.matched_tokens})
    return sorted(rows, key=lambda r: r["rank"] or 0)


def retrieval(view, res: AskResult) -> dict:
    pub = res.settings.get("published") or {}
    return {"knowledge_base": res.kb, "question": res.question, "searched_for": res.standalone_question,
            "results": results(view, res),
            "answerable": {"answerable": res.answerable, "score": res.answerable_score,
                           "reason": (res.answerability or {}).get("reason"),
                           "coverage": (res.answerability or {}).get("coverage"),
                           "rules": list((res.answerability or {}).get("rules") or [])},
            "params": {k: v for k, v in res.settings.items() if k != "published"},
            "published_version": pub.get("version"), "overrides": pub.get("overrides", []),
            "query_tokens": res.query_tokens, "trace": [dict(t) for t in res.trace]}


def answer(view, res: AskResult) -> dict:
    return {**retrieval(view, res), "answer": res.answer, "answer_kind": res.answer_kind,
            "llm_error": res.llm_error, "check": res.check}
