""""Open in document": a button for every passage and every hit of an answer's evidence, opening
a dialog with the hit where it stands in its document (:mod:`swr.manage.docview`).

PDFs: the page image(s) with the hit's character boxes painted, zoom and previous/next page; a
text document: the whole text in a scrolling box, scrolled to the window. The engine call goes
through the checked view (``GuardedEngine.open_document``: read access to the knowledge base).

DOM (the browser test reads it): a PDF page is ``div.swr-docpage`` with ``data-page``,
``data-width``, ``data-height``, ``data-zoom`` and ``data-boxes`` (JSON ``[{"kind", "i",
"rects"}]``, rectangles in pixels of the image, origin top left) around
``img.swr-docpage-img`` (the PNG as a data URI, shown at its natural size); a text document is
``div.swr-dv-doc`` with one ``span.swr-dv-s[data-i]`` per sentence (``swr-dv-hit``,
``swr-dv-win``, ``swr-dv-other`` marked).
"""
from __future__ import annotations

import streamlit as st

from swr.app.components.errors import md
from swr.app.state import KEYS
from swr.core.errors import SwrError
from swr.core.types import Passage
from swr.manage.docview import DocumentView, boxes_json
from swr.manage.docview.text import CSS as TEXT_CSS
from swr.manage.render import esc

ZOOMS = (1.0, 1.25, 1.5, 2.0, 3.0)


def targets(passages: list[Passage]) -> list[dict]:
    """What can be opened: for every passage (numbered from 1) one entry per hit, best first:
    ``{"n", "doc_id", "source", "hit", "first", "last", "others", "page", "label"}``; ``others``
    are the other hits of the answer in the same document."""
    by_doc: dict[str, set[int]] = {}
    for p in passages:
        by_doc.setdefault(p.doc_id, set()).update(h.i for h in p.hits)
    out = []
    for n, p in enumerate(passages, 1):
        hits = sorted(p.hits, key=lambda h: (h.rank or 10**6, h.i))
        for k, h in enumerate(hits):
            page = f" · p. {h.page}" if h.page else ""
            label = f"[{n}] {p.source}{page}" if len(hits) == 1 else f"[{n}] hit {k + 1}: sentence {h.i + 1}{page}"
            out.append({"n": n, "doc_id": p.doc_id, "source": p.source, "hit": h.i, "first": p.first,
                        "last": p.last, "others": sorted(by_doc[p.doc_id] - {h.i}), "page": h.page,
                        "label": label})
    return out


def controls(engine, kb: str, key: str, passages: list[Passage]) -> None:
    """The "open in document" buttons of one answer's evidence (``key``: the answer's id)."""
    found = targets(passages)
    if not found or not hasattr(engine, "open_document"):
        return
    with st.expander("Open in document", expanded=False):
        cols = st.columns(2)
        for k, t in enumerate(found):
            if cols[k % 2].button(t["label"], key=KEYS.open_doc(key, t["n"], t["hit"]), icon=":material/description:",
                                  help=f"Show sentence {t['hit'] + 1} of {t['source']} where it stands in the document",
                                  width="stretch"):
                st.session_state[KEYS.docview_page(key)] = None
                document_dialog(engine, kb, key, t)


@st.dialog("Open in document", width="large")
def document_dialog(engine, kb: str, key: str, target: dict) -> None:
    """The document view of one hit (a dialog: its zoom and page buttons rerun only the dialog),
    with the right-sentence feedback of its answer (:func:`swr.app.feedback.document_feedback`)."""
    from swr.app import feedback  # the page module's hook (it imports the components)

    feedback.document_feedback(engine, kb, key, show(engine, kb, key, target))


