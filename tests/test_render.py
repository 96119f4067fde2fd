"""Escaped evidence HTML: untrusted text stays inert, highlights and citations are right."""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from swr.core.types import Passage, PassageHit
from swr.manage.escape import esc
from swr.manage.render import (
    answer_html,
    evidence_card_html,
    highlight_html,
    passage_html,
    split_preview_html,
)
from swr.manage.styles import CSS

PAYLOADS = [
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    "[click me](javascript:alert(1))",
    "javascript:alert(document.cookie)",
    '"><svg onload=alert(1)>',
    "![img](http://evil.example/x.png) $x^2$ **bold** `code` <a href='https://evil.example'>a</a>",
]

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p", "div",
                "span", "mark", "a", "table", "tr", "td", "footer"}
ALLOWED_ATTRS = {"class", "id", "title", "style", "href", "lang", "charset", "http-equiv",
                 "content", "name"}


class Parsed(HTMLParser):
    """Tags, attributes and visible text of an HTML string (text skips the given classes)."""

    def __init__(self, html_text: str, skip_class: str | None = None):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text_parts: list[str] = []
        self.marks: list[str] = []
        self._stack: list[tuple[str, bool]] = []
        self._skip_class = skip_class
        self._in_mark = 0
        self._in_head = 0
        self.feed(html_text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs_d = dict(attrs)
        self.tags.append((tag, attrs_d))
        if tag in ("meta",):
            return
        skip = self._skip_class is not None and self._skip_class in (attrs_d.get("class") or "")
        self._stack.append((tag, skip))
        self._in_mark += tag == "mark"
        self._in_head += tag in ("style", "title")
        if tag == "mark":
            self.marks.append("")

    def handle_endtag(self, tag):
        while self._stack:
            t, _ = self._stack.pop()
            self._in_mark -= t == "mark"
            self._in_head -= t in ("style", "title")
            if t == tag:
                break

    def handle_data(self, data):
        if any(skip for _, skip in self._stack) or self._in_head:
            return
        self.text_parts.append(data)
        if self._in_mark:
            self.marks[-1] += data

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


def assert_inert(html_text: str) -> Parsed:
    """No script, no event handler, no foreign tag or attribute, links only to passages."""
    low = html_text.lower()
    assert "<script" not in low and "<img" not in low and "<svg" not in low
    assert "javascript:" not in low
    assert "](" not in html_text  # no Markdown link can form, even if embedded in Markdown
    parsed = Parsed(html_text)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs.items():
            assert name in ALLOWED_ATTRS, (tag, name)
            assert not name.startswith("on")
            if name == "href":
                assert re.fullmatch(r"#passage-\d+", value), value
    return parsed


def make_passage(sentences: list[str], hit_idx: list[int], *, source: str = "doc.txt",
                 first: int = 0, pages: list[int] | None = None, **hit_kw) -> Passage:
    text, hits, pos = "", [], 0
    for k, s in enumerate(sentences):
        if k in hit_idx:
            hits.append(PassageHit(i=first + k, sentence=s, score=0.8123, start=pos,
                                   end=pos + len(s), rank=k + 1, **hit_kw))
        text += s
        pos += len(s)
    return Passage(doc_id="d1", source=source, first=first, last=first + len(sentences) - 1,
                   text=text, hits=hits, score=0.8123, pages=pages or [])


# --------------------------------------------------------------------------------------------
# escaping


@pytest.mark.parametrize("payload", PAYLOADS)
def test_esc_round_trips_as_text(payload):
    out = esc(payload)
    assert "<" not in out and ">" not in out and "javascript:" not in out
    assert Parsed(out).text == payload


@pytest.mark.parametrize("payload", PAYLOADS)
def test_passage_text_and_source_are_inert(payload):
    p = make_passage([f"Intro {payload}. ", f"Hit {payload}.\n", "End."], [1], source=payload)
    out = passage_html(p, 1)
    parsed = assert_inert(out)
    from swr.manage.escape import md_display

    assert md_display(p.text) in parsed.text  # shown as text (Markdown's ** and # markers hidden)
    assert payload in parsed.text  # the source name verbatim
    assert parsed.marks == [md_display(f"Hit {payload}.", False)]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_answer_is_inert(payload):
    out = answer_html(f"Answer {payload} [1]")
    parsed = assert_inert(out)
    assert parsed.text == f"Answer {payload} [1]"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_evidence_card_is_inert(payload):
    p = make_passage([f"A {payload}. ", f"B {payload}."], [1], source=payload)
    out = evidence_card_html(payload, f"{payload} [1]", "llm", [p],
                             {"model": payload, "top_k": 5}, payload)
    parsed = assert_inert(out)
    assert parsed.text.count(payload) >= 5


def test_split_preview_is_inert():
    text = "".join(p + " " for p in PAYLOADS)
    spans, pos = [], 0
    for p in PAYLOADS:
        spans.append((pos, pos + len(p) + 1))
        pos += len(p) + 1
    parsed = assert_inert(split_preview_html(text, spans))
    assert Parsed(split_preview_html(text, spans), skip_class="swr-sent-n").text == text
    assert parsed.text


def test_newlines_become_character_references():
    out = passage_html(make_passage(["Line one.\n\n", "Line two."], [1]), 1)
    assert "\n" not in out  # a blank line would end an HTML block inside Markdown
    assert "pre-wrap" in out
    assert Parsed(out).text.startswith("[1] doc.txt")
    assert "Line one.\n\nLine two." in Parsed(out).text


# --------------------------------------------------------------------------------------------
# passage cards


def test_passage_card_header_anchor_and_scores():
    p = make_passage(["One. ", "Two. ", "Three."], [1], source="manual.pdf", first=4,
                     pages=[3, 4], dense_score=0.7, dense_rank=2, sparse_score=12.5,
                     sparse_rank=1)
    out = passage_html(p, 3)
    assert 'id="passage-3"' in out
    text = Parsed(out).text
    assert "[3] manual.pdf · sentences 5–7 · pp. 3–4" in text
    assert "score 0.8123" in text and "dense #2 0.7" in text and "sparse #1 12.5" in text
    titles = [attrs["title"] for tag, attrs in Parsed(out).tags if tag == "mark"]
    assert titles == ["sentence 6 · rank #2 · score 0.8123 · dense #2 0.7 · sparse #1 12.5"]
    assert Parsed(out).marks == ["Two."]


def test_passage_card_without_optional_scores_and_hidden_scores():
    p = make_passage(["Only."], [0])
    out = passage_html(p, 1)
    assert "dense" not in out and "sparse" not in out
    assert "sentence 1" in Parsed(out).text
    hidden = passage_html(p, 1, show_scores=False)
    assert "swr-badge" not in hidden and "<mark" in hidden


def test_highlight_spans_correct_for_chinese():
    sentences = ["路由器有两个接口。", "按住重置按钮十秒钟，", "指示灯会变成红色。", "保修两年。"]
    p = make_passage(sentences, [1, 3], source="说明书.docx")
    out = passage_html(p, 1)
    parsed = Parsed(out)
    assert parsed.marks == ["按住重置按钮十秒钟，", "保修两年。"]
    assert "".join(sentences) in parsed.text
    assert "说明书.docx" in parsed.text


def test_highlight_trims_whitespace_and_merges_overlaps():
    text = "Alpha beta.  Gamma delta.\n"
    hits = [PassageHit(i=0, sentence="Alpha beta.  ", score=1, start=0, end=13),
            PassageHit(i=1, sentence="Gamma delta.\n", score=1, start=13, end=26),
            PassageHit(i=1, sentence="", score=1, start=5, end=20),       # overlaps both
            PassageHit(i=9, sentence="", score=1, start=500, end=900)]    # out of range
    parsed = Parsed(highlight_html(text, hits))
    assert parsed.text == text
    assert parsed.marks == ["Alpha beta.  Gamma delta."]


def test_highlight_falls_back_to_sentence_search():
    text = "First. Second one. Third."
    hit = PassageHit(i=1, sentence="Second one.", score=1, start=0, end=3)  # wrong span
    assert Parsed(highlight_html(text, [hit])).marks == ["Second one."]


# --------------------------------------------------------------------------------------------
# answer citations


def test_answer_citations_become_links():
    out = answer_html("Hold reset [1]. Also see [2, 3] and 【2】.")
    assert '<a href="#passage-1">[1]</a>' in out
    assert '<a href="#passage-2">2</a>' in out and '<a href="#passage-3">3</a>' in out
    assert out.count('href="#passage-2"') == 2
    assert Parsed(out).text == "Hold reset [1]. Also see [2, 3] and [2]."


def test_answer_citations_out_of_range_stay_text():
    out = answer_html("See [1] and [7].", n_passages=2)
    assert '<a href="#passage-1">[1]</a>' in out
    assert "passage-7" not in out
    assert Parsed(out).text == "See [1] and [7]."


def test_answer_markdown_link_with_citation_is_inert():
    out = answer_html("[1](javascript:alert(1))")
    assert_inert(out)
    assert out.count("<a ") == 1


# --------------------------------------------------------------------------------------------
# evidence card


def test_evidence_card_is_standalone_document():
    p1 = make_passage(["Reset: hold 10 s. ", "Light turns red."], [0], source="manual.pdf",
                      pages=[2])
    p2 = make_passage(["保修两年。"], [0], source="faq.md")
    settings = {"mode": "hybrid", "top_k": 5, "window": 2, "api_key": "sk-secret-123",
                "llm": {"base_url": "http://127.0.0.1:8000/v1", "model": "qwen"},
                "max_tokens": 512}
    out = evidence_card_html("How to reset?", "Hold it [1]. 保修两年 [2].", "llm", [p1, p2],
                             settings, "2025-01-02 03:04")
    assert out.startswith("<!DOCTYPE html>")
    assert "<html" in out and "<head>" in out and '<meta charset="utf-8">' in out
    assert out.rstrip().endswith("</html>")
    assert "<style>" in out and CSS.strip()[:20] in out
    low = out.lower()
    assert "<script" not in low and "<link" not in low and "src=" not in low
    assert not re.search(r"https?://", out) and "url(" not in low and "@import" not in low
    assert "default-src 'none'" in out
    assert 'id="passage-1"' in out and 'id="passage-2"' in out
    assert '<a href="#passage-1">[1]</a>' in out and '<a href="#passage-2">[2]</a>' in out
    text = assert_inert(out).text
    assert "How to reset?" in text and "2025-01-02 03:04" in text and "LLM answer" in text
    assert "hybrid" in text and "qwen" in text and "512" in text
    assert "http://127.0.0.1:8000/v1" in text  # shown as text, not as a resource
    assert "sk-secret-123" not in out and "***" in text
    assert Parsed(out).marks == ["Reset: hold 10 s.", "保修两年。"]


def test_evidence_card_masks_nested_secrets_and_url_credentials():
    settings = {"llm": {"base_url": "http://bob:hunter2pass@127.0.0.1:8000/v1",
                        "api_key": "sk-nested-456", "model": "m"},
                "token": "tok-789", "max_tokens": 256}
    out = evidence_card_html("q", "a", "llm", [], settings, "now")
    for secret in ("hunter2pass", "sk-nested-456", "tok-789"):
        assert secret not in out
    text = assert_inert(out).text
    assert "127.0.0.1:8000/v1" in text and "256" in text


def test_evidence_card_extractive_label_and_no_passages():
    out = evidence_card_html("Q", "Nothing relevant was found.", "extractive", [], {}, "today")
    text = assert_inert(out).text
    assert "Extractive answer (no LLM configured)" in text and "(no passages)" in text


# --------------------------------------------------------------------------------------------
# sentence split preview


def test_split_preview_numbers_and_alternates():
    text = "第一句。Second sentence! Third?\n"
    spans = [(0, 4), (4, 21), (21, 28)]
    out = split_preview_html(text, spans)
    assert out.count('class="swr-sent ') == 3
    assert "swr-alt-0" in out and "swr-alt-1" in out
    parsed = Parsed(out)
    numbers = [t for t in parsed.text_parts if t in {"1", "2", "3"}]
    assert numbers == ["1", "2", "3"]
    assert Parsed(out, skip_class="swr-sent-n").text == text


def test_split_preview_accepts_objects_and_limit():
    class S:
        def __init__(self, start, end):
            self.start, self.end = start, end

    text = "A. B. C. D."
    spans = [S(0, 3), S(3, 6), S(6, 9), S(9, 11)]
    out = split_preview_html(text, spans, max_sentences=2)
    assert out.count('class="swr-sent ') == 2
    assert "2 more sentences not shown" in Parsed(out).text


# --------------------------------------------------------------------------------------------
# parameters instead of rewriting the HTML afterwards (anchor prefix, extra class, badge)


def test_anchor_prefix_on_cards_and_citations():
    p = make_passage(["One. ", "Two."], [1])
    card = passage_html(p, 2, anchor="a7p-")
    assert '<div class="swr-passage" id="a7p-passage-2">' in card
    out = answer_html("See [2] and [1, 2].", 2, anchor="a7p-")
    assert '<a href="#a7p-passage-2">[2]</a>' in out and '<a href="#a7p-passage-1">1</a>' in out
    assert 'href="#passage-' not in out
    for bad in ('x" onclick="alert(1)', "a b", "<b>"):
        with pytest.raises(ValueError):
            passage_html(p, 1, anchor=bad)
        with pytest.raises(ValueError):
            answer_html("[1]", 1, anchor=bad)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_extra_class_and_escaped_badge(payload):
    p = make_passage(["One. ", "Two."], [0])
    out = passage_html(p, 1, anchor="acb-", extra_class="swr-only swr-only-b", badge=f"only in B {payload}")
    assert out.startswith('<div class="swr-passage swr-only swr-only-b" id="acb-passage-1">'
                          '<div class="swr-onlybadge">')
    parsed = Parsed(out)
    assert f"only in B {payload}" in parsed.text
    assert {t for t, _ in parsed.tags} <= ALLOWED_TAGS and "<script" not in out
    assert "swr-onlybadge" not in passage_html(p, 1), "no badge unless asked"
    with pytest.raises(ValueError):
        passage_html(p, 1, extra_class='x" onmouseover="alert(1)')


def test_streamed_markdown_lines_are_escaped_with_hard_breaks():
    from swr.manage.render import esc_md_lines

    out = esc_md_lines("line *one*\n<b>two</b>")
    assert out == esc("line *one*") + "  \n" + esc("<b>two</b>")
    assert "<" not in out and "*" not in out


def test_passages_hide_markdown_syntax_and_never_mark_table_borders():
    from swr.core.types import PassageHit
    from swr.manage.escape import is_table_border
    from swr.manage.render import highlight_html

    text = "## Care\n| part | years |\n|---|:---:|\nUse **water** only, see __init__.\n"
    border = text.index("|---")
    use = text.index("Use")
    hits = [PassageHit(i=2, sentence="|---|:---:|\n", score=1.0, start=border, end=border + 12),
            PassageHit(i=3, sentence=text[use:], score=0.9, start=use, end=len(text))]
    out = highlight_html(text, hits)
    assert out.count("<mark") == 1 and "Use water only" in out  # the border is no hit; ** hidden
    assert "Care&#10;" in out and "&#35;" not in out  # the heading's hashes hidden
    assert "&#95;&#95;init&#95;&#95;" in out  # __name__ is not bold syntax
    assert is_table_border("| --- | :---: |") and not is_table_border("| a | b |")
    evil = highlight_html("**<script>x</script>**", [])
    assert "<script>" not in evil and "&#60;script&#62;" in evil


def test_a_sentence_unconfirmed_across_languages_is_marked_so_not_rejected():
    """The check could not compare a sentence with evidence in the other language: "?" and a
    yellow "Not confirmed" line, never the red rejection banner."""
    from swr.manage.check_html import check_summary_html
    from swr.manage.render import checked_answer_html

    sent = {"text": "E2 表示风扇故障。", "statement": "E2 表示风扇故障。", "supported": False, "verdict": "not found",
            "score": 0.891, "passage": 1, "window": "E2 means fan fault.", "reasons": ["the closest window is in the "
            "other language (cosine 0.891)"], "citations": [], "bad_citations": [], "other_language": True}
    check = {"sentences": [sent], "support": 0.0, "status": "unconfirmed", "flagged": 1, "counts": {}}
    line = check_summary_html(check)
    assert 'class="swr-support unconfirmed"' in line and "Not confirmed" in line
    body = checked_answer_html("E2 表示风扇故障。", check, 1, anchor="a1-")
    assert "swr-rejected" not in body
    assert "not confirmed: the evidence is in the other language" in html.unescape(body)
