"""The document view (swr/manage/docview): stored sentence spans mapped onto the PDF's characters (boxes
where reportlab drew the text, also when the text layer's order is not the reading order), spans
that cannot be mapped flagged rather than painted, the kept originals through delete, trash and
restore, and the text view escaped. Real Qdrant Edge store, real PDFium; the fake embedder only
(nothing here depends on the vectors)."""
from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from swr.core.errors import BadRequest, NotFound
from swr.ingest import originals as kept
from swr.manage.access.users import Actor

FONT, SIZE = "Helvetica", 12
H_PT = 842.0  # reportlab's A4 height in points (841.89)


def _pdf(pages: list[list[tuple[float, float, str]]]) -> bytes:
    """A4 pages, each a list of ``(x, y, text)`` drawn in that order (y: baseline from the bottom)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)  # the same bytes every time
    for lines in pages:
        c.setFont(FONT, SIZE)
        for x, y, text in lines:
            c.drawString(x, y, text)
        c.showPage()
    c.save()
    return buf.getvalue()


def _width(text: str) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, FONT, SIZE)


P1 = [(72, 760, "The kettle manual starts here."), (72, 740, "Fill it with fresh water only.")]
TARGET = "The limescale filter must be rinsed every ninety days."
P2 = [(72, 760, "Cleaning and care."), (90, 600, TARGET), (72, 580, "Dry it with a soft cloth.")]
P3 = [(72, 760, "Warranty terms follow on this page.")]


def _index(engine, name, data, kb="kb"):
    [res] = engine.index_files(kb, [(name, data)])
    assert res.ok, res.error
    return res.doc_id, engine.doc_sentences(kb, res.doc_id)


def _find(sentences, text):
    return next(s for s in sentences if s.text.strip() == text)


def _expected_box(x: float, y: float, text: str, zoom: float, height: float = H_PT):
    """Where reportlab drew ``text`` (baseline y): pixel x0, x1 and the baseline's pixel row."""
    return x * zoom, (x + _width(text)) * zoom, (height - y) * zoom


def _color_in(png: bytes, rect) -> tuple[float, float, float]:
    img = Image.open(io.BytesIO(png)).convert("RGB").crop(rect)
    px = list(img.getdata())
    return tuple(sum(p[k] for p in px) / len(px) for k in range(3))


def test_hit_on_page_2_is_boxed_where_it_was_drawn(fake_engine):
    doc_id, sents = _index(fake_engine, "kettle.pdf", _pdf([P1, P2, P3]))
    s = _find(sents, TARGET)
    assert s.page == 2
    zoom = 2.0
    view = fake_engine.open_document("kb", doc_id, hit=s.i, first=s.i - 1, last=s.i + 1, zoom=zoom)
    assert view.kind == "pdf" and view.page_count == 3 and view.message is None and view.unmapped == []
    assert view.hit_pages == [2] and [p.page for p in view.pages] == [2]
    page = view.pages[0]
    assert (page.width, page.height) == (1191, 1684)  # A4 at 2x, as rendered
    assert Image.open(io.BytesIO(page.png)).size == (page.width, page.height)
    [rect] = page.rects("hit")  # one line: one rectangle
    x0, x1, base = _expected_box(90, 600, TARGET, zoom, 841.89)
    assert abs(rect[0] - x0) <= 3 and abs(rect[2] - x1) <= 3, (rect, x0, x1)
    assert rect[1] < base <= rect[3] + 1 and 10 * zoom <= rect[3] - rect[1] <= 16 * zoom
    # the rest of the window is shaded lighter, on its own lines
    win = page.rects("window")
    assert len(win) == 2 and all(r[3] <= rect[1] + 2 or r[1] >= rect[3] - 2 for r in win)
    # the pixels: the hit's box is painted orange, an empty part of the page stays white
    r, g, b = _color_in(page.png, (rect[0] + 1, rect[1] + 1, rect[2] - 1, rect[3] - 1))
    assert r > 180 and b < 170 and r - b > 60, (r, g, b)
    assert _color_in(page.png, (100, 1400, 400, 1500)) == (255, 255, 255)
    # another zoom: the same place, scaled
    small = fake_engine.open_document("kb", doc_id, hit=s.i, zoom=1.0).pages[0]
    [r1] = small.rects("hit")
    assert abs(r1[0] * 2 - rect[0]) <= 3 and abs(r1[1] * 2 - rect[1]) <= 3
    # a page asked for: only that one, rendered lazily, no hit on it
    p3 = fake_engine.open_document("kb", doc_id, hit=s.i, page=3).pages
    assert [p.page for p in p3] == [3] and p3[0].rects("hit") == []
    with pytest.raises(BadRequest):
        fake_engine.open_document("kb", doc_id, hit=s.i, page=4)
    with pytest.raises(BadRequest):
        fake_engine.open_document("kb", doc_id, hit=s.i, first=s.i + 1, last=s.i + 2)
    d = view.to_dict()
    assert "png" not in json.dumps(d) and d["pages"][0]["boxes"][-1]["kind"] == "hit"


