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
    listed (question, rule, reason).
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
import csv
import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from intervals import wilson

from common import ask_rules, rule_table
from swr.core.rules.crosslingual import DEFAULT_RULES

RULES = DEFAULT_RULES  # this run's cross-lingual rules (--rule)
FIRED: dict[str, Counter] = {}  # the rule ids each set's answers and hits record (printed at the end)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
OWN = ROOT / "bench" / "data" / "emanual_own_questions.csv"
FAQ = ROOT / "bench" / "data" / "faq_bilingual"
HELPZH = ROOT / "bench" / "data" / "helpcentre_zh"
CHITCHAT = ["How are you today?", "What's the weather like tomorrow?", "Tell me a joke.",
            "Who won the World Cup in 2018?", "今天天气怎么样？", "你叫什么名字？", "给我讲个笑话吧。",
            "What is the capital of France?", "推荐一部好看的电影。", "How do I bake sourdough bread?"]
# questions about other products than the two Samsung manuals (written for this benchmark), asked
# on both manuals: what a support team's knowledge base meets from customers of another product
OTHER_PRODUCTS = ["How do I descale my coffee machine?", "What is the towing capacity of the pickup truck?",
                  "How often should I change the cabin air filter in my car?", "What temperature should I wash "
                  "wool sweaters at?", "How do I replace the ink cartridge in my printer?",
                  "Can I put the air fryer basket in the dishwasher?", "What is the warranty on the refrigerator "
                  "compressor?", "How do I clean the lint filter of my tumble dryer?",
                  "What does error E21 mean on my washing machine?", "How much water does the dehumidifier tank hold?",
                  "洗衣机的滚筒怎么清洁？", "空调的除湿模式怎么打开？", "电饭煲的内胆可以放进洗碗机吗？",
                  "汽车轮胎的标准气压是多少？", "打印机卡纸了怎么办？", "冰箱冷藏室温度设置多少合适？",
                  "扫地机器人的边刷多久换一次？", "热水器显示E1是什么意思？",
                  "微波炉可以加热带壳的鸡蛋吗？", "跑步机的最大承重是多少？"]


def norm(s: str) -> str:
    return "".join((s or "").split()).lower()


def rate(flags: list[bool]) -> str:
    k, n = sum(flags), len(flags)
    if not n:
        return "–"
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.2f}, {hi:.2f}] n={n}"


# -- data ---------------------------------------------------------------------------------------
def bipar(n_passages: int, seed: int = 0):
    """(docs, questions) of the mixed BiPaR KB; each question: q, lang, kind, doc, answers."""
    d = json.loads((DATA / "bipar" / "zh_and_en_valid.json").read_text(encoding="utf-8"))["data"]
    by = {}
    for e in d:
        p = e["paragraphs"][0]
        lang = "zh" if p["qas"][0]["id"].endswith("ZH") else "en"
        by.setdefault(e["title"], {})[lang] = p
    titles = sorted(t for t, v in by.items() if len(v) == 2)
    random.Random(seed).shuffle(titles)
    docs, qs = [], []
    for k, t in enumerate(titles[:n_passages]):
        lang = "en" if k % 2 == 0 else "zh"
        name = f"bp{k:03d}.{lang}.txt"
        docs.append((name, by[t][lang]["context"]))
        gold = {re.sub(r"_(EN|ZH)$", "", qa["id"]): [a["text"] for a in qa["answers"]] for qa in by[t][lang]["qas"]}
        for qlang in ("en", "zh"):
            for qa in by[t][qlang]["qas"]:
                answers = gold.get(re.sub(r"_(EN|ZH)$", "", qa["id"]))
                if answers:
                    qs.append({"q": qa["question"], "lang": qlang, "kind": "same" if qlang == lang else "cross",
                               "doc": name, "answers": answers})
    return docs, qs


def xquad(n_paras: int, seed: int = 0):
    """The same arrangement over XQuAD's parallel paragraphs (a second, Wikipedia-based set)."""
    data = {lang: json.loads((DATA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))["data"]
            for lang in ("en", "zh")}
    paras = {lang: [p for a in data[lang] for p in a["paragraphs"]] for lang in data}
    order = list(range(len(paras["en"])))
    random.Random(seed).shuffle(order)
    docs, qs = [], []
    for k, p in enumerate(order[:n_paras]):
        lang = "en" if k % 2 == 0 else "zh"
        name = f"xq{p:03d}.{lang}.txt"
        docs.append((name, paras[lang][p]["context"]))
        gold = {qa["id"]: [a["text"] for a in qa["answers"]] for qa in paras[lang][p]["qas"]}
        for qlang in ("en", "zh"):
            for qa in paras[qlang][p]["qas"]:
                if gold.get(qa["id"]):
                    qs.append({"q": qa["question"], "lang": qlang, "kind": "same" if qlang == lang else "cross",
                               "doc": name, "answers": gold[qa["id"]]})
    return docs, qs


