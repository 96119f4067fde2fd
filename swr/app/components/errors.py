"""Showing errors and messages: typed swr errors become ``st.error`` with escaped text."""
from __future__ import annotations

import contextlib

import streamlit as st

from swr.app import state
from swr.core.errors import SwrError
from swr.manage import render


def md(text: object) -> str:
    """Untrusted text as inert Markdown (shown verbatim: no HTML, links or LaTeX)."""
    return render.esc(text)


def show_error(message: str) -> None:
    st.error(md(message))


@contextlib.contextmanager
def errors_shown():
    """Show a swr error raised inside (e.g. the Qdrant server went away) as ``st.error`` and go
    on with the rest of the page, instead of a traceback."""
    try:
        yield
    except SwrError as exc:
        show_error(exc.message)


def flash(kind: str, text: str) -> None:
    """Leave a message for the next run (from a callback)."""
    state.FLASH.set((kind, text))


def show_flash() -> None:
    """Show (once) the message a callback left for this run."""
    msg = state.FLASH.pop()
    if msg:
        kind, text = msg
        getattr(st, kind)(md(text))