def test_window_across_a_page_break_shows_both_pages(fake_engine):
    pages = [[(72, 760, "First page opening line."), (72, 60, "The last sentence of page one is here.")],
             [(72, 780, "The first sentence of page two follows."), (72, 760, "Something else entirely.")]]
    doc_id, sents = _index(fake_engine, "two.pdf", _pdf(pages))
    a = _find(sents, "The last sentence of page one is here.")
    b = _find(sents, "The first sentence of page two follows.")
    assert (a.page, b.page, b.i) == (1, 2, a.i + 1)
    view = fake_engine.open_document("kb", doc_id, hit=a.i, first=a.i, last=b.i, zoom=1.0)
    assert [p.page for p in view.pages] == [1, 2] and view.window_pages == [1, 2] and view.hit_pages == [1]
    [hit] = view.pages[0].rects("hit")
    assert abs(hit[0] - 72) <= 2 and hit[1] < 842 - 60 <= hit[3] + 1  # bottom of page 1
    [win] = view.pages[1].rects("window")
    assert win[1] < 842 - 780 <= win[3] + 1  # top of page 2
    assert view.pages[1].rects("hit") == []


def test_text_layer_order_differs_from_reading_order(fake_engine):
    """The bottom paragraph is drawn first, and one sentence's second half before its first half:
    the text layer is not in reading order, and every box is still where its characters are."""
    first_half, second_half = "Descale the boiler", "with white vinegar monthly."
    page = [(72, 200, "This footer was drawn before everything else."),
            (72 + _width(first_half + " "), 700, second_half),  # right half first
            (72, 700, first_half),
            (72, 500, "Unplug it before you clean it.")]
    doc_id, sents = _index(fake_engine, "order.pdf", _pdf([page]))
    texts = [s.text for s in sents]
    assert texts[0].startswith("This footer"), texts  # layer order, not reading order
    footer = sents[0]
    view = fake_engine.open_document("kb", doc_id, hit=footer.i, zoom=1.0)
    [r] = view.pages[0].rects("hit")
    assert r[1] < 842 - 200 <= r[3] + 1  # at the bottom, where it was drawn, though first in the text
    # the sentence whose halves were drawn right to left: its boxes cover both halves
    s = next(s for s in sents if "vinegar" in s.text)
    v2 = fake_engine.open_document("kb", doc_id, hit=s.i, zoom=1.0)
    rects = v2.pages[0].rects("hit")
    xs = sorted(x for r in rects for x in (r[0], r[2]))
    assert all(r[1] < 842 - 700 <= r[3] + 1 for r in rects)
    # every character the stored text holds is on the line at y=700, and nothing elsewhere
    covered = set()
    for r in rects:
        covered |= set(range(r[0], r[2]))
    assert "Descale" in s.text and "vinegar" in s.text  # PDFium joins the two halves of the line
    for word, x in ((first_half, 72), (second_half, 72 + _width(first_half + " "))):
        assert int(x) + 2 in covered, (word, rects)
    assert xs[0] >= 70 and xs[-1] <= 72 + _width(first_half + " " + second_half) + 3


