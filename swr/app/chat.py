"""The chat page: ask the selected knowledge base; every answer shows its evidence beside it, and
the last one follows the window and knobs at once (re-windowed without embedding, re-ranked from
the cached query vector) until it is regenerated."""
from __future__ import annotations

import time
from dataclasses import dataclass, fields

import streamlit as st

from swr.answer.prompt import context_text
from swr.answer.result import AskResult
from swr.app import base, feedback as fb, history, shared, state
from swr.app.components import docview, evidence as ev, passages as cards
from swr.app.components.answer import answer_card, short_value
from swr.app.components.errors import errors_shown, md
from swr.app.components.searched import conversation, searched_for
from swr.app.components.sidebar import Controls, require_kb, sidebar
from swr.core.errors import LLMUnavailable, NotFound, StoreUnavailable, SwrError
from swr.core.params import MAX_QUESTION_CHARS, RetrievalParams
from swr.core.tokens import count_tokens
from swr.core.types import Passage
from swr.engine import Engine
from swr.manage import presets
from swr.manage.render import esc, esc_md_lines
from swr.retrieve.search import Retrieval

_PARAM_LABELS = {"top_k": "top-k", "mode": "mode", "fusion": "fusion", "dense_weight": "dense weight",
                 "dense_k": "dense candidates", "sparse_k": "sparse candidates", "sources": "files",
                 "tags": "tags", "lang": "language", "min_score": "score cutoff", "stages": "post-fusion steps"}


