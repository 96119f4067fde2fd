"""Feedback in the app: on each chat answer (helpful / not helpful), on each hit ("wrong hit") and
on any sentence of its passages ("this is the right sentence"), and the Feedback page of a
knowledge base (``pages/5_Feedback.py``: counts, the answers marked not helpful with the settings
they were made with, CSV export).

Everything is written through the checked view (``record_feedback``: agents and up; viewers write
nothing) into :mod:`swr.manage.feedback`; a not-helpful answer with its right sentence becomes a golden
question there (origin ``feedback``), which the preset-questions panel shows and Tune sweeps at once.
The document view ("open in document", :mod:`.components.docview`) offers the same "right sentence"
choice on the sentences it shows (:func:`document_feedback`).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from swr.app import base, history, state
from swr.app.components.answer import mode_text
from swr.app.components.errors import errors_shown, md
from swr.app.components.sidebar import require_kb, sidebar
from swr.app.state import KEYS
from swr.core.errors import SwrError
from swr.core.types import Passage, Sentence
from swr.manage.access import GuardedEngine as Engine  # pages hold the checked view
from swr.manage.render import esc

MAX_LABEL = 110


# -- on the chat's answers -----------------------------------------------------------------------
def answer_key(entry: dict) -> str:
    """The key of one chat answer in the feedback log: this browser session and the answer's number."""
    return f"{history.session_id()}-{entry['id']}"


def _asked(entry: dict) -> str:
    """The question as searched (a follow-up's standalone question): what a golden question asks."""
    result = entry["result"]
    return (getattr(result, "standalone_question", None) or entry["question"]).strip()


def can_give(engine: Engine) -> bool:
    """Whether this user may give feedback (viewers may not: demo mode writes nothing)."""
    actor = getattr(engine, "actor", None)
    return actor is None or not actor.demo_only


def _record(engine: Engine, kb: str, key: str, kind: str, fields: dict) -> None:
    """Button callback: write one feedback entry, remember what was marked in this session."""
    done = state.FEEDBACK.get().setdefault(key, {"wrong": []})
    done.pop("error", None)
    try:
        entry = engine.record_feedback(kb, kind, answer=key, **fields)
    except SwrError as exc:
        done["error"] = exc.message
        return
    if kind == "answer":
        done["verdict"] = fields["verdict"]
    elif kind == "wrong_hit":
        done["wrong"].append((fields["doc_id"], fields["i"]))
    else:
        done["right"] = fields["sentence"]
    if entry.get("golden"):
        done["golden"] = entry["golden"]["id"]


def _base_fields(entry: dict) -> dict:
    result = entry["result"]
    return {"question": _asked(entry), "settings": dict(result.settings or {})}


def _sentence_fields(s: Sentence | dict) -> dict:
    get = s.get if isinstance(s, dict) else (lambda k, d=None: getattr(s, k, d))
    return {"doc_id": get("doc_id"), "i": int(get("i")), "source": get("source"),
            "sentence": (get("sentence") or get("text") or "").strip(), "page": get("page")}


def _is_marked(done: dict, sentence) -> bool:
    """Whether ``sentence`` (the one chosen) is the right sentence this session already recorded:
    its button then says "Marked:" and is disabled, as "Wrong hit" does."""
    return sentence is not None and bool(done.get("right")) and _sentence_fields(sentence)["sentence"] == done["right"]


def status_line(done: dict | None) -> str:
    """What this session marked on an answer, one escaped line (empty when nothing)."""
    if not done:
        return ""
    parts = []
    if done.get("verdict"):
        parts.append("marked helpful" if done["verdict"] == "helpful" else "marked not helpful")
    if done.get("wrong"):
        parts.append(f"{len(done['wrong'])} wrong hit{'s' * (len(done['wrong']) != 1)}")
    if done.get("right"):
        parts.append("right sentence: “" + done["right"][:80] + "”")
    if done.get("golden"):
        parts.append(f"now golden question {done['golden']} (Tune sweeps it)")
    elif done.get("verdict") == "not_helpful" and not done.get("right"):
        parts.append("choose the right sentence under the evidence to make it a test")
    return f'<div class="swr-fb">Feedback · {esc(" · ".join(parts))}</div>' if parts else ""


def answer_feedback(engine: Engine, entry: dict) -> None:
    """Helpful / not helpful under an answer (not for viewers), and what was marked."""
    if not can_give(engine):
        return
    key, kb = answer_key(entry), entry["kb"]
    done = state.FEEDBACK.get().get(key)
    fields = {**_base_fields(entry), "answer_text": entry["result"].answer}
    c1, c2 = st.columns(2)
    c1.button("Helpful", key=KEYS.feedback("up", entry["id"]), icon=":material/thumb_up:",
              on_click=_record, args=(engine, kb, key, "answer", {**fields, "verdict": "helpful"}),
              type="primary" if (done or {}).get("verdict") == "helpful" else "secondary")
    c2.button("Not helpful", key=KEYS.feedback("down", entry["id"]), icon=":material/thumb_down:",
              on_click=_record, args=(engine, kb, key, "answer", {**fields, "verdict": "not_helpful"}),
              type="primary" if (done or {}).get("verdict") == "not_helpful" else "secondary")
    line = status_line(done)
    if line:
        st.html(line)
    if (done or {}).get("error"):
        st.error(md(done["error"]))


