"""Escaped HTML for the evidence: passage cards, linked answers, the standalone evidence card and
the sentence-split preview. No Streamlit import; the pages pass these strings to ``st.html`` or
offer them as downloads. Callers shape the output through parameters (anchor prefix, extra CSS
class, badge), never by rewriting the returned HTML.

Document text, source names, questions and answers are UNTRUSTED. Every piece goes through
:func:`esc`, which HTML-escapes it and also encodes the characters Markdown and Streamlit give a
meaning to (``[ ] ( ) * _ ` ~ $ : ...``) and newlines as character references: the browser shows
the very same text, but no HTML, Markdown link, LaTeX or ``javascript:`` URL can come alive, even
when the fragment is embedded in Markdown.

Sentence numbers shown to people are 1-based (``Sentence.i + 1``).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from swr.core.lang import has_cjk
from swr.core.rules.words import trace_words
from swr.core.types import Passage, PassageHit
from swr.manage.card import KIND_LABELS, page_images_html, settings_html
from swr.manage.check_html import (
    CITATION,
    check_id,
    check_summary_html,
    cited_html,
    rejected_text,
    sentence_mark,
)
from swr.manage.escape import ESCAPES, esc, is_table_border, md_display, passage_anchor
from swr.manage.styles import CARD_CSS, CSS
from swr.retrieve.window import hit_spans

_MD_ESCAPES = {**ESCAPES, ord("\n"): "  \n"}


def esc_md_lines(value: Any) -> str:
    """As :func:`esc`, but a newline becomes a Markdown hard line break (for ``st.write_stream``,
    which renders Markdown: a character reference would show no break there)."""
    text = "" if value is None else str(value)
    return text.translate(_MD_ESCAPES)


def _fmt(x: float | None) -> str:
    """A score with 4 significant digits."""
    return "" if x is None else f"{x:.4g}"


def _pages(pages: list[int]) -> str:
    """``p. 3`` / ``pp. 3–5`` / ``pp. 3, 5, 9``."""
    ps = sorted(set(pages))
    if not ps:
        return ""
    if len(ps) == 1:
        return f"p. {ps[0]}"
    if ps == list(range(ps[0], ps[-1] + 1)):
        return f"pp. {ps[0]}–{ps[-1]}"
    return "pp. " + ", ".join(str(p) for p in ps)


def _sentences(first: int, last: int) -> str:
    """``sentence 4`` / ``sentences 4–6`` (1-based)."""
    if first == last:
        return f"sentence {first + 1}"
    return f"sentences {first + 1}–{last + 1}"


# --------------------------------------------------------------------------------------------
# passages


def hit_title(hit: PassageHit) -> str:
    """One-line explanation of a hit's scores (the tooltip and the badge text)."""
    parts = [f"sentence {hit.i + 1}"]
    if getattr(hit, "page", None) is not None:  # the page the hit sentence lies on
        parts.append(f"p. {hit.page}")
    if hit.rank:
        parts.append(f"rank #{hit.rank}")
    parts.append(f"score {_fmt(hit.score)}")
    if hit.dense_rank is not None or hit.dense_score is not None:
        rank = f"#{hit.dense_rank} " if hit.dense_rank is not None else ""
        parts.append(f"dense {rank}{_fmt(hit.dense_score)}".rstrip())
    if hit.sparse_rank is not None or hit.sparse_score is not None:
        rank = f"#{hit.sparse_rank} " if hit.sparse_rank is not None else ""
        parts.append(f"sparse {rank}{_fmt(hit.sparse_score)}".rstrip())
    terms = getattr(hit, "matched_tokens", None)
    if terms is not None:  # the question's BM25 terms this sentence holds
        parts.append("matched " + (" ".join(terms) if terms else "no term"))
    if hit.via:  # found by the cross-lingual search (swr/retrieve/crosslingual.py): how
        parts.append("via " + " + ".join(VIA_LABELS.get(v, v) for v in hit.via.split("+")))
    if getattr(hit, "centred", None) is not None:  # the languages compared on one scale (xl_centre)
        hub = getattr(hit, "hub", None)
        parts.append(f"centred cosine {_fmt(hit.centred)}" + (f", hubness {_fmt(hub)}" if hub is not None else ""))
    return " · ".join(parts)


