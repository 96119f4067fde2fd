"""PDF pages of the document view: stored sentence spans mapped onto PDFium characters, their
boxes in image pixels, and the page rendered with the boxes painted on it.

A span is ``(start, end)`` in the document text (:func:`swr.ingest.load.pdf_text.load_pdf`: the pages'
texts joined by ``"\\n"``). :func:`locate` cuts it into per-page pieces with the kept page starts;
:meth:`PdfFile.span_rects` maps a piece through the page's character index map
(:func:`swr.ingest.load.pdf_text.page_text`) onto PDFium characters and their loose boxes, after checking
that the stored sentence text equals the page text at that place: a stored text that differs (a
document indexed with another text extraction, a changed file) is reported, never highlighted.

Everything PDFium does runs under :data:`swr.ingest.load.pdf_text.PDFIUM_LOCK` (PDFium is not
thread-safe). Rendered pages are cached (``RenderCache``): by document id (a hash of the file's
bytes), :data:`RENDER_VERSION`, page and zoom; only the pages asked for are rendered.
"""
from __future__ import annotations

import bisect
import ctypes
import io
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

from swr.ingest.load.pdf_text import LINES_LAYER, PDFIUM_LOCK, open_pdf, page_text

RENDER_VERSION = 1
MIN_ZOOM, MAX_ZOOM = 0.5, 4.0

# RGBA fills: the rest of the window lighter, other hits of the answer, the hit sentence strongest
FILL = {"window": (255, 226, 110, 70), "other": (110, 160, 255, 80), "hit": (255, 153, 0, 125)}
OUTLINE = {"hit": (214, 96, 0, 255)}


@dataclass(frozen=True)
class Piece:
    """The part of a span that lies on one page: ``[a, b)`` in that page's text (1-based page)."""

    page: int
    a: int
    b: int
    doc_a: int  # where the piece starts in the document text (to compare the stored text)


def locate(page_starts: list[int], chars: int, start: int, end: int) -> list[Piece]:
    """Cut the document-text span ``[start, end)`` into its per-page pieces (the ``"\\n"`` joining
    two pages belongs to neither; empty pieces are dropped)."""
    out: list[Piece] = []
    if end <= start or not page_starts:
        return out
    k = max(0, bisect.bisect_right(page_starts, start) - 1)
    while k < len(page_starts) and page_starts[k] < end:
        p0 = page_starts[k]
        p1 = page_starts[k + 1] - 1 if k + 1 < len(page_starts) else chars  # end of page k's text
        a, b = max(start, p0), min(end, p1)
        if b > a:
            out.append(Piece(k + 1, a - p0, b - p0, a))
        k += 1
    return out


