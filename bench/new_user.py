"""A new user's knowledge base: two products, two languages, a PDF manual and a .docx FAQ.

    .venv/bin/python bench/new_user.py                  # without an LLM (extractive answers)
    .venv/bin/python bench/new_user.py --gguf models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
    .venv/bin/python bench/new_user.py --rows            # every question's row too

The documents are written for this benchmark (``bench/data/new_user/``): an English user manual of
a dehumidifier, "DH-20" (made into a PDF with reportlab), and a Chinese FAQ of a robot vacuum,
"RB-300" (made into a .docx with python-docx). Both are uploaded through the engine's real index
path (:meth:`swr.engine.Engine.index_files`, the real embedder) into a fresh ``SWR_HOME``, and every
question is asked as the app asks it (:meth:`swr.engine.Engine.ask`, then :meth:`~swr.engine.Engine.check`).

``questions.json``: questions with the product they are about and substrings any of which a right
answer writes (``expect``); yes/no questions (``yesno``: the answer a customer needs, "no" when the
documents contradict the question's claim) must also say it first; follow-ups carry the earlier
turn (``history``); ``off_topic`` questions have no answer in the knowledge base.

Printed: right answers, wrong-product answers (answered from the other product's document and not
right), right answers refused, off-topic refused, and wrong answers whose check says "supported".
Floors (the issue's): right >= 90 %, wrong-product 0, right answers refused <= 1, off-topic refused
>= 9 of 10, a "supported" badge on a wrong answer 0. Rows go to ``bench/out/new_user[_llm].json``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "new_user"
KB = "support"


def make_pdf(src: Path, out: Path) -> Path:
    """The English manual as a PDF: ``#`` lines as a title and headings, the rest as paragraphs."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story = []
    for line in src.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith("## "):
            story += [Spacer(1, 6), Paragraph(line[3:], styles["Heading2"])]
        elif line.startswith("# "):
            story.append(Paragraph(line[2:], styles["Title"]))
        else:
            story.append(Paragraph(line.replace("&", "&amp;").replace("<", "&lt;"), styles["BodyText"]))
    SimpleDocTemplate(str(out), pagesize=A4, title=src.stem).build(story)
    return out


def make_docx(src: Path, out: Path) -> Path:
    """The Chinese FAQ as a .docx: ``#`` lines as headings, the rest as paragraphs."""
    import docx

    d = docx.Document()
    for line in src.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith("## "):
            d.add_heading(line[3:], level=2)
        elif line.startswith("# "):
            d.add_heading(line[2:], level=1)
        else:
            d.add_paragraph(line)
    d.save(str(out))
    return out


def build(engine, folder: Path, names: dict) -> list:
    """Write the two documents as a user would have them and upload them."""
    pdf = make_pdf(DATA / "dh20_manual.txt", folder / names["DH-20"])
    faq = make_docx(DATA / "rb300_faq.txt", folder / names["RB-300"])
    results = engine.index_files(KB, [pdf, faq])
    bad = [r for r in results if getattr(r, "error", None)]
    if bad:
        raise SystemExit(f"upload failed: {bad}")
    return results


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", (text or "").replace("\u00a0", " ")).lower()


def body(answer: str, kind: str) -> str:
    """What the answer says: of an extractive answer, the line after its label (the sentence it
    gives as the answer, not the passage quoted after it as context)."""
    if kind == "extractive" and "\n\n" in answer:
        return answer.split("\n\n")[1]
    return answer


_NO = re.compile(r"^\W*(?:no\b|不|否|没有)", re.I | re.M)
_YES = re.compile(r"^\W*(?:yes\b|是|对|可以|有)", re.I | re.M)


def is_right(row: dict, answer: str) -> bool:
    """The answer writes an expected substring; a yes/no one also says Yes/No first (a "Yes" to a
    question whose claim is true needs no more: the question states the fact it confirms)."""
    text = norm(answer)
    if row.get("yesno") == "yes" and _YES.search(answer) and not _NO.search(answer):
        return True
    if not any(norm(e) in text or norm(e).replace(" ", "") in text.replace(" ", "") for e in row["expect"]):
        return False
    if row.get("yesno"):
        return bool((_NO if row["yesno"] == "no" else _YES).search(answer))
    return True


def answer_source(result) -> str | None:
    """The document the answer comes from: the passage the extractive answer quotes, else the
    passages the answer cites, else the first passage."""
    m = re.search(r"(?:from|来自) \[(\d+)\]", result.answer or "")
    nums = [int(m.group(1))] if m else [int(n) for n in re.findall(r"\[(\d{1,2})\]", result.answer or "")]
    nums = [n for n in nums if 1 <= n <= len(result.passages)] or ([1] if result.passages else [])
    return result.passages[nums[0] - 1].source if nums else None


