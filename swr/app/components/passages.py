"""Passage cards: escaped by :func:`swr.manage.render.passage_html`, anchors unique per answer."""
from __future__ import annotations

from swr.core.types import Passage
from swr.manage import render

EMPTY = '<div class="swr-empty">No passage found (check the filters).</div>'


def anchor(entry_id: int | str, tag: str = "") -> str:
    """The anchor prefix of one answer's cards and citations (``a3-``; ``a3p-`` for its preview),
    so several answers on one page keep their own ``#passage-n`` targets."""
    return f"a{entry_id}{tag}-"


def cards(prefix: str, passages: list[Passage]) -> str:
    """The passage cards, numbered from 1, with anchors ``{prefix}passage-n``."""
    if not passages:
        return EMPTY
    return "".join(render.passage_html(p, n, anchor=prefix) for n, p in enumerate(passages, 1))