def why_rank_html(passage: Passage) -> str:
    """Each hit's "why this rank": the ranking rules that placed it, in words (swr/core/rules/words.py);
    empty when no rule left a trace (a plain search ranks by its score alone)."""
    rows = [f'<div class="swr-why"><strong>Why this rank</strong> (sentence {h.i + 1}): {esc(" ".join(why))}</div>'
            for h in passage.hits if (why := trace_words(getattr(h, "trace", None)))]
    return "".join(rows)


#: How a cross-lingual hit was found (``Hit.via``), as the evidence says it.
VIA_LABELS = {"translation": "the translated question", "lang-list": "the other-language search",
              "alias": "a product alias"}


def tokens_html(tokens: list[str] | None) -> str:
    """The question's BM25 terms as escaped chips (``swr-tok``); a note when they are unknown."""
    if tokens is None:
        return '<span class="swr-note">(terms not shown for this tokenizer)</span>'
    if not tokens:
        return '<span class="swr-note">(none: only stop words)</span>'
    return "".join(f'<code class="swr-tok">{esc(t)}</code>' for t in tokens)


def highlight_html(text: str, hits: list[PassageHit]) -> str:
    """``text`` escaped, with each hit span wrapped in ``<mark>`` (tooltip: its scores). Markdown
    markers are hidden (:func:`md_display`); a hit that is only a table border is not marked."""
    out, pos = [], 0

    def shown(a: int, b: int) -> str:
        return esc(md_display(text[a:b], a == 0 or text[a - 1] == "\n"))

    for start, end, hs in hit_spans(text, [h for h in hits if not is_table_border(h.sentence)]):
        title = esc(" | ".join(hit_title(h) for h in hs))
        out.append(shown(pos, start))
        out.append(f'<mark title="{title}">{shown(start, end)}</mark>')
        pos = end
    out.append(shown(pos, len(text)))
    return "".join(out)


def _scores_html(passage: Passage) -> str:
    """Badges: the passage score and each hit's scores."""
    badges = [f'<span class="swr-badge">passage score {esc(_fmt(passage.score))}</span>']
    badges += [f'<span class="swr-badge">{esc(hit_title(h))}</span>' for h in passage.hits]
    return f'<div class="swr-scores">{"".join(badges)}</div>' + why_rank_html(passage)


_CSS_CLASSES = re.compile(r"[A-Za-z0-9_ -]*")


STOP_LABELS = {"heading": "heading", "block_end": "end of block", "budget": "budget", "cap": "cap",
               "doc_edge": "document edge", "missing": "missing sentence"}


def window_note(passage: Passage) -> str:
    """``budget window · stopped: budget ← → heading`` (plain text; escape it for HTML)."""
    b = STOP_LABELS.get(passage.stop_before or "", passage.stop_before or "–")
    a = STOP_LABELS.get(passage.stop_after or "", passage.stop_after or "–")
    return f"{passage.window_mode} window · stopped: {b} ← → {a}"


def passage_html(passage: Passage, n: int, *, show_scores: bool = True, anchor: str = "",
                 extra_class: str = "", badge: str | None = None) -> str:
    """A passage card, anchor ``id="{anchor}passage-{n}"``: header ``[n] source · sentences a–b ·
    pages``, the text with hits in ``<mark>`` (line breaks kept), then score badges if
    ``show_scores``. ``extra_class`` (code-chosen CSS classes) is added to the card's class;
    ``badge`` (text, escaped) is a line above the header (``swr-onlybadge``)."""
    n = int(n)
    if not _CSS_CLASSES.fullmatch(extra_class):
        raise ValueError(f"extra class {extra_class!r}: letters, digits, '-', '_' and spaces only")
    head = [f'<span class="swr-num">[{n}]</span> <span class="swr-src">{esc(passage.source)}</span>',
            esc(_sentences(passage.first, passage.last))]
    if passage.pages:
        head.append(esc(_pages(passage.pages)))
    if passage.window_mode != "fixed":  # how the window was made and where it stopped (swr/retrieve/expand.py)
        head.append(f'<span class="swr-stops">{esc(window_note(passage))}</span>')
    cls = " ".join(["swr-passage", *extra_class.split()])
    parts = [
        f'<div class="{cls}" id="{passage_anchor(anchor, n)}">',
        f'<div class="swr-onlybadge">{esc(badge)}</div>' if badge else "",
        f'<div class="swr-head">{" · ".join(head)}</div>',
        f'<div class="swr-text" style="white-space:pre-wrap">{highlight_html(passage.text, passage.hits)}</div>',
        _scores_html(passage) if show_scores else "",
        "</div>",
    ]
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# answer