def distractors(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` English paragraphs of SQuAD dev (none of XQuAD's 240, which come from it: the others of
    the same articles, near-topic text) and ``n`` Chinese paragraphs of CMRC 2018 dev: Wikipedia text
    no question is asked of, so a mixed KB is as crowded as a real one and the same-language rate is
    off its ceiling."""
    xq = {p["context"] for a in json.loads((DATA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))["data"]
          for p in a["paragraphs"]}
    def paras(path: str) -> list[str]:
        return [p["context"] for a in json.loads((DATA / path).read_text(encoding="utf-8"))["data"]
                for p in a["paragraphs"] if p["context"] not in xq]
    en, zh = paras("squad_v1.1/dev-v1.1.json"), paras("cmrc2018/cmrc2018_dev.json")
    rng = random.Random(seed)
    return ([(f"sq{k:04d}.en.txt", t) for k, t in enumerate(rng.sample(en, min(n, len(en))))]
            + [(f"cm{k:04d}.zh.txt", t) for k, t in enumerate(rng.sample(zh, min(n, len(zh))))])


def faq():
    """(docs, answerable questions, off-domain questions) of the bilingual product FAQ; every
    answer string must occur verbatim in its page."""
    docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((FAQ / "pages").glob("*.md"))]
    text = dict(docs)
    qs = json.loads((FAQ / "questions.json").read_text(encoding="utf-8"))
    bad = [(q["q"], a) for q in qs if q["kind"] != "off" for a in q["answers"] if a not in text.get(q["doc"], "")]
    if bad:
        raise ValueError(f"answers not in their page: {bad}")
    return docs, [q for q in qs if q["kind"] != "off"], [q for q in qs if q["kind"] == "off"]


def _s10_markdown() -> tuple[str, dict[str, list[str]]]:
    """The S10 manual as Markdown (a heading per section, each section's own lines), and each
    section path's lines."""
    d = json.loads((DATA / "emanual" / "s10_manual_corpus.json").read_text(encoding="utf-8"))
    secs = list(d.values())
    kids = {}
    for s in secs:
        parts = s["section_hierarchy"].split(">")
        if len(parts) > 1:
            kids.setdefault(parts[-2], []).append(s)
    out, lines_of, path_of = [], {}, {}
    for s in secs:
        parts = s["section_hierarchy"].split(">")
        path_of[s["id"]] = [*path_of.get(parts[-2], []), s["title"]] if len(parts) > 1 else [s["title"]]
        child_titles = {c["title"] for c in kids.get(s["id"], [])}
        own = []
        for line in s["text"][1:] if s["text"] and s["text"][0] == s["title"] else s["text"]:
            if line in child_titles:
                break
            if line.strip() and line.strip() != "See .":
                own.append(line.strip())
        out.append("#" * min(len(parts), 6) + " " + s["title"])
        out.append("\n".join(own))
        full = [x.strip() for x in s["text"] if len(x.strip()) >= 25]
        lines_of.setdefault(">".join(path_of[s["id"]]), full)
    return "\n\n".join(x for x in out if x), lines_of


def _tv_markdown() -> tuple[str, dict[str, list[str]]]:
    d = json.loads((DATA / "emanual" / "smart_tv_remote_manual_corpus.json").read_text(encoding="utf-8"))
    out, lines_of = [], {}
    for s in d.values():
        text = " ".join(x.strip() for x in s["text"])  # the PDF's lines broke sentences: join them
        out += ["## " + s["title"], text]
        lines_of.setdefault(s["title"], []).extend(x.strip() + "." for x in re.split(r"(?<=[.!?])\s+", text)
                                                   if len(x.strip()) >= 25)
    return "\n\n".join(out), lines_of


def emanual():
    """(docs per manual, questions per manual); a question's ``answers`` are the answering section's lines."""
    s10, s10_lines = _s10_markdown()
    tv, tv_lines = _tv_markdown()
    docs = {"s10": [("galaxy_s10_manual.md", s10)], "tv": [("smart_tv_remote_manual.md", tv)]}
    qs: dict[str, list[dict]] = {"s10": [], "tv": []}
    for key, fname, lines_of in (("s10", "s10_50_questions.csv", s10_lines), ("tv", "smart_tv_remote_50_questions.csv",
                                                                            tv_lines)):
        with (DATA / "emanual" / fname).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                path = [p.strip() for p in row["section_path"].split(">")]
                cand = lines_of.get(">".join(path)) if key == "s10" else lines_of.get(path[-1])
                if cand is None and key == "s10":  # the CSV's path may skip a level: match its end
                    cand = next((v for k, v in lines_of.items() if k.endswith(">" + path[-1])), None)
                answers = [x.rstrip(".") for x in cand or [] if norm(x.rstrip("."))[:40] in norm(row["answer"])]
                if answers:
                    qs[key].append({"q": row["question"], "answers": answers, "kind": "user", "lang": "en"})
    if OWN.is_file():
        with OWN.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                answers = [a.strip() for a in row["answer"].split("|")]
                qs[row["manual"]].append({"q": row["question"], "answers": answers, "kind": "own", "lang": "en"})
    return docs, qs


def expmrc_zh(n_paras: int, seed: int = 0):
    """(docs, Questions) of ExpMRC's CMRC subset, the evidence sentences as the expected answers."""
    from swr.evaluate.questions import Question

    d = json.loads((DATA / "expmrc" / "expmrc-cmrc2018-dev.json").read_text(encoding="utf-8"))["data"]
    paras = [(a.get("title") or a.get("id") or str(k), p) for k, a in enumerate(d) for p in a["paragraphs"]]
    random.Random(seed).shuffle(paras)
    docs, qs = [], []
    for k, (_, p) in enumerate(paras[:n_paras]):
        name = f"cmrc{k:03d}.txt"
        docs.append((name, p["context"]))
        for qa in p["qas"]:
            ev = [e for e in (qa.get("evidences") or qa.get("evidence") or []) if e]
            ev = [e for e in dict.fromkeys(ev) if norm(e) in norm(p["context"])]
            if ev:  # the longest annotator's evidence, whole: an answer of one or more long sentences
                qs.append(Question(qa["question"], [max(ev, key=len)], [], name, str(qa.get("id", ""))))
    return docs, qs


def helpcentre_zh():
    """(docs, Questions) of the Chinese help centre; every answer must occur verbatim in its page."""
    from swr.evaluate.questions import Question

    docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((HELPZH / "pages").glob("*.md"))]
    text = dict(docs)
    raw = json.loads((HELPZH / "questions.json").read_text(encoding="utf-8"))
    bad = [q["q"] for q in raw if q["answers"][0] not in text.get(q["doc"], "")]
    if bad:
        raise ValueError(f"answers not in their page: {bad}")
    return docs, [Question(q["q"], q["answers"], [], q["doc"], q.get("form", "")) for q in raw]


def helpcentre_passages():
    """The help centre cut into one document per section (201 short passages, each titled "article
    title：section heading"): a help centre of short passages, as many are exported."""
    from swr.evaluate.questions import Question

    docs, qs = helpcentre_zh()
    pdocs = []
    for name, text in docs:
        title = text.splitlines()[0].lstrip("# ").strip()
        for i, part in enumerate(re.split(r"\n(?=## )", text)[1:], 1):
            head, _, body = part.partition("\n")
            pdocs.append((f"{name[:-3]}_{i}.md", f"# {title}：{head.lstrip('# ').strip()}\n{body.strip()}\n"))
    return pdocs, [Question(q.question, q.answers, [], src, "") for q in qs
                   for src in [next(n for n, t in pdocs if n.startswith(q.source[:-3] + "_") and q.answers[0] in t)]]


def offdomain(n: int, seed: int = 0) -> list[dict]:
    """Questions no manual answers: CMRC and SQuAD questions, chit-chat (the TV / S10 swap is added by main)."""
    from swr.evaluate.questions import load_squad

    out = [{"q": q, "kind": "chit-chat"} for q in CHITCHAT]
    for name, path in (("cmrc", DATA / "cmrc2018" / "cmrc2018_dev.json"),
                       ("squad", DATA / "squad_v1.1" / "dev-v1.1.json")):
        qs = load_squad(path)[1]
        out += [{"q": q.question, "kind": name} for q in random.Random(seed).sample(qs, n)]
    return out


# -- runs ---------------------------------------------------------------------------------------
def engine(home: str, crosslingual: str = "on"):
    from swr.core.settings import Settings
    from swr.engine import Engine

    s = Settings.from_env(env={}, secrets_path=Path(home) / "none.toml", home=home, sample_kb="",
                          crosslingual=crosslingual)
    return Engine(s)


def build(eng, kb: str, docs: list[tuple[str, str]]) -> None:
    """``kb`` built anew from ``docs`` (a knowledge base left by a run of another ``--seed`` holds
    other passages: indexing into it kept them, and XQuAD's cross-language rate read 0.64 for 0.90)."""
    t0 = time.perf_counter()
    if kb in {k["kb"] for k in eng.kbs(hidden=True)}:
        eng.delete_kb(kb, trash=False)
    res = eng.index_files(kb, [(n, t.encode("utf-8")) for n, t in docs])
    print(f"[{kb}] {len(res)} documents, {sum(r.sentences for r in res)} sentences, "
          f"{time.perf_counter() - t0:.0f}s", file=sys.stderr)


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
                    # what answerable.centred reads (the best centred cosine less the hubness share)
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


def part_faq(eng, lines: list[str], store: dict) -> None:
    """The bilingual FAQ: hit rates as :func:`part_mixed` (every question), then its refusals."""
    docs, qs, off = faq()
    part_mixed(eng, "faq_bi", docs, qs, len(qs), lines, store)
    res = store["faq_bi"]
    res["off_domain"] = {m: ask_all(eng, "faq_bi", off, m == "on") for m in ("off", "on")}
    lines += ["\n### faq_bi: refusals at the defaults (no LLM)", "",
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


def part_windows(eng, name: str, docs, questions, lines: list[str], store: dict, budgets=(300, 600, 1200)) -> None:
    from window_modes import best, cfg_label

    from swr.evaluate import sweep

    if docs:
        build(eng, name, docs)
    eng.crosslingual.enabled = True
    t0 = time.perf_counter()
    rows = sweep(eng, name, questions, windows=(0, 1, 2, 3, 5), top_ks=(1, 2, 3, 5, 10), modes=("hybrid",),
                 chunk_sizes=(64, 128, 256, 512), window_modes=("fixed", "section", "budget"), budgets=budgets,
                 details=True)
    print(f"[{name}] sweep {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    store[f"windows_{name}"] = [r.to_dict() for r in rows]
    lines += [f"\n### Windows vs chunks: {name} ({len(questions)} questions), best configuration under each budget", "",
              "| budget | best window | best chunks | fixed | section | budget |", "|---|---|---|---|---|---|"]
    for b in budgets:
        cell = []
        for sub in ([r for r in rows if r.config.method == "window"], [r for r in rows if r.config.method == "chunks"],
                    *[[r for r in rows if r.config.method == "window" and r.config.window_mode == m]
                      for m in ("fixed", "section", "budget")]):
            r = best(sub, sub[0].config.method, b) if sub else None
            if r is None:
                cell.append("nothing fits")
                continue
            k = sum(bool(o["hit"]) for o in r.outcomes)
            lo, hi = wilson(k, len(r.outcomes))
            cell.append(f"{k / len(r.outcomes):.3f} [{lo:.2f}, {hi:.2f}] {r.context_chars:.0f}ch ({cfg_label(r)})")
        lines.append(f"| {b} | " + " | ".join(cell) + " |")
    lines += ["", "Where the best window's misses are (its configuration at each budget, re-run): the hits are in "
              "another document; in the answer's document but none inside the answer; or a hit is inside the "
              "answer and the window cut it.", "",
              "| budget | config | misses | another document | same document, not the answer | answer cut |",
              "|---|---|---|---|---|---|"]
    for b in budgets:
        sub = [r for r in rows if r.config.method == "window"]
        r = best(sub, "window", b) if sub else None
        if r is not None:
            kinds = miss_kinds(eng, name, questions, r.config)
            lines.append(f"| {b} | {cfg_label(r)} | {sum(kinds.values())} | {kinds['document']} | {kinds['elsewhere']} "
                         f"| {kinds['cut']} |")


def miss_kinds(eng, kb: str, questions, cfg) -> Counter:
    """Each miss of one window configuration by kind: ``document`` (no passage of the question's
    document, when the question names one), ``elsewhere`` (no hit sentence inside the answer), ``cut``
    (a hit inside the answer, the window did not carry all of it)."""
    from swr.evaluate.metrics import normalize

    out = Counter({"document": 0, "elsewhere": 0, "cut": 0})
    for q in questions:
        answers = [normalize(a) for a in q.answers]
        found = eng.retrieve(q.question, kb, top_k=cfg.top_k, mode=cfg.mode)
        ps = eng.passages(found, cfg.window_size or 0, window_mode=cfg.window_mode, budget_chars=cfg.budget_chars)
        if any(a in normalize(p.text) for p in ps for a in answers):
            continue
        if q.source and not any(p.source == q.source for p in ps):
            out["document"] += 1
        elif any(len(t) > 3 and any(t in a for a in answers) for h in found.hits
                 for t in [normalize(h.sentence.text)]):
            out["cut"] += 1
        else:
            out["elsewhere"] += 1
    return out


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
