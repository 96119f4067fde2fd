"""Answerability on real product manuals: right answers refused, off-domain questions refused, and
for each refusing rule how often it refuses a question its passages answer vs one they do not.

    .venv/bin/python bench/answerable_real.py [--rows]

Data: ``../shared/data/emanual`` (Samsung Galaxy S10 and Smart TV remote manuals, English, 50 real
user questions each, with the section that answers). Each manual is uploaded as one Markdown
document (its sections as ``##`` headings), as a user would, into its own knowledge base. Each
question is asked against its manual's knowledge base (in the passages: a hit sentence lies in
the answering section's text) and against the other manual's (off-domain: a right refusal).
Floors (issue "answerability that reads product names as product names"): right answers refused
<= 3 % of the questions whose answer is in the passages; off-domain refused >= 90 %. A rule that
refuses must refuse questions without their answer in the passages more often than with it.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import re
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "emanual"
MANUALS = {"s10": ("s10_manual_corpus.json", "s10_50_questions.csv", "Galaxy_S10_manual.md"),
           "tv": ("smart_tv_remote_manual_corpus.json", "smart_tv_remote_50_questions.csv",
                  "Smart_TV_remote_manual.md")}


def manual_md(corpus: Path) -> str:
    d = json.loads(corpus.read_text(encoding="utf-8"))
    out = []
    for sec in d.values():
        out.append(f"## {sec['title'].strip()}")
        out += [line.strip() for line in sec["text"][1:] if line.strip()]
    return "\n".join(out) + "\n"


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", (text or "").lower())


def in_passages(passages, answer: str) -> bool:
    gold = squash(answer)
    return any(len(squash(h.sentence)) >= 12 and squash(h.sentence) in gold for p in passages for h in p.hits)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", action="store_true")
    a = ap.parse_args()
    import swr.answer.answerable as an
    from swr.core.settings import Settings
    from swr.engine import Engine

    home = Path(tempfile.mkdtemp(prefix="swr-emanual-"))
    eng = Engine(Settings.from_env({"SWR_HOME": str(home), "SWR_SAMPLE_KB": "", "SWR_LLM_GGUF": ""}))
    questions = {}
    for kb, (corpus, qs, name) in MANUALS.items():
        path = home / name
        path.write_text(manual_md(DATA / corpus), encoding="utf-8")
        eng.index_files(kb, [path])
        with open(DATA / qs, encoding="utf-8") as f:
            questions[kb] = [(r["question"], r["answer"]) for r in csv.DictReader(f)]
        print(f"indexed {kb}", file=sys.stderr, flush=True)
    rows = []
    for own, qs in questions.items():
        other = next(k for k in questions if k != own)
        for q, answer in qs:
            for kb in (own, other):
                r = eng.retrieve(q, kb)
                ps = eng.passages(r, 3)
                v = an.assess(eng, r.question, kb, r.hits, ps, r.params, pool=r.answer_pool, named=r.named,
                              foreign=r.foreign, translations=r.translations)
                rule = (getattr(v, "rules", None) or [v.reason.split(",")[0][:40]])[0]  # older code: no rule ids
                rows.append({"q": q, "kb": kb, "own": kb == own, "found": kb == own and in_passages(ps, answer),
                             "answerable": v.answerable, "rule": rule, "reason": v.reason})
    eng.close()
    found = [r for r in rows if r["found"]]
    off = [r for r in rows if not r["own"]]
    by_rule = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        if not r["answerable"]:
            by_rule[r["rule"]][0 if r["found"] else 1] += 1
    out = {"answer_in_passages": len(found), "right_refused": sum(not r["answerable"] for r in found),
           "right_refused_rate": round(sum(not r["answerable"] for r in found) / max(1, len(found)), 3),
           "off_domain": len(off), "off_domain_refused": sum(not r["answerable"] for r in off),
           "off_domain_refused_rate": round(sum(not r["answerable"] for r in off) / max(1, len(off)), 3),
           "own_not_in_passages_answered": sum(r["answerable"] for r in rows if r["own"] and not r["found"]),
           "refusals_by_rule (answer in passages, not)": {k: v for k, v in sorted(by_rule.items())}}
    if a.rows:
        for r in rows:
            if (r["found"] and not r["answerable"]) or (not r["own"] and r["answerable"]):
                print(("REFUSED " if r["found"] else "ANSWERED ") + f"{r['kb']}: {r['q']} -- {r['reason']}")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