def answer_html(answer: str, n_passages: int | None = None, *, anchor: str = "") -> str:
    """The answer escaped, with citations ``[1]`` turned into ``<a href="#passage-1">[1]</a>``
    (``#{anchor}passage-1`` with an anchor prefix, as given to :func:`passage_html`).

    With ``n_passages`` only numbers 1..n_passages become links.
    """
    return f'<div class="swr-answer" style="white-space:pre-wrap">{cited_html(answer or "", n_passages, anchor)}</div>'


# --------------------------------------------------------------------------------------------
# the answer check (swr.verify.check): each answer sentence marked, with its evidence or its reasons

def rejected_html(check: dict) -> str:
    """The banner of an answer the check rejects (``status == "rejected"``), escaped."""
    return (f'<div class="swr-rejected" role="alert"><b>✗ The answer check rejects this answer.</b> '
            f"{esc(rejected_text(check))}</div>")


def checked_answer_html(answer: str, check: dict, n_passages: int | None = None, *, anchor: str = "") -> str:
    """The answer with each checked sentence marked in place (✓ supported, ⚠/✗ flagged, linked to
    its row ``#{anchor}check-k``; a supported sentence that cites nothing gets the check's passage
    as a citation of its own style, ``a.swr-cite-check``), then the support line and one expandable row per sentence: the
    supporting passage (linked) and window, or the reasons it is flagged. All text escaped."""
    text = answer or ""
    sents = check.get("sentences") or []
    out, pos = [], 0
    for k, s in enumerate(sents, 1):
        raw = s.get("text") or ""
        at = text.find(raw, pos) if raw else -1
        if at < 0:
            continue
        cls, mark, words = sentence_mark(s)
        out.append(cited_html(text[pos:at], n_passages, anchor))
        found = ""  # a supported sentence the model cited nothing for: the check's passage, marked as such
        if s.get("supported") and not s.get("citations") and s.get("passage"):
            found = (f'<a class="swr-cite-check" href="#{passage_anchor(anchor, s["passage"])}" '
                     f'title="the passage the check found supporting this sentence (the answer cited none)">'
                     f'[{int(s["passage"])}]</a>')
        out.append(f'<span class="swr-chk {cls}">{cited_html(raw, n_passages, anchor, s.get("bad_citations") or ())}'
                   f'</span>{found}<a class="swr-chk-mark {cls}" href="#{check_id(anchor, k)}" title="{esc(words)}">'
                   f"{mark}<sub>{k}</sub></a>")
        pos = at + len(raw)
    out.append(cited_html(text[pos:], n_passages, anchor))
    rows = []
    for k, s in enumerate(sents, 1):
        cls, mark, words = sentence_mark(s)
        raw, n = s.get("text") or "", s.get("passage")
        where = ""
        if n:
            score = f", cosine {s['score']:.3f}" if isinstance(s.get("score"), (int, float)) else ""
            role = ("supported by" if s.get("supported") else
                    "contradicted by" if s.get("verdict") == "contradicted" else "closest")
            where = (f'<div class="swr-chk-where">{role}: <a href="#{passage_anchor(anchor, n)}">passage [{n}]</a>{score}'
                     f'</div><blockquote class="swr-chk-window">{esc(s.get("window"))}</blockquote>')
        reasons = [r for r in (s.get("reasons") or []) if r]
        said = s.get("statement") or ""
        if said and re.sub(r"\W", "", said) != re.sub(r"\W", "", CITATION.sub("", raw)):
            where = f'<div class="swr-chk-where">checked as: “{esc(said)}”</div>' + where
        why = ("<ul>" + "".join(f"<li>{esc(r)}</li>" for r in reasons) + "</ul>") if reasons and cls != "ok" else ""
        rows.append(f'<details id="{check_id(anchor, k)}" class="swr-chk-row {cls}"{"" if cls == "ok" else " open"}>'
                    f'<summary><span class="swr-chk-mark {cls}">{mark}</span> {k}. {esc(words)}: '
                    f'<span class="swr-chk-text">{esc(raw)}</span></summary>{why}{where}</details>')
    return (f'<div class="swr-check">{check_summary_html(check)}</div>'
            f'<div class="swr-answer swr-checked" style="white-space:pre-wrap">{"".join(out)}</div>'
            f'<div class="swr-check">{"".join(rows)}</div>')


