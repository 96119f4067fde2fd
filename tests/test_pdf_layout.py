"""PDF text rebuilt from the page layout (swr/ingest): paragraphs joined across line ends,
hyphenated words, model numbers, headings, lists, tables, page furniture, two columns; the
document view boxes joined sentences exactly; the DH-20 manual on the real upload path with the
real embedder. Real PDFium, real reportlab, real Qdrant Edge."""
from __future__ import annotations

import io

from conftest import FakeEmbedder
from swr.ingest.load import load_bytes
from swr.ingest.load.pdf_text import LINES_LAYER, load_pdf
from swr.ingest.pdf_layout import Why
from swr.text.split import split_spans

DH20 = "Do not use the DH-20 in rooms colder than 5 C; the coil may freeze and the unit will stop."


WIDTH = {"~": 360.0, "^": 200.0}  # the column widths of the justified test text (one column, two columns)


def _canvas_pdf(pages: list[list[tuple[float, float, str, str, float]]]) -> bytes:
    """A4 pages of ``(x, y, text, font, size)`` drawn in order; a text ending in ``"~"`` or ``"^"`` is
    justified to the width :data:`WIDTH` gives it (its words spread), as a paragraph's inner lines are."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for lines in pages:
        for x, y, text, font, size in lines:
            t = c.beginText(x, y)
            t.setFont(font, size)
            if text[-1] in WIDTH:
                width, text = WIDTH[text[-1]], text[:-1]
                if " " in text:
                    t.setWordSpace((width - stringWidth(text, font, size)) / text.count(" "))
                else:
                    t.setCharSpace((width - stringWidth(text, font, size)) / max(1, len(text) - 1))
            t.textOut(text)
            c.drawText(t)
        c.showPage()
    c.save()
    return buf.getvalue()


def _manual() -> bytes:
    """The issue's two-page manual: wrapped paragraphs, a heading, a list, a table, a footer."""
    H, B, F = "Helvetica", "Helvetica-Bold", 11
    p1 = [(72, 790, "DH-20 Dehumidifier", B, 16),
          (72, 760, "Read this manual carefully before use and keep it for~", H, F),
          (72, 746, "future reference. The compressor is covered for 5 years. Do~", H, F),
          (72, 732, "not use the DH-20 in rooms colder than 5 C; the coil may freeze and~", H, F),
          (72, 718, "the unit will stop. Regular main-~", H, F),
          (72, 704, "tenance of the filter keeps the KX-~", H, F),
          (72, 690, "2000 adapter working.", H, F),
          (72, 660, "Safety", B, 13),
          (72, 640, "\u2022 Keep the filter clean and dry at all~", H, F),
          (84, 626, "times.", H, F),
          (72, 612, "\u2022 Empty the tank every day.", H, F),
          (72, 580, "Model", B, F), (200, 580, "Power", B, F), (320, 580, "Weight", B, F),
          (72, 564, "DH-20", H, F), (200, 564, "200 W", H, F), (320, 564, "12 kg", H, F),
          (72, 40, "Page 1 of 2", H, 8)]
    p2 = [(72, 790, "Warranty terms follow on this page and apply to every~", H, F),
          (72, 776, "unit sold in the store.", H, F),
          (72, 746, "\u4f7f\u7528\u524d\u8bf7\u4ed4\u7ec6\u9605\u8bfb\u672c\u8bf4\u660e\u4e66\uff0c\u6e05"
                    "\u6d01\u524d\u52a1\u5fc5\u62d4\u4e0b\u7535\u6e90\u63d2\u5934\uff0c\u8bbe\u5907\u5e94"
                    "\u653e\u7f6e\u5728\u5e73\u7a33\u7684\u5730~", "STSong-Light", F),
          (72, 732, "\u9762\u4e0a\u3002", "STSong-Light", F),
          (72, 40, "Page 2 of 2", H, 8)]
    return _canvas_pdf([p1, p2])


def _sentences(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in split_spans(text)]