def show(engine, kb: str, key: str, target: dict) -> DocumentView | None:
    """The document view's content (also usable outside a dialog); the view shown (None: an error)."""
    page_key, zoom_key = KEYS.docview_page(key), KEYS.docview_zoom(key)
    page = st.session_state.get(page_key)
    zoom = st.session_state.get(zoom_key, 1.5)
    try:
        view = engine.open_document(kb, target["doc_id"], hit=target["hit"], first=target["first"],
                                    last=target["last"], others=target["others"], page=page, zoom=zoom)
    except SwrError as exc:
        st.error(md(exc.message))
        return None
    st.html(f'<div class="swr-dv-head"><b>{esc(view.source)}</b> · sentence {view.hit + 1} · window '
            f"{view.first + 1}–{view.last + 1}" + (f" · page {', '.join(map(str, view.hit_pages))}"
                                                     if view.hit_pages else "") + "</div>")
    if view.message:
        st.warning(md(view.message), icon=":material/warning:")
    if view.kind == "pdf":
        _pdf(view, page_key, zoom_key)
    else:
        _text(view)
    return view


def _pdf(view: DocumentView, page_key: str, zoom_key: str) -> None:
    """Page buttons, zoom, then the painted page(s) with their boxes as data attributes."""
    shown = [p.page for p in view.pages]
    c1, c2, c3, c4 = st.columns([2, 2, 2, 3])
    if c1.button("◀ Previous page", key=f"{page_key}-prev", disabled=min(shown) <= 1, width="stretch"):
        st.session_state[page_key] = min(shown) - 1
        st.rerun(scope="fragment")
    if c2.button("Next page ▶", key=f"{page_key}-next", disabled=max(shown) >= view.page_count, width="stretch"):
        st.session_state[page_key] = max(shown) + 1
        st.rerun(scope="fragment")
    if c3.button("Back to the hit", key=f"{page_key}-hit", disabled=st.session_state.get(page_key) is None,
                 width="stretch"):
        st.session_state[page_key] = None
        st.rerun(scope="fragment")
    zoom = c4.select_slider("Zoom", options=list(ZOOMS), value=view.zoom if view.zoom in ZOOMS else 1.5,
                            key=f"{zoom_key}-w", format_func=lambda z: f"{int(z * 100)}%")
    if zoom != view.zoom:
        st.session_state[zoom_key] = zoom
        st.rerun(scope="fragment")
    st.caption(f"Page{'s' * (len(shown) > 1)} {', '.join(map(str, shown))} of {view.page_count}. "
               "Orange: the hit sentence; yellow: the rest of its window; blue: other hits of this answer.")
    for u in view.unmapped:
        st.caption(f"Sentence {u.i + 1} ({u.kind}) is not highlighted: {u.reason}.")
    for p in view.pages:
        hit = p.rects("hit") or p.rects("window")
        top = max(0, hit[0][1] - 160) if hit else 0
        box = f"swr-docpage-{p.page}"
        # the hit's page below another one: bring it into view
        into = 'e.scrollIntoView({block:"start"});' if p.rects("hit") and p is not view.pages[0] else ""
        st.html(f'<div class="swr-docscroll" id="{box}" style="max-height:70vh;overflow:auto;border:1px solid '
                f'#d0d7de;border-radius:6px;margin-bottom:.6em">'
                f'<div class="swr-docpage" data-page="{p.page}" data-width="{p.width}" data-height="{p.height}" '
                f'data-zoom="{p.zoom}" data-boxes="{esc(boxes_json(p))}" style="position:relative;width:{p.width}px">'
                f'<img class="swr-docpage-img" alt="page {p.page}" src="{p.data_uri()}" width="{p.width}" '
                f'height="{p.height}" style="max-width:none;display:block"></div></div>'
                f'<script>(function(){{var e=document.getElementById("{box}");'
                f"if(e){{e.scrollTop={int(top)};{into}}}}})()</script>",
                unsafe_allow_javascript=True)


def _text(view: DocumentView) -> None:
    """The marked document in a scrolling box, scrolled to the window."""
    st.caption("Orange: the hit sentence; yellow: its window; blue: other hits of this answer.")
    st.html(f"<style>{TEXT_CSS}</style>"
            f'<div class="swr-docscroll" id="swr-dv-box" style="max-height:70vh;overflow:auto">{view.html}</div>'
            '<script>(function(){var b=document.getElementById("swr-dv-box");'
            f'var e=document.getElementById("{view.anchor}");'
            "if(b&&e){b.scrollTop=Math.max(0,e.offsetTop-b.offsetTop-b.clientHeight/3);}})()</script>",
            unsafe_allow_javascript=True)
