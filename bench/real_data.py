"""The real support content bench/real_kbs.py asks, each set as (documents, questions): read at run
time from ../shared/data (never copied into the project; BiPaR is CC BY-NC, evaluation only) and
bench/data/ (each set's arrangement: bench/real_kbs.py's docstring); and the engine and the
knowledge-base builder the benchmarks share."""
from __future__ import annotations

import csv
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
OWN = ROOT / "bench" / "data" / "emanual_own_questions.csv"
FAQ = ROOT / "bench" / "data" / "faq_bilingual"
FAQ2 = ROOT / "bench" / "data" / "faq_bilingual2"  # a second brand and two other products
FAQ3 = ROOT / "bench" / "data" / "faq_bilingual3"  # a third brand: a robot vacuum and earbuds
FAQ4 = ROOT / "bench" / "data" / "faq_bilingual4"  # a fourth: a door lock and a power station, long pages
FAQ5 = ROOT / "bench" / "data" / "faq_bilingual5"  # a fifth: espresso machines and smart watches, a check only
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
    return _arranged([(lambda lang, k=k: f"bp{k:03d}.{lang}.txt", by[t]) for k, t in enumerate(titles[:n_passages])],
                     lambda qa: re.sub(r"_(EN|ZH)$", "", qa["id"]))


def xquad(n_paras: int, seed: int = 0):
    """The same arrangement over XQuAD's parallel paragraphs (a second, Wikipedia-based set)."""
    data = {lang: json.loads((DATA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))["data"]
            for lang in ("en", "zh")}
    paras = {lang: [p for a in data[lang] for p in a["paragraphs"]] for lang in data}
    order = list(range(len(paras["en"])))
    random.Random(seed).shuffle(order)
    return _arranged([(lambda lang, p=p: f"xq{p:03d}.{lang}.txt", {lang: paras[lang][p] for lang in paras})
                      for p in order[:n_paras]], lambda qa: qa["id"])


def _arranged(pairs: list, key) -> tuple[list, list]:
    """(docs, questions) of a mixed KB from parallel passages ``(name_of(lang), {lang: paragraph})``:
    every other one indexed in English, the rest in Chinese; each question of either language whose
    ``key`` has answers in the indexed copy, "same" in its language, "cross" in the other."""
    docs, qs = [], []
    for k, (name_of, pair) in enumerate(pairs):
        lang = "en" if k % 2 == 0 else "zh"
        name = name_of(lang)
        docs.append((name, pair[lang]["context"]))
        gold = {key(qa): [a["text"] for a in qa["answers"]] for qa in pair[lang]["qas"]}
        qs += [{"q": qa["question"], "lang": qlang, "kind": "same" if qlang == lang else "cross", "doc": name,
                "answers": gold[key(qa)]} for qlang in ("en", "zh") for qa in pair[qlang]["qas"] if gold.get(key(qa))]
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


def faq(folder: Path | None = None):
    """(docs, answerable questions, off-domain questions) of a bilingual product FAQ (``folder``,
    default :data:`FAQ`); every answer string must occur verbatim in its page."""
    folder = folder or FAQ
    docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((folder / "pages").glob("*.md"))]
    text = dict(docs)
    qs = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
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


# -- the engine and a knowledge base built anew --------------------------------------------------
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
