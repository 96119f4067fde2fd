"""Property and fuzz tests of the loaders (hypothesis): any bytes under any name either load or
raise swr's own error naming the file; never another exception, never a hang. Text written in a
supported encoding comes back exactly (line endings normalised)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings as hsettings, strategies as st

from swr.core.errors import SwrError
from swr.ingest.load import load_bytes, safe_name

FUZZ = hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXTENSIONS = [".txt", ".md", ".html", ".pdf", ".docx", ".exe", "", ".TXT", ".tar.gz"]

names = st.builds(lambda stem, ext: stem + ext,
                  st.text(min_size=0, max_size=40), st.sampled_from(EXTENSIONS))
# bytes that look like the formats' starts, then anything
blobs = st.one_of(
    st.binary(max_size=2048),
    st.builds(lambda b: b"%PDF-1.4\n" + b, st.binary(max_size=1024)),
    st.builds(lambda b: b"PK\x03\x04" + b, st.binary(max_size=1024)),
    st.builds(lambda b: b"\xff\xfe" + b, st.binary(max_size=1024)),
    st.builds(lambda b: b"<html><body>" + b, st.binary(max_size=1024)),
)


def _loads_or_refuses(name: str, data: bytes) -> None:
    try:
        doc = load_bytes(name, data)
    except SwrError as exc:
        src = safe_name(name)
        assert exc.message.startswith(src) or src in exc.message, (exc.message, src)
        assert exc.source == src
        return
    assert doc.text.strip(), "a loaded document has text"
    assert doc.source == safe_name(name)
    assert "\r" not in doc.text


@FUZZ
@given(names, blobs)
@example("a.pdf", b"%PDF-1.4\n%%EOF")
@example("a.docx", b"PK\x03\x04")
@example("a.txt", b"\x00" * 10)
def test_any_bytes_under_any_name_load_or_raise_swr_error(name, data):
    _loads_or_refuses(name, data)


text_chars = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff")


@FUZZ
@given(st.text(text_chars, min_size=1, max_size=300).filter(lambda t: t.strip()),
       st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32"]),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_unicode_text_round_trips_in_unicode_encodings(text, codec, newline):
    doc = load_bytes("t.txt", text.replace("\n", newline).encode(codec))
    assert doc.text == text.replace("\r\n", "\n").replace("\r", "\n")


@FUZZ
@given(st.text(st.sampled_from("电热水壶第一次使用前请清洗内胆并煮沸两次后倒掉注意不要干烧，。"), min_size=20, max_size=200),
       st.sampled_from(["gb18030", "gbk"]))
def test_chinese_text_round_trips_in_gbk(text, codec):
    doc = load_bytes("zh.txt", text.encode(codec))
    assert doc.text == text


LATIN_WORDS = ["café", "élève", "très", "garçon", "déjà", "naïve", "über", "Müller", "año", "niño",
               "façade", "crème", "brûlée", "señor", "Straße", "the", "kettle", "water", "descale", "de",
               "la", "le", "und", "mit", "el", "para", "filtre", "eau", "chaude"]


@FUZZ
@given(st.lists(st.sampled_from(LATIN_WORDS), min_size=6, max_size=60),
       st.sampled_from([" ", ". ", ", ", "\n"]))
def test_latin1_text_round_trips(words, sep):
    """Real words in Latin-1 (two accented bytes alone are also valid GBK: no detector can tell)."""
    text = sep.join(words) + "."
    if not any(c in text for c in "éèàüöçñïûâßò"):
        text += " Café."
    doc = load_bytes("fr.txt", text.encode("latin-1"))
    assert doc.text == text


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 1023])
def test_short_binary_prefixes_never_crash(size):
    for start in (b"%PDF", b"PK\x03\x04", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf"):
        _loads_or_refuses("x.txt", (start + bytes(range(256)) * 5)[:size])
