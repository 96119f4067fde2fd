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

import json
import re
from collections.abc import Iterable
from typing import Any

from swr.core.lang import has_cjk
from swr.core.rules.words import trace_words
from swr.core.types import Passage, PassageHit
from swr.retrieve.window import hit_spans

CSS = """
.swr-passage{border:1px solid #d0d7de;border-radius:8px;padding:.6em .8em;margin:.6em 0;
 background:#fff;color:#1f2328;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.swr-head{font-size:.85em;color:#57606a;margin-bottom:.4em}
.swr-num{font-weight:700;color:#0969da}
.swr-src{font-weight:600;color:#1f2328}
.swr-text{white-space:pre-wrap;line-height:1.55;overflow-wrap:anywhere}
.swr-text mark{background:#fff3b0;color:inherit;border-radius:3px;padding:0 .1em}
.swr-scores{margin-top:.45em;font-size:.78em;color:#57606a}
.swr-badge{display:inline-block;border:1px solid #d0d7de;border-radius:10px;padding:0 .5em;
 margin:.1em .3em .1em 0;background:#f6f8fa}
.swr-answer{white-space:pre-wrap;line-height:1.55;overflow-wrap:anywhere}
.swr-answer a,a.swr-cite{color:#0969da;text-decoration:none;font-weight:600}
.swr-split{white-space:pre-wrap;line-height:1.7;overflow-wrap:anywhere;
 font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.swr-sent{border-radius:3px;padding:0 .1em}
.swr-alt-0{background:#ddf4ff}
.swr-alt-1{background:#fbefff}
.swr-sent-n{font-size:.7em;color:#57606a;vertical-align:super;margin-right:.2em;
 user-select:none}
.swr-more{color:#57606a;font-style:italic}
.swr-tok{background:#eef1f4;border-radius:4px;padding:0 .3em;margin-right:.25em;font-size:.9em}
.swr-rejected{background:#ffebe9;border:2px solid #cf222e;border-radius:8px;color:#82071e;
 padding:.6em .8em;margin:.3em 0 .6em;font-size:1.02em}
.swr-chk.ok{border-bottom:2px solid #2da44e}
.swr-chk.bad{background:#ffebe9;border-bottom:2px wavy #cf222e}
.swr-chk.cite{border-bottom:2px dashed #bf8700}
a.swr-chk-mark,span.swr-chk-mark{font-weight:700;text-decoration:none;margin:0 .15em}
.swr-chk-mark.ok{color:#1a7f37}.swr-chk-mark.bad{color:#cf222e}.swr-chk-mark.cite{color:#9a6700}
.swr-cite-bad a{color:#cf222e;text-decoration:line-through}
a.swr-cite-check{color:#1a7f37;text-decoration:none;font-weight:600;font-style:italic}
.swr-check{margin-top:.5em;font-size:.88em}
.swr-support{padding:.2em .5em;border-radius:6px;background:#f6f8fa;margin-bottom:.3em}
.swr-support.rejected{background:#ffebe9;color:#82071e}
.swr-support.supported{background:#dafbe1;color:#116329}
.swr-support.unconfirmed{background:#fff8c5;color:#7d4e00}
.swr-chk-row{border-left:3px solid #d0d7de;padding:.1em .5em;margin:.2em 0}
.swr-chk-row.ok{border-color:#2da44e}.swr-chk-row.bad{border-color:#cf222e}.swr-chk-row.cite{border-color:#bf8700}
.swr-chk-row summary{cursor:pointer}
.swr-chk-row ul{margin:.2em 0 .2em 1.2em;padding:0}
.swr-chk-window{margin:.2em 0 .3em .5em;padding-left:.5em;border-left:2px solid #d0d7de;color:#57606a;
 white-space:pre-wrap}
"""

_CARD_CSS = """
body{margin:0;background:#f6f8fa;color:#1f2328;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:860px;margin:2em auto;padding:0 1em}
h1{font-size:1.4em;margin-bottom:.2em}
h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
.swr-meta{color:#57606a;font-size:.9em}
.swr-question,.swr-answer-box{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.7em .9em}
.swr-question{white-space:pre-wrap;font-weight:600}
.swr-kind{font-size:.75em;font-weight:400;border:1px solid #d0d7de;border-radius:10px;padding:0 .5em;
 margin-left:.5em;background:#fff}
table.swr-settings{border-collapse:collapse;background:#fff;font-size:.9em}
table.swr-settings td{border:1px solid #d0d7de;padding:.25em .6em;vertical-align:top;white-space:pre-wrap}
footer{margin:2em 0;color:#57606a;font-size:.8em}
"""

