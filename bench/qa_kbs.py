"""Knowledge bases for bench/verdicts.py and bench/answerable.py, built from the shared data.

- English: the 48 XQuAD-en articles (SQuAD v1.1 dev paragraphs, 5 per article, translated in
  XQuAD-zh); paragraphs 0-2 are the article's document (``<title>.txt``), paragraph 3 is kept
  out (claims from it are "not found" on the same topic).
- Chinese: the first 96 CMRC 2018 dev articles; the first 60 % of each context's sentences are
  its document, the rest is kept out.
- Articles alternate between knowledge bases ``A`` and ``B`` of their language (``bq-en-A``...),
  so a question can be asked against the wrong knowledge base of the same language (and of the
  other language); they alternate again between the tuning and the held-out half
  (``split``: ``tune`` | ``test``), so no threshold sees the articles it is judged on.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import intervals

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("SWR_HOME", str(ROOT / "bench" / "out" / "qahome"))
os.environ.setdefault("SWR_SAMPLE_KB", "")

DATA = ROOT.parent.parent / "shared" / "data"
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
N_ZH = 96


@dataclass
class Article:
    lang: str
    k: int
    title: str
    seen: list[str]  # sentences of the indexed document
    unseen: list[str]  # sentences kept out
    questions: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def kb(self) -> str:
        return f"bq-{self.lang}-{'AB'[self.k % 2]}"

    @property
    def split(self) -> str:
        return ("tune", "test")[(self.k // 2) % 2]

    @property
    def source(self) -> str:
        return f"{self.title}.txt"


def _sentences(text: str) -> list[str]:
    from swr.text.split import split_spans

    return [text[a:b].strip() for a, b in split_spans(text) if text[a:b].strip()]


def articles() -> list[Article]:
    out = []
    xq = json.loads((DATA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))["data"]
    for k, a in enumerate(xq):
        ps = a["paragraphs"]
        seen = [s for p in ps[:3] for s in _sentences(p["context"])]
        unseen = _sentences(ps[3]["context"]) if len(ps) > 3 else []
        qas = [q for p in ps[:3] for q in p["qas"][:1]] + [q for p in ps[:1] for q in p["qas"][1:2]]
        out.append(Article("en", k, a["title"], seen, unseen, [q["question"] for q in qas], [q["id"] for q in qas]))
    cmrc = json.loads((DATA / "cmrc2018" / "cmrc2018_dev.json").read_text(encoding="utf-8"))["data"][:N_ZH]
    for k, a in enumerate(cmrc):
        p = a["paragraphs"][0]
        sents = _sentences(p["context"])
        cut = max(1, int(len(sents) * 0.6))
        seen_chars = len("".join(sents[:cut]))
        qs = [q["question"] for q in p["qas"] if q["answers"] and q["answers"][0]["answer_start"] < seen_chars * 0.9]
        out.append(Article("zh", k, a["title"].strip() or f"cmrc-{k}", sents[:cut], sents[cut:], qs[:3]))
    return out


def index(engine, arts: list[Article]) -> None:
    """Index every article's document into its knowledge base (skipped when unchanged)."""
    by_kb: dict[str, list] = {}
    for a in arts:
        by_kb.setdefault(a.kb, []).append((a.source, ("\n".join(a.seen) + "\n").encode("utf-8")))
    for kb, files in by_kb.items():
        res = engine.index_files(kb, files)
        bad = [r for r in res if not r.ok]
        if bad:
            print(f"warning: {len(bad)} files failed in {kb}", file=sys.stderr)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson interval of a rate k/n ((0, 1) when n is 0)."""
    return intervals.wilson(k, n, z, empty=(0.0, 1.0))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / d
    return (max(0.0, c - h), min(1.0, c + h))


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k / n:.1%} [{lo:.1%}, {hi:.1%}] (n={n})" if n else "n=0"
