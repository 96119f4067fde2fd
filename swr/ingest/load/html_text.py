"""HTML files: charset from ``<meta>`` or detection, then the visible text."""
from __future__ import annotations

import re
from html.parser import HTMLParser

from swr.core.errors import EmptyDocument, Undecodable
from swr.ingest.load.decode import decode_bom, decode_bytes, reject_binary_text
from swr.ingest.load.names import describe, normalize_newlines, require_text

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
}


def load_html(data: bytes, src: str) -> tuple[str, str]:
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    text, encoding = _decode_html(data, src)
    try:
        visible = html_to_text(normalize_newlines(text))
    except Exception as e:
        raise Undecodable(f"{src}: cannot parse the HTML ({describe(e)})", source=src) from None
    require_text(src, visible, "the page contains no visible text")
    return visible, encoding


def _decode_html(data: bytes, src: str) -> tuple[str, str]:
    """BOM, then a ``<meta charset>`` in the first 4 KB, then detection."""
    if decode_bom(data, src) is None and b"\0" not in data:
        m = _META_CHARSET.search(data[:4096])
        if m:
            label = m.group(1).decode("ascii").lower()
            codec = _CHARSET_ALIASES.get(label, label)
            try:
                text = data.decode(codec)
            except (LookupError, UnicodeDecodeError):
                pass
            else:
                reject_binary_text(text, src)
                return text, codec
    return decode_bytes(data, src)


class _VisibleText(HTMLParser):
    """Collects visible text; block elements become line breaks, table cells tabs."""

    SKIP = {"script", "style", "noscript", "template", "svg", "object", "iframe"}
    BLOCK = {
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
        "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
        "table", "tbody", "tfoot", "thead", "tr", "ul", "body", "html",
    }
    CELL = {"td", "th"}
    HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.skip = 0
        self.pre = 0
        self.in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "title":
            self.in_title = True
        elif tag in self.BLOCK:
            self.parts.append("\n")
            self.pre += tag == "pre"
            # structure for swr/text/structure.py, Markdown-like: "## " before a heading, "- " before an item
            if tag in self.HEADINGS:
                self.parts.append("#" * int(tag[1]) + " ")
            elif tag == "li":
                self.parts.append("- ")
        elif tag in self.CELL:
            self.parts.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "title":
            self.in_title = False
        elif tag in self.BLOCK:
            self.parts.append("\n")
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title.append(data)
        elif self.pre:
            self.parts.append(data)
        else:
            self.parts.append(re.sub(r"[ \t\n\r\f\v\xa0]+", " ", data))


def html_to_text(html: str) -> str:
    """Visible text of an HTML document: title first, one line per block, entities unescaped;
    headings start with ``#`` marks of their level and list items with ``- `` (Markdown-like, so
    :mod:`swr.text.structure` sees them), table rows are one line with the cells tab-separated.

    ``<script>``, ``<style>``, ``<noscript>``, ``<template>``, ``<svg>`` content is dropped;
    whitespace runs inside a line collapse to one space (kept inside ``<pre>``); empty lines
    are dropped.
    """
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    title = " ".join("".join(parser.title).split())
    body = "".join(parser.parts).replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.strip() for line in body.split("\n")]
    if title:
        lines.insert(0, title)
    return "\n".join(line for line in lines if line and line not in ("-", "#", "##", "###", "####", "#####",
                                                                      "######"))