# Characters HTML, Markdown or Streamlit (LaTeX, emoji shortcodes, autolinks) give a meaning to.
_SPECIAL = "&<>\"'[]()*_`~$\\|:#!{}=@"
_ESCAPES = {ord(c): f"&#{ord(c)};" for c in _SPECIAL}
_ESCAPES[ord("\n")] = "&#10;"
_ESCAPES[ord("\r")] = ""

_SECRET_NAME = re.compile(r"(?i)(^|_)(api_?key|key|secret|password|passwd|token|auth|authorization)$")
_KIND_LABELS = {
    "llm": "LLM answer",
    "extractive": "Extractive answer (no LLM configured)",
}


_MD_ESCAPES = {**_ESCAPES, ord("\n"): "  \n"}


def esc(value: Any) -> str:
    """``value`` as inert HTML text: HTML-escaped, Markdown/LaTeX characters and newlines
    encoded as character references (browsers display the same text)."""
    text = "" if value is None else str(value)
    return text.translate(_ESCAPES)


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
    return " · ".join(parts)


def why_rank_html(passage: Passage) -> str:
    """Each hit's "why this rank": the ranking rules that placed it, in words (swr/core/rules/words.py);
    empty when no rule left a trace (a plain search ranks by its score alone)."""
    rows = [f'<div class="swr-why"><b>Why this rank</b> (sentence {h.i + 1}): {esc(" ".join(why))}</div>'
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


# Markdown syntax the documents carry (``**bold**``, ``## heading``) is hidden when shown, never
# interpreted: the markers are removed before escaping (hand-written: two patterns, and a
# Markdown renderer would also turn the document's links and HTML into elements).
_MD_BOLD = re.compile(r"(\*\*)(?=\S)(.+?)(?<=\S)\1")  # not __x__: __init__ is a name
_MD_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+")
# a Markdown table's border row (|---|:--:|): never highlighted as a "sentence"
_TABLE_BORDER = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*")


def is_table_border(sentence: str) -> bool:
    """A sentence that is nothing but a Markdown table border (``|---|---|``)."""
    return bool(_TABLE_BORDER.fullmatch(sentence or "")) and "-" in (sentence or "")


def md_display(text: str, at_line_start: bool = True) -> str:
    """``text`` with Markdown's bold markers and heading hashes removed (for display only)."""
    if not at_line_start:
        head, nl, rest = text.partition("\n")
        return _MD_BOLD.sub(r"\2", head) + (nl + md_display(rest) if nl else "")
    return _MD_HEADING.sub("", _MD_BOLD.sub(r"\2", text))


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


_ANCHOR_PREFIX = re.compile(r"[A-Za-z0-9_-]*")
_CSS_CLASSES = re.compile(r"[A-Za-z0-9_ -]*")


def _anchor(prefix: str, n: int) -> str:
    """``{prefix}passage-{n}``; the prefix is code-chosen (``a3-``), checked to stay a plain id."""
    if not _ANCHOR_PREFIX.fullmatch(prefix):
        raise ValueError(f"anchor prefix {prefix!r}: letters, digits, '-' and '_' only")
    return f"{prefix}passage-{int(n)}"


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
        f'<div class="{cls}" id="{_anchor(anchor, n)}">',
        f'<div class="swr-onlybadge">{esc(badge)}</div>' if badge else "",
        f'<div class="swr-head">{" · ".join(head)}</div>',
        f'<div class="swr-text" style="white-space:pre-wrap">{highlight_html(passage.text, passage.hits)}</div>',
        _scores_html(passage) if show_scores else "",
        "</div>",
    ]
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# answer

_CITATION = re.compile(r"\[(\d{1,4}(?:\s*[,，、]\s*\d{1,4})*)\]|【(\d{1,4})】")


def _citation_html(match: re.Match, n_passages: int | None, anchor: str = "") -> str:
    """The HTML for one ``[1]`` / ``[1, 2]`` / ``【1】`` citation (unknown numbers stay text)."""
    numbers = [int(x) for x in re.findall(r"\d+", match.group(0))]

    def ok(k: int) -> bool:
        return k >= 1 and (n_passages is None or k <= n_passages)

    if not any(ok(k) for k in numbers):
        return esc(match.group(0))
    if len(numbers) == 1:
        return f'<a href="#{_anchor(anchor, numbers[0])}">[{numbers[0]}]</a>'
    inner = ", ".join(
        f'<a href="#{_anchor(anchor, k)}">{k}</a>' if ok(k) else esc(str(k)) for k in numbers
    )
    return f"&#91;{inner}&#93;"