def render() -> None:
    """The whole page (``app.py``)."""
    base.setup_page("Chat", base.TAB_ICONS[base.CHAT_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine)
    answer_id = shared.requested()
    if answer_id:  # a permalink: that one answer (or "not found"), not the chat
        st.markdown(f"#### {base.ICONS[base.CHAT_PAGE]} Shared answer")
        shared.render_shared(engine, answer_id)
        return
    st.markdown(f"#### {base.ICONS[base.CHAT_PAGE]} Ask your documents")
    require_kb(ctl)
    prompt = st.chat_input("Ask a question about the selected knowledge base…", max_chars=MAX_QUESTION_CHARS,
                           key=state.KEYS.chat_input)
    pending = take_pending(prompt)
    pending = kb_gone_notice(ctl, pending)
    if not state.HISTORY.get() and not pending and not state.FAILED.get():
        empty_state(engine, ctl)
    render_history(engine, ctl, live=pending is None)
    if pending:
        ask(engine, ctl, pending)
    if len(state.HISTORY.get()) > 1:  # a scrolled-up reader can always get to the newest answer
        st.html('<a class="swr-jump" href="#swr-latest">↓ Latest answer</a>')


def kb_gone_notice(ctl: Controls, pending: dict | None) -> dict | None:
    """The knowledge base this session had selected was deleted meanwhile (by another user, or in
    another tab): say so; a question asked now is NOT run against the one the selection fell back
    to, it is kept (with "Ask again") until the user asks it deliberately."""
    gone = state.KB_GONE.get()
    if not gone:
        return pending
    msg = (f"The knowledge base “{gone}” you had selected was deleted (perhaps by another user); "
           f"“{ctl.kb}” is selected now." if ctl.kb else f"The knowledge base “{gone}” was deleted.")
    if pending:
        state.KB_GONE.pop()
        state.FAILED.set({"question": pending["question"], "note": pending.get("note"), "retry": bool(ctl.kb),
                          "error": msg + " Your question was not asked: ask it again to ask "
                                         f"“{ctl.kb}”." if ctl.kb else msg})
        return None
    st.warning(md(msg + " It may be in the trash (Knowledge bases page)."), icon=":material/warning:")
    return None


def take_pending(prompt: str | None) -> dict | None:
    """The question to ask in this run: typed into the chat input, or queued by a button."""
    pending = state.PENDING.pop()
    if prompt and prompt.strip():
        pending = {"question": prompt}
    if pending:
        state.FAILED.pop()  # a new question replaces the one that failed
    return pending


def kb_stamp(engine: Engine, kb: str) -> str | None:
    """A fingerprint of a knowledge base's documents (ids, versions, sizes); None when it is gone."""
    try:
        docs = engine.docs(kb)
    except NotFound:
        return None
    return "|".join(sorted(f"{d.doc_id}:{d.indexed_at}:{d.sentences}" for d in docs if d.complete))


def stale_note(engine: Engine, entry: dict, stamps: dict) -> str | None:
    """Why an answer may no longer hold: its knowledge base has since been deleted or changed."""
    kb = entry["kb"]
    if kb not in stamps:
        stamps[kb] = kb_stamp(engine, kb)
    now = stamps[kb]
    if now is None:
        return f"The knowledge base “{kb}” has been deleted since this answer."
    if entry.get("kb_stamp") is not None and now != entry["kb_stamp"]:
        return f"The knowledge base “{kb}” has changed since this answer (documents added, replaced or deleted)."
    return None


def render_history(engine: Engine, ctl: Controls, *, live: bool) -> None:
    """Every question and answer; the last one follows the current window and knobs when ``live``.
    Then the last question if it failed (kept with its error until the next question)."""
    items = state.HISTORY.get()
    stamps: dict = {}
    for k, entry in enumerate(items):
        last = k == len(items) - 1
        if last and live:
            st.html('<div id="swr-latest"></div>')
        if not engine.actor.can_read(entry["kb"]):  # a grant taken away: the answer is not shown
            _unavailable(entry)
            continue
        note = None  # a store error (shown by errors_shown) leaves the answer unmarked
        with errors_shown():
            note = stale_note(engine, entry, stamps)
        _render_entry(engine, entry, ctl if live and last and not note else None, stale=note)
    failed = state.FAILED.get()
    if failed:
        with st.chat_message("user"):
            _user_bubble(failed["question"], failed.get("note"))
        with st.chat_message("assistant"):
            _failure(failed)


NO_LONGER_AVAILABLE = "This knowledge base is no longer available to you."


def _unavailable(entry: dict) -> None:
    """An earlier answer from a knowledge base the user may no longer read: its question, and that
    note in place of the answer, its evidence and its feedback."""
    with st.chat_message("user"):
        _user_bubble(entry["question"], None)
    with st.chat_message("assistant"):
        st.info(NO_LONGER_AVAILABLE, icon=":material/lock:")


def _failure(failed: dict) -> None:
    """A question's error; "Ask again" when it may pass later (the store was unreachable)."""
    st.error(md(failed["error"]))
    if failed.get("retry"):
        st.button("Ask again", key=state.KEYS.retry_failed, icon=":material/refresh:", on_click=state.queue_question,
                  args=(failed["question"],))


def _next_id() -> int:
    n = (state.ENTRY_SEQ.get() or 0) + 1
    state.ENTRY_SEQ.set(n)
    return n


def _columns():
    return st.columns([5, 7], gap="medium")


def _user_bubble(question: str, note: str | None) -> None:
    extra = f' <span class="swr-note">· {esc(note)}</span>' if note else ""
    st.html(f'<div class="swr-q">{esc(question)}{extra}</div>')


def ask(engine: Engine, ctl: Controls, pending: dict) -> None:
    """Retrieve, show the evidence at once, stream the answer, keep it in the history."""
    question = pending["question"]
    params: RetrievalParams = pending.get("params") or ctl.params
    with st.chat_message("user"):
        _user_bubble(question, pending.get("note"))
    with st.chat_message("assistant"):
        try:
            searched, how = pending.get("searched"), {"method": "edited"}
            if not searched and not pending.get("retrieval") and state.HISTORY.get():  # a follow-up
                cond = engine.condense(question, conversation(engine.actor.can_read))
                searched, how = cond.standalone, {"method": cond.method, "llm_error": cond.llm_error}
            retrieval = pending.get("retrieval") or engine.retrieve(searched or question, ctl.kb, params)
            result, stream = engine.ask_stream(question, retrieval.kb, params, retrieval=retrieval)
            result.question, result.standalone_question = question, retrieval.question
            if searched:
                result.condense = how
        except SwrError as exc:
            failed = {"question": question, "note": pending.get("note"), "error": exc.message,
                      "retry": isinstance(exc, (StoreUnavailable, NotFound))}
            state.FAILED.set(failed)  # kept (with its error) until the next question
            _failure(failed)
            return
        entry = {"id": _next_id(), "question": question, "kb": retrieval.kb, "result": result,
                 "retrieval": retrieval, "params": params, "note": pending.get("note"),
                 "kb_stamp": kb_stamp(engine, retrieval.kb)}
        st.html('<div id="swr-latest"></div>')
        searched_for(entry)
        left, right = _columns()
        with right:
            _evidence(entry, result.passages, result.context_chars, result.context_tokens, engine)
            fb.hit_feedback(engine, entry, result.passages)
        with left:
            if stream is not None:
                slot = st.empty()
                with slot.container():
                    _stream_answer(engine, result, stream)
                slot.empty()
            check_answer(engine, result)
            answer_card(result, cards.anchor(entry["id"]), export_key=str(entry["id"]), engine=engine)
            fb.answer_feedback(engine, entry)
            shared.share_button(engine, entry)
    state.HISTORY.get().append(entry)
    history.save(engine.settings.home)


def check_answer(engine: Engine, result: AskResult) -> None:
    """Check each answer sentence against the evidence (``result.check``); a failure of the check
    is said, and the answer is shown unchecked."""
    try:
        with st.spinner("Checking each sentence against the evidence…"):
            engine.check(result)
    except SwrError as exc:
        st.warning(md(f"The answer could not be checked against the evidence: {exc.message}"),
                   icon=":material/warning:")


def _stream_answer(engine: Engine, result: AskResult, stream) -> None:
    """``st.write_stream`` the LLM's deltas (escaped), then let ``engine.finish`` record the answer
    or, on an LLM failure, fall back to the extractive answer with ``llm_error`` set."""
    parts: list[str] = []
    failure: list[LLMUnavailable] = []

    def deltas():
        try:
            for delta in stream:
                parts.append(delta)
                yield esc_md_lines(delta)
        except LLMUnavailable as exc:
            failure.append(exc)

    t0 = time.perf_counter()
    st.html('<span class="swr-kind llm">LLM answer · streaming…</span>')
    st.write_stream(deltas())

    def replay():
        yield from parts
        if failure:
            raise failure[0]

    engine.finish(result, replay())
    result.timings["llm_ms"] = round((time.perf_counter() - t0) * 1000, 2)


def _render_entry(engine: Engine, entry: dict, ctl: Controls | None, *, stale: str | None = None) -> None:
    result: AskResult = entry["result"]
    with st.chat_message("user"):
        _user_bubble(entry["question"], entry.get("note"))
    with st.chat_message("assistant"):
        searched_for(entry)
        left, right = _columns()
        with left:
            if stale:
                st.html(f'<div class="swr-stale">⚠ {esc(stale)}</div>')
            answer_card(result, cards.anchor(entry["id"]), export_key=str(entry["id"]), engine=engine)
            fb.answer_feedback(engine, entry)
            shared.share_button(engine, entry)
        with right:
            view = _live_view(engine, entry, ctl) if ctl else None
            if view is None:
                _evidence(entry, result.passages, result.context_chars, result.context_tokens, engine)
                fb.hit_feedback(engine, entry, result.passages)
            else:
                _preview(entry, view, engine)


@dataclass
class LiveView:
    retrieval: Retrieval
    params: RetrievalParams
    passages: list[Passage]
    changes: list[str]


WINDOW_FIELDS = ("window_size", "window_mode", "budget_chars")  # re-windowing needs no new search


def param_changes(old: RetrievalParams, new: RetrievalParams) -> list[str]:
    """``top-k 3 → 8``, ... for every retrieval field (not the window) that differs."""
    out = []
    for f in fields(RetrievalParams):
        a, b = getattr(old, f.name), getattr(new, f.name)
        if f.name == "stages" and ("rerank" in a) == ("rerank" in b):
            continue  # a cutoff switched on or off already shows as the score cutoff's change
        if f.name not in WINDOW_FIELDS and a != b:
            out.append(f"{_PARAM_LABELS.get(f.name, f.name)} {short_value(a, f.name)} → {short_value(b, f.name)}")
    return out


def _live_view(engine: Engine, entry: dict, ctl: Controls) -> LiveView | None:
    """The last answer's evidence at the current window and knobs, when they differ from the
    ones it was made with: re-windowed without embedding, re-ranked from the cached query vector."""
    made: RetrievalParams = entry["params"]
    now = ctl.params
    retrieval: Retrieval | None = entry.get("retrieval")
    if ctl.kb != entry["kb"] or retrieval is None:  # None: restored from disk (no query vectors kept)
        return None
    changes = param_changes(made, now)
    if changes:
        key = now.with_(window_size=0)
        cached = entry.get("_rerank")
        if not cached or cached[0] != key:
            try:
                cached = (key, engine.retrieve(retrieval.question, retrieval.kb, now))
            except SwrError as exc:
                st.error(md(exc.message))
                return None
            entry["_rerank"] = cached
        retrieval = cached[1]
    if now.window_size != made.window_size:
        changes.insert(0, f"window {made.window_size} → {now.window_size}")
    if now.window_mode != made.window_mode:
        changes.insert(0, f"window mode {made.window_mode} → {now.window_mode}")
    if now.budget_chars != made.budget_chars and now.window_mode != "fixed":
        changes.insert(0, f"budget {made.budget_chars} → {now.budget_chars} chars")
    if not changes:
        return None
    try:
        passages = engine.passages(retrieval, now.window_size, window_mode=now.window_mode,
                                   budget_chars=now.budget_chars)
    except SwrError as exc:
        st.error(md(exc.message))
        return None
    return LiveView(retrieval, now, passages, changes)


def _evidence(entry: dict, passages: list[Passage], chars: int, tokens: int, engine=None) -> None:
    answered = getattr(entry["result"], "answerable", True)  # else the closest passages, not an answer
    ev.evidence(str(entry["id"]), cards.anchor(entry["id"]), passages, chars, tokens, engine=engine, kb=entry["kb"],
                title="Evidence" if answered else "Closest, not an answer",
                query_tokens=getattr(entry["result"], "query_tokens", None))


def _preview(entry: dict, view: LiveView, engine=None) -> None:
    result: AskResult = entry["result"]
    chars = sum(len(p.text) for p in view.passages)
    tokens = count_tokens(context_text(view.passages))
    st.html(f'<div class="swr-preview"><b>Preview</b> · {esc("; ".join(view.changes))} · '
            "not yet used by the answer</div>")
    st.button("Regenerate answer with this context", key=state.KEYS.regenerate(entry['id']), type="primary",
              icon=":material/refresh:", on_click=state.queue_question, args=(entry["question"],),
              kwargs={"retrieval": view.retrieval, "params": view.params,
                      "note": "regenerated: " + "; ".join(view.changes)})
    st.html(ev.head(view.passages, chars, tokens, "would send", query_tokens=view.retrieval.query_tokens))
    ev.scroll_cards(f"{entry['id']}-preview", cards.cards(cards.anchor(entry["id"], "p"), view.passages))
    if engine is not None:
        docview.controls(engine, entry["kb"], f"{entry['id']}p", view.passages)
    with st.expander(f"Evidence the answer was made with (window {result.settings.get('window_size')})"):
        ev.scroll_cards(f"{entry['id']}-made", cards.cards(cards.anchor(entry["id"]), result.passages))


def empty_state(engine: Engine, ctl: Controls) -> None:
    """What a first-time visitor sees: what to do and a few questions to click."""
    if ctl.demo:
        tip = ("Click a preset question in the sidebar, or type your own below. Each answer shows its "
               "evidence beside it: the hit sentences highlighted inside their window.")
    else:
        tip = ("Ask a question about the documents of this knowledge base. Each answer shows its evidence "
               "beside it: the hit sentences highlighted inside their window. Move the <b>window</b> slider "
               "to see more or less context at once, without re-embedding anything.")
    st.html(f'<div class="swr-empty">{tip}</div>')
    if not ctl.demo:
        questions = presets.preset_questions(engine.settings, ctl.kb)[:4]
        if questions:
            st.caption("Try one of these")
            cols = st.columns(2)
            for k, q in enumerate(questions):
                cols[k % 2].button(q, key=state.KEYS.try_question(k), on_click=state.queue_question, args=(q,),
                                   width="stretch")
