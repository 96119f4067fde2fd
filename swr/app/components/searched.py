"""Follow-up questions in the chat: the recent turns as a conversation, and the "searched for: ..."
line of a follow-up (its standalone search question, editable and re-askable)."""
from __future__ import annotations

import streamlit as st

from swr.answer.result import AskResult
from swr.app import state
from swr.manage.render import esc

_HOW = {"llm": "rewritten by the LLM", "offline": "follow-up, subject carried", "edited": "edited"}


def conversation(readable=lambda kb: True, max_turns: int = 6) -> list[dict]:
    """The recent chat as ``{"role", "content"}`` turns (swr.answer.history bounds it by tokens), of the
    answers from knowledge bases ``readable`` says the user may still read."""
    turns: list[dict] = []
    for entry in [e for e in state.HISTORY.get() if readable(e["kb"])][-max_turns:]:
        turns.append({"role": "user", "content": entry["question"]})
        turns.append({"role": "assistant", "content": entry["result"].answer})
    return turns


def searched_for(entry: dict) -> None:
    """A follow-up's "searched for: ..." line, with an editor that asks again with the edited text."""
    result: AskResult = entry["result"]
    searched = result.standalone_question
    if not searched or searched == entry["question"]:
        return
    how = (result.condense or {}).get("method", "")
    st.html(f'<div class="swr-searched">searched for: <b>{esc(searched)}</b> '
            f'<span class="swr-note">({esc(_HOW.get(how, how))})</span></div>')
    with st.expander("Edit the search and ask again", expanded=False):
        text = st.text_input("Search for", value=searched, key=state.KEYS.searched(entry["id"]))
        st.button("Ask again", key=state.KEYS.reask(entry["id"]), icon=":material/refresh:",
                  on_click=state.queue_question, args=(entry["question"],),
                  kwargs={"searched": text, "note": "edited search"})