def test_manual_lines_join_into_sentences():
    doc = load_bytes("dh20.pdf", _manual())
    sents = _sentences(doc.text)
    assert DH20 in sents, sents
    assert "Read this manual carefully before use and keep it for future reference." in sents
    assert "The compressor is covered for 5 years." in sents
    assert "Regular maintenance of the filter keeps the KX-2000 adapter working." in sents  # hyphen dropped, kept
    assert "DH-20 Dehumidifier" in sents and "Safety" in sents  # headings stay apart
    assert "\u2022 Keep the filter clean and dry at all times." in sents  # the item's hanging line joined
    assert "\u2022 Empty the tank every day." in sents
    assert "Model\tPower\tWeight" in sents and "Model: DH-20\tPower: 200 W\tWeight: 12 kg" in sents
    # the footer repeats on both pages (digits aside): page furniture, in no sentence
    assert not any("Page" in s and "of 2" in s for s in sents)
    assert doc.layout["furniture"] == ["b:page # of #"]
    # the paragraph at the top of page 2 and the Chinese lines: joined, nothing between ideographs
    assert "Warranty terms follow on this page and apply to every unit sold in the store." in sents
    assert any(s.endswith("\u8bbe\u5907\u5e94\u653e\u7f6e\u5728\u5e73\u7a33\u7684\u5730\u9762\u4e0a\u3002")
               for s in sents), sents


def test_the_line_break_extraction_split_the_sentence():
    """The earlier extraction (still used for documents kept with it) cut at every line end."""
    text, _, layout = load_pdf(_manual(), "dh20.pdf", layout=False)
    assert layout["text_layer"] == LINES_LAYER
    assert DH20 not in _sentences(text)


def test_two_columns_read_left_then_right():
    H, F = "Helvetica", 10
    left = ["The left column starts with this^", "sentence that runs over three^", "lines of the column.",
            "A second paragraph of the left^", "column follows it here."]
    right = ["The right column has its own^", "text, read after the left one^", "has ended completely."]
    page = []
    for k, line in enumerate(right):  # drawn right column first: the text layer is not the reading order
        page.append((320, 760 - 13 * k, line, H, F))
    for k, line in enumerate(left):
        page.append((72, 760 - 13 * k - (8 if k >= 3 else 0), line, H, F))
    doc = load_bytes("cols.pdf", _canvas_pdf([page]))
    sents = _sentences(doc.text)
    assert sents == ["The left column starts with this sentence that runs over three lines of the column.",
                     "A second paragraph of the left column follows it here.",
                     "The right column has its own text, read after the left one has ended completely."], sents


def test_trace_names_each_decision():
    import pypdfium2 as pdfium

    from swr.ingest.load.pdf_text import PDFIUM_LOCK
    from swr.ingest.pdf_build import document_pages

    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(_manual())
        pages, keys = document_pages(pdf)
        pdf.close()
    trace = pages[0].trace
    assert {Why.SPACE, Why.SIZE, Why.LIST, Why.ROW} <= set(trace), trace  # (PDFium joins hyphens itself)
    assert keys == ["b:page # of #"]


def test_joined_hyphenated_sentence_is_boxed_on_its_lines(fake_engine):
    """The joined sentence maps onto its characters on three lines: one box per line, where
    they were drawn; the header names written into a table row are not boxed."""
    [res] = fake_engine.index_files("kb", [("dh20.pdf", _manual())])
    assert res.ok, res.error
    sents = fake_engine.doc_sentences("kb", res.doc_id)
    s = next(x for x in sents if x.text.strip() == DH20)
    view = fake_engine.open_document("kb", res.doc_id, hit=s.i, zoom=1.0)
    assert view.message is None and view.unmapped == []
    rects = view.pages[0].rects("hit")
    # "Do" / the whole middle line / "the unit will stop." (its justified words boxed one by one)
    rows = sorted({r[1]: r for r in rects}.values(), key=lambda r: r[1])
    assert len(rows) == 3, rects
    for r, base in zip(rows, (746, 732, 718)):
        assert r[1] < 842 - base <= r[3] + 1, (r, base)
    assert rows[0][0] > 300 and max(r[2] for r in rects if r[1] == rows[2][1]) < 300  # "Do" ends its line
    h = next(x for x in sents if "maintenance" in x.text)
    hv = fake_engine.open_document("kb", res.doc_id, hit=h.i, zoom=1.0)
    assert hv.message is None and len({r[1] for r in hv.pages[0].rects("hit")}) == 3
    row = next(x for x in sents if x.text.startswith("Model: DH-20"))
    rv = fake_engine.open_document("kb", res.doc_id, hit=row.i, zoom=1.0)
    assert rv.message is None
    xs = sorted(r[0] for r in rv.pages[0].rects("hit"))
    assert abs(xs[0] - 72) <= 2  # the first box starts at the drawn "DH-20", not before it


