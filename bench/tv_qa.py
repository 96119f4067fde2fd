"""The Smart TV / remote manual's 680 real-user QA pairs (E-Manual QA's ``smart_remote_QA.zip``):
retrieval at the app's defaults, right answers refused, and windows against chunks, side by side.

    python bench/tv_qa.py --home H                       # defaults: hit and refusals per kind
    python bench/tv_qa.py --home H --windows --report M  # and the windows-vs-chunks sweep

The zip (../shared/data/emanual/, Apache-2.0) is read at run time, never copied into the project.
Its JSON files are not valid JSON (unescaped quotes, trailing commas): each pair is read with a
pattern over its four fields. A question's ``answers`` are the manual's sentences (25+ characters,
the way bench/real_kbs.py reads the TV manual, said at most twice in it) that the pair's answer
text contains whole (not bench/real_kbs.py's 40-character prefix, which counted every "This function
may not be supported depending on ..." line as the answer of 87 pairs); pairs whose
answer holds none (the yes/no set answers "Yes") are left out, and so are the 50 questions
bench/real_kbs.py already asks. Kinds: ``normal``, ``paraphrased`` (the same needs in other
words) and ``compound`` (two questions in one). Hit: an answer sentence in the passages.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import zipfile
from collections import Counter
from pathlib import Path

import real_data
import real_kbs

PAIR = re.compile(r'"Section Hierarchy"\s*:\s*"(.*?)"\s*,\s*"Link"\s*:\s*"(.*?)"\s*,\s*"Question"\s*:\s*"(.*?)"'
                  r'\s*,\s*"Answer"\s*:\s*"(.*?)"\s*\}', re.S)
REPEATED = 2  # a manual line said more often than this is boilerplate, not an answer
KINDS = {"Normal Q&A": "normal", "Paraphrased Q&A": "paraphrased", "Compound Q&A": "compound", "Yes_No Q&A": "yesno"}


def questions() -> list[dict]:
    """The zip's QA pairs whose answer holds a sentence of the manual, each question once."""
    _, lines_of = real_data._tv_markdown()
    said = Counter(real_data.norm(x.rstrip(".")) for v in lines_of.values() for x in v)
    # a line the manual repeats ("This function may not be supported depending on the model") is in
    # many answers and near many questions: it is no evidence of having found this one
    keys = sorted({(real_data.norm(x.rstrip(".")), x.rstrip(".")) for v in lines_of.values() for x in v
                   if said[real_data.norm(x.rstrip("."))] <= REPEATED})
    with (real_data.DATA / "emanual" / "smart_tv_remote_50_questions.csv").open(encoding="utf-8") as fh:
        seen = {r["question"].strip().lower() for r in csv.DictReader(fh)}
    out = []
    with zipfile.ZipFile(real_data.DATA / "emanual" / "smart_remote_QA.zip") as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".json")):
            kind = KINDS.get(name.split("/")[-2] if "/" in name else "", "other")
            for path, _, q, a in PAIR.findall(z.read(name).decode("utf-8")):
                key = q.strip().lower()
                if key in seen:
                    continue
                seen.add(key)
                na = real_data.norm(a)
                answers = [s for k, s in keys if k in na]
                if answers:
                    out.append({"q": q.strip(), "answers": answers, "kind": kind, "lang": "en",
                                "section": path.split(">")[-1].strip()})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", default=str(real_kbs.ROOT / "bench" / "out" / "real_kbs_home"))
    ap.add_argument("--out", default=str(real_kbs.ROOT / "bench" / "out" / "tv_qa.json"))
    ap.add_argument("--report", default=None)
    ap.add_argument("--windows", action="store_true", help="also windows against chunks (about 10 min)")
    ap.add_argument("--limit", type=int, default=0, help="ask only the first N questions (0: all)")
    args = ap.parse_args()
    qs = questions()[:args.limit or None]
    eng = real_kbs.engine(args.home)
    real_kbs.build(eng, "em_tv", real_kbs.emanual()[0]["tv"])
    res = real_kbs.ask_all(eng, "em_tv", qs, True)
    lines = [f"`python bench/tv_qa.py {' '.join(sys.argv[1:])}`", "",
             "### The TV manual's QA pairs at the defaults (no LLM), SWR_CROSSLINGUAL=on", "",
             "| questions | answer in the passages | right answers refused |", "|---|---|---|"]
    for kind in ("normal", "paraphrased", "compound", "all"):
        sub = [r for r in res if kind in ("all", r["kind"])]
        hit = [r for r in sub if r["hit"]]
        lines.append(f"| {kind} | {real_kbs.rate([r['hit'] for r in sub])} | "
                     f"{real_kbs.rate([not r['answerable'] for r in hit])} |")
    lines.append("\nrules that refused right answers: " + ", ".join(
        f"{k} {v}" for k, v in Counter(r["rule"] for r in res if r["hit"] and not r["answerable"]).most_common()))
    store = {"defaults": res}
    if args.windows:
        from swr.evaluate.questions import Question

        real_kbs.part_windows(eng, "em_tv", [], [Question(q["q"], q["answers"], [], None, "") for q in qs], lines,
                              store)
    text = "\n".join(lines)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(store, ensure_ascii=False, default=str), encoding="utf-8")
    if args.report:
        Path(args.report).write_text(text + "\n", encoding="utf-8")
    eng.close()


if __name__ == "__main__":
    main()