def test_unmappable_spans_are_flagged_not_painted(fake_engine, settings):
    doc_id, sents = _index(fake_engine, "kettle.pdf", _pdf([P1, P2, P3]))
    s = _find(sents, TARGET)
    # the kept file no longer holds the indexed text (an older extraction, a changed file): the
    # stored sentence is compared with the page and not painted anywhere
    data, layout = kept.read(settings, "kb", doc_id)
    other = _pdf([P1, [(72, 760, "Cleaning and care."), (90, 600, "A quite different sentence stands here now.")], P3])
    kept.keep(settings, "kb", doc_id, other, layout)
    fake_engine.docview.close()  # forget the open file
    view = fake_engine.open_document("kb", doc_id, hit=s.i, first=s.i - 1, last=s.i + 1)
    assert view.kind == "pdf" and view.hit_pages == []
    assert [u.i for u in view.unmapped if u.kind == "hit"] == [s.i]
    assert "re-index" in view.unmapped[-1].reason or any("re-index" in u.reason for u in view.unmapped)
    assert all(p.rects("hit") == [] for p in view.pages)
    assert "could not be placed" in view.message
    # the unchanged window sentence before it still maps
    assert any(b.i == s.i - 1 for p in view.pages for b in p.boxes)


def test_pdf_without_kept_file_says_reindex_and_shows_text(fake_engine, settings):
    doc_id, sents = _index(fake_engine, "old.pdf", _pdf([P1, P2]))
    kept.remove(settings, "kb", doc_id)  # as if indexed before files were kept
    s = _find(sents, TARGET)
    view = fake_engine.open_document("kb", doc_id, hit=s.i)
    assert view.kind == "text" and "re-index" in view.message and "swr-dv-hit" in view.html
    # indexing the same file again (skipped: nothing re-embedded) keeps it now
    calls = fake_engine.embedder.calls
    [res] = fake_engine.index_files("kb", [("old.pdf", _pdf([P1, P2]))])
    assert res.skipped and fake_engine.embedder.calls == calls
    view = fake_engine.open_document("kb", doc_id, hit=s.i)
    assert view.kind == "pdf" and view.hit_pages == [2] and view.message is None


def test_kept_files_follow_delete_trash_restore_and_replace(fake_engine, settings):
    doc_id, _ = _index(fake_engine, "a.pdf", _pdf([P1, P2]))
    assert kept.has(settings, "kb", doc_id)
    fake_engine.delete_doc("kb", doc_id)
    assert not kept.has(settings, "kb", doc_id)
    [entry] = fake_engine.trash.entries()
    assert (settings.trash_path / entry.id / "files" / kept.ORIGINAL).is_file()
    fake_engine.trash.restore(entry.id)
    assert kept.has(settings, "kb", doc_id)
    # a changed file replaces the old version and its kept file
    new_id, _ = _index(fake_engine, "a.pdf", _pdf([P1, P3]))
    assert new_id != doc_id and kept.has(settings, "kb", new_id) and not kept.has(settings, "kb", doc_id)
    # the whole knowledge base: into the trash and back, or gone for good
    fake_engine.delete_kb("kb")
    assert not kept.kb_dir(settings, "kb").exists()
    [entry] = [e for e in fake_engine.trash.entries() if e.kind == "kb"]
    fake_engine.trash.restore(entry.id)
    assert kept.has(settings, "kb", new_id)
    fake_engine.delete_kb("kb", trash=False)
    assert not kept.kb_dir(settings, "kb").exists()
    # text documents are rebuilt from their sentences: nothing kept
    tid, _ = _index(fake_engine, "n.txt", b"Plain text. Two sentences.")
    assert not kept.doc_dir(settings, "kb", tid).exists()


MD = ("# Kettle <b>guide</b>\n\nIntro line one. <script>alert('x')</script> Intro two.\n\n"
      "## Cleaning\n\nRinse the filter every month. Dry it with a cloth. Never use steel wool.\n\n"
      "## Warranty\n\nThe warranty lasts two years.\n").encode()


def test_text_view_marks_window_hit_others_and_escapes(fake_engine):
    doc_id, sents = _index(fake_engine, "guide.md", MD)
    hit = _find(sents, "Dry it with a cloth.")
    other = _find(sents, "The warranty lasts two years.")
    view = fake_engine.open_document("kb", doc_id, hit=hit.i, first=hit.i - 1, last=hit.i + 1, others=[other.i])
    h = view.html
    assert view.kind == "text" and view.pages == []
    assert "<script" not in h.lower() and "<b>" not in h and "&#60;script&#62;" in h
    assert f'class="swr-dv-s swr-dv-win swr-dv-hit" data-i="{hit.i}"' in h
    assert f'data-i="{hit.i - 1}" id="{view.anchor}"' in h
    assert f'class="swr-dv-s swr-dv-other" data-i="{other.i}"' in h
    assert 'swr-dv-h swr-dv-h1' in h and 'swr-dv-h swr-dv-h2' in h
    # the whole document, every sentence once, in order
    assert [int(x) for x in __import__("re").findall(r'data-i="(\d+)"', h)] == [s.i for s in sents]
    with pytest.raises(NotFound):
        fake_engine.open_document("kb", doc_id, hit=len(sents) + 5)