def passage_sentences(engine: Engine, entry: dict, passages: list[Passage]) -> list[tuple[int, Sentence]]:
    """Every stored sentence of the passages, as ``(passage number, sentence)`` in reading order
    (fetched once per answer and set of passages)."""
    spans = tuple((p.doc_id, p.first, p.last) for p in passages)
    cached = entry.get("_fb_sentences")
    if cached and cached[0] == spans:
        return cached[1]
    keys = [(p.doc_id, i) for p in passages for i in range(p.first, p.last + 1)]
    found = engine.fetch_sentences(entry["kb"], keys) if keys else {}
    out = [(n, found[(p.doc_id, i)]) for n, p in enumerate(passages, 1) for i in range(p.first, p.last + 1)
           if (p.doc_id, i) in found and found[(p.doc_id, i)].text.strip()]
    entry["_fb_sentences"] = (spans, out)
    return out


def _label(n: int, s: Sentence) -> str:
    text = " ".join(s.text.split())
    return f"[{n}] sentence {s.i + 1}: " + (text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "…")


def _entry_of(view_key: str) -> dict | None:
    """The chat answer an evidence key names (``"3"``: answer 3; ``"3p"``: its live preview)."""
    digits = str(view_key).rstrip("p")
    return next((e for e in state.HISTORY.get() if str(e["id"]) == digits), None)


def view_sentences(engine: Engine, kb: str, view) -> list:
    """The sentences a document view shows, in order: those starting on its PDF pages, or the
    window and ten sentences each side of a text document."""
    if view.kind == "pdf" and view.pages:
        pages = {p.page for p in view.pages}
        return [s for s in engine.doc_sentences(kb, view.doc_id) if s.page in pages and s.text.strip()]
    keys = [(view.doc_id, i) for i in range(max(0, view.first - 10), view.last + 11)]
    found = engine.fetch_sentences(kb, keys)
    return [found[k] for k in keys if k in found and found[k].text.strip()]


def _pick_in_view(engine: Engine, kb: str, key: str, entry_id, fields: dict, options: list) -> None:
    picked = st.session_state.get(KEYS.feedback("dvsent", entry_id))
    if picked is not None and 0 <= picked < len(options):
        _record(engine, kb, key, "right_sentence", {**fields, **_sentence_fields(options[picked])})


def document_feedback(engine: Engine, kb: str, view_key: str, view) -> None:
    """In the document view of a chat answer's hit: "this is the right sentence" on any sentence
    it shows (the same feedback as the picker under the evidence). Nothing for viewers."""
    entry = _entry_of(view_key)
    if entry is None or view is None or not can_give(engine):
        return
    options = view_sentences(engine, kb, view)
    if not options:
        return
    eid, fields = entry["id"], _base_fields(entry)
    st.selectbox("The sentence that answers the question", list(range(len(options))),
                 format_func=lambda k: _view_label(options[k]),
                 key=KEYS.feedback("dvsent", eid), index=None, placeholder="Choose a sentence of this document…")
    chosen = st.session_state.get(KEYS.feedback("dvsent", eid))
    marked = _is_marked(state.FEEDBACK.get().get(answer_key(entry)) or {},
                        options[chosen] if chosen is not None and 0 <= chosen < len(options) else None)
    # not disabled once marked: inside the dialog a disabled button reports no click, and the click's
    # st.rerun() (the whole page, where the answer's feedback line confirms it) would never run
    if st.button(f"{'Marked: ' if marked else ''}This is the right sentence", key=KEYS.feedback("dvright", eid),
                 icon=":material/task_alt:", on_click=_pick_in_view,
                 args=(engine, kb, answer_key(entry), eid, fields, options), disabled=chosen is None):
        st.rerun()  # the whole page: the answer's feedback line shows it


def _view_label(s: Sentence) -> str:
    """``p. 2 · sentence 8: text…`` (the page only for paged documents)."""
    return (f"p. {s.page} · " if s.page else "") + _label(0, s).split("] ", 1)[1]


def _pick_right(engine: Engine, kb: str, key: str, entry_id, fields: dict, options: list) -> None:
    picked = st.session_state.get(KEYS.feedback("sent", entry_id))
    if picked is None or not 0 <= picked < len(options):
        return
    _record(engine, kb, key, "right_sentence", {**fields, **_sentence_fields(options[picked][1])})


