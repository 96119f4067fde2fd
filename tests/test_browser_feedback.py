"""Feedback end to end in a real browser (Debian's Chromium driven by Playwright, ``streamlit run
app.py`` on a fresh SWR_HOME, the default engine): upload a three-page PDF made here with
reportlab, ask a question whose answer is on page 2, see the hit on page 2 (its badge; in the
document view, its boxes on page 2's image at the sentence's line and its orange pixels there),
the BM25 terms in the evidence header, mark the answer not helpful with the right sentence chosen
in the document view (the passages' own picker: tests/test_feedback.py), then find that question
in Tune's question list (marked as from feedback) and on the Feedback page. Screenshots in
``tests/artifacts/feedback-*.png``. Skipped, or failed under CI, like tests/test_browser.py when
Chromium is missing."""
from __future__ import annotations

import io
import json
import time

import pytest
from browser_helpers import (  # noqa: F401  (_browser_present: skip without Chromium, fail under CI)
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    START_TIMEOUT_S,
    _browser_present,
    _serve,
    ask,
    open_chat,
    upload,
)

PAGES = [
    ["ZQ-8 Space Heater Manual.", "Unpack the ZQ-8 heater and remove all packing material.",
     "Place the heater on a flat and dry floor.", "Plug the heater into a wall socket rated for 10 A.",
     "Press the power button to start heating."],
    ["Warranty and service.", "The ZQ-8 heater warranty lasts four years from the date of purchase.",
     "Keep the receipt for any warranty claim.", "Clean the air filter of the heater every two weeks."],
    ["Troubleshooting.", "If the heater stops, let it cool for ten minutes.",
     "Code F2 on the display means the tilt switch tripped."],
]
QUESTION = "How long is the ZQ-8 heater warranty?"
ANSWER = "The ZQ-8 heater warranty lasts four years from the date of purchase."


def make_pdf() -> bytes:
    """A three-page PDF with a real text layer (reportlab), one sentence a line."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    for lines in PAGES:
        c.setFont("Helvetica", 12)
        y = 780
        for line in lines:
            c.drawString(72, y, line)
            y -= 24
        c.showPage()
    c.save()
    return buf.getvalue()


@pytest.fixture
def feedback_server(tmp_path):
    """One small knowledge base (no sample) indexed before the server starts; the PDF is uploaded
    through the page."""
    from swr.core.settings import Settings
    from swr.engine import Engine

    home = tmp_path / "home"
    eng = Engine(Settings.from_env(env={}, secrets_path=tmp_path / "no-secrets.toml", home=home, sample_kb=""))
    assert eng.index_files("manuals", [("lamp.txt", b"The BX-9 lamp uses a 5 W LED. Replace the bulb when cold.\n")])[0].ok
    eng.close()
    pdf = tmp_path / "zq8_manual.pdf"
    pdf.write_bytes(make_pdf())
    for srv in _serve(tmp_path, home, {"SWR_SAMPLE_KB": ""}):
        yield {**srv, "pdf": pdf, "home": home}


def _shot(page, name: str) -> None:
    page.wait_for_timeout(400)  # let the last element settle before the picture
    page.screenshot(path=str(ARTIFACTS / f"feedback-{name}.png"), full_page=True)


def _settled(page) -> None:
    """Wait until the rerun is over: no element of the previous run left (``data-stale``; the
    answer's widgets move from the live answer to the history on the next run)."""
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=60_000)
    page.wait_for_timeout(300)


def _open_select(page, box) -> None:
    """Open a select box's list (a first click may only focus it: then its "Open" button)."""
    for attempt in range(4):
        (box.locator("input") if attempt % 2 == 0 else box.get_by_role("button", name="Open")).click()
        page.wait_for_timeout(400)
        if box.locator("input").get_attribute("aria-expanded") == "true":
            return
    raise AssertionError("the select box did not open")


def _document_view(page) -> dict:
    """Open the page-2 hit in the document view (a dialog); the hit's boxes on page 2's image, the
    page's size and zoom, and the image's pixel at the centre of the first box (``.swr-docpage``:
    see swr.app.components.docview)."""
    page.get_by_text("Open in document").first.click()
    page.get_by_role("button").filter(has_text="p. 2").first.click()
    pg = page.locator('[role="dialog"] .swr-docpage[data-page="2"]').first
    pg.wait_for(state="visible", timeout=60_000)
    boxes = json.loads(pg.get_attribute("data-boxes"))
    hit = [r for b in boxes if b["kind"] == "hit" for r in b["rects"]]
    assert hit, boxes
    # the share of the hit's orange (swr.manage.docview.pdf FILL["hit"] over white paper) among the pixels
    # inside the first hit box, and inside the same box moved 300 px down (blank paper there)
    share = page.evaluate("""([sel, r]) => { const img = document.querySelector(sel);
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        const part = (x0, y0, x1, y1) => { const d = g.getImageData(x0, y0, x1 - x0, y1 - y0).data; let n = 0;
            for (let k = 0; k < d.length; k += 4) if (d[k] > 230 && d[k + 2] > 90 && d[k + 2] < 175) n++;
            return n / (d.length / 4); };
        return [part(...r), part(r[0], r[1] + 300, r[2], r[3] + 300)]; }""",
                          ['[role="dialog"] .swr-docpage[data-page="2"] img', [int(v) for v in hit[0]]])
    return {"boxes": hit, "orange": share, "height": float(pg.get_attribute("data-height")),
            "zoom": float(pg.get_attribute("data-zoom")),
            "pages": page.locator('[role="dialog"] .swr-docpage').evaluate_all("es => es.map(e => e.dataset.page)")}


