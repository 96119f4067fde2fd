"""The simplified-Chinese help-centre set (bench/data/helpcentre_zh/): its shape, and every long
answer verbatim in its page, made of whole sentences, list items or table rows. Fast: no model."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "bench" / "data" / "helpcentre_zh"
HAN = re.compile(r"[\u4e00-\u9fff]")
WS = re.compile(r"\s+")
MARKUP = re.compile(r"[\s#*|\-]")  # whitespace and the Markdown markers the benchmark ignores
UNIT_END = re.compile(r"[。！？；\n]")  # a sentence ender, or the newline between list items / rows
FORMS = {"paragraph", "steps", "list", "table"}


def squash(text: str) -> str:
    return WS.sub("", text)


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((SET / "pages").glob("*.md"))}


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    return json.loads((SET / "questions.json").read_text(encoding="utf-8"))


def test_shape(questions, pages):
    assert len(pages) >= 35
    assert len(questions) >= 120
    for q in questions:
        assert set(q) == {"q", "doc", "answers", "form"}, q
        assert q["form"] in FORMS, q
        assert q["doc"] in pages, q["doc"]
        assert isinstance(q["answers"], list) and q["answers"], q
        assert all(isinstance(a, str) and a.strip() for a in q["answers"]), q
        assert HAN.search(q["q"]), q
    dupes = [k for k, n in Counter(squash(q["q"]).lower() for q in questions).items() if n > 1]
    assert not dupes, dupes
    asked = {q["doc"] for q in questions}
    assert set(pages) <= asked, sorted(set(pages) - asked)
    forms = Counter(q["form"] for q in questions)
    assert set(forms) == FORMS, forms
    assert forms["table"] >= len(questions) // 10, forms


def test_every_answer_is_verbatim_in_its_page(questions, pages):
    flat = {name: squash(text) for name, text in pages.items()}
    for q in questions:
        for a in q["answers"]:
            assert squash(a) in flat[q["doc"]], (q["q"], a)


def test_answers_are_long_and_span_several_units(questions):
    for q in questions:
        for a in q["answers"]:
            units = [u for u in UNIT_END.split(a) if MARKUP.sub("", u)]
            assert len(units) >= 2, (q["q"], a)
            assert len(MARKUP.sub("", a)) >= 40, (q["q"], a)


def test_answers_start_and_end_on_boundaries(questions, pages):
    """Each answer is cut at whole sentences, whole list items or whole table rows."""
    for q in questions:
        text = pages[q["doc"]]
        for a in q["answers"]:
            at = text.find(a)
            assert at >= 0, ("not verbatim in the raw page", q["q"])
            before = text[at - 1] if at else "\n"
            assert before in "。！？；\n", (q["q"], before)
            assert a.rstrip()[-1] in "。！？；|", (q["q"], a[-5:])


def test_answer_markup_matches_its_form(questions):
    line_start = {"steps": re.compile(r"^\d+\. "), "list": re.compile(r"^- "), "table": re.compile(r"^\| ")}
    for q in questions:
        for a in q["answers"]:
            lines = a.split("\n")
            if q["form"] == "paragraph":
                assert len(lines) == 1 and not a.startswith(("- ", "| ", "#")), q["q"]
            else:
                assert all(line_start[q["form"]].match(line) for line in lines), q["q"]


def test_pages_are_help_articles(pages):
    for name, text in pages.items():
        assert re.fullmatch(r"a\d\d_[a-z0-9_]+\.md", name), name
        assert text.startswith("# "), name
        assert 3 <= len(re.findall(r"^## ", text, flags=re.M)) <= 6, name
        assert 600 <= len(HAN.findall(text)) <= 2000, name
