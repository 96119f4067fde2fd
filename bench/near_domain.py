"""Near-domain questions on the five bilingual FAQs: another product's, another maker's, and right
questions that name another product or maker in passing, with ``answerable.product_absent`` on and off.

The questions (``bench/data/near_domain_fresh.json``, 80: 16 a FAQ, half English, half Chinese) were
written from the FAQs' pages by a session that read neither swr's code nor its product and maker lists
(swr/answer/data/products.tsv, brands.tsv), after those lists were written: a check of the rule on
questions it was not written from. Each "answerable_mentions" question quotes the FAQ sentence that
answers it. Printed side by side, with n and 95 % intervals: refused, per kind, rule on and off; then each
question whose verdict the rule changed.

    python bench/near_domain.py --home /tmp/real   # the FAQ knowledge bases are built there when missing
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from intervals import wilson  # noqa: E402
from real_data import FAQ, FAQ2, FAQ3, FAQ4, FAQ5, build, engine, faq  # noqa: E402

from swr.core.rules.answerable import DEFAULT_ANSWER  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "data" / "near_domain_fresh.json"
FOLDERS = {"faq_bi": FAQ, "faq_bi2": FAQ2, "faq_bi3": FAQ3, "faq_bi4": FAQ4, "faq_bi5": FAQ5}
KINDS = ("other_product", "other_brand", "answerable_mentions")


def rate(flags: list[bool]) -> str:
    k, n = sum(flags), len(flags)
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.2f}, {hi:.2f}] n={n}" if n else "–"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", required=True, help="SWR_HOME of the benchmark (the FAQs are indexed there)")
    ap.add_argument("--report", help="also write the report (Markdown) here")
    args = ap.parse_args()
    eng = engine(args.home)
    qs = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    rows = []
    for kb, items in qs.items():
        if kb not in eng.store.kbs():
            build(eng, kb, faq(FOLDERS[kb])[0])
        for it in items:
            got = {}
            for mode, rules in (("on", DEFAULT_ANSWER), ("off", replace(DEFAULT_ANSWER, product_absent=False))):
                a = eng.ask(it["q"], kb, llm=False, answerable=rules)
                got[mode] = (a.answerable, (a.answerability.get("rules") or ["-"])[0])
            rows.append({**it, "kb": kb, **got})
    lines = ["| kind | refused, rule off | refused, rule on |", "|---|---|---|"]
    for kind in KINDS:
        for lang in (None, "en", "zh"):
            pick = [r for r in rows if r["kind"] == kind and (lang is None or r["lang"] == lang)]
            label = kind + (f", {lang}" if lang else "")
            off, on = (rate([not r[m][0] for r in pick]) for m in ("off", "on"))
            lines.append(f"| {label} | {off} | {on} |")
    lines += ["", "Verdicts the rule changed: kind, knowledge base, question", ""]
    lines += [f"- {r['kind']}, {r['kb']}: {r['q']}" for r in rows if r["on"][0] != r["off"][0]]
    lines += ["", "Still answered (rule on), not answerable_mentions: first rule, question", ""]
    lines += [f"- {r['on'][1]}: {r['q']}" for r in rows if r["on"][0] and r["kind"] != "answerable_mentions"]
    lines += ["", "answerable_mentions refused (rule on): first rule, question", ""]
    lines += [f"- {r['on'][1]}: {r['q']}" for r in rows if not r["on"][0] and r["kind"] == "answerable_mentions"]
    text = "\n".join(lines)
    print(text)
    if args.report:
        Path(args.report).write_text("`python bench/near_domain.py`\n\n" + text + "\n", encoding="utf-8")
    eng.close()


if __name__ == "__main__":
    main()
