"""Evaluation on the user's own data: golden-question sweeps of sentence windows against plain
chunks, and the "why not retrieved?" probe.

- :mod:`.metrics`: one question's outcome (:func:`judge`, :func:`normalize`), rows of a configuration;
- :mod:`.sweep`: :func:`sweep` (windows x top_ks x modes and the chunk baseline of
  :mod:`swr.evaluate.chunks`, one search per question and mode), :func:`budget_table`, :func:`context_for`;
- :mod:`.probe`: :func:`probe`, under the chat's own retrieval params;
- :mod:`.sets`: question-set files; :mod:`.reports`: Markdown tables and the JSON document.
"""
from __future__ import annotations

from swr.evaluate.metrics import METHODS, ROW_KEYS, Config, Outcome, Row, judge, make_row, normalize
from swr.evaluate.probe import PROBE_LIMIT, chat_ranking, probe, probe_params
from swr.evaluate.reports import format_budgets, format_rows, rows_to_json
from swr.evaluate.sets import guess_format, load_set, sample
from swr.evaluate.sweep import (
    DEFAULT_BUDGETS,
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZES,
    DEFAULT_MODES,
    DEFAULT_TOP_KS,
    DEFAULT_WINDOWS,
    QUERY_BLOCK,
    budget_table,
    context_for,
    grid_problem,
    sweep,
)

__all__ = ["Config", "Row", "Outcome", "sweep", "grid_problem", "budget_table", "probe", "probe_params", "chat_ranking",
           "context_for", "judge", "normalize", "make_row", "load_set", "sample", "guess_format", "format_rows",
           "format_budgets", "rows_to_json", "ROW_KEYS", "PROBE_LIMIT", "METHODS", "QUERY_BLOCK", "DEFAULT_WINDOWS",
           "DEFAULT_TOP_KS", "DEFAULT_MODES", "DEFAULT_BUDGETS", "DEFAULT_CHUNK_SIZES", "DEFAULT_CHUNK_OVERLAP"]
