"""The answer card (written once; the chat and Compare draw it): what kind of answer, the answer
with its citations linked to the passage cards and, once checked (:meth:`swr.engine.Engine.check`),
each sentence marked with its check result (a rejected answer says so first, prominently), the
settings it was made with, the LLM's failure."""
from __future__ import annotations

import re

import streamlit as st

from swr.answer.result import AskResult
from swr.app.components.errors import md
from swr.app.state import KEYS
from swr.core.errors import NotFound, SwrError
from swr.core.rules.words import trace_words
from swr.manage import render
from swr.manage.docview import hit_crops

NOT_AVAILABLE_CARD = ("<!doctype html><meta charset=utf-8><title>Not available</title>"
                      "<p>This knowledge base is no longer available to you.</p>")

_STAGE_WORDS = {"cutoff": "score cutoff", "rerank": "reranking"}


def short_value(v, key: str = "") -> str:
    """A knob's value in a line of text, in the page's words: empty filters read "any", no
    cutoff or no post-fusion step "off" (never an internal name such as ``cutoff``)."""
    if v is None or v == [] or v == ():
        return "off" if key in ("min_score", "stages") else "any"
    if key == "stages":
        return " + ".join(_STAGE_WORDS.get(x, str(x)) for x in v)
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def export_name(result: AskResult) -> str:
    """``evidence-<question>-<yyyy-mm-dd-hhmm>.html``: the question's words (letters and digits of
    any script, at most 60 characters), a safe file name on every system."""
    words = re.sub(r"[^\w]+", "-", result.question or "", flags=re.UNICODE).strip("-_")[:60].strip("-_")
    stamp = re.sub(r"[^0-9]", "", (result.created_at or "")[:16])
    date = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}-{stamp[8:12]}" if len(stamp) >= 12 else "undated"
    return f"evidence-{words or 'answer'}-{date}.html"


def mode_text(mode: str, fusion: str | None, dense_weight) -> str:
    """``hybrid/dbsf``, ``hybrid/weighted dense 0.7`` or the plain mode."""
    if mode != "hybrid":
        return mode
    return f"hybrid/{fusion}" + (f" dense {dense_weight}" if fusion == "weighted" else "")


def stamp_text(result: AskResult) -> str:
    """The settings an answer was made with, one line."""
    s = result.settings
    parts = [f"window {s.get('window_size')}", f"top-k {s.get('top_k')}",
             mode_text(s.get("mode", ""), s.get("fusion"), s.get("dense_weight")),
             f"candidates {s.get('dense_k')}/{s.get('sparse_k')}"]
    if s.get("min_score") is not None:
        parts.append(f"min score {s.get('min_score')}")
    if "rerank" in (s.get("stages") or []):
        parts.append("reranked")
    filters = [f"{k} {short_value(s.get(k))}" for k in ("sources", "tags", "lang") if s.get(k)]
    if filters:
        parts.append("filters: " + "; ".join(filters))
    pub = s.get("published") or {}
    if pub.get("version") is not None:
        changed = pub.get("overrides") or []
        parts.append(f"published v{pub['version']}" + (f" (changed: {', '.join(changed)})" if changed else ""))
    parts.append(f"{s.get('embed_model')} ({s.get('embed_runtime')})")
    parts.append(f"LLM {s.get('llm_model')}" if s.get("llm_model") else "no LLM")
    t = result.timings
    ms = sum(v for k, v in t.items() if k.endswith("_ms") and isinstance(v, (int, float)))
    parts.append(f"{ms:,.0f} ms")
    parts.append(result.created_at.replace("T", " ")[:19])
    return " · ".join(str(p) for p in parts)


def kind_html(result: AskResult) -> str:
    """The answer's kind as a tag: LLM (with its model) or extractive."""
    if result.answer_kind == "llm":
        return f'<span class="swr-kind llm">LLM answer · {render.esc(result.settings.get("llm_model") or "")}</span>'
    return '<span class="swr-kind">Extractive answer (best passage, no LLM)</span>'


def answer_card(result: AskResult, prefix: str, *, export_key: str | None = None, engine=None) -> None:
    """Kind, answer (citations link to ``#{prefix}passage-n``), stamp, the LLM's failure; with
    ``export_key`` also the "Export evidence card" download (with ``engine``, the checked view,
    the card embeds the PDF page crop of every hit, made when the button is clicked)."""
    if not getattr(result, "answerable", True):  # plainly: the passages are the closest, not an answer
        st.warning("**Not in the knowledge base.** " + md(
            f"{result.answer} The passages shown are the closest ones, not an answer "
            f"({result.answerability.get('reason', '')}; the score is the cosine of the question and the best "
            "sentence, never a fused score)."), icon=":material/search_off:")
        why = trace_words(getattr(result, "trace", None))
        if why:  # the rules that refused it, in words (the ids are in ask --json)
            st.html('<div class="swr-why"><b>Why not answered:</b> ' + render.esc(" ".join(why)) + "</div>")
    elif getattr(result, "trace", None):
        st.html('<details class="swr-why"><summary>Why this answer</summary>'
                + render.esc(" ".join(trace_words(result.trace))) + "</details>")
    check = getattr(result, "check", None)
    if check and check.get("status") == "rejected":  # prominently: not an answer to pass on
        st.html(render.rejected_html(check))
    kb = f' <span class="swr-kbtag">knowledge base “{render.esc(result.kb)}”</span>'  # which KB answered
    body = (render.checked_answer_html(result.answer, check, len(result.passages), anchor=prefix) if check
            else render.answer_html(result.answer, len(result.passages), anchor=prefix))
    st.html(kind_html(result) + kb + body + f'<div class="swr-stamp">{render.esc(stamp_text(result))}</div>')
    if result.llm_error:
        st.error(md(f"The LLM failed, so this is the extractive answer instead. {result.llm_error}"))
    if export_key is not None:
        data = (lambda: evidence_card(result, engine)) if engine is not None else evidence_card(result)
        st.download_button("Export evidence card", data=data, file_name=export_name(result),
                           mime="text/html", key=KEYS.export(export_key), icon=":material/download:", on_click="ignore")


def evidence_card(result: AskResult, engine=None) -> str:
    """The standalone HTML evidence card of an answer; with ``engine`` (the checked view) the PDF
    page crop of every hit is embedded (a data: URI; the card stays one self-contained file)."""
    crops = None
    if engine is not None:
        try:  # made when the button is clicked: a grant taken away since the page was drawn counts
            engine.require_kb(result.kb)
        except NotFound:
            return NOT_AVAILABLE_CARD
        try:
            crops = hit_crops(engine, result.kb, result.passages)
        except (SwrError, OSError, RuntimeError):  # a document gone or unreadable: no page images
            crops = None
    return render.evidence_card_html(result.question, result.answer, result.answer_kind, result.passages,
                                     {**result.settings, "kb": result.kb, "context_chars": result.context_chars,
                                      "context_tokens": result.context_tokens}, result.created_at,
                                     page_images=crops, check=getattr(result, "check", None))
