"""Retrieval on real support content, side by side in one run, every rate with n and a 95% Wilson interval.

    python bench/real_kbs.py                 # every part, default sizes (about 20 min on 2 shared cores)
    python bench/real_kbs.py --quick         # smaller samples (a few minutes once embeddings are cached)
    python bench/real_kbs.py --parts bipar --n 60
    python bench/real_kbs.py --parts faq     # the bilingual product FAQ (bench/data/faq_bilingual/)

Data is read from ../shared/data at run time and never copied into the project (BiPaR is
CC BY-NC: evaluation only). Parts:

(a) ``bipar``: a mixed-language knowledge base as bipar/SOURCE.txt describes: a seeded sample of
    the parallel passages, half indexed in English only and half in Chinese only; each passage's
    English and Chinese question. "same": the question's language is the passage's; "cross": the
    other. Hit: an answer (of the indexed copy) is in the passages of that document sent to the
    LLM, at the app's defaults (fixed window 3, top-k 3), with ``SWR_CROSSLINGUAL`` off and on.
    The same on a second mixed KB built from XQuAD (en half / zh half by paragraph), so a rule
    is never tuned to one set. ``xquadwide``: the XQuAD KB crowded with 400 other SQuAD dev
    paragraphs (English, some of the same articles) and 400 CMRC 2018 dev paragraphs (Chinese) no
    question is asked of: a knowledge base where near-topic text of both languages competes.
(b) ``emanual``: the Samsung S10 and Smart TV/remote manuals (emanual/), each indexed as one
    Markdown document (a heading per section), with their user questions (the answer is a whole
    section: hit = a line of 25+ characters of the answering section in the passages) and
    bench/data/emanual_own_questions.csv (short answers written over the same manuals); then 36 of
    the S10 questions in Chinese (bench/data/emanual_zh_questions.json, our translations), with
    cross-lingual search off and on: a Chinese customer on an English manual.
(c) ``refusals`` (from the runs of (a) and (b), at default settings): right answers refused
    (answerable false while the answer is in the passages), and off-domain questions refused:
    TV questions on the S10 KB, S10 questions on the TV KB, CMRC and SQuAD questions and
    chit-chat on the S10 KB.
(d) ``windows``: ``swr.evaluate.sweep`` (fixed 0-5, section and budget windows at each budget,
    top-k 1-10) against chunks of 64-512 tokens; for 300, 600 and 1,200 characters the best of
    each side whose mean context is under the budget. English: the two manuals' user questions
    (hit as in (b)). Chinese: ExpMRC's CMRC 2018 subset with the longest human-marked evidence
    (56 characters on average, a clause to several sentences) as the expected answer, whole:
    real Chinese passages where the answer to carry is long, not a short span (CMRC's own
    answers fit in any window).
(e) ``faq``: bench/data/faq_bilingual/ (an original bilingual product FAQ of a fictional brand:
    Wi-Fi/Bluetooth modules and a robot vacuum; 60 answer-only pages, half English, half
    Chinese) as the KB ``faq_bi``, its 120 questions (30 a cell) asked with cross-lingual search
    off and on as in (a), then right answers refused (same / cross) and its 20 off-domain
    questions refused, with the first deciding rule of each refusal and the refused right answers
    listed (question, rule, reason). ``faq2``: the same for bench/data/faq_bilingual2/ (another
    fictional brand and two other products, 40 pages, 80 questions, 20 a cell) as ``faq_bi2``,
    written after the fusion's rules were calibrated: a check, not a target. ``faq3``: a third
    (bench/data/faq_bilingual3/: a robot vacuum and earbuds, 50 pages, 80 questions) as ``faq_bi3``,
    written after the second's fix, kept as a check in the same way. ``faq4``: a fourth
    (bench/data/faq_bilingual4/: a door lock and a power station, 40 pages, a third of them long
    pages of 20-35 sentences with sections and tables) as ``faq_bi4``, written after the third's
    fixes, a check of the page-length rules (``SubjectRules.min_sentences``). ``faq5``: a fifth
    (bench/data/faq_bilingual5/: espresso machines and smart watches, 40 pages) as ``faq_bi5``,
    written by another hand after the support words (swr/text/data/support_terms.tsv) without
    reading them: a check of them, never tuned on.
(f) ``helpzh``: bench/data/helpcentre_zh/ (an original Chinese help centre of a fictional
    appliance brand: 40 articles of paragraphs, steps, lists and tables; 180 questions typed as
    customers type them, each answer 2-4 whole sentences, rows or items, 97 characters on
    average), windows against chunks as in (d): the customer-service text with long answers; then
    its questions at the defaults: right answers refused, and off-domain questions refused.
    Then 45 of its questions as an English-speaking customer types them (questions_en.json, written
    for this benchmark; the answers stay the Chinese articles'), with cross-lingual search off and on.
(g) ``helpzhp``: the same help centre cut into one document per section (201 short passages titled
    "article title：section heading"), windows against chunks as in (d).

Embeddings are cached under --home (a rerun embeds only new texts); each KB is built once per run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from intervals import wilson
from real_data import (
    FAQ,
    FAQ2,
    FAQ3,
    FAQ4,
    FAQ5,
    HELPZH,
    OTHER_PRODUCTS,
    ROOT,
    bipar,
    build,
    distractors,
    emanual,
    engine,
    expmrc_zh,
    faq,
    helpcentre_passages,
    helpcentre_zh,
    norm,
    offdomain,
    xquad,
)
from real_windows import part_windows

from common import ask_rules, rule_table
from swr.core.rules.crosslingual import DEFAULT_RULES

RULES = DEFAULT_RULES  # this run's cross-lingual rules (--rule)
FIRED: dict[str, Counter] = {}  # the rule ids each set's answers and hits record (printed at the end)


def rate(flags: list[bool]) -> str:
    k, n = sum(flags), len(flags)
    if not n:
        return "–"
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.2f}, {hi:.2f}] n={n}"



# -- runs ---------------------------------------------------------------------------------------
def ask_all(eng, kb: str, qs: list[dict], xl: bool) -> list[dict]:
    """Each question asked at the defaults (no LLM): answer in the passages (of its document when
    it names one), answerable, and the top hits' languages / rule traces."""
    from swr.answer.answerable_terms import unknown_terms
    from swr.answer.centred import best_centred

    eng.crosslingual.enabled = xl
    eng.crosslingual._translated.clear()
    out = []
    for q in qs:
        r = eng.ask(q["q"], kb, llm=False, crosslingual=RULES)
        ps = [p for p in r.passages if "doc" not in q or p.source == q["doc"]]
        hit = any(norm(a) in norm(p.text) for p in ps for a in q.get("answers", ()))
        top = [h for p in r.passages for h in p.hits]
        a = r.answerability or {}
        out.append({**q, "hit": hit, "answerable": bool(r.answerable),
                    "rule": (a.get("rules") or ["-"])[0], "why": a.get("reason", ""), "cos": a.get("score"),
                    "vias": [h.via for h in sorted(top, key=lambda h: h.rank)],
                    "traces": [h.trace for h in sorted(top, key=lambda h: h.rank)],
                    "signals": {**(a.get("signals") or {}), "unknown": len(unknown_terms(eng, q["q"], kb))},
                    "kb": kb, "top": [h.sentence for h in sorted(top, key=lambda h: h.rank)][:3],
                    # what the evidence score's centred weights read (the best centred cosine less the hubness share)
                    "xcos": best_centred(top, RULES.hub_weight)})
        FIRED.setdefault(f"{kb} ({'cross-lingual on' if xl else 'off'})", Counter()).update(ask_rules(r))
    return out


