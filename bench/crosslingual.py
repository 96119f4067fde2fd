"""Cross-lingual retrieval: plain search vs the cross-lingual search, side by side.

    python bench/crosslingual.py                  # all sets, 100 XQuAD questions per group
    python bench/crosslingual.py --methods off lists translate on --sets xquad sample

Methods (one engine, one store; only ``SWR_CROSSLINGUAL`` and its parts change):
- ``off``: one hybrid search over the whole knowledge base (``SWR_CROSSLINGUAL=off``);
- ``lists``: one hybrid search per document language, fused by the per-list (DBSF) scores;
- ``translate``: ``lists`` plus the question translated into each other language present
  (CC-CEDICT word glosses offline: no LLM here) and searched in that language;
- ``on``: ``translate`` plus document subjects (swr/retrieve/aliases.py: the product a question names
  selects its documents): the default.

Sets:
(a) XQuAD (240 parallel paragraphs, en + zh), one knowledge base: a seeded third of the
    paragraphs only in English, a third only in Chinese, a third in both. "zh->en" are Chinese
    questions whose paragraph exists only in English (the expected answer is the English
    answer of the parallel question), "en->zh" the reverse; "same" are questions whose paragraph
    exists in their own language. hit@3: a top-3 hit sentence of the question's paragraph holds
    the answer (in that sentence's language: for a paragraph in both languages either copy).
(b) The sample knowledge base: samples/golden.csv and bench/crosslingual_questions.csv (answers
    only in the other language), hit rate as the app computes it (evaluate.judge on the context
    sent to the LLM) at the default settings, window 3, top-k 3.
(c) Same language: CMRC 2018 dev and SQuAD v1.1 dev (a prefix of the articles as the corpus,
    a seeded sample of its questions), hit@1 and hit@5 of the hit sentences.

Every rate is printed with n and a 95% Wilson interval. Cost per question: store searches and
query embeddings counted, median retrieval time (the machine is shared: compare, don't quote).
Embeddings are cached under --home, so a second run embeds nothing but new questions.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from intervals import wilson

import swr.retrieve.crosslingual
from swr.answer.llm import LLMConfig
from swr.core.rules.crosslingual import DEFAULT_RULES
from swr.core.settings import DEMO_GGUF, SMALL_GGUF, Settings
from swr.engine import Engine
from swr.evaluate import judge, load_set, normalize
from swr.evaluate.questions import load_squad
from swr.retrieve.xl_translate import Translator

RULES = DEFAULT_RULES  # this run's cross-lingual rules (--mix, --senses, --margin)

ROOT = Path(__file__).resolve().parent.parent

DATA = ROOT.parent / "shared" / "data"
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
XQUAD = {lang: DATA / "xquad" / f"xquad.{lang}.json" for lang in ("en", "zh")}
CMRC = DATA / "cmrc2018" / "cmrc2018_dev.json"
SQUAD = DATA / "squad_v1.1" / "dev-v1.1.json"
SAMPLE_DIR = ROOT / "samples" / "kb"
GOLDEN = ROOT / "samples" / "golden.csv"
XL_QUESTIONS = ROOT / "bench" / "crosslingual_questions.csv"


def norm(s: str) -> str:
    return "".join((s or "").split()).lower()




def rate(flags: list[bool]) -> dict:
    k, n = sum(flags), len(flags)
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else None, "n": n, "lo": lo, "hi": hi}


def fmt(r: dict) -> str:
    if not r["n"]:
        return "–"
    return f"{r['rate']:.3f} [{r['lo']:.2f}, {r['hi']:.2f}]"


# -- corpora -----------------------------------------------------------------------------------
def xquad_corpus(seed: int):
    """(docs, questions) of the mixed XQuAD knowledge base (see the module docstring)."""
    data = {lang: json.loads(p.read_text(encoding="utf-8"))["data"] for lang, p in XQUAD.items()}
    paras = {lang: [p for a in data[lang] for p in a["paragraphs"]] for lang in data}
    article = [k for k, a in enumerate(data["en"]) for _ in a["paragraphs"]]
    arts = list(range(len(data["en"])))
    random.Random(seed + 1).shuffle(arts)
    split = {a: ("dev" if k < len(arts) // 2 else "test") for k, a in enumerate(arts)}  # by article
    n = len(paras["en"])
    order = list(range(n))
    random.Random(seed).shuffle(order)
    group = {p: k % 3 for k, p in enumerate(order)}  # 0: en only, 1: zh only, 2: both
    langs_of = {0: ("en",), 1: ("zh",), 2: ("en", "zh")}
    docs, qs = [], []
    for p in range(n):
        for lang in langs_of[group[p]]:
            docs.append((f"xq{p:03d}.{lang}.txt", paras[lang][p]["context"]))
        ans = {lang: {qa["id"]: [a["text"] for a in qa["answers"]] for qa in paras[lang][p]["qas"]}
               for lang in ("en", "zh")}
        for lang in ("en", "zh"):
            for qa in paras[lang][p]["qas"]:
                have = langs_of[group[p]]
                target = lang if lang in have else have[0]
                kind = "same" if target == lang else f"{lang}->{target}"
                answers = ans[target].get(qa["id"]) or []
                # the answer in any copy of the paragraph counts (in that copy's language)
                gold = {f"xq{p:03d}.{c}.txt": ans[c].get(qa["id"]) or [] for c in have}
                if answers:
                    qs.append({"q": qa["question"], "answers": answers, "gold": gold, "kind": kind, "qlang": lang,
                               "split": split[article[p]]})
    return docs, qs


def squad_corpus(path: Path, articles: int):
    docs, qs = load_squad(path, max_articles=articles)
    return docs, qs


# -- methods -----------------------------------------------------------------------------------
LLMS = {"llm05": SMALL_GGUF, "llm15": DEMO_GGUF}  # "on" with the embedded model translating
LLM_CACHE = ROOT / "bench" / "out" / "xl_llm_cache.json"
_translators: dict = {}


def translator(method: str) -> Translator:
    """The method's translator: the dictionary, or the local model (its cache loaded from disk)."""
    if method not in _translators:
        if method in LLMS:
            t = Translator(LLMConfig(gguf=str(LLMS[method]), threads=1, context_window=2048, timeout_s=60), local=True)
            cache = json.loads(LLM_CACHE.read_text(encoding="utf-8")) if LLM_CACHE.is_file() else {}
            for lang, tr in cache.get(method, {}).items():
                t.llm_cache.update({(q, lang): v for q, v in tr.items()})
        else:
            t = Translator(None)
        _translators[method] = t
    return _translators[method]


