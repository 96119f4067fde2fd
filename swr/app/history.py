"""The chat history of a browser session kept on disk, so a reload or a page switch restores it.

A session is named by an id in the URL (``?s=<32 hex digits>``, :data:`QUERY_KEY`): a reload
keeps the URL, hence the conversation; a new tab without it starts a new one. The id is
re-written into the URL on every run (a page link drops the query string). Files live under
``SWR_HOME/sessions/<owner>/<id>.json``; ``<owner>`` is :func:`owner`, a folder name made from the
signed-in user's name (:func:`folder`). An id in the URL is taken only when the signed-in user has
a conversation of that id: anyone else's id (a pasted link, the last user of a shared desk) starts
a new conversation, silently.

What is kept per answer: question, knowledge base, the answer with its passages and settings
(:class:`swr.engine.AskResult` as JSON), its retrieval parameters and the knowledge base's
fingerprint when it answered. Not kept: the hits' query vectors, so after a reload the last answer
no longer follows the window slider (it is shown as it was made; asking again brings that back).
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import uuid
from pathlib import Path

import streamlit as st

from swr.answer.result import AskResult
from swr.app import state
from swr.core.files import write_json_atomic
from swr.core.params import RetrievalParams
from swr.core.types import Passage, PassageHit

log = logging.getLogger("swr.app.history")
QUERY_KEY = "s"
_SID = re.compile(r"[0-9a-f]{32}")
_OWNER = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_ENTRIES = 200  # kept on disk per session (the newest)


def folder(user: str) -> str:
    """The folder of ``user``'s conversations: the name's safe characters (at most 40) and a hash of
    the whole name, so two names never share a folder and no name escapes ``sessions/``."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", user)[:40]
    return f"{safe}-{hashlib.sha256(user.encode('utf-8')).hexdigest()[:16]}"


def owner() -> str:
    """Whose conversations these are: the signed-in user's folder (:func:`folder`); ValueError when
    nobody is signed in (nothing is then read or written)."""
    user = state.OWNER.get()
    if not user:
        raise ValueError("nobody is signed in")
    return folder(user)


def session_id() -> str:
    """This browser session's id: kept in the session, else taken from the URL when the signed-in
    user has a conversation of that id, else new; always written back into the URL so that a
    reload finds it."""
    sid = state.SESSION_ID.get()
    if not sid:
        given = st.query_params.get(QUERY_KEY, "")
        try:
            mine = _SID.fullmatch(given or "") is not None and path(state_home(), given).is_file()
        except ValueError:
            mine = False
        sid = given if mine else uuid.uuid4().hex
        state.SESSION_ID.set(sid)
    if st.query_params.get(QUERY_KEY) != sid:
        st.query_params[QUERY_KEY] = sid
    return sid


_HOME = state.Slot[str]("history_home")  # SWR_HOME of this session's engine (set by restore)


def state_home() -> Path:
    home = _HOME.get()
    if not home:
        raise ValueError("no history folder yet")
    return Path(home)


def path(home: Path, sid: str, who: str | None = None) -> Path:
    who = who or owner()
    if not _SID.fullmatch(sid) or not _OWNER.fullmatch(who):
        raise ValueError("bad session id or owner")
    return Path(home) / "sessions" / who / f"{sid}.json"


def entry_to_json(entry: dict) -> dict:
    params: RetrievalParams = entry["params"]
    return {"id": entry["id"], "question": entry["question"], "kb": entry["kb"], "note": entry.get("note"),
            "kb_stamp": entry.get("kb_stamp"), "params": params.to_dict(), "result": entry["result"].to_dict()}


def entry_from_json(d: dict) -> dict:
    r = dict(d["result"])
    r["passages"] = [Passage(**{**p, "hits": [PassageHit(**h) for h in p["hits"]]}) for p in r["passages"]]
    return {"id": int(d["id"]), "question": d["question"], "kb": d["kb"], "note": d.get("note"),
            "kb_stamp": d.get("kb_stamp"), "params": RetrievalParams.from_dict(d["params"]),
            "result": AskResult(**r), "retrieval": None}


def save(home: Path) -> None:
    """Write this session's history (atomically: a reader never sees half a file)."""
    items = state.HISTORY.get() or []
    try:
        # one user's questions and answers: readable by the app's account only (the default mode)
        write_json_atomic(path(home, session_id()), {"entries": [entry_to_json(e) for e in items[-MAX_ENTRIES:]],
                                                     "seq": state.ENTRY_SEQ.get() or 0},
                          ensure_ascii=False, default=str)
    except (OSError, ValueError, TypeError) as exc:  # a full disk must not break the chat
        log.warning("chat history not saved: %s", exc)


def restore(home: Path) -> None:
    """Fill this session's history from disk, once per browser session (the first run)."""
    _HOME.set(str(home))
    if state.HISTORY_LOADED.get():
        return
    state.HISTORY_LOADED.set(True)
    try:
        f = path(home, session_id())
        if not f.is_file():
            return
        data = json.loads(f.read_text(encoding="utf-8"))
        entries = [entry_from_json(e) for e in data.get("entries", [])]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("chat history not restored: %s", exc)
        return
    if not state.HISTORY.get():
        state.HISTORY.set(entries)
        state.ENTRY_SEQ.set(max([int(data.get("seq") or 0)] + [e["id"] for e in entries]))