def cells(rows: list[dict], key) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        for k in key(r):
            out.setdefault(k, []).append(r)
    return out


def part_mixed(eng, name: str, docs, qs, n: int, lines: list[str], store: dict) -> None:
    build(eng, name, docs)
    by = cells(qs, lambda r: [f"{r['kind']} {r['lang']}"])
    picked = [q for k in sorted(by) for q in random.Random(k).sample(by[k], min(n, len(by[k])))]
    res = {m: ask_all(eng, name, picked, m == "on") for m in ("off", "on")}
    store[name] = res
    lines += [f"\n### {name}: mixed-language KB ({len(docs)} passages, half en / half zh), answer in the passages "
              "(defaults: fixed window 3, top-k 3)", "", "| cell | SWR_CROSSLINGUAL=off | on |", "|---|---|---|"]
    for label in ("same (both)", "cross (both)", "same en", "same zh", "cross en", "cross zh"):
        def key(r, label=label) -> bool:
            return label.split()[0] == r["kind"] and label.split()[1] in ("(both)", r["lang"])
        got = {m: [r["hit"] for r in res[m] if key(r)] for m in res}
        lines.append(f"| {label} | {rate(got['off'])} | {rate(got['on'])} |")
    s_off = [r["hit"] for r in res["off"] if r["kind"] == "same"]
    s_on = [r["hit"] for r in res["on"] if r["kind"] == "same"]
    c_on = [r["hit"] for r in res["on"] if r["kind"] == "cross"]
    if s_on and c_on:
        a, b, c = sum(s_off) / len(s_off), sum(s_on) / len(s_on), sum(c_on) / len(c_on)
        lines.append(f"\nfloors: same on - off = {100 * (b - a):+.1f} points (>= -2); cross on / same on = "
                     f"{c / b if b else 0:.3f} (>= 0.85)")