def _pick(page, box_key: str, text: str, shot: str | None = None) -> None:
    """Choose the option holding ``text`` in the select box ``box_key`` and press the "This is the
    right sentence" button next to it (a screenshot ``shot`` just before)."""
    _settled(page)
    picker = page.locator(f".st-key-{box_key}")
    picker.wait_for(state="visible", timeout=30_000)
    _open_select(page, picker)
    option = page.get_by_role("option").filter(has_text=text).first
    option.wait_for(timeout=30_000)
    option.click()
    page.wait_for_function("() => [...document.querySelectorAll('button')].some(b => "
                           "b.innerText.includes('This is the right sentence') && !b.disabled)", timeout=30_000)
    button = page.locator("button:not([disabled])", has_text="This is the right sentence").first
    if shot:
        button.scroll_into_view_if_needed()
        _shot(page, shot)
    button.click()


def test_pdf_hit_on_page_2_feedback_becomes_a_tune_question_in_chromium(feedback_server, capsys):
    from playwright.sync_api import sync_playwright

    url = feedback_server["url"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = None
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # upload the PDF on the Knowledge bases page
            page.goto(f"{url}/Knowledge_bases", wait_until="domcontentloaded")
            page.locator(".st-key-w_kb").wait_for(timeout=START_TIMEOUT_S * 1000)
            assert page.locator(".st-key-w_kb input").input_value() == "manuals"
            upload(page, feedback_server["pdf"])
            done = page.get_by_text("Done:")
            done.wait_for(timeout=180_000)
            assert "failed" not in done.inner_text(), done.inner_text()
            _shot(page, "1-uploaded")

            # ask: the answer is on page 2
            open_chat(page)
            ask(page, QUESTION, timeout_s=60)
            mark = page.locator(".swr-passage .swr-text mark", has_text="four years").first
            mark.wait_for(state="visible", timeout=120_000)
            card = page.locator(".swr-passage").filter(
                has=page.locator(".swr-text mark", has_text="four years")).first
            head = card.locator(".swr-head").inner_text()
            assert "zq8_manual.pdf" in head and ("p. 2" in head or "pp. 1–2" in head or "pp. 2–3" in head
                                                 or "pp. 1–3" in head), head
            assert ANSWER in mark.inner_text()
            assert "· p. 2 ·" in mark.get_attribute("title"), mark.get_attribute("title")  # the hit is on page 2
            # the sparse side: the question's BM25 terms, the code whole; the hit's matched terms
            terms = page.locator(".swr-bm25").first.inner_text()
            assert "zq-8" in terms and "warranti" in terms, terms
            assert "matched" in card.locator(".swr-scores").inner_text() and \
                "zq-8" in card.locator(".swr-scores").inner_text()
            _shot(page, "2-answer-page2-hit")

            # not helpful
            page.get_by_role("button", name="Not helpful").first.click()
            page.get_by_text("marked not helpful").first.wait_for(timeout=60_000)
            _settled(page)
            # the hit where it stands on page 2's image; the right sentence chosen there
            shown = _document_view(page)
            z = shown["zoom"]
            # the sentence is page 2's second line: drawn at 780 - 24 = 756 pt from the bottom of an
            # 842 pt page, i.e. its baseline 86 pt from the top, starting 72 pt from the left
            top, bottom, left = (min(r[1] for r in shown["boxes"]) / z, max(r[3] for r in shown["boxes"]) / z,
                                 min(r[0] for r in shown["boxes"]) / z)
            assert 70 <= top < 86 < bottom <= 92 and 70 <= left <= 76, (shown["boxes"], z)
            assert shown["orange"][0] > 0.3 and shown["orange"][1] < 0.02, shown["orange"]  # painted there only
            _shot(page, "3-document-view-page2")
            # "this is the right sentence" on a sentence of the document view
            _pick(page, "fb-dvsent-1", "four years", shot="3b-document-view-right-sentence")
            page.get_by_text("now golden question").first.wait_for(timeout=60_000)
            _shot(page, "4-not-helpful-right-sentence")

            # Tune's question list has it at once, marked as from feedback
            page.get_by_role("link", name="Tune").click()
            qlist = page.get_by_text("1 question the sweep runs (1 from feedback)")
            qlist.wait_for(timeout=60_000)
            qlist.click()
            row = page.locator("tr.swr-tq-fb").first
            row.wait_for(state="visible", timeout=30_000)
            assert QUESTION in row.inner_text() and "four years" in row.inner_text() and "feedback" in row.inner_text()
            _shot(page, "5-tune-question-list")

            # and the Feedback page counts it
            page.get_by_role("link", name="Feedback").click()
            page.get_by_text("Answers marked not helpful").wait_for(timeout=60_000)
            metric = page.locator('[data-testid="stMetric"]', has_text="Not helpful").first
            assert metric.locator('[data-testid="stMetricValue"]').inner_text().strip() == "1"
            _shot(page, "6-feedback-page")
        except Exception:
            if page is not None:
                page.screenshot(path=str(ARTIFACTS / "failure-feedback.png"), full_page=True)
                (ARTIFACTS / "failure-feedback.html").write_text(page.content())
            raise
        finally:
            browser.close()
    golden = (feedback_server["home"] / "golden" / "manuals.csv").read_text(encoding="utf-8")
    assert QUESTION in golden and ANSWER in golden and "feedback" in golden
    with capsys.disabled():
        print(f"\n[browser feedback] {time.strftime('%H:%M:%S')} document view: hit boxes on page 2 "
              f"{shown['boxes']} (zoom {shown['zoom']}), orange share inside/below {shown['orange']}")
