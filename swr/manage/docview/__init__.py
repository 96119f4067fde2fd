"""The document view: a hit shown where it stands in its document. Knows no Streamlit.

Stable API (the app, the evidence card export and the browser test use it)::

    view = engine.open_document(kb, doc_id, hit=i, first=a, last=b, others=[j, ...],
                                page=None, zoom=1.5)          # GuardedEngine: read check on kb
    view.kind            # "pdf" (page images) or "text" (the whole document as HTML)
    view.pages           # pdf: [PageView] shown: the pages the window lies on (both when it
                         #      crosses a page break; over more breaks, the hit's page and the
                         #      next, else the previous), or only ``page`` when one is asked for
    view.page_count      # pdf: pages in the file
    view.hit_pages       # pdf: the page(s) the hit sentence lies on ([] when unmapped)
    view.unmapped        # [Unmapped(i, kind, reason)]: spans not highlighted, and why
    view.message         # a note for people (e.g. "re-index ... to open its PDF pages"), or None
    view.html            # text: escaped, marked document (swr.manage.docview.text); pdf: ""
    view.anchor          # text: the id of the first window sentence (scroll target)
    view.to_dict()       # JSON-ready, PNGs left out
    page.page, page.width, page.height, page.zoom, page.png (PNG bytes), page.data_uri()
    page.boxes           # [SpanBoxes(kind, i, page, rects)]: kind "hit" | "window" | "other";
                         # rects [(x0, y0, x1, y1)] in pixels of page.png, origin top left
    page.rects("hit")    # all rectangles of one kind on this page
    page.crop_png()      # the painted page cut around the hit (the evidence card's image)

``hit`` is the hit's sentence number (``PassageHit.i``), ``first``/``last`` the window's
(``Passage.first``/``last``; default: the hit alone), ``others`` other hits of the same answer in
this document. The hit is painted strong orange with an outline, the rest of the window light
yellow, other hits light blue. ``zoom`` is pixels per PDF point (1.0 = 72 dpi), clamped to
[0.5, 4]. Every span is checked before it is painted: the stored sentence must equal the text at
its place on the page (:mod:`swr.manage.docview.pdf`); one that does not is listed in ``unmapped`` and
not painted, so no wrong place is ever highlighted.

PDFs need their original file, kept at indexing since this view exists
(:mod:`swr.ingest.originals`); a PDF indexed before gets the text view and a ``message`` saying to
re-index it. Page renders are lazy (only the pages shown) and cached per process
(:class:`DocViewer`: document id, render version, page, zoom).

In the app (:mod:`swr.app.components.docview`) a PDF page is an element
``<div class="swr-docpage" data-page="P" data-width="W" data-height="H" data-boxes="JSON">``
holding ``<img class="swr-docpage-img">`` (the PNG as a data URI; ``data-boxes`` is
``[{"kind", "i", "rects"}]`` as above); a text document is ``swr.manage.docview.text``'s HTML.
"""
from __future__ import annotations

import atexit
import base64
import json
import weakref
from dataclasses import dataclass, field

from swr.core.errors import BadRequest, NotFound
from swr.ingest import originals as kept
from swr.manage.docview.pdf import (
    LRU,
    MAX_ZOOM,
    MIN_ZOOM,
    RENDER_VERSION,
    PdfFile,
    crop_png,
    locate,
    paint,
)
from swr.manage.docview.text import text_html

DEFAULT_ZOOM = 1.5
MAX_PAGES_SHOWN = 2  # a window over more page breaks shows the hit's page and the next (else previous) one
ANCHOR = "swr-dv-window"

__all__ = ["DocViewer", "DocumentView", "PageView", "SpanBoxes", "Unmapped", "DEFAULT_ZOOM", "ANCHOR", "kept"]


@dataclass(frozen=True)
class SpanBoxes:
    """Where one sentence is painted on one page: rectangles in pixels of the page image."""

    kind: str  # "hit" | "window" | "other"
    i: int  # sentence number
    page: int  # 1-based
    rects: list[tuple[int, int, int, int]]

    def to_dict(self) -> dict:
        """JSON-ready (no PNG bytes)."""
        return {"kind": self.kind, "i": self.i, "page": self.page, "rects": [list(r) for r in self.rects]}