def part_emanual(eng, n: int, lines: list[str], store: dict) -> tuple[dict, dict]:
    docs, qs = emanual()
    for kb in ("s10", "tv"):
        build(eng, f"em_{kb}", docs[kb])
    lines += ["\n### E-manuals: answer in the passages (defaults), SWR_CROSSLINGUAL=on", "",
              "| manual | questions | hit |", "|---|---|---|"]
    for kb in ("s10", "tv"):
        for kind in ("user", "own"):
            sub = [q for q in qs[kb] if q["kind"] == kind][:n]
            res = ask_all(eng, f"em_{kb}", sub, True)
            store[f"em_{kb}_{kind}"] = res
            lines.append(f"| {kb} | {kind} | {rate([r['hit'] for r in res])} |")
    return docs, qs


def part_emanual_zh(eng, qs: dict, lines: list[str], store: dict) -> None:
    """Chinese questions on the English S10 manual (built by :func:`part_emanual`): a customer
    writing in Chinese to a team whose manual is in English (bench/data/emanual_zh_questions.json:
    our translations of the manual's user and own questions; the answers are the original's)."""
    by_en = {q["q"]: q for q in qs["s10"]}
    zh = [{**by_en[x["en"]], "q": x["q"], "lang": "zh"} for x in json.loads(
        (ROOT / "bench" / "data" / "emanual_zh_questions.json").read_text(encoding="utf-8")) if x["en"] in by_en]
    part_other_language(eng, "em_s10", zh, "Chinese questions on the English S10 manual", "zh_questions_on_em_s10",
                        lines, store)


def part_other_language(eng, kb: str, qs: list[dict], title: str, key: str, lines: list[str], store: dict) -> None:
    """``qs`` asked on ``kb`` (a knowledge base of the other language) with cross-lingual search off
    and on: answer in the passages, and right answers refused (on), with the rules that refused."""
    res = {m: ask_all(eng, kb, qs, m == "on") for m in ("off", "on")}
    store[key] = res
    hit = [r for r in res["on"] if r["hit"]]
    lines += [f"\n### {title} (defaults, no LLM)", "",
              "| what | SWR_CROSSLINGUAL=off | on |", "|---|---|---|",
              "| answer in the passages | " + " | ".join(rate([r["hit"] for r in res[m]]) for m in res) + " |",
              f"| right answers refused | – | {rate([not r['answerable'] for r in hit])} |"]
    lines.append("\nrules that refused right answers (on): " + ", ".join(
        f"{k} {v}" for k, v in Counter(r["rule"] for r in hit if not r["answerable"]).most_common()))


