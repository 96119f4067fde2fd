"""Tests of swr.ingest.load: every format, every encoding path, every error."""
from __future__ import annotations

import io
import os
import random

import pytest

from _files import LATIN, ZH_SIMPLIFIED, ZH_TRADITIONAL, make_docx, make_encrypted_pdf, make_pdf
from swr.core.errors import EmptyDocument, FileTooLarge, NotFound, Undecodable, UnsupportedFile
from swr.ingest.load import SUPPORTED, html_to_text, load_bytes, load_path, make_doc_id, safe_name

# --- basics --------------------------------------------------------------------------------------


def test_supported_tuple():
    assert SUPPORTED == (".txt", ".md", ".markdown", ".pdf", ".docx", ".html", ".htm")


def test_doc_id_is_hash_of_name_and_bytes():
    d = load_bytes("a.txt", b"hello world")
    assert d.doc_id == make_doc_id("a.txt", b"hello world")
    assert len(d.doc_id) == 16 and int(d.doc_id, 16) >= 0
    import hashlib

    assert d.doc_id == hashlib.sha256(b"a.txt\0hello world").hexdigest()[:16]
    assert load_bytes("b.txt", b"hello world").doc_id != d.doc_id
    assert load_bytes("a.txt", b"hello world!").doc_id != d.doc_id


def test_plain_text_fields():
    d = load_bytes("notes.txt", b"Hello. World")
    assert (d.source, d.text, d.format, d.encoding, d.page_starts) == (
        "notes.txt", "Hello. World", "txt", "utf-8", []
    )
    assert d.page_of(3) is None


def test_markdown_kept_as_is():
    src = "# Title\n\n* item **bold**\n\n```py\nx = 1\n```\n"
    for ext in (".md", ".markdown"):
        d = load_bytes("readme" + ext, src.encode())
        assert d.text == src and d.format == "md"


def test_extension_is_case_insensitive():
    assert load_bytes("NOTES.TXT", b"hi").format == "txt"


# --- encodings --------------------------------------------------------------------------------


def test_utf8_without_bom():
    d = load_bytes("zh.txt", ZH_SIMPLIFIED.encode("utf-8"))
    assert d.text == ZH_SIMPLIFIED and d.encoding == "utf-8"


def test_utf8_with_bom():
    d = load_bytes("zh.txt", b"\xef\xbb\xbf" + ZH_SIMPLIFIED.encode("utf-8"))
    assert d.text == ZH_SIMPLIFIED and d.encoding == "utf-8-sig"