@dataclass(frozen=True)
class Unmapped:
    """A sentence that was not painted, and why."""

    i: int
    kind: str
    reason: str

    def to_dict(self) -> dict:
        """JSON-ready (no PNG bytes)."""
        return {"i": self.i, "kind": self.kind, "reason": self.reason}


@dataclass
class PageView:
    """One rendered page with its painted spans."""

    page: int
    width: int
    height: int
    zoom: float
    png: bytes
    boxes: list[SpanBoxes] = field(default_factory=list)

    def rects(self, kind: str) -> list[tuple[int, int, int, int]]:
        """Every rectangle of one kind (``"hit"``, ``"window"``, ``"other"``) on this page."""
        return [r for b in self.boxes if b.kind == kind for r in b.rects]

    def data_uri(self, png: bytes | None = None) -> str:
        """The page image (or ``png``) as a ``data:image/png;base64,...`` URI."""
        return "data:image/png;base64," + base64.b64encode(self.png if png is None else png).decode("ascii")

    def crop_png(self) -> bytes:
        """The painted page cut around the hit (around the window when the hit is not here)."""
        return crop_png(self.png, self.rects("hit") or self.rects("window"))

    def to_dict(self) -> dict:
        """JSON-ready (no PNG bytes)."""
        return {"page": self.page, "width": self.width, "height": self.height, "zoom": self.zoom,
                "boxes": [b.to_dict() for b in self.boxes]}


@dataclass
class DocumentView:
    """A document opened at a hit: page images (PDF) or the whole text (other formats)."""

    kind: str  # "pdf" | "text"
    kb: str
    doc_id: str
    source: str
    format: str
    hit: int
    first: int
    last: int
    others: list[int] = field(default_factory=list)
    pages: list[PageView] = field(default_factory=list)
    page_count: int = 0
    hit_pages: list[int] = field(default_factory=list)
    window_pages: list[int] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    message: str | None = None
    html: str = ""
    anchor: str = ANCHOR
    zoom: float = DEFAULT_ZOOM

    def to_dict(self) -> dict:
        """JSON-ready (no PNG bytes)."""
        return {"kind": self.kind, "kb": self.kb, "doc_id": self.doc_id, "source": self.source,
                "format": self.format, "hit": self.hit, "first": self.first, "last": self.last,
                "others": list(self.others), "pages": [p.to_dict() for p in self.pages],
                "page_count": self.page_count, "hit_pages": list(self.hit_pages),
                "window_pages": list(self.window_pages), "unmapped": [u.to_dict() for u in self.unmapped],
                "message": self.message, "anchor": self.anchor, "zoom": self.zoom}


def boxes_json(page: PageView) -> str:
    """``[{"kind", "i", "rects"}]`` of a page (the ``data-boxes`` attribute; numbers only)."""
    return json.dumps([{"kind": b.kind, "i": b.i, "rects": [list(r) for r in b.rects]} for b in page.boxes])


def _close_at_exit(ref) -> None:
    viewer = ref()
    if viewer is not None:
        try:
            viewer.close()
        except Exception:  # noqa: BLE001 - shutting down: nothing left to tell
            pass