def part_faq(eng, lines: list[str], store: dict, name: str = "faq_bi", folder=None) -> None:
    """A bilingual FAQ (``folder``, default bench/data/faq_bilingual/) as the KB ``name``: hit rates
    as :func:`part_mixed` (every question), then its refusals."""
    docs, qs, off = faq(folder)
    part_mixed(eng, name, docs, qs, len(qs), lines, store)
    res = store[name]
    res["off_domain"] = {m: ask_all(eng, name, off, m == "on") for m in ("off", "on")}
    lines += [f"\n### {name}: refusals at the defaults (no LLM)", "",
              "| what | SWR_CROSSLINGUAL=off | on |", "|---|---|---|"]
    for label, kinds, langs in (("right answers refused: same language", ("same",), ("en", "zh")),
                                ("right answers refused: cross language", ("cross",), ("en", "zh")),
                                ("right answers refused: all", ("same", "cross"), ("en", "zh")),
                                ("right answers refused: English questions", ("same", "cross"), ("en",)),
                                ("right answers refused: Chinese questions", ("same", "cross"), ("zh",))):
        got = {m: [not r["answerable"] for r in res[m] if r["hit"] and r["kind"] in kinds and r["lang"] in langs]
               for m in ("off", "on")}
        lines.append(f"| {label} | {rate(got['off'])} | {rate(got['on'])} |")
    for label, pick in [("off-domain refused: all", lambda r: True)] + [
            (f"off-domain refused: {a}", lambda r, a=a: r["about"] == a)
            for a in sorted({q["about"] for q in off})] + [
            (f"off-domain refused: {lg} questions", lambda r, lg=lg: r["lang"] == lg) for lg in ("en", "zh")]:
        got = {m: [not r["answerable"] for r in res["off_domain"][m] if pick(r)] for m in ("off", "on")}
        lines.append(f"| {label} | {rate(got['off'])} | {rate(got['on'])} |")
    wrong = [r for r in res["on"] if r["hit"] and not r["answerable"]]
    for label, rows in (("first rule of each refused right answer (on)", wrong),
                        ("first rule of each refused off-domain question (on)",
                         [r for r in res["off_domain"]["on"] if not r["answerable"]]),
                        ("first rule of each answered off-domain question (on)",
                         [r for r in res["off_domain"]["on"] if r["answerable"]])):
        counts = Counter(r["rule"] for r in rows)
        lines.append(f"\n{label}: " + (", ".join(f"{k} {n}" for k, n in counts.most_common()) or "none"))
    lines += ["\nRefused right answers (on): question, cell, first rule, reason", "",
              "| question | cell | rule | reason |", "|---|---|---|---|"]
    lines += [f"| {r['q']} | {r['kind']} {r['lang']} | {r['rule']} | {str(r['why']).replace('|', '/')} |"
              for r in wrong]
    lines += ["\nAnswered off-domain questions (on): question, what, first rule, reason", "",
              "| question | what | rule | reason |", "|---|---|---|---|"]
    lines += [f"| {r['q']} | {r['about']} | {r['rule']} | {str(r['why']).replace('|', '/')} |"
              for r in res["off_domain"]["on"] if r["answerable"]]


def part_refusals(eng, store: dict, qs_em: dict, n_off: int, lines: list[str]) -> None:
    answered = [r for k, v in store.items() if not k.startswith("em_") for r in v["on"] if r["hit"]]
    answered_em = [r for k, v in store.items() if k.startswith("em_") for r in v if r["hit"]]
    off = offdomain(n_off)
    res_off = ask_all(eng, "em_s10", off, True)
    res_off += ask_all(eng, "em_s10", [{"q": q, "kind": "other products"} for q in OTHER_PRODUCTS], True)
    res_off += ask_all(eng, "em_tv", [{"q": q, "kind": "other products"} for q in OTHER_PRODUCTS], True)
    # the same questions on the mixed-language KBs, where the question's translation finds passages of
    # the other language too (SQuAD's are XQuAD's source articles and xquad_wide holds CMRC's and
    # SQuAD's paragraphs: not off-domain there)
    for kb in [k for k in store if not k.startswith("em_")]:
        inside = {"squad"} if kb.startswith("xquad") else set()
        inside |= {"cmrc"} if kb == "xquad_wide" else set()
        res_off += ask_all(eng, kb, [{**q, "kind": f"{q['kind']} on {kb}"} for q in off + [
            {"q": q, "kind": "other products"} for q in OTHER_PRODUCTS] if q["kind"] not in inside], True)
    swap = ask_all(eng, "em_s10", [{"q": q["q"], "kind": "tv on s10"} for q in qs_em["tv"][:n_off]], True)
    swap += ask_all(eng, "em_tv", [{"q": q["q"], "kind": "s10 on tv"} for q in qs_em["s10"][:n_off]], True)
    store["offdomain"] = res_off + swap
    lines += ["\n### Refusals at the defaults (no LLM), SWR_CROSSLINGUAL=on", "", "| what | rate |", "|---|---|"]
    for label, rows in (("right answers refused: mixed KBs (answer in the passages)", answered),
                        ("right answers refused: E-manuals (answer in the passages)", answered_em)):
        lines.append(f"| {label} | {rate([not r['answerable'] for r in rows])} |")
    for kb, v in store.items():  # the mixed KBs by kind: a cross-language answer is refused far more often
        if not kb.startswith("em_") and kb != "offdomain":
            for kind in ("same", "cross"):
                rows = [r for r in v["on"] if r["hit"] and r["kind"] == kind]
                refused = rate([not r["answerable"] for r in rows])
                lines.append(f"| right answers refused: {kb}, {kind} language | {refused} |")
    # the Samsung neighbour manual's questions share much with the KB's (Bixby, Wi-Fi, sound, apps):
    # some are answered by it, so they are counted apart from the off-domain questions
    everything = "all off-domain (other products, chit-chat, CMRC, SQuAD)"
    for kind, rows in cells(res_off, lambda r: [r["kind"], everything]).items():
        lines.append(f"| off-domain refused: {kind} | {rate([not r['answerable'] for r in rows])} |")
    for kind, rows in cells(swap, lambda r: [r["kind"], "the other Samsung manual's questions"]).items():
        lines.append(f"| neighbour refused: {kind} | {rate([not r['answerable'] for r in rows])} |")
    rows = [r for v in store.values() if isinstance(v, dict) for r in v.get("on", []) if r["hit"]
            and not r["answerable"]] + [r for r in answered_em if not r["answerable"]]
    lines.append("\nrules that refused right answers: " + ", ".join(
        f"{k} {n}" for k, n in sorted(cells(rows, lambda r: [r["rule"]]).items(), key=lambda t: -len(t[1]))
        for n in [len(n)]))
    lines.append("rules that answered off-domain questions: " + ", ".join(
        f"{k} {len(v)}" for k, v in cells([r for r in res_off if r["answerable"]], lambda r: [r["rule"]]).items()))


