"""Each cross-lingual fusion candidate's window, embedded whole, against the question.

A sentence alone says little of its topic on a product FAQ ("It takes about 8–12 minutes." of a
firmware page): both languages' pages are about the same products in the same words, and the
sentence's cosine did not tell the fusion which language holds the answer
(bench/results/faq_bilingual4.md). Its window, ``CrossLingualRules.window_context`` sentences
either side joined, is embedded as a passage (the embedder's cache keeps it by text) and its
cosine with the question's query vector is a feature of both calibrated models
(:func:`swr.retrieve.xl_fuse.fuse`; replayed and fitted in bench/xl_window.py). Written here
because no library ranks sentences by their neighbourhood's embedding.

Cost per question in a mixed knowledge base: one neighbour fetch for the candidates (one store
call) and one passage embedding per candidate window not seen before (about 60-150 the first time).
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def cosines(store, embed_passages: Callable | None, kb: str, question_vector, lists: list[tuple],
            context: int) -> dict[tuple[str, int], float]:
    """``{(doc_id, i): cosine}`` of every candidate of ``lists`` (the fusion's ``(via, hits, ...)``)
    whose window of ``context`` sentences either side was embedded; empty when ``context`` is 0, or
    every list is of the question's language (nothing to compare: nothing embedded), or the store
    cannot fetch sentences, or there is no passage embedder (stand-ins in tests)."""
    fetch = getattr(store, "fetch_sentences", None)
    if context <= 0 or embed_passages is None or fetch is None or question_vector is None \
            or not any(lst[0] for lst in lists):
        return {}
    keys = sorted({(h.sentence.doc_id, h.sentence.i) for _, hits, *_ in lists for h in hits})
    if not keys:
        return {}
    near = sorted({(d, j) for d, i in keys for j in range(max(0, i - context), i + context + 1)})
    got = fetch(kb, near)
    texts = [" ".join(got[(d, j)].text.strip() for j in range(i - context, i + context + 1) if (d, j) in got)
             for d, i in keys]
    vecs = np.asarray(embed_passages(texts), dtype=np.float32)
    q = np.asarray(question_vector, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    norms = np.linalg.norm(vecs, axis=1)
    norms[norms == 0] = 1.0
    return dict(zip(keys, (vecs @ q / norms).tolist()))
