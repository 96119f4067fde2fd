"""The cyclic garbage collector and a serving process's long-lived objects.

A full collection walks every tracked object while holding the GIL: with the models, dictionaries
and caches a first question loads (about 480k objects here), one took 243 ms during
bench/api_load.py's upload, and every question in flight waited for it. Once the process has
answered its first questions, what is alive then is frozen out of the collector (``gc.freeze``):
later collections walk only what came after. Frozen objects are never collected as cyclic garbage
(they are the long-lived ones); reference counting still frees them.
"""
from __future__ import annotations

import gc
import threading

from swr.core.rules.serving import DEFAULT_SERVING, ServingRules

_lock = threading.Lock()
_answered = 0


def answered(rules: ServingRules = DEFAULT_SERVING) -> bool:
    """Count one answered question of this process; at ``rules.freeze_after_questions`` collect
    once and freeze what is alive (once per process). True when it froze now."""
    global _answered
    n = rules.freeze_after_questions
    if n <= 0 or _answered >= n:
        return False
    with _lock:
        _answered += 1
        if _answered != n:
            return False
    gc.collect()
    gc.freeze()
    return True
