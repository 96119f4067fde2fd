"""The extractive answer across languages: does the sentence it quotes hold the answer, with its
cover read from the question's words alone against also from the search's translation of them
(an other-language sentence holds none of the question's words), side by side in one run.

    python bench/extract_terms.py [--home H]

The three bilingual FAQs (bench/data/faq_bilingual*, as bench/real_kbs.py reads them), each
question asked at the defaults without an LLM; counted: the questions answered (not refused) whose
answer is in the passages, and of those, the quoted sentence holding an answer string.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_data import FAQ, FAQ2, FAQ3, ROOT, build, engine, faq  # noqa: E402

from swr.answer import answerable  # noqa: E402
from swr.answer.extractive import grounded_answer  # noqa: E402
from swr.core.params import RetrievalParams  # noqa: E402
from swr.evaluate.metrics import normalize  # noqa: E402
from swr.retrieve import subjects  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", default=str(ROOT / "bench" / "out" / "real_kbs_home"))
    args = ap.parse_args()
    eng = engine(args.home)
    rows = {}
    for kb, folder in (("faq_bi", FAQ), ("faq_bi2", FAQ2), ("faq_bi3", FAQ3)):
        docs, qs, _ = faq(folder)
        if kb not in {k["kb"] for k in eng.kbs()}:
            build(eng, kb, docs)
        for q in qs:
            r = eng.ask(q["q"], kb, llm=False)
            if not r.answerable or not any(normalize(a) in normalize(p.text) for p in r.passages for a in q["answers"]):
                continue
            ret = eng.retrieve(q["q"], kb)
            got = []
            for tr in (None, ret.translations):
                ext = grounded_answer(eng.embedder, q["q"], r.passages, foreign=ret.foreign,
                                      subjects=subjects.for_kb(eng, kb),
                                      allowed=answerable.grounds(eng, kb, ret.named, ret.foreign),
                                      rules=RetrievalParams().extractive, query_vector=ret.query_vector,
                                      translations=tr)
                got.append(bool(ext.sentence) and any(normalize(a) in normalize(ext.sentence) for a in q["answers"]))
            n = rows.setdefault((kb, q["kind"]), [0, 0, 0])
            n[0], n[1], n[2] = n[0] + 1, n[1] + got[0], n[2] + got[1]
    print("| knowledge base | kind | answered, answer in the passages | quoted sentence holds it: "
          "the question's words | and the translation's |")
    print("|---|---|---|---|---|")
    for (kb, kind), (n, a, b) in sorted(rows.items()):
        print(f"| {kb} | {kind} | {n} | {a} | {b} |")
    eng.close()


if __name__ == "__main__":
    main()