def test_two_column_sentence_is_boxed_in_its_column(fake_engine):
    H, F = "Helvetica", 10
    page = [(320, 760 - 13 * k, t, H, F) for k, t in enumerate(
        ["The right column has its own^", "text, read after the left one^", "has ended completely."])]
    page += [(72, 760 - 13 * k, t, H, F) for k, t in enumerate(
        ["The left column starts with this^", "sentence that runs over three^", "lines of the column."])]
    [res] = fake_engine.index_files("kb", [("cols.pdf", _canvas_pdf([page]))])
    sents = fake_engine.doc_sentences("kb", res.doc_id)
    s = next(x for x in sents if x.text.startswith("The right column"))
    view = fake_engine.open_document("kb", res.doc_id, hit=s.i, zoom=1.0)
    rects = view.pages[0].rects("hit")
    assert view.message is None and len(rects) == 3 and all(r[0] >= 318 for r in rects), rects


def test_dh20_answer_on_the_real_upload_path(e5_engine):
    """Uploaded as a user would, asked with the real embedder: the window-0 answer holds the
    whole sentence, negation included."""
    eng = e5_engine
    [res] = eng.index_files("dh20", [("dh20_manual.pdf", _manual())])
    assert res.ok, res.error
    texts = [s.text.strip() for s in eng.doc_sentences("dh20", res.doc_id)]
    assert DH20 in texts
    result = eng.ask("Can I use it below 5 degrees?", "dh20", window_size=0, llm=False)
    assert any(DH20 in p.text for p in result.passages[:1]), [p.text for p in result.passages]
    assert DH20 in result.answer, result.answer


def test_running_header_and_page_numbers_are_furniture():
    H = "Helvetica"
    pages = []
    for n in range(1, 5):
        pages.append([(72, 810, "KX-2000 Service Guide", H, 8),
                      (72, 760, f"Section {n} explains the part of the unit that page {n} is about.", H, 11),
                      (290, 30, f"- {n} -", H, 8)])
    doc = load_bytes("guide.pdf", _canvas_pdf(pages))
    assert doc.layout["furniture"] == ["b:- # -", "t:kx-# service guide"]
    assert "Service Guide" not in doc.text and "- 3 -" not in doc.text
    assert _sentences(doc.text)[2] == "Section 3 explains the part of the unit that page 3 is about."
    assert [doc.page_of(doc.text.index(f"page {n}")) for n in range(1, 5)] == [1, 2, 3, 4]


def test_a_document_kept_with_the_line_layer_still_opens(fake_engine, monkeypatch):
    """Indexed before the layout (text layer pdfium-1): its line-break sentences still map exactly."""
    import swr.ingest.load as load

    monkeypatch.setattr(load, "load_pdf", lambda data, src: load_pdf(data, src, layout=False))
    [res] = fake_engine.index_files("kb", [("old.pdf", _manual())])
    sents = fake_engine.doc_sentences("kb", res.doc_id)
    s = next(x for x in sents if x.text.startswith("not use the DH-20"))  # the old split
    view = fake_engine.open_document("kb", res.doc_id, hit=s.i, zoom=1.0)
    assert view.message is None and view.unmapped == []
    [r] = view.pages[0].rects("hit")
    assert abs(r[0] - 72) <= 2 and r[1] < 842 - 732 <= r[3] + 1


def test_a_collection_of_the_earlier_splitter_says_to_reindex(settings, caplog, monkeypatch):
    """The collection records the splitter version; one made with another version says so (its
    documents keep their sentences and still work)."""
    import swr.ingest.collection as collection_mod
    from swr.engine import Engine

    eng = Engine(settings, embedder=FakeEmbedder())
    [res] = eng.index_files("kb", [("m.txt", b"One sentence here.")])
    assert res.ok
    eng.close()
    monkeypatch.setattr(collection_mod, "SPLITTER_VERSION", "zh-en-next")
    with caplog.at_level("WARNING"):
        eng = Engine(settings, embedder=FakeEmbedder())
        eng.ensure_collection()
        assert eng.doc_sentences("kb", res.doc_id)[0].text == "One sentence here."
        eng.close()
    assert any("sentence splitter zh-en-3 (now zh-en-next)" in r.getMessage() for r in caplog.records)