def _cited_html(text: str, n_passages: int | None, anchor: str, bad: Iterable[int] = ()) -> str:
    """``text`` escaped with its citations linked; a citation of ``bad`` carries the class
    ``swr-cite-bad`` (its passage does not support the sentence)."""
    bad = set(bad)
    out, pos = [], 0
    for m in _CITATION.finditer(text):
        out.append(esc(text[pos:m.start()]))
        link = _citation_html(m, n_passages, anchor)
        if bad & {int(x) for x in re.findall(r"\d+", m.group(0))}:
            link = ('<span class="swr-cite-bad" title="this passage does not support the sentence">'
                    f"{link}</span>")
        out.append(link)
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def answer_html(answer: str, n_passages: int | None = None, *, anchor: str = "") -> str:
    """The answer escaped, with citations ``[1]`` turned into ``<a href="#passage-1">[1]</a>``
    (``#{anchor}passage-1`` with an anchor prefix, as given to :func:`passage_html`).

    With ``n_passages`` only numbers 1..n_passages become links.
    """
    return f'<div class="swr-answer" style="white-space:pre-wrap">{_cited_html(answer or "", n_passages, anchor)}</div>'


# --------------------------------------------------------------------------------------------
# the answer check (swr.verify.check): each answer sentence marked, with its evidence or its reasons

_CHECK_STATUS = {"supported": "Supported by the evidence", "partly supported": "Partly supported",
                 "rejected": "Rejected by the check", "unchecked": "Nothing to check",
                 "unconfirmed": "Not confirmed: its evidence is in the other language",
                 "refused": "A refusal: the documents do not cover the question",
                 "off the question": "Quoted from the evidence, but it may not answer the question"}


def _check_id(prefix: str, k: int) -> str:
    """``{prefix}check-{k}``: the id of answer sentence ``k``'s row (the prefix checked as for passages)."""
    _anchor(prefix, k)  # the same check of the prefix
    return f"{prefix}check-{int(k)}"


def _sentence_ok(s: dict) -> bool:
    """Supported, and no citation of a passage that does not support it."""
    return bool(s.get("supported")) and not s.get("bad_citations")


def _sentence_mark(s: dict) -> tuple[str, str, str]:
    """(css class, mark, words) of one checked sentence."""
    if _sentence_ok(s):
        return "ok", "✓", "supported"
    if s.get("supported"):
        return "cite", "⚠", "supported, but a citation is wrong"
    if s.get("verdict") == "contradicted":
        return "bad", "✗", "contradicted by the evidence"
    if s.get("other_language"):
        return "cite", "?", "not confirmed: the evidence is in the other language"
    return "bad", "⚠", "not supported by the evidence"


def check_summary_html(check: dict) -> str:
    """``Rejected by the check · support 1 of 3 sentences (33 %) · 2 flagged`` as a line."""
    sents = check.get("sentences") or []
    ok = sum(bool(s.get("supported")) for s in sents)
    status = check.get("status") or "unchecked"
    flagged = sum(not _sentence_ok(s) for s in sents)
    return (f'<div class="swr-support {esc(status.replace(" ", "-"))}"><b>{esc(_CHECK_STATUS.get(status, status))}</b>'
            f" · support {ok} of {len(sents)} sentence{'' if len(sents) == 1 else 's'}"
            f" ({float(check.get('support') or 0):.0%})"
            + (f" · {flagged} flagged" if flagged else "") + "</div>")


def _rejected_text(check: dict) -> str:
    """Why the check rejects an answer, in a sentence (the rows say it per sentence)."""
    sents = check.get("sentences") or []
    contra = sum(s.get("verdict") == "contradicted" for s in sents)
    absent = sum(not s.get("supported") for s in sents) - contra
    why = []
    if contra:
        why.append(f"{contra} of its {len(sents)} sentence{'s' if len(sents) > 1 else ''} "
                   f"{'is' if contra == 1 else 'are'} contradicted by the evidence")
    if absent:
        why.append(f"{absent} of its {len(sents)} {'is' if absent == 1 else 'are'} not in the evidence")
    return ("; ".join(why) or "it is not supported").capitalize() + (
        ". Do not pass it on as it stands: read the flagged sentences against the evidence.")


