"""Time to open a hit in its PDF: a 300-page PDF generated with reportlab (``--lines``
lines of text per page), indexed into a fresh SWR_HOME, then ``engine.open_document`` for hits
on ``--samples`` pages spread over the file (seeded), at ``--zoom``:

- **first**: the first open in the process (opens the 300-page file in PDFium, then the page);
- **cold**: a page not rendered before (file open, page caches empty): text page, render, boxes,
  paint, PNG;
- **warm**: the same open again (painted page cached: store fetch + cache hit).

Each open includes the store fetch of the window's sentences (Qdrant Edge). The embedder is a
hashing stand-in (the view never embeds; a real model would only slow the indexing down).

    nice -n 10 .venv/bin/python bench/docview.py [--pages 300] [--lines 40] [--samples 12] [--zoom 1.5]
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from swr.core.settings import Settings  # noqa: E402
from swr.embed.base import Embedder  # noqa: E402
from swr.engine import Engine  # noqa: E402

WORDS = ("kettle filter water boil descale valve lid handle base cord plug switch light steam spout "
         "scale vinegar rinse clean dry cloth warranty service model power heat safety children").split()


class HashEmbedder(Embedder):
    """Deterministic 32-dimension vectors from word hashes (no model: the view never embeds)."""

    name, runtime, device, dim = "bench-hash", "fake", "cpu", 32

    def _encode(self, texts, is_query):
        """Hashed bag of words, normalised."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            for w in t.lower().split():
                out[r, int(hashlib.md5(w.encode()).hexdigest()[:6], 16) % self.dim] += 1.0
            out[r] /= np.linalg.norm(out[r]) or 1.0
        return out


def make_pdf(pages: int, lines: int, seed: int = 0) -> bytes:
    """``pages`` A4 pages of ``lines`` sentences each (Helvetica 10, one sentence per line)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    rnd = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for p in range(pages):
        c.setFont("Helvetica", 10)
        y = 800
        for k in range(lines):
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(8, 13)))
            c.drawString(56, y, f"Page {p + 1} line {k + 1}: the {words}.")
            y -= 18
        c.showPage()
    c.save()
    return buf.getvalue()


def timed(fn) -> tuple[float, object]:
    """Milliseconds ``fn()`` took, and what it returned."""
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def main() -> None:
    """Generate, index, open, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--zoom", type=float, default=1.5)
    ap.add_argument("--window", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    a = ap.parse_args()

    t0 = time.perf_counter()
    data = make_pdf(a.pages, a.lines)
    gen_s = time.perf_counter() - t0
    home = Path(tempfile.mkdtemp(prefix="swr-bench-docview-"))
    eng = Engine(Settings.from_env(env={}, secrets_path=home / "none.toml", home=home), embedder=HashEmbedder())
    t0 = time.perf_counter()
    [res] = eng.index_files("bench", [("big.pdf", data)])
    index_s = time.perf_counter() - t0
    assert res.ok, res.error
    sents = eng.doc_sentences("bench", res.doc_id)
    by_page: dict[int, list] = {}
    for s in sents:
        by_page.setdefault(s.page, []).append(s)
    rnd = random.Random(1)
    pages = sorted(rnd.sample(sorted(by_page), min(a.samples, len(by_page))))
    hits = [rnd.choice(by_page[p][1:-1] or by_page[p]) for p in pages]

    def open_(s):
        """Open the hit ``s`` with a window of ``--window`` each side."""
        return eng.open_document("bench", res.doc_id, hit=s.i, first=max(0, s.i - a.window),
                                 last=min(len(sents) - 1, s.i + a.window), zoom=a.zoom)

    def hit_page(v):
        """The shown page that holds the hit."""
        return next(p for p in v.pages if p.page in v.hit_pages)

    first_ms, view = timed(lambda: open_(hits[0]))
    assert view.kind == "pdf" and view.hit_pages == [pages[0]] and hit_page(view).rects("hit")
    cold, warm, shown = [], [], []
    for s in hits:
        eng.docview.renders.clear()
        eng.docview.painted.clear()
        ms, v = timed(lambda s=s: open_(s))
        assert v.hit_pages and hit_page(v).rects("hit"), (s.i, v.message)
        cold.append(ms)
        shown.append(len(v.pages))
        warm.append(timed(lambda s=s: open_(s))[0])
    eng.close()

    def stats(xs):
        """n, median and max of a list of milliseconds."""
        return {"n": len(xs), "p50_ms": round(statistics.median(xs), 1), "max_ms": round(max(xs), 1)}

    out = {"pages": a.pages, "lines_per_page": a.lines, "sentences": len(sents), "pdf_bytes": len(data),
           "zoom": a.zoom, "image": [view.pages[0].width, view.pages[0].height],
           "pages_shown": shown,
           "generate_s": round(gen_s, 1), "index_s": round(index_s, 1), "sampled_pages": pages,
           "first_open_ms": round(first_ms, 1), "cold": stats(cold), "warm": stats(warm)}
    if a.json:
        print(json.dumps(out))
        return
    print(f"{a.pages}-page PDF, {len(sents):,} sentences, {len(data) / 1e6:.1f} MB; indexed in {index_s:.1f} s "
          f"(hash embedder); zoom {a.zoom} -> {out['image'][0]}x{out['image'][1]} px")
    print(f"pages sampled: {pages}; pages shown per open (2 when the window crosses a page break): {shown}")
    print(f"first open in the process (file opened): {first_ms:.0f} ms")
    print("| open | n | p50 ms | max ms |\n|---|---:|---:|---:|")
    for name in ("cold", "warm"):
        st = out[name]
        print(f"| {name} | {st['n']} | {st['p50_ms']} | {st['max_ms']} |")


if __name__ == "__main__":
    main()
