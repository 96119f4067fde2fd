"""Would a local LLM's yes/no on "do these passages answer the question?" decide answerability better
than the rules, where they refuse right answers or answer off-domain questions?

    python bench/real_kbs.py --parts bipar xquad xquadwide faq emanual refusals helpzh --seed 0 \
        --home /tmp/rk --out /tmp/rk0.json
    python bench/answer_judge.py /tmp/rk0.json --home /tmp/rk --gguf models/qwen2.5-coder-1.5b-instruct.gguf

Reads the rows of a ``bench/real_kbs.py --out`` run (its knowledge bases still in ``--home``): every
right answer the rules refused and every off-domain question they answered, with seeded samples of
the right answers they answered and the off-domain questions they refused (the mixed-language
knowledge bases and the Chinese help centre). Each is asked again at the defaults (no LLM) and its
passages are put to the model with one short prompt (:data:`PROMPT`, three tokens of reply). Prints,
per group, how often the model says YES, by the rule that decided. The local model serves with two
threads: about 4 s a question for the 1.5B on this machine's two cores (224 questions: 15 min).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import real_kbs

PROMPT = ("You decide whether passages answer a question. The passages may be in another language than "
          "the question. Reply with exactly one word: YES if the passages contain the answer to the question, "
          "NO if they do not.")
MIXED = ("bipar", "xquad_mixed", "xquad_wide", "faq_bi")
SOFT = ("answerable.below", "answerable.no_term", "answerable.unknown_terms")  # the bars, not a named fact


def rows_of(data: dict, right_sample: int, off_sample: int, seed: int) -> list[tuple[str, str, dict]]:
    rows = []
    for kb in MIXED:
        rows += [("right", kb, r) for r in data[kb]["on"] if r["hit"]]
        rows += [("off", kb, r) for r in data[kb].get("off_domain", {}).get("on", [])]
    rows += [("off", r["kb"], r) for r in data["offdomain"] if r.get("kb") in MIXED]
    rows += [("right", "helpcentre_zh", r) for r in data["helpcentre_zh"]["on"] if r["hit"]]
    rows += [("off", "helpcentre_zh", r) for r in data["helpcentre_zh"]["offdomain"]]
    rnd = random.Random(seed)
    keep = [x for x in rows if (x[0] == "right") != x[2]["answerable"]]  # the rules' mistakes, all
    keep += rnd.sample([x for x in rows if x[0] == "right" and x[2]["answerable"]], right_sample)
    keep += rnd.sample([x for x in rows if x[0] == "off" and not x[2]["answerable"]], off_sample)
    return keep


def judge(answerer, question: str, passages: list[str], limit: int = 1500) -> str:
    each = limit // max(1, len(passages))
    ps = "\n\n".join(f"[{k}] {p.strip()[:each]}" for k, p in enumerate(passages, 1))
    reply = answerer.chat([{"role": "system", "content": PROMPT},
                           {"role": "user", "content": f"Passages:\n{ps}\n\nQuestion: {question}\n\n"
                                                       "Do the passages answer the question? Reply YES or NO."}],
                          max_tokens=3, temperature=0.0)
    word = (reply or "").strip().strip("*.:'\"").upper()
    return "YES" if word.startswith(("YES", "是")) else "NO" if word.startswith(("NO", "否")) else "OTHER"


def main() -> None:
    import json

    from swr.answer.llm import Answerer, LLMConfig

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", help="a bench/real_kbs.py --out file")
    ap.add_argument("--home", required=True, help="the SWR_HOME of that run (its knowledge bases)")
    ap.add_argument("--gguf", default=str(real_kbs.ROOT / "models" / "qwen2.5-coder-1.5b-instruct.gguf"))
    ap.add_argument("--right-sample", type=int, default=60, help="right answers the rules answered, judged")
    ap.add_argument("--off-sample", type=int, default=90, help="off-domain questions the rules refused, judged")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = json.loads(Path(args.rows).read_text(encoding="utf-8"))
    eng = real_kbs.engine(args.home)
    answerer = Answerer(LLMConfig(gguf=args.gguf, threads=2, context_window=4096, timeout_s=120, temperature=0.0))
    got: Counter = Counter()
    t0 = time.perf_counter()
    picked = rows_of(data, args.right_sample, args.off_sample, args.seed)
    for i, (kind, kb, r) in enumerate(picked, 1):
        res = eng.ask(r["q"], kb, llm=False, crosslingual=real_kbs.RULES)
        rule = ((res.answerability or {}).get("rules") or ["-"])[0]
        said = judge(answerer, r["q"], [p.text for p in res.passages])
        got[(kind, "answered" if res.answerable else "refused", rule, said)] += 1
        if i % 20 == 0:
            print(f"{i}/{len(picked)} {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    print(f"\n{Path(args.gguf).name} as the judge, {len(picked)} questions of {args.rows} "
          f"({time.perf_counter() - t0:.0f}s)\n")
    print("| questions | the rules | rule | judged | YES | NO | other |\n|---|---|---|---|---|---|---|")
    for kind, dec in (("right", "refused"), ("right", "answered"), ("off", "answered"), ("off", "refused")):
        for rule in sorted({k[2] for k in got if k[:2] == (kind, dec)}):
            c = [got[(kind, dec, rule, s)] for s in ("YES", "NO", "OTHER")]
            print(f"| {'right answers' if kind == 'right' else 'off-domain'} | {dec} | {rule} | {sum(c)} | "
                  f"{c[0]} | {c[1]} | {c[2]} |")
    for kind in ("right", "off"):
        soft = [got[k] for k in got if k[0] == kind and k[1] == "refused" and k[2] in SOFT]
        yes = [got[k] for k in got if k[0] == kind and k[1] == "refused" and k[2] in SOFT and k[3] == "YES"]
        print(f"\n{kind}: refused by the bars {sum(soft)}, the judge says YES to {sum(yes)}", end="")
    print()


if __name__ == "__main__":
    main()