def rejected_html(check: dict) -> str:
    """The banner of an answer the check rejects (``status == "rejected"``), escaped."""
    return (f'<div class="swr-rejected" role="alert"><b>✗ The answer check rejects this answer.</b> '
            f"{esc(_rejected_text(check))}</div>")


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
        cls, mark, words = _sentence_mark(s)
        out.append(_cited_html(text[pos:at], n_passages, anchor))
        found = ""  # a supported sentence the model cited nothing for: the check's passage, marked as such
        if s.get("supported") and not s.get("citations") and s.get("passage"):
            found = (f'<a class="swr-cite-check" href="#{_anchor(anchor, s["passage"])}" '
                     f'title="the passage the check found supporting this sentence (the answer cited none)">'
                     f'[{int(s["passage"])}]</a>')
        out.append(f'<span class="swr-chk {cls}">{_cited_html(raw, n_passages, anchor, s.get("bad_citations") or ())}'
                   f'</span>{found}<a class="swr-chk-mark {cls}" href="#{_check_id(anchor, k)}" title="{esc(words)}">'
                   f"{mark}<sub>{k}</sub></a>")
        pos = at + len(raw)
    out.append(_cited_html(text[pos:], n_passages, anchor))
    rows = []
    for k, s in enumerate(sents, 1):
        cls, mark, words = _sentence_mark(s)
        raw, n = s.get("text") or "", s.get("passage")
        where = ""
        if n:
            score = f", cosine {s['score']:.3f}" if isinstance(s.get("score"), (int, float)) else ""
            role = ("supported by" if s.get("supported") else
                    "contradicted by" if s.get("verdict") == "contradicted" else "closest")
            where = (f'<div class="swr-chk-where">{role}: <a href="#{_anchor(anchor, n)}">passage [{n}]</a>{score}'
                     f'</div><blockquote class="swr-chk-window">{esc(s.get("window"))}</blockquote>')
        reasons = [r for r in (s.get("reasons") or []) if r]
        said = s.get("statement") or ""
        if said and re.sub(r"\W", "", said) != re.sub(r"\W", "", _CITATION.sub("", raw)):
            where = f'<div class="swr-chk-where">checked as: “{esc(said)}”</div>' + where
        why = ("<ul>" + "".join(f"<li>{esc(r)}</li>" for r in reasons) + "</ul>") if reasons and cls != "ok" else ""
        rows.append(f'<details id="{_check_id(anchor, k)}" class="swr-chk-row {cls}"{"" if cls == "ok" else " open"}>'
                    f'<summary><span class="swr-chk-mark {cls}">{mark}</span> {k}. {esc(words)}: '
                    f'<span class="swr-chk-text">{esc(raw)}</span></summary>{why}{where}</details>')
    return (f'<div class="swr-check">{check_summary_html(check)}</div>'
            f'<div class="swr-answer swr-checked" style="white-space:pre-wrap">{"".join(out)}</div>'
            f'<div class="swr-check">{"".join(rows)}</div>')


# --------------------------------------------------------------------------------------------
# evidence card


_URL_USERINFO = re.compile(r"(?i)\b(https?://)[^/\s\"'@]+@")


def _mask_secrets(name: str, value: Any) -> Any:
    """``value`` with secret-named entries (api_key, token, ...) masked, also when nested, and
    user:password removed from URLs."""
    if _SECRET_NAME.search(str(name)) and value:
        return "***"
    if isinstance(value, dict):
        return {k: _mask_secrets(k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mask_secrets("", v) for v in value]
    if isinstance(value, str):
        return _URL_USERINFO.sub(r"\1***@", value)
    return value


def _setting_value(name: str, value: Any) -> str:
    """A settings value as text, secrets masked."""
    value = _mask_secrets(name, value)
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _settings_html(settings: dict) -> str:
    """The settings as a two-column table."""
    rows = "".join(
        f"<tr><td>{esc(k)}</td><td>{esc(_setting_value(k, v))}</td></tr>"
        for k, v in (settings or {}).items()
    )
    return f'<table class="swr-settings">{rows}</table>' if rows else "<p>(none)</p>"


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
    kind = _KIND_LABELS.get(answer_kind, answer_kind or "answer")
    cards = "\n".join(passage_html(p, n) + _page_images_html((page_images or {}).get(n, []))
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
        f"<style>{CSS}{_CARD_CSS}</style>",
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
        _settings_html(settings),
        f"<footer>Generated by swr on {esc(created_at)}.</footer>",
        "</main></body>",
        "</html>",
        "",
    ])


_PNG_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]+={0,2}")


def _page_images_html(images: list[tuple[str, str]]) -> str:
    """The page crops of one passage's hits: ``<figure class="swr-crop">`` each (caption escaped)."""
    out = [f'<figure class="swr-crop"><img alt="{esc(cap)}" src="{uri}" style="max-width:100%;'
           f'border:1px solid #d0d7de;border-radius:6px"><figcaption class="swr-meta">{esc(cap)}</figcaption></figure>'
           for cap, uri in images if _PNG_URI.fullmatch(uri or "")]
    return "".join(out)


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