def save_llm_cache() -> None:
    """Write the local models' translations to :data:`LLM_CACHE` (a rerun translates nothing)."""
    cache = json.loads(LLM_CACHE.read_text(encoding="utf-8")) if LLM_CACHE.is_file() else {}
    for m, t in _translators.items():
        if m in LLMS:
            for (q, lang), v in t.llm_cache.items():
                cache.setdefault(m, {}).setdefault(lang, {})[q] = v
    LLM_CACHE.parent.mkdir(parents=True, exist_ok=True)
    LLM_CACHE.write_text(json.dumps(cache, ensure_ascii=False, indent=0), encoding="utf-8")


def set_method(eng: Engine, method: str) -> None:
    eng.crosslingual.enabled = method != "off"
    eng.crosslingual.translation = method in ("on", "translate", *LLMS)
    eng.crosslingual.bonus = 0.0 if method in ("lists", "translate") else DEFAULT_RULES.subject_bonus
    eng.crosslingual.translator = translator(method)
    if hasattr(eng.crosslingual, "_translated"):  # the engine's per-question translation cache
        eng.crosslingual._translated.clear()  # belongs to the translator just replaced


class Counter:
    """Counts store searches and query embeddings (wrapping the engine's own objects).

    ``embeds``: the distinct texts a question asked the embedder for (the question, its
    translations, a subject search's question without the subject's name; ``reset`` starts a
    question); ``calls``: the embedder calls that asked for a new one (the engine batches the
    question with its translations: ``Embedder.encode_queries``).
    """

    def __init__(self, eng: Engine) -> None:
        self.searches = self.embeds = self.calls = self.probes = 0
        self.seen: set[str] = set()
        store_search, encode = eng.store.search, eng.embedder.encode_query
        batch = getattr(eng.embedder, "encode_queries", None)

        def search(req):
            self.searches += 1
            return store_search(req)

        def enc(q):
            if q not in self.seen:
                self.seen.add(q)
                self.embeds += 1
                self.calls += 1
            return encode(q)

        def encs(texts):
            new = [t for t in dict.fromkeys(texts) if t not in self.seen]
            self.seen.update(new)
            self.embeds += len(new)
            self.calls += bool(new)
            return batch(texts)

        eng.store.search = search
        eng.embedder.encode_query = enc
        any_of = getattr(eng.store, "sparse_any", None)
        if any_of is not None:  # the dictionary's new words, probed in one batched store call

            def probe(kb, lang, vecs):
                self.probes += 1
                return any_of(kb, lang, vecs)
            eng.store.sparse_any = probe
        if batch is not None:
            eng.embedder.encode_queries = encs

    def reset(self) -> None:
        """A new question: its texts count again."""
        self.seen.clear()