def history_of(row: dict) -> list[dict] | None:
    h = row.get("history")
    return [{"role": "user", "content": h[0]}, {"role": "assistant", "content": h[1]}] if h else None


def ask(engine, row: dict, use_llm: bool, docs: dict) -> dict:
    t = time.perf_counter()
    r = engine.ask(row["q"], KB, llm=use_llm, history=history_of(row))
    check = engine.check(r)
    ans = body(r.answer, r.answer_kind)
    out = {"q": row["q"], "product": row.get("product"), "answerable": r.answerable, "kind": r.answer_kind,
           "answer": r.answer, "standalone": r.standalone_question, "status": (check or {}).get("status"),
           "reason": r.answerability.get("reason"), "source": answer_source(r) if r.answerable else None,
           "cosine": (r.extract or {}).get("cosine"), "relevant": (r.extract or {}).get("relevant"),
           "trace": [t["rule"] for t in r.trace], "s": round(time.perf_counter() - t, 2)}
    # an LLM's "I don't know: the documents do not cover this." is a refusal too (the check says so)
    out["answerable"] = bool(r.answerable) and out["status"] != "refused"
    if "expect" in row:
        out["right"] = out["answerable"] and is_right(row, ans)
        other = {p: d for p, d in docs.items() if p != row["product"]}
        out["wrong_product"] = out["answerable"] and not out["right"] and out["source"] in other.values()
    return out


def summary(rows: list[dict], off: list[dict]) -> dict:
    n = len(rows)
    right = sum(r["right"] for r in rows)
    refused = sum(not r["answerable"] for r in rows)
    return {"questions": n, "right": right, "right_rate": round(right / max(1, n), 3),
            "wrong_product": sum(r["wrong_product"] for r in rows), "right_refused": refused,
            "wrong_answered": sum(r["answerable"] and not r["right"] for r in rows),
            "off_topic": len(off), "off_topic_refused": sum(not r["answerable"] for r in off),
            "supported_on_wrong": sum(r["status"] == "supported" and not r["right"] for r in rows)
            + sum(r["status"] == "supported" for r in off)}


FLOORS = {"right_rate": (">=", 0.9), "wrong_product": ("<=", 0), "right_refused": ("<=", 1),
          "off_topic_refused": (">=", 9), "supported_on_wrong": ("<=", 0)}


def passes(s: dict) -> dict:
    return {k: (s[k] >= v if op == ">=" else s[k] <= v) for k, (op, v) in FLOORS.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf", default="", help="a local GGUF model: answers by the LLM (default: extractive)")
    ap.add_argument("--rows", action="store_true", help="print every question's row")
    ap.add_argument("--home", default="", help="SWR_HOME to use (default: a fresh temporary folder)")
    a = ap.parse_args()
    from swr.core.settings import Settings
    from swr.engine import Engine

    spec = json.loads((DATA / "questions.json").read_text(encoding="utf-8"))
    home = Path(a.home or tempfile.mkdtemp(prefix="swr-new-user-"))
    env = {"SWR_HOME": str(home), "SWR_SAMPLE_KB": "", "SWR_LLM_GGUF": a.gguf, "HF_HUB_OFFLINE": "1"}
    engine = Engine(Settings.from_env(env))
    t0 = time.perf_counter()
    folder = home / "upload"
    folder.mkdir(parents=True, exist_ok=True)
    build(engine, folder, spec["documents"])
    print(f"uploaded 2 documents in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    use_llm = bool(a.gguf)
    rows = [ask(engine, q, use_llm, spec["documents"]) for q in spec["questions"]]
    off = [ask(engine, q, use_llm, spec["documents"]) for q in spec["off_topic"]]
    engine.close()
    s = summary(rows, off)
    s["passes"] = passes(s)
    s["llm"] = Path(a.gguf).name if a.gguf else None
    if a.rows:
        for r in rows + off:
            mark = "ok " if r.get("right") or ("right" not in r and not r["answerable"]) else "BAD"
            print(f"{mark} {r['q']} -> {'refused: ' + r['reason'] if not r['answerable'] else r['answer'][:160]!r}"
                  f" [{r['status']}] {r['source'] or ''}")
    print(json.dumps(s, ensure_ascii=False, indent=1))
    out = ROOT / "bench" / "out" / ("new_user_llm.json" if use_llm else "new_user.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": s, "rows": rows, "off_topic": off}, ensure_ascii=False, indent=1),
                   encoding="utf-8")
    return 0 if all(s["passes"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