# --------------------------------------------------------------------------------------------
# evidence card


def evidence_card_html(
    question: str,
    answer: str,
    answer_kind: str,
    passages: list[Passage],
    settings: dict,
    created_at: str,
    page_images: dict[int, list[tuple[str, str]]] | None = None,
    check: dict | None = None,
) -> str:
    """A standalone HTML document (inline CSS, no script, no external resource) with the
    question, the answer (citations linked; with ``check``, each sentence marked with its check
    result, the support figure and the rows of :func:`checked_answer_html`), every passage
    highlighted with scores, the settings used and the date. Opens in a browser from disk.
    ``page_images``: passage number -> ``[(caption, "data:image/png;base64,...")]``, the PDF page
    crops of its hits (:mod:`swr.manage.docview`), shown under the passage (anything but a base64 PNG
    data URI is dropped)."""
    kind = KIND_LABELS.get(answer_kind, answer_kind or "answer")
    cards = "\n".join(passage_html(p, n) + page_images_html((page_images or {}).get(n, []))
                      for n, p in enumerate(passages, 1))
    lang = "zh" if has_cjk(question or "") else "en"
    return "\n".join([
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        ('<meta http-equiv="Content-Security-Policy" '
         "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"),
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Evidence card: {esc((question or '')[:80])}</title>",
        f"<style>{CSS}{CARD_CSS}</style>",
        "</head>",
        "<body><main>",
        "<h1>Evidence card</h1>",
        f'<p class="swr-meta">Created {esc(created_at)} · {esc(kind)} · {len(passages)} passage{"" if len(passages) == 1 else "s"}'
        + (f" · knowledge base “{esc(settings.get('kb'))}”" if (settings or {}).get("kb") else "") + "</p>",
        "<h2>Question</h2>",
        f'<div class="swr-question">{esc(question)}</div>',
        f'<h2>Answer<span class="swr-kind">{esc(kind)}</span></h2>',
        rejected_html(check) if check and check.get("status") == "rejected" else "",
        f'<div class="swr-answer-box">{checked_answer_html(answer, check, len(passages)) if check else answer_html(answer, len(passages))}</div>',
        f"<h2>Passages ({len(passages)})</h2>",
        cards or "<p>(no passages)</p>",
        "<h2>Settings</h2>",
        settings_html(settings),
        f"<footer>Generated by swr on {esc(created_at)}.</footer>",
        "</main></body>",
        "</html>",
        "",
    ])


# --------------------------------------------------------------------------------------------
# sentence split preview


def _span_of(span: Any) -> tuple[int, int]:
    """``(start, end)`` from a tuple or from an object with ``start``/``end`` (a Sentence)."""
    if hasattr(span, "start") and hasattr(span, "end"):
        return int(span.start), int(span.end)
    start, end = span
    return int(start), int(end)


def split_preview_html(text: str, spans: Iterable[Any], *, max_sentences: int | None = None) -> str:
    """A document's sentence split: each sentence on an alternating background with its
    1-based number; text outside every span is shown plain. All text escaped."""
    out, pos = [], 0
    spans = sorted(_span_of(s) for s in spans)
    shown = spans if max_sentences is None else spans[:max_sentences]
    for k, (start, end) in enumerate(shown):
        start, end = max(start, pos), min(end, len(text))
        if end <= start:
            continue
        out.append(esc(text[pos:start]))
        out.append(
            f'<span class="swr-sent swr-alt-{k % 2}" title="sentence {k + 1}">'
            f'<span class="swr-sent-n">{k + 1}</span>{esc(text[start:end])}</span>'
        )
        pos = end
    if len(shown) < len(spans):
        out.append(f'<span class="swr-more">… {len(spans) - len(shown)} more sentences not shown</span>')
    else:
        out.append(esc(text[pos:]))
    return f'<div class="swr-split" style="white-space:pre-wrap">{"".join(out)}</div>'
