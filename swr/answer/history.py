"""The conversation a follow-up comes with: checked (:func:`check_history`), bounded by tokens
(:func:`bound_history`) and its last question (:func:`previous_question`)."""
from __future__ import annotations

from swr.core.rules.answer import DEFAULT_CONDENSE
from swr.core.tokens import count_tokens


def check_history(history: object) -> list[dict]:
    """``history`` as a list of ``{"role": "user"|"assistant", "content": str}``;
    :class:`swr.core.errors.BadRequest` names the first bad entry."""
    from swr.core.errors import BadRequest

    if history is None:
        return []
    if not isinstance(history, list):
        raise BadRequest("history must be a JSON list of {\"role\", \"content\"} objects")
    out = []
    for n, turn in enumerate(history, 1):
        if not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant") \
                or not isinstance(turn.get("content"), str):
            raise BadRequest(f"history entry {n} must be {{\"role\": \"user\"|\"assistant\", "
                             "\"content\": text}")
        out.append({"role": turn["role"], "content": turn["content"]})
    return out


def _cut(text: str, tokens: int) -> str:
    if count_tokens(text) <= tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within the budget
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count_tokens(text[:mid]) <= tokens else (lo, mid - 1)
    return text[:lo] + "…"


def bound_history(history: list[dict], max_tokens: int = DEFAULT_CONDENSE.history_tokens,
                  turn_tokens: int = DEFAULT_CONDENSE.turn_tokens) -> list[dict]:
    """The most recent turns whose text fits ``max_tokens`` (each cut to ``turn_tokens``)."""
    kept: list[dict] = []
    used = 0
    for turn in reversed(history):
        content = _cut(turn["content"].strip(), turn_tokens)
        cost = count_tokens(content) + 4
        if kept and used + cost > max_tokens:
            break
        kept.append({"role": turn["role"], "content": content})
        used += cost
    return list(reversed(kept))


def previous_question(history: list[dict]) -> str | None:
    """The last user turn of the history, if any."""
    return next((t["content"] for t in reversed(history) if t["role"] == "user" and t["content"].strip()),
                None)
