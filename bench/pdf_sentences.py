"""Sentence boundaries of PDF manuals: the layout-rebuilt text against the line-break split, on
generated manuals whose source sentences are known (bench/pdf_corpus.py), and the same for
hard-wrapped plain text (the splitter's ``wraps``).

For each seed a manual is generated; both extractions run in one process: **old** is PDFium's
text in its own order, one sentence end at every line (``load_pdf(layout=False)``), **new** the
text rebuilt from the layout (``load_pdf()``). Each is split by ``swr.text.split.split_spans``. The
truth is the manual's units in reading order (sentences, headings, list items, table rows with
cells paired to the header). Both texts are cut into tokens (runs of letters and digits, any
other non-space character alone) and aligned with the truth's tokens (difflib); a predicted
boundary counts when it falls between the same two tokens as a true one. Page furniture is no
unit: its boundaries count against precision.

    .venv/bin/python bench/pdf_sentences.py [--seeds 0 1 ... 23] [--blocks 45] [--time PAGES]

``--time PAGES``: also time parse+split of a PAGES-page generated PDF, old and new alternately,
3 rounds, and print each round's wall and CPU time (the machine may be shared: CPU time is the
fairer figure there), with the median and range of each.
"""
from __future__ import annotations

import argparse
import difflib
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from pdf_corpus import manual  # noqa: E402

from swr.ingest.load.pdf_text import load_pdf  # noqa: E402
from swr.text.split import split_spans  # noqa: E402

TOKEN = re.compile(r"[A-Za-z0-9]+|\S")


def tokens_with_starts(units: list[str]) -> tuple[list[str], set[int]]:
    """The tokens of ``units`` in order, and the token positions where a unit starts."""
    toks: list[str] = []
    starts: set[int] = set()
    for u in units:
        t = TOKEN.findall(u)
        if t:
            starts.add(len(toks))
            toks.extend(t)
    starts.discard(0)
    return toks, starts


def score(pred_units: list[str], truth_units: list[str]) -> tuple[float, float, int, int]:
    """Boundary precision and recall of ``pred_units`` against ``truth_units`` (token aligned)."""
    pt, ps = tokens_with_starts(pred_units)
    tt, ts = tokens_with_starts(truth_units)
    to_truth: dict[int, int] = {}
    for blk in difflib.SequenceMatcher(None, pt, tt, autojunk=False).get_matching_blocks():
        for k in range(blk.size):
            to_truth[blk.a + k] = blk.b + k
    hit = sum(1 for p in ps if to_truth.get(p) in ts)
    return hit / max(1, len(ps)), hit / max(1, len(ts)), len(ps), len(ts)


def split(text: str, wraps: bool = False) -> list[str]:
    return [text[a:b] for a, b in split_spans(text, wraps=wraps)]


def wrapped_text(units: list[str], width: int) -> str:
    """The units as hard-wrapped plain text: paragraphs of sentences wrapped at ``width``
    columns (a CJK character counts 2), headings and items on their own lines, tables left out."""
    import textwrap

    out, para = [], []

    def flush():
        if para:
            text = " ".join(para)
            if re.search("[\u4e00-\u9fff]", text):
                step = width // 2
                out.extend(text[k:k + step] for k in range(0, len(text), step))
            else:
                out.extend(textwrap.wrap(text, width))
            out.append("")
            para.clear()

    for u in units:
        if "\t" in u:
            continue
        if para and bool(re.search("[\u4e00-\u9fff]", u)) != bool(re.search("[\u4e00-\u9fff]", para[-1])):
            flush()
        if u.startswith("\u2022") or re.match(r"\d+ [A-Z]", u):
            flush()
            out.append(u if u.startswith("\u2022") else "## " + u)
            out.append("")
        else:
            para.append(u)
    flush()
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=list(range(8)))
    ap.add_argument("--blocks", type=int, default=45)
    ap.add_argument("--time", type=int, default=0, metavar="PAGES")
    args = ap.parse_args()
    totals = {"old": [0, 0, 0], "new": [0, 0, 0], "txt-old": [0, 0, 0], "txt-new": [0, 0, 0]}
    print("seed  pages  style                                    old P / R        new P / R     txt old R / new P R")
    for seed in args.seeds:
        m = manual(seed, args.blocks)
        old_text, starts, _ = load_pdf(m.pdf, "m.pdf", layout=False)
        new_text, _, _ = load_pdf(m.pdf, "m.pdf")
        truth = [u for u in m.units]
        row = {}
        for name, text in (("old", old_text), ("new", new_text)):
            row[name] = score(split(text), truth)
        txt_truth = [u for u in truth if "\t" not in u]
        wt = wrapped_text(truth, 60 + seed * 7 % 31)
        row["txt-old"] = score(split(wt), [("## " + u) if re.match(r"\d+ [A-Z]", u) else u for u in txt_truth])
        row["txt-new"] = score(split(wt, wraps=True),
                               [("## " + u) if re.match(r"\d+ [A-Z]", u) else u for u in txt_truth])
        for k, (p, _r, np_, nt) in row.items():
            t = totals[k]
            t[0] += round(p * np_)
            t[1] += np_
            t[2] += nt
        s = m.style
        desc = (f"{s['family'][:5]} {s['size']}pt {'just' if s['justify'] else 'rag'} {s['cols']}col "
                f"{'zh' if s['zh'] else 'en'} {'indent' if s['indent'] else 'space'} {'mixed' if s['mixed'] else ''}")
        print(f"{seed:>4}  {len(starts):>5}  {desc:<38} {row['old'][0]:.3f} / {row['old'][1]:.3f}   "
              f"{row['new'][0]:.3f} / {row['new'][1]:.3f}   {row['txt-old'][1]:.3f} / "
              f"{row['txt-new'][0]:.3f} {row['txt-new'][1]:.3f}")
    for k, (hit, np_, nt) in totals.items():
        print(f"all {k:<8} precision {hit / max(1, np_):.3f}  recall {hit / max(1, nt):.3f}  "
              f"(predicted {np_}, true {nt})")
    if args.time:
        timing(args.time)


def timing(pages: int) -> None:
    """parse+split of a ``pages``-page manual, old and new alternately, 3 rounds."""
    m = manual(7, blocks=pages * 11)
    n = len(load_pdf(m.pdf, "m.pdf")[1])
    print(f"timing: {n} pages, {len(m.pdf) // 1024} KB")
    wall: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(3):
        out = []
        for name, layout in (("old", False), ("new", True)) if r % 2 == 0 else (("new", True), ("old", False)):
            t0, c0 = time.perf_counter(), time.process_time()
            text = load_pdf(m.pdf, "m.pdf", layout=layout)[0]
            split_spans(text)
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
            out.append(f"{name} {wall[name][-1]:.2f} s (cpu {cpu[name][-1]:.2f} s)")
        print(f"round {r + 1}: " + ", ".join(out) + f"  (new/old wall {wall['new'][-1] / wall['old'][-1]:.2f}, "
              f"cpu {cpu['new'][-1] / cpu['old'][-1]:.2f})")
    for label, times in (("wall", wall), ("cpu", cpu)):
        med = {k: statistics.median(v) for k, v in times.items()}
        spread = {k: f"{min(v):.2f}-{max(v):.2f}" for k, v in times.items()}
        print(f"{label}: median old {med['old']:.2f} s (range {spread['old']}), new {med['new']:.2f} s (range "
              f"{spread['new']}): new/old {med['new'] / med['old']:.2f}")


if __name__ == "__main__":
    main()
