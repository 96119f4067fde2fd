"""Readable tables and the ``eval --json`` document of a sweep."""
from __future__ import annotations

from collections.abc import Sequence

from swr.evaluate.metrics import Row


def _f(v, nd=3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def _window(r: dict) -> str:
    """``3`` for a fixed window, ``budget 600`` / ``section 600`` for the others, ``–`` for chunks."""
    if r.get("window_mode") in ("section", "budget"):
        return f"{r['window_mode']} {r.get('budget_chars')}"
    return _f(r.get("window_size"))


def format_rows(rows: Sequence[Row | dict]) -> str:
    """A Markdown table of the sweep (readable in a terminal as it is)."""
    rows = [r.to_dict() if isinstance(r, Row) else r for r in rows]
    head = ["method", "mode", "window", "top_k", "chunk", "hit rate", "MRR", "evidence", "ctx chars",
            "ctx tokens", "p50 ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["method"], r["mode"], _window(r), str(r["top_k"]), _f(r["chunk_size"]),
            _f(r["hit_rate"]), _f(r["mrr"]), _f(r["evidence_recall"]), f"{r['context_chars']:.0f}",
            f"{r['context_tokens']:.0f}", f"{r['latency_ms']:.1f}"]) + " |")
    return "\n".join(lines)


def format_budgets(budgets: Sequence[dict]) -> str:
    """A Markdown table: each method's best hit rate under each context budget."""
    head = ["budget (chars)", "method", "hit rate", "MRR", "ctx chars", "best configuration"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for b in budgets:
        if b["hit_rate"] is None:
            cfg, chars = "nothing fits", "–"
        else:
            chars = f"{b['context_chars']:.0f}"
            cfg = (f"{b['mode']}, window {_window(b)}, top_k {b['top_k']}" if b["method"] == "window"
                   else f"{b['mode']}, chunk {b['chunk_size']}, top_k {b['top_k']}")
        lines.append(f"| < {b['budget']} | {b['method']} | {_f(b['hit_rate'])} | {_f(b['mrr'])} | {chars} | {cfg} |")
    return "\n".join(lines)


def rows_to_json(rows: Sequence[Row], budgets: Sequence[dict], **extra) -> dict:
    """The ``eval --json`` document."""
    return {"rows": [r.to_dict() for r in rows], "budgets": list(budgets), **extra}
