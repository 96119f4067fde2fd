"""Claim lists in and verdicts out: an uploaded list of claims (:func:`read_claims`) and a claim's
verdict as plain text (:func:`format_result`, the CLI's output)."""
from __future__ import annotations

import csv
import io
import json

from swr.core.errors import BadRequest
from swr.verify.results import VerifyResult


def read_claims(name: str, data: bytes) -> list[str]:
    """Claims from an uploaded list: ``.csv`` (a ``claim`` column, else the first column),
    ``.jsonl`` (the ``claim`` key, or a bare string per line), anything else one claim per line."""
    text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    low = (name or "").lower()
    claims: list[str] = []
    if low.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        if rows:
            head = [h.strip().lower() for h in rows[0]]
            col = head.index("claim") if "claim" in head else 0
            body = rows[1:] if "claim" in head else rows
            claims = [r[col] for r in body if len(r) > col]
    elif low.endswith((".jsonl", ".ndjson")):
        for n, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise BadRequest(f"{name}: line {n} is not JSON.") from None
            claims.append(obj if isinstance(obj, str) else str((obj or {}).get("claim", "")))
    else:
        claims = text.split("\n")
    return [c.strip() for c in claims if c and c.strip()]


def format_result(r: VerifyResult) -> str:
    """A claim's verdict, reasons and entries as plain text (the CLI's output; 1-based sentences)."""
    best = f"best {r.best.score:.4f}" if r.best else "no candidate"
    lines = [f"{r.verdict.upper()}  ({best}, support cosine {r.threshold:g})  {r.claim}"]
    lines += [f"  because: {why}" for why in r.reasons]
    for n, e in enumerate(r.entries, 1):
        mark = {"supports": "+", "contradicts": "x"}.get(e.role, "-")
        paths = ", ".join(f"{p} {v:.4f}" for p, v in e.paths.items())
        lines.append(f"  {mark} [{n}] {e.role}: {e.source} sentences {e.window_first + 1}-{e.window_last + 1} "
                     f"of chunk {e.chunk_first + 1}-{e.chunk_last + 1}: {e.score:.4f} ({paths})")
        lines.append("        " + e.text.replace("\n", "\n        "))
    return "\n".join(lines)