class LRU:
    """A small thread-safe least-recently-used cache."""

    def __init__(self, size: int, on_evict=None) -> None:
        self.size = size
        self.on_evict = on_evict
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        """The cached value or None."""
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                self.hits += 1
                return self._d[key]
            self.misses += 1
            return None

    def put(self, key, value) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used beyond ``size``."""
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                _, old = self._d.popitem(last=False)
                if self.on_evict:
                    self.on_evict(old)

    def values(self) -> list:
        """The cached values, least recently used first."""
        with self._lock:
            return list(self._d.values())

    def clear(self) -> None:
        """Forget everything (``on_evict`` is called on every value)."""
        with self._lock:
            values = list(self._d.values())
            self._d.clear()
        if self.on_evict:
            for v in values:
                self.on_evict(v)


class PdfFile:
    """One open PDF (its bytes kept): page count, page texts with their character maps (cached
    per page), character boxes in pixels and renders."""

    def __init__(self, doc_id: str, data: bytes, source: str, layout: dict | None = None) -> None:
        self.doc_id = doc_id
        self.source = source
        layout = layout or {}
        # the page text as indexing built it: rebuilt from the layout, or PDFium's lines as they were
        self._lines = layout.get("text_layer", LINES_LAYER) == LINES_LAYER
        self._furniture = frozenset(layout.get("furniture") or ())
        self._headers = dict(layout.get("table_headers") or {})
        with PDFIUM_LOCK:
            self._pdf = open_pdf(data, source)
            self.page_count = len(self._pdf)
        self._texts: dict[int, tuple[str, list[int]]] = {}

    def close(self) -> None:
        """Release PDFium's document."""
        with PDFIUM_LOCK:
            self._pdf.close()

    def text(self, page: int) -> tuple[str, list[int]]:
        """The page's text and character index map, exactly as indexing built it (cached); -1 for a
        character written in (a table cell's header name)."""
        got = self._texts.get(page)
        if got is None:
            with PDFIUM_LOCK:
                pg = self._pdf[page - 1]
                tp = pg.get_textpage()
                try:
                    if self._lines:
                        got = page_text(tp)
                    else:
                        from swr.ingest.pdf_build import build_page

                        built = build_page(pg, tp, self._furniture, self._headers.get(str(page)))
                        got = (built.text, built.idx)
                finally:
                    tp.close()
                    pg.close()
            self._texts[page] = got
        return got

    def size(self, page: int, zoom: float) -> tuple[int, int]:
        """Pixel size of the page rendered at ``zoom`` (1.0 = 72 pixels per inch)."""
        with PDFIUM_LOCK:
            pg = self._pdf[page - 1]
            w, h = pg.get_width(), pg.get_height()
            pg.close()
        return max(1, math.ceil(w * zoom)), max(1, math.ceil(h * zoom))  # as pypdfium2's render

    def span_rects(self, page: int, a: int, b: int, zoom: float) -> list[tuple[int, int, int, int]]:
        """Pixel rectangles ``(x0, y0, x1, y1)`` (origin top left, at ``zoom``) of the characters
        ``[a, b)`` of the page's text, whitespace and generated characters left out, merged into
        one rectangle per run of characters on one line."""
        import pypdfium2.raw as raw

        text, idx = self.text(page)
        W, H = self.size(page, zoom)
        boxes: list[tuple[int, int, int, int]] = []
        with PDFIUM_LOCK:
            pg = self._pdf[page - 1]
            tp = pg.get_textpage()
            try:
                dx, dy = ctypes.c_int(), ctypes.c_int()

                def dev(x: float, y: float) -> tuple[int, int]:
                    """A point in PDF user space as a pixel of the rendered page."""
                    raw.FPDF_PageToDevice(pg, 0, 0, W, H, 0, x, y, dx, dy)
                    return dx.value, dy.value

                for j in range(max(0, a), min(b, len(text))):
                    if text[j].isspace():
                        continue
                    ci = idx[j]
                    if ci < 0 or raw.FPDFText_IsGenerated(tp, ci) == 1:  # -1: a table header name written in
                        continue
                    left, bottom, right, top = tp.get_charbox(ci, loose=True)
                    if right <= left or top <= bottom:
                        continue
                    (x0, y0), (x1, y1) = dev(left, top), dev(right, bottom)
                    boxes.append((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
            finally:
                tp.close()
                pg.close()
        return merge_lines(boxes)

    def render(self, page: int, zoom: float):
        """The page as an RGB PIL image at ``zoom``."""
        with PDFIUM_LOCK:
            pg = self._pdf[page - 1]
            try:
                bitmap = pg.render(scale=zoom, may_draw_forms=False)
                img = bitmap.to_pil().convert("RGB")
                bitmap.close()
            finally:
                pg.close()
        return img


def merge_lines(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Consecutive character boxes that sit on one line (vertical overlap of at least half the
    smaller height, the next one not left of or far right of the run) become one rectangle."""
    out: list[list[int]] = []
    for x0, y0, x1, y1 in boxes:
        if out:
            c = out[-1]
            h = min(y1 - y0, c[3] - c[1]) or 1
            overlap = min(y1, c[3]) - max(y0, c[1])
            if overlap >= h / 2 and x0 >= c[0] - 1 and x0 - c[2] <= 2 * max(y1 - y0, c[3] - c[1]):
                c[0], c[1], c[2], c[3] = min(c[0], x0), min(c[1], y0), max(c[2], x1), max(c[3], y1)
                continue
        out.append([x0, y0, x1, y1])
    return [tuple(r) for r in out]


def paint(img, layers: list[tuple[str, list[tuple[int, int, int, int]]]]) -> bytes:
    """``img`` with the rectangles of each ``(kind, rects)`` painted in order (window first, the
    hit last), as PNG bytes."""
    from PIL import Image, ImageDraw

    base = img.convert("RGBA")
    over = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(over)
    for kind, rects in layers:
        for r in rects:
            draw.rectangle(r, fill=FILL[kind], outline=OUTLINE.get(kind))
    out = Image.alpha_composite(base, over).convert("RGB")
    buf = io.BytesIO()
    out.save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def crop_png(png: bytes, rects: list[tuple[int, int, int, int]], margin: int = 24, min_height: int = 120) -> bytes:
    """The part of a painted page around ``rects`` (full width of the text, ``margin`` pixels
    above and below), as PNG bytes."""
    from PIL import Image

    img = Image.open(io.BytesIO(png))
    W, H = img.size
    if not rects:
        return png
    y0 = max(0, min(r[1] for r in rects) - margin)
    y1 = min(H, max(r[3] for r in rects) + margin)
    if y1 - y0 < min_height:
        pad = (min_height - (y1 - y0)) // 2
        y0, y1 = max(0, y0 - pad), min(H, y1 + pad)
    x0 = max(0, min(r[0] for r in rects) - margin)
    x1 = min(W, max(r[2] for r in rects) + margin)
    buf = io.BytesIO()
    img.crop((x0, y0, x1, y1)).save(buf, format="PNG", compress_level=6)
    return buf.getvalue()
