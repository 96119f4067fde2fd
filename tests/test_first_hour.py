"""What a new user meets in the first hour: sentence numbers, audit counts, the right-sentence
button, the extractive answer's text, setup's last line, the Latest-answer pill, PDFs at exit."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ask_json_numbers_sentences_from_one():
    from swr.cli.main import numbered

    out = numbered({"passages": [{"first": 0, "last": 2, "hits": [{"i": 1}]}]})
    p = out["passages"][0]
    assert (p["first_sentence"], p["last_sentence"], p["hits"][0]["sentence_no"]) == (1, 3, 2)


def test_audit_counts_are_integers():
    from swr.app.audit import audit_frame

    rows = audit_frame([{"time": "t", "count": 3}, {"time": "u", "count": None}]).to_dict("records")
    assert rows[0]["count"] == "3" and rows[1]["count"] == "" and rows[1]["user"] == ""


def test_the_right_sentence_button_confirms_like_wrong_hit():
    from swr.app.feedback import _is_marked

    s = {"doc_id": "d", "i": 3, "source": "a.md", "sentence": "E2 means fan fault.", "page": None}
    assert _is_marked({"right": "E2 means fan fault."}, s)
    assert not _is_marked({}, s) and not _is_marked({"right": "other"}, s) and not _is_marked({"right": "x"}, None)


def test_the_extractive_answer_shows_no_heading_marks_and_speaks_the_question_language():
    from swr.answer.extractive import extractive_answer, plain
    from swr.core.types import Passage, PassageHit

    text = "## 保修\n整机保修一年。"
    p = Passage(doc_id="d", source="faq.md", first=0, last=1, text=text, score=1.0,
                hits=[PassageHit(i=1, sentence="整机保修一年。", score=1.0, start=6, end=13)])
    out = extractive_answer("保修多久？", [p])
    assert "##" not in out and out.startswith("摘录式回答") and plain("# A\n## B") == "A\nB"


def test_setup_ends_with_the_command_to_run_and_hides_harmless_warnings():
    sh = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8").rstrip().splitlines()
    assert "streamlit run app.py" in sh[-1]
    text = "\n".join(sh)
    assert "PIP_ROOT_USER_ACTION=ignore" in text and "Running pip as the 'root' user" in text


def test_the_latest_answer_pill_is_not_anchored_over_the_send_button():
    css = (ROOT / "swr" / "app" / "style.css").read_text(encoding="utf-8")
    rule = re.search(r"a\.swr-jump\{[^}]*\}", css).group(0)
    assert "left:50%" in rule and "right:" not in rule


def test_open_pdfs_are_closed_at_exit(tmp_path):
    import atexit

    from swr.manage.docview import DocViewer, _close_at_exit

    closed = []
    viewer = DocViewer(None, None)
    viewer.close = lambda: closed.append(True)
    import weakref

    _close_at_exit(weakref.ref(viewer))
    assert closed == [True]
    atexit.unregister(_close_at_exit)
