"""The answer check's own accuracy (``swr.verify.check.check_answer``) on labelled sentences.

    .venv/bin/python bench/check_accuracy.py [--articles 40] [--seed 0]

Each labelled sentence is checked, as one answer sentence, against passages the answer could have
been written from: its article's indexed sentences (bench/qa_kbs.py: XQuAD-en paragraphs 0-2,
the first 60 % of a CMRC 2018 context) cut into passages of 5 sentences, no retrieval, no
question (so a sentence is checked as it stands). True sentences: taken from the text (verbatim,
or lightly paraphrased: brackets dropped, cut to the first clause). False ones: a number changed,
the polarity flipped (a negation added or dropped), and from the paragraph kept out (same topic,
not stated). Codes: the shared sets have few, so the sample manuals (samples/kb) give them: every
sentence naming a code (E1..E6, KX-2000 ...) is a true sentence, and the same sentence with the
code replaced by another code of the same manual a false one; its evidence is the whole manual in
passages of 5 sentences. The generators of number and polarity changes are bench/verdicts.py's.

Rates: true sentences called supported (recall) and false ones called supported (false support),
per kind and language, n and 95 % Wilson intervals. No LLM. Quality figures only.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import qa_kbs as qa
import verdicts as vb

from swr.core.settings import Settings
from swr.core.types import Passage
from swr.embed.embedder import make_embedder
from swr.text.split import split_spans
from swr.verify.check import check_answer

ROOT = Path(__file__).resolve().parent.parent
PASSAGE_SENTENCES = 5
_CODE = re.compile(r"(?<![A-Za-z0-9])([A-Z]{1,3}-?)(\d{1,4})(?![A-Za-z0-9])")


def passages_of(source: str, sentences: list[str]) -> list[Passage]:
    """``sentences`` as passages of :data:`PASSAGE_SENTENCES` consecutive sentences."""
    out = []
    for k in range(0, len(sentences), PASSAGE_SENTENCES):
        part = sentences[k:k + PASSAGE_SENTENCES]
        sep = " " if part and not re.search(r"[\u4e00-\u9fff]", part[0]) else ""
        out.append(Passage(doc_id=source, source=source, first=k, last=k + len(part) - 1, text=sep.join(part),
                           hits=[], score=1.0))
    return out


def shared_claims(n_articles: int, rng) -> list[dict]:
    """Labelled sentences from the shared sets (see the module doc)."""
    arts = qa.articles()
    picked = [a for lang in ("en", "zh") for a in rng.sample([x for x in arts if x.lang == lang], n_articles)]
    rows = []
    for a in picked:
        ev = passages_of(a.source, a.seen)
        good = [s for s in a.seen if vb._ok_sentence(s, a.lang)]
        rng.shuffle(good)

        def add(text, true, kind, a=a, ev=ev):
            rows.append({"text": text, "true": true, "kind": kind, "lang": a.lang, "evidence": ev})

        if good:
            add(good[0], True, "verbatim")
        para = next((p for p in (vb.paraphrase(s, a.lang) for s in good[1:]) if p), None)
        if para:
            add(para, True, "paraphrase")
        makers = (("number", lambda x: vb.change_number(x, rng)), ("negation", lambda x, a=a: vb.flip(x, a.lang)),
                  ("code", lambda x: change_code(x, rng)))
        for kind, fn in makers:
            made = next((c for s, c in ((s, fn(s)) for s in good) if c and c != s), None)
            if made:
                add(made, False, kind)
        unseen = [s for s in a.unseen if vb._ok_sentence(s, a.lang)]
        if unseen:
            add(unseen[0], False, "not stated")
    return rows


def change_code(s: str, rng, codes: list[str] | None = None) -> str | None:
    """``s`` with one code (``E4``, ``B-52``) replaced: by another of ``codes`` when given, else
    by the same letters with other digits."""
    found = list(_CODE.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    old = m.group(0)
    if codes:
        others = [c for c in codes if c != old and c[:1] == old[:1]]
        if not others:
            return None
        new = rng.choice(others)
    else:
        new = m.group(1) + str(int(m.group(2)) + rng.randint(1, 4))
    return s[:m.start()] + new + s[m.end():]


def manual_claims(rng) -> list[dict]:
    """True and code-changed sentences from the sample manuals."""
    rows = []
    for path in sorted((ROOT / "samples" / "kb").iterdir()):
        text = path.read_text(encoding="utf-8")
        sents = [text[a:b].strip() for a, b in split_spans(text) if text[a:b].strip()]
        ev = passages_of(path.name, sents)
        codes = sorted({m.group(0) for s in sents for m in _CODE.finditer(s)})
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
        for s in sents:
            body = re.sub(r"[|*#`>-]", " ", s).strip()
            if not _CODE.search(body) or len(re.sub(r"\W", "", body)) < 10:
                continue
            wrong = change_code(body, rng, codes)
            if not wrong:
                continue
            rows.append({"text": body, "true": True, "kind": "manual, code kept", "lang": lang, "evidence": ev})
            rows.append({"text": wrong, "true": False, "kind": "manual, code changed", "lang": lang, "evidence": ev})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=40, help="articles per language")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rows = shared_claims(a.articles, rng) + manual_claims(rng)
    eng = SimpleNamespace(embedder=make_embedder(Settings.from_env(env={})))
    t0 = time.perf_counter()
    for k, r in enumerate(rows, 1):
        c = check_answer(eng, "", r["text"], r["evidence"])
        s = c.sentences
        r["supported"] = bool(s) and all(x.supported for x in s)
        r["verdict"] = ",".join(x.verdict for x in s)
        if k % 50 == 0:
            print(f"  {k}/{len(rows)} checked ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    print(f"{len(rows)} labelled sentences; bundled e5-small; {time.perf_counter() - t0:.0f} s on a busy machine\n")
    print("| sentences | language | n | called supported (95 % CI) | reads as |")
    print("|---|---|---|---|---|")
    groups: dict = {}
    for r in rows:
        groups.setdefault((not r["true"], r["kind"], r["lang"]), []).append(r)
        groups.setdefault((not r["true"], "all " + ("true" if r["true"] else "false"), "both"), []).append(r)
    order = sorted(groups.items(), key=lambda x: (x[0][0], x[0][1].startswith("all"), x[0][1], x[0][2]))
    for (false, kind, lang), rs in order:
        k = sum(r["supported"] for r in rs)
        what = "false support" if false else "recall"
        print(f"| {'false' if false else 'true'}: {kind} | {lang} | {len(rs)} | {qa.rate(k, len(rs))} | {what} |")
    print("\nfalse sentences called supported:")
    for r in rows:
        if not r["true"] and r["supported"]:
            print(f"  [{r['kind']}, {r['lang']}] {r['text'][:160]}")


if __name__ == "__main__":
    main()