def part_help_refusals(eng, lines: list[str], store: dict, n_off: int) -> None:
    """The help centre (built by its windows part) at the defaults: answer in the passages, right
    answers refused, and off-domain questions (as in (c), plus the bilingual FAQ's) refused."""
    raw = json.loads((HELPZH / "questions.json").read_text(encoding="utf-8"))
    res = ask_all(eng, "helpcentre_zh", raw, True)
    # (the help centre's air fryer article answers "Can I put the air fryer basket in the dishwasher?":
    # 炸篮和接油盘可以放入洗碗机清洗; not off-domain here)
    off = offdomain(n_off) + [{"q": q, "kind": "other products"} for q in OTHER_PRODUCTS if "air fryer" not in q]
    off += [{"q": q["q"], "kind": "faq off-domain"} for q in json.loads((FAQ / "questions.json").read_text(
        encoding="utf-8")) if q["kind"] == "off"]
    res_off = ask_all(eng, "helpcentre_zh", off, True)
    store["helpcentre_zh"] = {"on": res, "offdomain": res_off}
    hit = [r for r in res if r["hit"]]
    lines += ["\n### helpcentre_zh at the defaults (no LLM)", "", "| what | rate |", "|---|---|",
              f"| answer in the passages | {rate([r['hit'] for r in res])} |",
              f"| right answers refused | {rate([not r['answerable'] for r in hit])} |",
              f"| off-domain refused | {rate([not r['answerable'] for r in res_off])} |"]
    lines.append("\nrules that refused right answers: " + ", ".join(
        f"{k} {v}" for k, v in Counter(r["rule"] for r in hit if not r["answerable"]).most_common()))