def run_xquad(eng, kb, qs, method, counter) -> dict:
    flags: dict[str, list[bool]] = {}
    cost = []
    tr = eng.crosslingual.translator
    for q in qs:
        counter.reset()
        s0, e0, c0, t0, m0, p0 = (counter.searches, counter.embeds, tr.llm_calls, time.perf_counter(), counter.calls,
                                  counter.probes)
        r = eng.retrieve(q["q"], kb, top_k=3, crosslingual=RULES)
        cost.append((counter.searches - s0, counter.embeds - e0, (time.perf_counter() - t0) * 1000, tr.llm_calls - c0,
                     counter.calls - m0, counter.probes - p0))
        hit = any(any(norm(a) in norm(h.sentence.text) for a in q["gold"].get(h.sentence.source, [])) for h in r.hits)
        for sp in (q["split"], "all"):
            kind = q["kind"] if q["kind"] != "same" else f"same {q['qlang']}"
            flags.setdefault(f"{sp} {kind}", []).append(hit)
            flags.setdefault(f"{sp} cross (both)" if q["kind"] != "same" else f"{sp} same (both)", []).append(hit)
    return {"hit@3": {k: rate(v) for k, v in flags.items()}, "cost": cost}


def run_sample(eng, kb, questions) -> dict:
    out, cost = [], []
    for q in questions:
        t0 = time.perf_counter()
        res = eng.ask(q.question, kb, llm=False, crosslingual=RULES)  # the app's defaults: window 3, top-k 3
        cost.append((time.perf_counter() - t0) * 1000)
        out.append(bool(judge([normalize(a) for a in q.answers], [], res.passages).hit))  # as evaluate.sweep
    return {"hit": rate(out), "misses": [q.question for q, h in zip(questions, out) if not h]}


def run_same(eng, kb, qs) -> dict:
    h1, h5, cost = [], [], []
    for q in qs:
        t0 = time.perf_counter()
        r = eng.retrieve(q.question, kb, top_k=5, crosslingual=RULES)
        cost.append((time.perf_counter() - t0) * 1000)
        answers = [norm(a) for a in q.answers]
        first = next((k for k, h in enumerate(r.hits, 1) if any(a in norm(h.sentence.text) for a in answers)), None)
        h1.append(first == 1)
        h5.append(first is not None)
    return {"hit@1": rate(h1), "hit@5": rate(h5)}