def hit_feedback(engine: Engine, entry: dict, passages: list[Passage]) -> None:
    """Under the evidence: "wrong hit" on each hit, and the right sentence among every sentence of
    the passages (not for viewers)."""
    if not can_give(engine) or not passages:
        return
    key, kb, eid = answer_key(entry), entry["kb"], entry["id"]
    done = state.FEEDBACK.get().get(key) or {}
    fields = _base_fields(entry)
    with st.expander("Feedback on the evidence: wrong hits, the right sentence"):
        with errors_shown():
            options = passage_sentences(engine, entry, passages)
            if options:
                st.selectbox("The sentence that answers the question", list(range(len(options))),
                             format_func=lambda k: _label(*options[k]), key=KEYS.feedback("sent", eid),
                             index=None, placeholder="Choose a sentence of the passages…")
                chosen = st.session_state.get(KEYS.feedback("sent", eid))
                marked = _is_marked(done, options[chosen][1] if chosen is not None and 0 <= chosen < len(options)
                                    else None)
                st.button(f"{'Marked: ' if marked else ''}This is the right sentence",
                          key=KEYS.feedback("right", eid), icon=":material/task_alt:", on_click=_pick_right,
                          args=(engine, kb, key, eid, fields, options), disabled=chosen is None or marked)
            wrong = {tuple(w) for w in done.get("wrong", [])}
            for n, p in enumerate(passages, 1):
                for h in p.hits:
                    marked = (p.doc_id, h.i) in wrong
                    st.button(f"{'Marked: ' if marked else ''}Wrong hit [{n}] sentence {h.i + 1}",
                              key=KEYS.feedback("wrong", eid, n, h.i), icon=":material/close:", disabled=marked,
                              on_click=_record,
                              args=(engine, kb, key, "wrong_hit",
                                    {**fields, **_sentence_fields({"doc_id": p.doc_id, "i": h.i, "source": p.source,
                                                                   "sentence": h.sentence, "page": h.page})}))


# -- the Feedback page ---------------------------------------------------------------------------
def settings_text(s: dict) -> str:
    """The knobs an answer was made with, one line (window, top-k, mode/fusion, candidates, cutoff)."""
    if not s:
        return ""
    window = (f"window {s.get('window_size')}" if s.get("window_mode", "fixed") == "fixed"
              else f"{s.get('window_mode')} window {s.get('budget_chars')} chars")
    parts = [window, f"top-k {s.get('top_k')}", mode_text(s.get("mode", ""), s.get("fusion"), s.get("dense_weight")),
             f"candidates {s.get('dense_k')}/{s.get('sparse_k')}"]
    if s.get("min_score") is not None:
        parts.append(f"min score {s.get('min_score')}")
    if "rerank" in (s.get("stages") or []):
        parts.append("reranked")
    return " · ".join(parts)


def not_helpful_frame(rows: list[dict]) -> pd.DataFrame:
    """The answers marked not helpful as a table (plain text cells)."""
    return pd.DataFrame([{"time": (a.get("time") or "").replace("T", " ")[:19], "user": a.get("user") or "",
                          "question": a["question"], "settings": settings_text(a.get("settings") or {}),
                          "right sentence": (a.get("right_sentence") or {}).get("sentence") or "",
                          "wrong hits": len(a.get("wrong_hits") or []), "golden": a.get("golden") or ""}
                         for a in rows],
                        columns=["time", "user", "question", "settings", "right sentence", "wrong hits", "golden"])


def render() -> None:
    """The whole page (``pages/5_Feedback.py``)."""
    base.setup_page("Feedback", base.TAB_ICONS[base.FEEDBACK_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine, knobs=False)
    st.markdown(f"#### {base.ICONS[base.FEEDBACK_PAGE]} Feedback")
    kb = require_kb(ctl)
    with errors_shown():
        feedback_panel(engine, kb)


def feedback_panel(engine: Engine, kb: str) -> None:
    """Counts, the answers marked not helpful with their settings, the CSV export; admins may
    show one user's feedback only."""
    report = engine.feedback(kb)
    if engine.actor.is_admin and report.get("users"):
        who = st.selectbox("User", report["users"], index=None, placeholder="everyone", key=KEYS.feedback_user)
        if who:
            report = engine.feedback(kb, who)
    s = report["summary"]
    st.caption(md(f"Feedback on the answers of knowledge base “{kb}”, kept next to it under SWR_HOME (deleted "
                  "and restored with it). An answer marked not helpful with its right sentence chosen becomes a "
                  "golden question (origin feedback): the preset-questions panel lists it and Tune sweeps it."))
    cols = st.columns(5)
    for c, (label, value) in zip(cols, [("Helpful", s["helpful"]), ("Not helpful", s["not_helpful"]),
                                        ("Wrong hits", s["wrong_hits"]), ("Right sentences", s["right_sentences"]),
                                        ("Golden from feedback", s["golden"])]):
        c.metric(label, value)
    st.markdown("##### Answers marked not helpful")
    rows = report["not_helpful"]
    if rows:
        st.dataframe(not_helpful_frame(rows), hide_index=True, width="stretch")
    else:
        st.caption("None yet.")
    st.download_button("Export CSV", data=report["csv"].encode("utf-8"), file_name=f"feedback-{kb}.csv",
                       mime="text/csv", key=KEYS.feedback_csv, icon=":material/download:", on_click="ignore",
                       disabled=not s["entries"])
