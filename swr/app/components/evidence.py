"""The evidence beside an answer: a head line (passages, hits, context size) and the cards in a
box that scrolls past a maximum height."""
from __future__ import annotations

import streamlit as st

from swr.app.components import docview, passages as cards_
from swr.app.state import KEYS
from swr.core.rules.crosslingual import XlRule
from swr.core.types import Passage
from swr.manage.render import tokens_html

_UNSET = object()
_ADDED = {XlRule.OTHER_PLACE.value, XlRule.PLAIN_KEPT.value}


def head(passages: list[Passage], chars: int, tokens: int, what: str = "context", title: str = "Evidence",
         query_tokens=_UNSET) -> str:
    """The head line; with ``query_tokens`` (a list, or None when the tokenizer hides them) also
    the question's BM25 terms (each hit's matched terms are on its badge)."""
    hits = sum(len(p.hits) for p in passages)
    merged = sum(1 for p in passages if len(p.hits) > 1)
    extra = f" ({merged} merged)" if merged else ""
    # the places cross-lingual search adds beside the top k (CrossLingualRules.other_places)
    added = sum(1 for p in passages for h in p.hits if _ADDED & set(getattr(h, "trace", None) or ()))
    more = f" ({added} added by cross-lingual search)" if added else ""
    terms = "" if query_tokens is _UNSET else (f'<div class="swr-bm25">BM25 searched for: '
                                               f"{tokens_html(query_tokens)}</div>")
    return (f'<div class="swr-evhead"><b>{title}</b> · {len(passages)} passage{"s" * (len(passages) != 1)}'
            f"{extra} · {hits} hit{'s' * (hits != 1)}{more} · {what} <b>{chars:,}</b> chars / "
            f"<b>{tokens:,}</b> tokens{terms}</div>")


def scroll_cards(key: str, html: str) -> None:
    """Passage cards in a box that scrolls past a maximum height (CSS on ``st-key-ev-*``)."""
    with st.container(key=KEYS.evidence_box(key)):
        st.html(html)


def evidence(key: str, prefix: str, passages: list[Passage], chars: int, tokens: int, *, engine=None,
             kb: str | None = None, title: str = "Evidence", query_tokens=_UNSET) -> None:
    """Head line (with the question's BM25 terms when given) and scrolling cards (anchors
    ``{prefix}passage-n``); with ``engine`` (the checked view) and ``kb``, the "open in document"
    buttons of every passage and hit under them. ``title`` (code-chosen, not escaped) heads them:
    "Closest, not an answer" when the evidence does not answer."""
    st.html(head(passages, chars, tokens, title=title, query_tokens=query_tokens))
    scroll_cards(key, cards_.cards(prefix, passages))
    if engine is not None and kb:
        docview.controls(engine, kb, key, passages)