class DocViewer:
    """Opens documents of one store (``settings`` for ``SWR_HOME``); caches open PDFs, page
    renders and painted pages per process. Thread-safe."""

    def __init__(self, settings, store) -> None:
        self.settings = settings
        self.store = store
        # (kb, doc_id) -> (PdfFile, layout); an evicted file is closed by the garbage collector once
        # no other thread still renders from it (closing it here could pull it from under one)
        self._pdfs = LRU(4)
        self.renders = LRU(12)  # (doc_id, RENDER_VERSION, page, zoom) -> PIL image
        self.painted = LRU(48)  # (doc_id, RENDER_VERSION, page, zoom, spans) -> PNG bytes
        # the app's engine lives as long as the server: its PDFs are closed when the interpreter exits
        # (before PDFium is torn down: pypdfium2 warns of objects it can no longer close)
        atexit.register(_close_at_exit, weakref.ref(self))

    def close(self) -> None:
        """Close the open PDFs and forget the caches (when nothing renders any more)."""
        files = [v[0] for v in self._pdfs.values()]
        self._pdfs.clear()
        for f in files:
            f.close()
        self.renders.clear()
        self.painted.clear()

    # -- entry point -----------------------------------------------------------------------
    def open(self, kb: str, doc_id: str, *, hit: int, first: int | None = None, last: int | None = None,
             others=(), page: int | None = None, zoom: float | None = None) -> DocumentView:
        """The document ``doc_id`` of ``kb`` opened at sentence ``hit`` (see the module)."""
        found = self.store.docs(kb, doc_id=doc_id)
        if not found:
            raise NotFound(f"No document {doc_id!r} in knowledge base {kb!r}.")
        info = found[0]
        hit = int(hit)
        first = hit if first is None else int(first)
        last = hit if last is None else int(last)
        if not (0 <= first <= hit <= last):
            raise BadRequest(f"The window {first}..{last} does not hold the hit sentence {hit}.")
        others = sorted({int(o) for o in others} - {hit})
        zoom = min(MAX_ZOOM, max(MIN_ZOOM, float(zoom or DEFAULT_ZOOM)))
        view = DocumentView(kind="text", kb=kb, doc_id=doc_id, source=info.source, format=info.format or "",
                            hit=hit, first=first, last=last, others=others, zoom=zoom)
        if info.format == "pdf":
            pdf = self._pdf(kb, doc_id, info.source)
            if pdf is not None:
                return self._open_pdf(view, *pdf, page)
            view.message = (f"{info.source} was indexed before PDFs were kept for viewing: re-index it (upload "
                            "the same file again; nothing is re-embedded) to open its PDF pages. Its text is shown "
                            "instead.")
        return self._open_text(view)

    # -- text ------------------------------------------------------------------------------
    def _open_text(self, view: DocumentView) -> DocumentView:
        """The whole document rebuilt from its stored sentences, marked."""
        sentences = self.store.scroll_doc(view.kb, view.doc_id)
        if not any(s.i == view.hit for s in sentences):
            raise NotFound(f"{view.source} has no sentence {view.hit + 1}; it may have been re-indexed.")
        view.html = text_html(sentences, hit=view.hit, first=view.first, last=view.last, others=set(view.others),
                              anchor=view.anchor, markdown=view.format in ("md", "html", "docx"))
        return view

    # -- pdf -------------------------------------------------------------------------------
    def _pdf(self, kb: str, doc_id: str, source: str):
        """The open PDF and layout of a document (cached), or None when its file is not kept."""
        key = (kb, doc_id)
        got = self._pdfs.get(key)
        if got is None:
            read = kept.read(self.settings, kb, doc_id)
            if read is None:
                return None
            data, layout = read
            got = (PdfFile(doc_id, data, source, layout), layout)
            self._pdfs.put(key, got)
        return got

    def _open_pdf(self, view: DocumentView, pdf: PdfFile, layout: dict, page: int | None) -> DocumentView:
        """Map the hit, window and other hits onto the PDF's characters, checked; render the pages shown."""
        # long: map, check and render in one pass over the same sentences; each step needs the last's
        view.kind = "pdf"
        view.page_count = pdf.page_count
        want = sorted({view.hit, *range(view.first, view.last + 1), *view.others})
        got = self.store.fetch_sentences(view.kb, [(view.doc_id, i) for i in want])
        sents = {i: s for (d, i), s in got.items() if d == view.doc_id}
        if view.hit not in sents:
            raise NotFound(f"{view.source} has no sentence {view.hit + 1}; it may have been re-indexed.")
        starts, chars = list(layout.get("page_starts") or []), int(layout.get("chars") or 0)
        kinds = {i: ("hit" if i == view.hit else "other" if i in view.others else "window") for i in sents}
        pieces = {i: locate(starts, chars, s.start, s.end) for i, s in sents.items()}
        view.hit_pages = sorted({p.page for p in pieces[view.hit]})
        view.window_pages = sorted({p.page for i in range(view.first, view.last + 1) for p in pieces.get(i, [])})
        if page is not None:
            if not 1 <= int(page) <= pdf.page_count:
                raise BadRequest(f"{view.source} has pages 1 to {pdf.page_count}, not {page}.")
            shown = [int(page)]
        else:
            shown = view.window_pages or view.hit_pages or [max(1, sents[view.hit].page or 1)]
            if len(shown) > MAX_PAGES_SHOWN:  # the hit's page(s), and the next (else previous) window page
                hp = view.hit_pages or shown[:1]
                near = [p for p in shown if p == hp[-1] + 1] or [p for p in shown if p == hp[0] - 1]
                shown = sorted(set(hp) | set(near))[-MAX_PAGES_SHOWN:] if len(hp) < MAX_PAGES_SHOWN else hp
        bad: dict[int, str] = {}
        per_page: dict[int, list[SpanBoxes]] = {p: [] for p in shown}
        for i, s in sents.items():
            if not pieces[i]:
                bad[i] = "its offsets lie outside the PDF's text"
                continue
            for pc in pieces[i]:
                if pc.page > pdf.page_count:
                    bad[i] = f"it lies on page {pc.page}, the file has {pdf.page_count}"
                    break
                text, _ = pdf.text(pc.page)
                stored = s.text[pc.doc_a - s.start: pc.doc_a - s.start + (pc.b - pc.a)]
                if text[pc.a:pc.b] != stored:
                    bad[i] = (f"its stored text differs from page {pc.page}'s text layer (indexed with an older "
                              "PDF text extraction, or the file changed): re-index the document (delete it and "
                              "upload it again) to open it here")
                    break
            if i in bad:
                continue
            for pc in pieces[i]:
                if pc.page in per_page:
                    rects = pdf.span_rects(pc.page, pc.a, pc.b, view.zoom)
                    if rects:
                        per_page[pc.page].append(SpanBoxes(kinds[i], i, pc.page, rects))
        for i in sorted(bad):
            view.unmapped.append(Unmapped(i, kinds[i], bad[i]))
        if view.hit in bad:
            view.hit_pages = []
            view.message = (f"The hit sentence {view.hit + 1} could not be placed on the page: {bad[view.hit]}. "
                            "Nothing is highlighted for it.")
        elif bad:
            view.message = f"{len(bad)} sentence(s) of the window could not be placed on the page and are not shaded."
        order = {"window": 0, "other": 1, "hit": 2}
        for p in shown:
            boxes = sorted(per_page[p], key=lambda b: (order[b.kind], b.i))
            view.pages.append(self._page(pdf, p, view.zoom, boxes))
        return view

    def _page(self, pdf: PdfFile, page: int, zoom: float, boxes: list[SpanBoxes]) -> PageView:
        """Render (cached) and paint one page."""
        sig = tuple((b.kind, tuple(b.rects)) for b in boxes)
        key = (pdf.doc_id, RENDER_VERSION, page, zoom, hash(sig))
        png = self.painted.get(key)
        if png is None:
            rkey = (pdf.doc_id, RENDER_VERSION, page, zoom)
            img = self.renders.get(rkey)
            if img is None:
                img = pdf.render(page, zoom)
                self.renders.put(rkey, img)
            png = paint(img, [(b.kind, b.rects) for b in boxes])
            self.painted.put(key, png)
        w, h = pdf.size(page, zoom)
        return PageView(page=page, width=w, height=h, zoom=zoom, png=png, boxes=boxes)


def hit_crops(engine, kb: str, passages, *, zoom: float = 1.25) -> dict[int, list[tuple[str, str]]]:
    """The PDF page crops of every hit of an answer's ``passages`` (numbered from 1), through
    ``engine.open_document`` (an engine or its checked view): passage number ->
    ``[(caption, data URI)]``, for :func:`swr.manage.render.evidence_card_html`. Text documents, PDFs
    without a kept file and hits that cannot be placed are left out."""
    formats = {d.doc_id: d.format for d in engine.docs(kb)}
    out: dict[int, list[tuple[str, str]]] = {}
    for n, p in enumerate(passages, 1):
        if formats.get(p.doc_id) != "pdf":
            continue
        others = [h.i for q in passages if q.doc_id == p.doc_id for h in q.hits]
        for h in p.hits:
            view = engine.open_document(kb, p.doc_id, hit=h.i, first=p.first, last=p.last, others=others, zoom=zoom)
            for page in view.pages:
                if page.page in view.hit_pages and page.rects("hit"):
                    cap = f"{p.source} · page {page.page} · sentence {h.i + 1}"
                    out.setdefault(n, []).append((cap, page.data_uri(page.crop_png())))
    return out