def part_help_english(eng, lines: list[str], store: dict) -> None:
    """English questions on the Chinese help centre (built by its windows part): a customer writing
    in English to a team whose help centre is in Chinese."""
    qs = json.loads((HELPZH / "questions_en.json").read_text(encoding="utf-8"))
    part_other_language(eng, "helpcentre_zh", qs, "English questions on the Chinese help centre", "helpcentre_en",
                        lines, store)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", nargs="+", default=["bipar", "xquad", "emanual", "refusals", "windows", "helpzh",
                                                   "helpzhp"])
    ap.add_argument("--n", type=int, default=50, help="questions per cell (mixed KBs: per kind and language)")
    ap.add_argument("--passages", type=int, default=120, help="BiPaR passages (half en, half zh)")
    ap.add_argument("--xquad-paras", type=int, default=240)
    ap.add_argument("--distract", type=int, default=400,
                    help="xquadwide: SQuAD and CMRC paragraphs (each) added to XQuAD's mixed KB")
    ap.add_argument("--zh-paras", type=int, default=120, help="ExpMRC CMRC paragraphs for the Chinese windows set")
    ap.add_argument("--seed", type=int, default=0, help="the mixed KBs' sample (0: the calibration sample)")
    ap.add_argument("--quick", action="store_true", help="n 20, 60 passages, 60 paragraphs")
    ap.add_argument("--home", default=str(ROOT / "bench" / "out" / "real_kbs_home"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "real_kbs.json"))
    ap.add_argument("--report", default=None, help="also write the printed report to this file")
    ap.add_argument("--rule", nargs="*", default=[], metavar="FIELD=VALUE",
                    help="CrossLingualRules fields for this run (e.g. margin=0.2)")
    args = ap.parse_args()
    global RULES
    def typed(k: str, v: str):
        kind = type(getattr(RULES, k))
        if kind is tuple:  # weights: "-3.8,4.1,..."
            return tuple(float(x) for x in v.strip("()[] ").split(","))
        return v.lower() in ("1", "true", "on", "yes") if kind is bool else kind(v)
    RULES = replace(RULES, **{k: typed(k, v) for k, v in (x.split("=", 1) for x in args.rule)})
    if args.quick:
        args.n, args.passages, args.xquad_paras, args.zh_paras = 20, 60, 120, 60
    cmd = "python bench/real_kbs.py " + " ".join(sys.argv[1:])
    t_start = time.perf_counter()
    eng = engine(args.home)
    lines = [f"`{cmd}` (load before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"]
    store: dict = {}
    if "bipar" in args.parts:
        part_mixed(eng, "bipar", *bipar(args.passages, args.seed), args.n, lines, store)
    if "xquad" in args.parts:
        part_mixed(eng, "xquad_mixed", *xquad(args.xquad_paras, args.seed), args.n, lines, store)
    if "xquadwide" in args.parts:
        docs, qs = xquad(args.xquad_paras, args.seed)
        part_mixed(eng, "xquad_wide", docs + distractors(args.distract, args.seed), qs, args.n, lines, store)
    if "faq" in args.parts:
        part_faq(eng, lines, store)
    if "faq2" in args.parts:
        part_faq(eng, lines, store, "faq_bi2", FAQ2)
    if "faq3" in args.parts:
        part_faq(eng, lines, store, "faq_bi3", FAQ3)
    if "faq4" in args.parts:
        part_faq(eng, lines, store, "faq_bi4", FAQ4)
    if "faq5" in args.parts:
        part_faq(eng, lines, store, "faq_bi5", FAQ5)
    qs_em = None
    if "emanual" in args.parts or "refusals" in args.parts or "windows" in args.parts:
        docs_em, qs_em = emanual()
        if "emanual" in args.parts or "refusals" in args.parts:
            part_emanual(eng, args.n, lines, store)
        else:
            build(eng, "em_s10", docs_em["s10"])
    if "refusals" in args.parts:
        part_refusals(eng, store, qs_em, min(args.n, 20), lines)
    if "emanual" in args.parts:  # (after the refusals: their rates are of the English questions)
        part_emanual_zh(eng, qs_em, lines, store)
    if "windows" in args.parts:
        from swr.evaluate.questions import Question

        # the S10 manual (the TV manual's sections are PDF pages joined: no paragraph structure)
        man = [Question(q["q"], q["answers"], [], None, "") for q in qs_em["s10"][:args.n * 2]]
        part_windows(eng, "em_s10", [], man, lines, store)
        zdocs, zqs = expmrc_zh(args.zh_paras)
        part_windows(eng, "expmrc_zh", zdocs, zqs[:args.n * 3], lines, store)
    if "helpzh" in args.parts:
        hdocs, hqs = helpcentre_zh()
        part_windows(eng, "helpcentre_zh", hdocs, hqs, lines, store)
        part_help_refusals(eng, lines, store, min(args.n, 20))
        part_help_english(eng, lines, store)
    if "helpzhp" in args.parts:
        part_windows(eng, "helpcentre_passages", *helpcentre_passages(), lines, store)
    lines += rule_table(FIRED, "How often each rule fired, per knowledge base and mode")
    lines.append(f"\n{time.perf_counter() - t_start:.0f}s in all")
    text = "\n".join(lines)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(store, ensure_ascii=False, indent=0, default=str), encoding="utf-8")
    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(text + "\n", encoding="utf-8")
    eng.close()


if __name__ == "__main__":
    main()