def pretranslate(methods: list[str], picked: list[dict], sample: bool = True) -> None:
    """Translate the picked XQuAD questions and the sample questions with each local model, into
    the cache file (the LLM rows then cost no model time on a rerun)."""
    qs = [(q["q"], "en" if q["qlang"] == "zh" else "zh") for q in picked]
    for path in (GOLDEN, XL_QUESTIONS) if sample else ():
        qs += [(q.question, "en" if swr.retrieve.crosslingual.detect_lang(q.question) == "zh" else "zh")
               for q in load_set(path)[1]]
    for m in methods:
        t, t0 = translator(m), time.perf_counter()
        todo = [(q, lang) for q, lang in qs if (q, lang) not in t.llm_cache]
        for k, (q, lang) in enumerate(todo, 1):
            t.translate(q, lang)
            if k % 20 == 0 or k == len(todo):
                save_llm_cache()
                each = (time.perf_counter() - t0) / k
                print(f"  {m}: {k}/{len(todo)} translated, {each:.2f} s each", file=sys.stderr)
        bad = sum(t.llm_cache.get(x) is None for x in qs)
        print(f"{m}: {len(qs)} questions, {bad} not translated (the dictionary serves them)", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", default=str(ROOT / "bench" / "out" / "xl_home"))
    ap.add_argument("--home-same", default=None, help="SWR_HOME of the CMRC / SQuAD sets (default --home)")
    ap.add_argument("--methods", nargs="+", default=["off", "lists", "translate", "on"])
    ap.add_argument("--xquad-n", type=int, default=50,
                    help="questions per XQuAD group (zh->en, en->zh, same zh, same en) and split")
    ap.add_argument("--same-n", type=int, default=300, help="CMRC / SQuAD questions")
    ap.add_argument("--cmrc-articles", type=int, default=120)
    ap.add_argument("--squad-articles", type=int, default=4)
    ap.add_argument("--sets", nargs="+", default=["xquad", "sample", "cmrc", "squad"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mix", type=float, default=None, help="CrossLingualRules.dense_mix for this run")
    ap.add_argument("--senses", type=int, default=None, help="CrossLingualRules.sparse_senses for this run")
    ap.add_argument("--margin", type=float, default=None, help="CrossLingualRules.margin for this run")
    ap.add_argument("--depth", type=int, default=None, help="CrossLingualRules.other_depth for this run")
    ap.add_argument("--long-first", action="store_true", help="glossary.SHORT_FIRST off for this run")
    ap.add_argument("--splits", nargs="+", default=["dev", "test"],
                    help="XQuAD halves (by article, seeded): dev to choose methods on, test held out")
    ap.add_argument("--pretranslate", nargs="+", choices=sorted(LLMS),
                    help="only fill the local models' translation cache for the picked XQuAD questions")
    ap.add_argument("--json", default=str(ROOT / "bench" / "out" / "crosslingual.json"))
    args = ap.parse_args()
    import swr.text.glossary

    global RULES
    RULES = replace(RULES, **{k: v for k, v in (("dense_mix", args.mix), ("sparse_senses", args.senses),
                                                ("margin", args.margin), ("other_depth", args.depth))
                                 if v is not None})
    if args.long_first:
        swr.text.glossary.SHORT_FIRST = False
    print(f"{RULES} SHORT_FIRST={swr.text.glossary.SHORT_FIRST}", file=sys.stderr)

    engines: dict[str, tuple[Engine, Counter]] = {}

    def engine(home: str) -> tuple[Engine, Counter]:
        if home not in engines:
            e = Engine(Settings.from_env(home=home, collection="xl", sample_kb=""))
            engines[home] = (e, Counter(e))
        return engines[home]

    eng, counter = engine(args.home)
    results: dict = {m: {} for m in args.methods}

    def index(kb, docs, eng=eng):
        t0 = time.perf_counter()
        res = eng.index_files(kb, docs)
        bad = [r for r in res if not r.ok]
        print(f"[{kb}] {len(res)} documents, {sum(r.sentences for r in res)} sentences "
              f"({len(bad)} failed), {time.perf_counter() - t0:.0f}s", file=sys.stderr)

    if "xquad" in args.sets:
        docs, qs = xquad_corpus(args.seed)
        index("xquad", [(n, t.encode()) for n, t in docs])
        by: dict[str, list] = {}
        for q in qs:
            by.setdefault((q["split"], q["kind"] if q["kind"] != "same" else f"same {q['qlang']}"), []).append(q)
        # each group shuffled by its own seed, then its first n: a smaller n is a prefix
        picked = [q for k in sorted(by) if k[0] in args.splits
                  for q in random.Random(f"{args.seed}-{k[0]}-{k[1]}").sample(by[k], len(by[k]))[:args.xquad_n]]
        if args.pretranslate:
            pretranslate(args.pretranslate, picked, "sample" in args.sets)
            return
        for m in args.methods:
            set_method(eng, m)
            results[m]["xquad"] = run_xquad(eng, "xquad", picked, m, counter)
            print(f"  xquad/{m} done", file=sys.stderr)
            save_llm_cache()
    if "sample" in args.sets:
        files = sorted(p for p in SAMPLE_DIR.iterdir() if p.is_file() and p.name != "README.md")
        index("sample", files)
        golden = load_set(GOLDEN)[1]
        xl = load_set(XL_QUESTIONS)[1]
        for m in args.methods:
            set_method(eng, m)
            results[m]["golden"] = run_sample(eng, "sample", golden)
            results[m]["sample_xl"] = run_sample(eng, "sample", xl)
    for name, path, arts in (("cmrc", CMRC, args.cmrc_articles), ("squad", SQUAD, args.squad_articles)):
        if name not in args.sets:
            continue
        eng, counter = engine(args.home_same or args.home)
        docs, qs = squad_corpus(path, arts)
        index(name, [(n, t.encode()) for n, t in docs], eng)
        qs = random.Random(args.seed).sample(qs, min(args.same_n, len(qs)))
        for m in args.methods:
            set_method(eng, m)
            results[m][name] = run_same(eng, name, qs)

    # -- report ------------------------------------------------------------------------------
    ms = args.methods
    print("\n| set | metric | " + " | ".join(ms) + " |")
    print("|---|---|" + "---|" * len(ms))
    first = results[ms[0]]
    if "xquad" in first:
        for k in sorted(first["xquad"]["hit@3"]):
            print(f"| XQuAD mixed | hit@3 {k} | " + " | ".join(fmt(results[m]["xquad"]["hit@3"][k]) for m in ms) + " |")
        for sp in (*args.splits, "all"):
            h = [results[m]["xquad"]["hit@3"] for m in ms]
            print(f"| XQuAD mixed | {sp}: same - cross (points) | "
                  + " | ".join(f"{100 * (x[f'{sp} same (both)']['rate'] - x[f'{sp} cross (both)']['rate']):.1f}"
                               for x in h) + " |")
    if "golden" in first:
        print("| sample KB | golden.csv hit (w3, k3) | "
              + " | ".join(fmt(results[m]["golden"]["hit"]) for m in ms) + " |")
        print("| sample KB | cross-lingual questions hit (w3, k3) | "
              + " | ".join(fmt(results[m]["sample_xl"]["hit"]) for m in ms) + " |")
    for name in ("cmrc", "squad"):
        if name in first:
            for met in ("hit@1", "hit@5"):
                print(f"| {name} | {met} | " + " | ".join(fmt(results[m][name][met]) for m in ms) + " |")
    if "xquad" in first:
        for m in ms:
            cost = results[m]["xquad"]["cost"]
            llm = [c[2] for c in cost if c[3]]
            print(f"cost/{m} (XQuAD mixed KB, per question): {statistics.mean(c[0] for c in cost):.2f} searches "
                  f"+ {statistics.mean(c[5] for c in cost):.2f} batched word probes, "
                  f"{statistics.mean(c[1] for c in cost):.2f} texts embedded in "
                  f"{statistics.mean(c[4] for c in cost):.2f} embedder calls, "
                  f"{statistics.mean(c[3] for c in cost):.2f} LLM calls, median "
                  f"{statistics.median(c[2] for c in cost):.1f} ms"
                  + (f" (with an LLM call: median {statistics.median(llm):.0f} ms, n={len(llm)})" if llm else "")
                  + " (shared machine)")
    for m in ms:
        for key in ("golden", "sample_xl"):
            if key in results[m] and results[m][key]["misses"]:
                print(f"misses {m}/{key}: {results[m][key]['misses']}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    for m in ms:
        if "xquad" in results[m]:
            results[m]["xquad"].pop("cost")
    Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    for e, _ in engines.values():
        e.close()


if __name__ == "__main__":
    main()