@pytest.mark.parametrize("codec,bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
def test_utf16_with_bom(codec, bom):
    text = "Hello 世界。" + ZH_SIMPLIFIED
    d = load_bytes("u16.txt", bom + text.encode(codec))
    assert d.text == text and d.encoding == codec


@pytest.mark.parametrize("codec,bom", [("utf-32-le", b"\xff\xfe\0\0"), ("utf-32-be", b"\0\0\xfe\xff")])
def test_utf32_with_bom(codec, bom):
    text = "Hello 世界。"
    d = load_bytes("u32.txt", bom + text.encode(codec))
    assert d.text == text and d.encoding == codec


def test_utf16_without_bom():
    text = "Plain English text saved as UTF-16 without a byte order mark.\nSecond line 中文."
    d = load_bytes("u16.txt", text.encode("utf-16-le"))
    assert d.text == text and d.encoding == "utf-16-le"
    d = load_bytes("u16.txt", text.encode("utf-16-be"))
    assert d.text == text and d.encoding == "utf-16-be"


def test_gbk():
    data = ZH_SIMPLIFIED.encode("gbk")
    d = load_bytes("gbk.txt", data)
    assert d.text == ZH_SIMPLIFIED
    assert d.encoding == "gb18030"


def test_gbk_with_some_english():
    text = "本系统使用 Python 3.11 和 LlamaIndex 构建。" + ZH_SIMPLIFIED + "\nSee README.md for details."
    d = load_bytes("mixed.txt", text.encode("gbk"))
    assert d.text == text and d.encoding == "gb18030"


def test_big5():
    data = ZH_TRADITIONAL.encode("big5")
    d = load_bytes("big5.txt", data)
    assert d.text == ZH_TRADITIONAL
    assert d.encoding == "big5"


def test_short_big5_sentence():
    text = "這是一個測試文件，我們用它來檢查編碼的偵測是否正確。"
    d = load_bytes("b.txt", text.encode("big5"))
    assert d.text == text and d.encoding == "big5"


def test_latin1():
    d = load_bytes("fr.txt", LATIN.encode("latin-1"))
    assert d.text == LATIN
    assert d.encoding in ("cp1252", "latin-1")


def test_short_latin1():
    d = load_bytes("fr.txt", "café résumé naïve".encode("latin-1"))
    assert d.text == "café résumé naïve"


def test_cp1252_smart_quotes():
    text = "“Smart quotes” – and an em dash — cost 5 €."
    d = load_bytes("q.txt", text.encode("cp1252"))
    assert d.text == text and d.encoding == "cp1252"


def test_mixed_line_endings_normalised():
    d = load_bytes("le.txt", b"one\r\ntwo\rthree\nfour\r\n\r\nfive")
    assert d.text == "one\ntwo\nthree\nfour\n\nfive"


def test_utf16_line_endings_normalised():
    d = load_bytes("le.txt", b"\xff\xfe" + "a\r\nb\rc".encode("utf-16-le"))
    assert d.text == "a\nb\nc"


# --- text errors -------------------------------------------------------------------------------


def test_empty_file():
    with pytest.raises(EmptyDocument) as e:
        load_bytes("empty.txt", b"")
    assert "empty.txt" in e.value.message and e.value.source == "empty.txt"
    assert e.value.kind == "empty"


@pytest.mark.parametrize("data", [b"   \n\t\r\n  ", b"\xef\xbb\xbf  \n", "\u3000\n".encode()])
def test_whitespace_only(data):
    with pytest.raises(EmptyDocument) as e:
        load_bytes("blank.md", data)
    assert e.value.message.startswith("blank.md: ")


def test_binary_renamed_txt():
    rng = random.Random(1)
    data = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(rng.randrange(256) for _ in range(4000))
    with pytest.raises(Undecodable) as e:
        load_bytes("image.txt", data)
    assert e.value.message.startswith("image.txt: ")
    assert "binary" in e.value.message


def test_binary_without_nul_bytes():
    rng = random.Random(2)
    data = bytes(rng.choice([b for b in range(1, 256)]) for _ in range(5000))
    with pytest.raises(Undecodable) as e:
        load_bytes("noise.txt", data)
    assert "noise.txt" in e.value.message


def test_bad_utf16_after_bom():
    with pytest.raises(Undecodable) as e:
        load_bytes("x.txt", b"\xff\xfe" + b"\x00\xd8\x41\x00")  # lone high surrogate
    assert "x.txt" in e.value.message


def test_too_large():
    with pytest.raises(FileTooLarge) as e:
        load_bytes("big.txt", b"x" * 2048, max_bytes=1024)
    msg = e.value.message
    assert msg.startswith("big.txt: ") and "1024" in msg
    assert load_bytes("ok.txt", b"x" * 1024, max_bytes=1024).text == "x" * 1024


@pytest.mark.parametrize("name", ["data.csv", "image.png", "old.doc", "noext", "archive.tar.gz"])
def test_unsupported_extension(name):
    with pytest.raises(UnsupportedFile) as e:
        load_bytes(name, b"whatever")
    msg = e.value.message
    assert msg.startswith(name + ": ")
    for ext in SUPPORTED:
        assert ext in msg


# --- HTML -------------------------------------------------------------------------------------


HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>My   Page</title>
<style>body { color: red; }</style>
<script>var secret = "do not index";</script></head>
<body><h1>Heading</h1><p>First paragraph
spans two source lines.</p><div>Second &amp; block&nbsp;here</div>
<ul><li>one</li><li>two</li></ul>line<br>break
<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
<noscript>enable js</noscript><!-- a comment -->
<p>中文段落。</p></body></html>"""


def test_html_visible_text():
    d = load_bytes("page.html", HTML.encode("utf-8"))
    assert d.format == "html" and d.encoding == "utf-8"
    lines = d.text.split("\n")
    assert lines[0] == "My Page"
    assert "# Heading" in lines  # Markdown-like marks for swr/text/structure.py
    assert "First paragraph spans two source lines." in lines
    assert "Second & block here" in lines
    assert "- one" in lines and "- two" in lines
    assert "line" in lines and "break" in lines
    assert "a\tb" in lines and "c\td" in lines
    assert "中文段落。" in lines
    assert "secret" not in d.text and "color" not in d.text
    assert "enable js" not in d.text and "comment" not in d.text


def test_html_meta_charset_gbk():
    html = f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body><p>{ZH_SIMPLIFIED}</p></body></html>'
    d = load_bytes("gb.htm", html.encode("gbk"))
    assert d.encoding == "gb18030"
    assert ZH_SIMPLIFIED.replace("\n", " ") in d.text


def test_html_detected_encoding_without_meta():
    html = f"<p>{ZH_TRADITIONAL}</p>"
    d = load_bytes("b5.html", html.encode("big5"))
    assert d.encoding == "big5" and "檢索增強生成" in d.text


def test_html_without_visible_text():
    with pytest.raises(EmptyDocument) as e:
        load_bytes("x.html", b"<html><head><script>alert(1)</script></head><body> </body></html>")
    assert e.value.message.startswith("x.html: ")


def test_html_to_text_pre_keeps_lines():
    assert html_to_text("<pre>a\n  b</pre><p>c   d</p>") == "a\nb\nc d"


# --- PDF ---------------------------------------------------------------------------------------


def test_pdf_three_pages():
    data = make_pdf(["Page one text. Alpha.", "Page two text. Beta.", "Page three text. Gamma."])
    d = load_bytes("doc.pdf", data)
    assert d.format == "pdf" and d.encoding is None
    assert len(d.page_starts) == 3 and d.page_starts[0] == 0
    for k, word in enumerate(["Alpha", "Beta", "Gamma"]):
        pos = d.text.index(word)
        assert d.page_of(pos) == k + 1
        assert d.page_starts[k] <= pos
    # pages are joined by exactly one "\n"
    assert d.text[d.page_starts[1] - 1] == "\n" and d.text[d.page_starts[2] - 1] == "\n"
    assert d.text.startswith("Page one text.")
    assert d.text[d.page_starts[1] :].startswith("Page two text.")


def test_pdf_no_text_layer():
    with pytest.raises(EmptyDocument) as e:
        load_bytes("scan.pdf", make_pdf([None, None]))
    msg = e.value.message
    assert msg.startswith("scan.pdf: ") and "text layer" in msg and "OCR" in msg


def test_pdf_with_one_blank_page_keeps_page_numbers():
    d = load_bytes("mix.pdf", make_pdf(["First page.", None, "Third page."]))
    assert len(d.page_starts) == 3
    assert d.page_of(d.text.index("Third")) == 3


def test_pdf_truncated():
    data = make_pdf(["Page one.", "Page two.", "Page three."])
    with pytest.raises(Undecodable) as e:
        load_bytes("cut.pdf", data[: len(data) // 2])
    assert e.value.message.startswith("cut.pdf: ")


def test_pdf_corrupt_body_with_eof_marker():
    data = b"%PDF-1.4\n" + bytes(random.Random(3).randrange(256) for _ in range(3000)) + b"\n%%EOF\n"
    with pytest.raises(Undecodable) as e:
        load_bytes("bad.pdf", data)
    assert e.value.message.startswith("bad.pdf: ")


def test_pdf_not_a_pdf():
    with pytest.raises(Undecodable) as e:
        load_bytes("fake.pdf", b"just some text, not a pdf")
    assert "fake.pdf" in e.value.message


def test_pdf_encrypted():
    with pytest.raises(Undecodable) as e:
        load_bytes("locked.pdf", make_encrypted_pdf(["Secret page."]))
    msg = e.value.message
    assert msg.startswith("locked.pdf: ") and "password" in msg


def test_pdf_empty_file():
    with pytest.raises(EmptyDocument):
        load_bytes("e.pdf", b"")


# --- DOCX --------------------------------------------------------------------------------------


def test_docx_with_table():
    data = make_docx(
        ["Intro paragraph.", "Closing paragraph. 结束。"],
        table=[["Name", "Price"], ["Apple", "3"]],
    )
    d = load_bytes("report.docx", data)
    assert d.format == "docx" and d.page_starts == []
    assert d.text.split("\n") == [  # a row is one line, cells tab-separated (swr/text/structure.py), each with its header
        "Intro paragraph.",
        "Name\tPrice",
        "Name: Apple\tPrice: 3",
        "Closing paragraph. 结束。",
    ]


def test_docx_merged_cells_once():
    import docx

    doc = docx.Document()
    t = doc.add_table(rows=2, cols=2)
    t.cell(0, 0).merge(t.cell(0, 1)).text = "Merged header"
    t.cell(1, 0).text = "x"
    t.cell(1, 1).text = "y"
    buf = io.BytesIO()
    doc.save(buf)
    d = load_bytes("m.docx", buf.getvalue())
    assert d.text.split("\n") == ["Merged header", "x\ty"]  # merged once; no pairing it cannot be sure of


def test_docx_corrupt():
    with pytest.raises(Undecodable) as e:
        load_bytes("broken.docx", bytes(random.Random(4).randrange(256) for _ in range(2000)))
    assert e.value.message.startswith("broken.docx: ")


def test_docx_empty_document():
    with pytest.raises(EmptyDocument) as e:
        load_bytes("blank.docx", make_docx([]))
    assert "blank.docx" in e.value.message


# --- safe_name ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,expected",
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\system.ini", "system.ini"),
        ("/abs/path/report.pdf", "report.pdf"),
        ("dir/", "dir"),
        ("a\x00b\x1f\x7fc.txt", "abc.txt"),
        ("line\nbreak.txt", "linebreak.txt"),
        ("evil\u202etxt.exe", "eviltxt.exe"),
        ("  spaced name.txt  ", "spaced name.txt"),
        ("..", "unnamed"),
        ("", "unnamed"),
        ("/", "unnamed"),
        ("\x00\x01", "unnamed"),
        ("中文文件名.txt", "中文文件名.txt"),
    ],
)
def test_safe_name(name, expected):
    assert safe_name(name) == expected


def test_safe_name_long_keeps_extension():
    name = "a" * 300 + ".txt"
    s = safe_name(name)
    assert s.endswith(".txt") and len(s.encode()) <= 200
    s = safe_name("中" * 300 + ".docx")
    assert s.endswith(".docx") and len(s.encode()) <= 200
    s.encode("utf-8")  # no broken characters


def test_source_is_safe_name():
    d = load_bytes("../../secret/notes.txt", b"hello")
    assert d.source == "notes.txt"


# --- load_path ---------------------------------------------------------------------------------


def test_load_path(tmp_path):
    p = tmp_path / "Notes.txt"
    p.write_bytes(ZH_SIMPLIFIED.encode("gbk"))
    d = load_path(p)
    assert d.source == "Notes.txt" and d.text == ZH_SIMPLIFIED
    assert d.doc_id == load_bytes("Notes.txt", p.read_bytes()).doc_id
    assert load_path(str(p)).doc_id == d.doc_id


def test_load_path_errors(tmp_path):
    with pytest.raises(NotFound):
        load_path(tmp_path / "missing.txt")
    with pytest.raises(UnsupportedFile):
        load_path(tmp_path / "x.exe")
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 100)
    with pytest.raises(FileTooLarge):
        load_path(big, max_bytes=10)
    folder = tmp_path / "folder.txt"
    os.mkdir(folder)
    with pytest.raises(UnsupportedFile):
        load_path(folder)


def test_docx_headings_and_lists_are_marked_for_the_structure():
    import docx

    doc = docx.Document()
    doc.add_heading("Setup", level=2)
    doc.add_paragraph("Fill the kettle.", style="List Number")
    doc.add_paragraph("Plain text.")
    buf = io.BytesIO()
    doc.save(buf)
    d = load_bytes("h.docx", buf.getvalue())
    assert d.text.split("\n") == ["## Setup", "- Fill the kettle.", "Plain text."]