def test_guarded_view_needs_read_access(fake_engine):
    doc_id, sents = _index(fake_engine, "a.pdf", _pdf([P1, P2]), kb="alpha")
    fake_engine.create_kb("beta")
    s = _find(sents, TARGET)
    reader = fake_engine.as_user(Actor("ann", "agent", frozenset({"alpha"})))
    assert reader.open_document("alpha", doc_id, hit=s.i).hit_pages == [2]
    outsider = fake_engine.as_user(Actor("bob", "agent", frozenset({"beta"})))
    with pytest.raises(NotFound):
        outsider.open_document("alpha", doc_id, hit=s.i)


def test_evidence_card_embeds_page_crops_and_stays_self_contained(fake_engine):
    from swr.app.components.answer import evidence_card

    _index(fake_engine, "kettle.pdf", _pdf([P1, P2, P3]))
    _index(fake_engine, "evil.md", b"The limescale <script>alert(1)</script> filter story.\n")
    result = fake_engine.ask("limescale filter rinsed ninety days", "kb", llm=False, mode="sparse")
    assert any(p.source == "kettle.pdf" for p in result.passages)
    card = evidence_card(result, fake_engine.as_user(Actor("ann", "agent", frozenset({"kb"}))))
    assert card.count('<figure class="swr-crop"><img') >= 1 and "data:image/png;base64," in card
    assert "<script" not in card.lower() and "img-src data:" in card
    assert "http://" not in card and "https://" not in card
    plain = evidence_card(result)
    assert "swr-crop" not in plain


def test_render_drops_anything_but_png_data_uris():
    from swr.manage.render import evidence_card_html

    card = evidence_card_html("q", "a", "extractive", [], {}, "now",
                              page_images={1: [("x", "javascript:alert(1)"), ("y", "https://e.x/a.png")]})
    assert "javascript" not in card and "e.x" not in card


def test_targets_one_button_per_hit_with_other_hits_of_the_document():
    from swr.app.components.docview import targets
    from swr.core.types import Passage, PassageHit

    def ph(i, rank, page=None):
        return PassageHit(i=i, sentence=f"s{i}", score=1.0, start=0, end=1, page=page, rank=rank)

    ps = [Passage("d1", "a.pdf", 3, 9, "t", [ph(8, 2, 2), ph(4, 1, 1)], 1.0),
          Passage("d2", "b.md", 0, 2, "t", [ph(1, 3)], 0.5),
          Passage("d1", "a.pdf", 20, 24, "t", [ph(22, 4, 5)], 0.4)]
    t = targets(ps)
    assert [(x["n"], x["hit"]) for x in t] == [(1, 4), (1, 8), (2, 1), (3, 22)]
    assert t[0]["others"] == [8, 22] and t[2]["others"] == [] and t[3]["others"] == [4, 8]
    assert t[0]["label"] == "[1] hit 1: sentence 5 · p. 1" and t[2]["label"] == "[2] b.md"


def test_chinese_pdf_sentence_on_page_2(fake_engine):
    """A CID font (reportlab's STSong-Light): every ideograph 12 pt wide, so the box is exact."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for y, text in ((750, "第一页。"), (700, "滤网每三个月清洗一次。请用软布擦干。")):
        c.setFont("STSong-Light", 12)
        c.drawString(72, y, text)
        c.showPage()
    c.save()
    doc_id, sents = _index(fake_engine, "zh.pdf", buf.getvalue())
    s = _find(sents, "滤网每三个月清洗一次。")
    view = fake_engine.open_document("kb", doc_id, hit=s.i, first=s.i, last=s.i + 1, zoom=1.0)
    assert view.hit_pages == [2] and view.unmapped == []
    [r] = view.pages[0].rects("hit")
    assert abs(r[0] - 72) <= 2 and abs(r[2] - (72 + 11 * 12)) <= 2 and r[1] < 841.89 - 700 <= r[3] + 1
    [w] = view.pages[0].rects("window")
    assert abs(w[0] - r[2]) <= 2  # the next sentence of the window follows on the same line
