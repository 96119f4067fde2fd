"""The splitter's wraps: a line break that only wraps a paragraph stays inside the sentence
(plain text, Markdown, .docx soft breaks, HTML <br>); everything else still ends one."""
from __future__ import annotations

import time

from swr.text.split import split_spans

WRAPPED = ("Read this manual carefully before use and keep it for\nfuture reference. Do not use the\n"
           "unit in rooms colder than 5 C.\nSafety notes\nKeep it dry.")


def _s(text, wraps=True):
    return [text[a:b] for a, b in split_spans(text, wraps=wraps)]


def test_a_wrapped_line_joins_its_sentence():
    got = _s(WRAPPED)
    assert got[0] == "Read this manual carefully before use and keep it for\nfuture reference. "
    assert "Safety notes\n" in got and got[-1] == "Keep it dry."
    assert "".join(got) == WRAPPED
    assert _s(WRAPPED, wraps=False)[0] == "Read this manual carefully before use and keep it for\n"


def test_chinese_wrap_joins_and_short_lines_do_not():
    zh = "这是一个很长的中文句子，我们在这里把它按照固定的宽度折\n行了，然后继续。\n安全说明\n使用前请阅读。"
    assert _s(zh) == ["这是一个很长的中文句子，我们在这里把它按照固定的宽度折\n行了，然后继续。\n", "安全说明\n", "使用前请阅读。"]


def test_headings_items_and_uppercase_starts_stay_apart():
    text = "## A heading that is long enough to be a wrapped line\nbut it is a heading\n" \
           "- an item of a list that runs on and on for a while\n- another item\nA paragraph line of forty chars or more\nThe next."
    got = _s(text)
    assert got[0].endswith("wrapped line\n") and "- another item\n" in got and got[-1] == "The next."


def test_one_char_lines_stay_fast_and_apart():
    text = "a\n" * 100_000
    t0 = time.perf_counter()
    spans = split_spans(text, wraps=True)
    assert len(spans) == 100_000 and time.perf_counter() - t0 < 5


def test_docx_soft_break_and_html_br_wrap_a_sentence():
    import io

    import docx

    from swr.ingest.load import load_bytes

    d = docx.Document()
    p = d.add_paragraph("Read this manual carefully before use and keep it for")
    p.add_run().add_break()  # a soft line break inside the paragraph
    p.add_run("future reference.")
    d.add_paragraph("Safety")
    buf = io.BytesIO()
    d.save(buf)
    text = load_bytes("m.docx", buf.getvalue()).text
    assert "for\nfuture" in text  # the loader keeps the break; the splitter decides
    assert _s(text)[0] == "Read this manual carefully before use and keep it for\nfuture reference.\n"
    html = b"<p>Do not use the DH-20 in rooms colder than five degrees;<br>the coil may freeze.</p><p>Next</p>"
    text = load_bytes("m.html", html).text
    assert _s(text)[0] == "Do not use the DH-20 in rooms colder than five degrees;\nthe coil may freeze.\n"


def test_the_indexer_joins_wraps_except_in_pdfs(fake_engine):
    [res] = fake_engine.index_files("kb", [("m.txt", WRAPPED.encode())])
    texts = [s.text for s in fake_engine.doc_sentences("kb", res.doc_id)]
    assert texts[0] == "Read this manual carefully before use and keep it for\nfuture reference. "


def test_a_line_after_a_sentence_end_is_measured_alone():
    """"ERROR CODES" follows a line ending in a full stop: it is short, so the code line after it
    stays apart (the line is measured from its own start, not from an earlier line break)."""
    text = "Keep the lid closed while the rice is cooking and resting.\nERROR CODES\nE0 Bottom sensor open circuit."
    assert _s(text) == ["Keep the lid closed while the rice is cooking and resting.\n", "ERROR CODES\n",
                        "E0 Bottom sensor open circuit."]
