"""The Tune page: sweep windows x top-k x modes (and the plain-chunk baseline) over a question set
with expected answers, see hit rate against context size, and apply a configuration to the chat.

The sweep runs with the chat's own :class:`swr.core.params.RetrievalParams` (``Controls.params``), only
window, top-k and mode varied (and the reranker left out); applying a row writes those very params
back to the sidebar (:func:`swr.app.state.apply_params`).
"""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from swr import evaluate
from swr.app import base, state
from swr.app.components import published
from swr.app.components.answer import short_value
from swr.app.components.errors import flash, md, show_flash
from swr.app.components.sidebar import MAX_SIDEBAR_TOP_K, MODES, require_kb, sidebar
from swr.app.state import KEYS, TUNE
from swr.app.tune_charts import (
    TUNE_METRICS,
    best_window_row,
    frontier_chart,
    heatmap_chart,
    tune_frame,
)
from swr.core.errors import SwrError
from swr.core.params import (
    MAX_WINDOW,
    SWEEP_BUDGETS,
    SWEEP_TOP_KS,
    SWEEP_WINDOW_MODES,
    SWEEP_WINDOWS,
    WINDOW_MODES,
    RetrievalParams,
)
from swr.engine import Engine
from swr.manage import presets
from swr.manage.render import esc

TUNE_BUDGETS = (300, 600, 1200, 2000)

TUNE_CHUNK_SIZES = [128, 256, 512, 1024]


def render() -> None:
    """The whole page (``pages/2_Tune.py``)."""
    base.setup_page("Tune", base.TAB_ICONS[base.TUNE_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine, knobs=False)
    st.markdown(f"#### {base.ICONS[base.TUNE_PAGE]} Tune retrieval on your own questions")
    kb = require_kb(ctl)
    st.caption("Each question needs expected answer snippets; a question is a hit when one of them occurs in the "
               "context that would be sent to the LLM. Every window x top-k is derived from one search per "
               "question and mode, so large grids stay cheap.")
    questions, source = tune_questions(engine, kb)
    grid = tune_grid(len(questions), ctl.params)
    if grid is not None and questions:
        run_tune(engine, kb, questions, source, grid, ctl.params)
    tune_results(kb, engine)


def sweep_params(params: RetrievalParams) -> tuple[RetrievalParams, list[str]]:
    """The chat's params as a sweep runs them, and notes on what it leaves out (the reranker: a
    smaller top-k is no prefix of a reranked list then)."""
    if "rerank" not in params.stages:
        return params, []
    return (params.with_(stages=tuple(s for s in params.stages if s != "rerank")),
            ["the cross-encoder reranker is left out (applying a configuration switches it off)"])


def knobs_text(params: RetrievalParams) -> str:
    """One line: the knobs a sweep ran with besides window, top-k and mode."""
    parts = [f"fusion {params.fusion}" + (f" (dense {params.dense_weight})" if params.fusion == "weighted" else ""),
             f"candidates {params.dense_k}/{params.sparse_k}"]
    if params.min_score is not None:
        parts.append(f"min score {params.min_score}")
    filters = [f"{k} {short_value(getattr(params, k))}" for k in ("sources", "tags", "lang") if getattr(params, k)]
    parts.append("filters: " + "; ".join(filters) if filters else "no filters")
    return " · ".join(parts)


def tune_questions(engine: Engine, kb: str) -> tuple[list, str | None]:
    """The question-set picker: the knowledge base's preset questions or an uploaded CSV/JSONL file.
    Returns (usable questions, a label of where they come from)."""
    src = st.radio("Question set", ["Preset questions of this knowledge base", "Upload a file"], horizontal=True,
                   key=TUNE.source, label_visibility="collapsed")
    try:
        if src.startswith("Preset"):
            where = presets.golden_source(engine.settings, kb)
            if where is None:
                st.info("This knowledge base has no preset questions yet: add some (question, expected answer) on "
                        "the Knowledge bases page, or upload a question set.")
                return [], None
            qs = presets.golden_questions(engine.settings, kb)
            label, note = f"preset questions of {kb}", f"From {where} (edit them on the Knowledge bases page)."
        else:
            up = st.file_uploader("Question set: CSV (question, expected_answer — several separated by |, optional "
                                  "evidence, source) or JSONL with the same fields", type=["csv", "jsonl"],
                                  key=TUNE.upload)
            if not up:
                return [], None
            fmt = "jsonl" if up.name.lower().endswith(".jsonl") else "csv"
            qs = presets.questions_from_file(up.name, up.getvalue(), fmt)
            label, note = up.name, f"Uploaded {up.name}."
    except SwrError as exc:
        st.error(md(exc.message))
        return [], None
    usable = [q for q in qs if q.question.strip() and (q.answers or q.evidence)]
    skipped = len(qs) - len(usable)
    st.caption(md(f"{note} {len(usable)} usable question{'s' * (len(usable) != 1)}"
                  + (f" ({skipped} without an expected answer skipped)" if skipped else "") + "."))
    if not usable:
        st.warning("No usable question: each needs a question and an expected answer snippet.")
    else:
        question_list(engine, kb, usable, preset=src.startswith("Preset"))
    return usable, label


def question_list(engine: Engine, kb: str, questions: list, *, preset: bool) -> None:
    """The questions the sweep will run, in an expander (escaped): question, expected snippet,
    source, and where a preset came from (``feedback``: an answer marked not helpful)."""
    origin = {}
    if preset:
        try:
            origin = {r["question"].strip(): r.get("origin", "") for r in engine.golden(kb)}
        except SwrError:
            origin = {}
    n_fb = sum(origin.get(q.question.strip()) == "feedback" for q in questions)
    rows = "".join(
        f'<tr class="swr-tq{" swr-tq-fb" if origin.get(q.question.strip()) == "feedback" else ""}">'
        f"<td>{esc(q.question)}</td><td>{esc(' | '.join(q.answers or q.evidence))}</td>"
        f"<td>{esc(q.source or '')}</td><td>{esc(origin.get(q.question.strip(), ''))}</td></tr>" for q in questions)
    n = len(questions)
    title = f"{n} question{'s' * (n != 1)} the sweep runs" + (f" ({n_fb} from feedback)" if n_fb else "")
    with st.expander(title):
        st.html('<table class="swr-tune-qs"><tr><th>question</th><th>expected</th><th>source</th><th>origin</th>'
                f"</tr>{rows}</table>")


def tune_grid(n_questions: int, params: RetrievalParams) -> dict | None:
    """The sweep grid (a form: nothing runs until submitted); the grid when submitted, else None."""
    with st.form("tune-grid", border=True):
        c1, c2, c3 = st.columns([3, 3, 2])
        windows = c1.multiselect("Windows (sentences each side)", list(range(MAX_WINDOW + 1)),
                                 key=TUNE.windows.widget(list(SWEEP_WINDOWS)))
        top_ks = c2.multiselect("Top-k", list(range(1, MAX_SIDEBAR_TOP_K + 1)),
                                key=TUNE.top_ks.widget(list(SWEEP_TOP_KS)))
        modes = c3.multiselect("Modes", MODES, key=TUNE.modes.widget([params.mode]))
        c1, c2 = st.columns([3, 3])
        wmodes = c1.multiselect("Window modes", list(WINDOW_MODES),
                                key=TUNE.window_modes.widget(list(SWEEP_WINDOW_MODES)),
                                help="fixed sweeps the windows above; section and budget sweep the budgets")
        budgets = c2.multiselect("Budgets (characters; section and budget windows)", sorted(
            set(TUNE_BUDGETS) | set(SWEEP_BUDGETS)), key=TUNE.budgets.widget([600, 1200]))
        c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
        chunks = c1.toggle("Chunk baseline", key=TUNE.chunks.widget(True),
                           help="Also measure plain fixed-size chunks (llama-index SentenceSplitter, same "
                                "embedder and store). The first run per size indexes the chunks once.")
        sizes = c2.multiselect("Chunk sizes (tokens)", TUNE_CHUNK_SIZES, key=TUNE.chunk_sizes.widget([256, 512]))
        overlap = c3.number_input("Chunk overlap", 0, 100, step=10, key=TUNE.overlap.widget(20))
        limit = c4.number_input("Questions (0 = all)", 0, None, step=5, key=TUNE.limit.widget(0),
                                help="A seeded random sample of the question set, for a quick first look.")
        go = st.form_submit_button("Run sweep", type="primary", icon=":material/play_arrow:",
                                   disabled=not n_questions)
    for knob, value in ((TUNE.windows, windows), (TUNE.top_ks, top_ks), (TUNE.modes, modes),
                        (TUNE.window_modes, wmodes), (TUNE.budgets, budgets), (TUNE.chunks, chunks),
                        (TUNE.chunk_sizes, sizes), (TUNE.overlap, overlap), (TUNE.limit, limit)):
        knob.keep(value)
    if not go:
        return None
    return {"windows": sorted(windows), "top_ks": sorted(top_ks), "modes": [m for m in MODES if m in modes],
            "window_modes": [m for m in WINDOW_MODES if m in wmodes] or ["fixed"], "budgets": sorted(budgets),
            "chunk_sizes": sorted(sizes) if chunks else [], "chunk_overlap": int(overlap),
            "limit": int(limit) or None}


def _progress_text(p: dict) -> tuple[float, str]:
    if p.get("stage") == "chunks":
        size = str(p.get("kb") or "").rsplit(":", 2)
        what = f"{size[-2]}-token chunks" if len(size) == 3 else "chunks"
        docs = p.get("documents") or p.get("files")
        return (min(1.0, p.get("done", 0) / max(1, p.get("total") or 1)),
                f"Chunk baseline: indexing {what}" + (f" of {docs} documents" if docs else "")
                + f" · {p.get('done', 0):,}/{p.get('total', 0):,} (once per size)")
    rate = p.get("questions_per_s")
    return (min(1.0, p["done"] / max(1, p["total"])),
            f"Question {p['done']}/{p['total']}" + (f" · {rate:,.1f} questions/s" if rate else ""))


def run_tune(engine: Engine, kb: str, questions: list, source: str, grid: dict, chat: RetrievalParams) -> None:
    """Run the sweep with the chat's params and a progress bar; keep the result (``TUNE_RESULT``)."""
    wmodes = grid.get("window_modes", ["fixed"])
    budgets = grid.get("budgets") or list(SWEEP_BUDGETS)
    problem = evaluate.grid_problem(grid["windows"], wmodes, budgets, grid["top_ks"], grid["modes"])
    if problem:  # before the run starts, and counts against the user's rate limit
        st.error(problem)
        return
    qs = evaluate.sample(questions, grid["limit"])
    params, notes = sweep_params(chat)
    shapes = (len(grid["windows"]) if "fixed" in wmodes else 0) + sum(m != "fixed" for m in wmodes) * len(budgets)
    n_cfg = len(grid["modes"]) * len(grid["top_ks"]) * (shapes + len(grid["chunk_sizes"]))
    bar = st.progress(0.0, text=f"Sweeping {n_cfg} configurations over {len(qs)} questions…")
    t0 = time.perf_counter()
    try:
        with engine.batch("tune sweep"):  # the whole sweep: one question of the user's rate limit
            rows = evaluate.sweep(engine, kb, qs, windows=grid["windows"], top_ks=grid["top_ks"],
                                  modes=grid["modes"],
                                  chunk_sizes=grid["chunk_sizes"], chunk_overlap=grid["chunk_overlap"],
                                  progress=lambda p: bar.progress(*_progress_text(p)), details=True, params=params,
                                  window_modes=wmodes, budgets=budgets)
    except SwrError as exc:
        bar.empty()
        st.error(md(exc.message))
        return
    el = time.perf_counter() - t0
    bar.progress(1.0, text=f"Done: {len(rows)} configurations × {len(qs)} questions in {el:.1f} s")
    state.TUNE_RESULT.set({"kb": kb, "source": source, "questions": len(qs), "rows": rows, "params": params,
                           "notes": notes, "grid": grid, "seconds": round(el, 1)})


def apply_config(window: int | None, top_k: int, mode: str, params: RetrievalParams, window_mode: str = "fixed",
                 budget_chars: int | None = None) -> RetrievalParams:
    """Set the chat's knobs to a tested configuration: the params the sweep ran with, at this
    window (or window mode and budget), top-k and mode. Returns them."""
    tested = params.with_(window_size=None if window is None else int(window), top_k=int(top_k), mode=mode,
                          window_mode=window_mode or "fixed", budget_chars=budget_chars)
    state.apply_params(tested)
    return tested


def _picked():
    """(window, top_k, mode, params) of the configuration picked in the Tune results (read in the
    callback, so it is the selection of this very click)."""
    res = state.TUNE_RESULT.get() or {}
    label = st.session_state.get(TUNE.pick)
    row = next((r for r in res.get("rows", []) if r.config.method == "window" and r.config.label() == label), None)
    return None if row is None else (row.config.window_size, row.config.top_k, row.config.mode, res["params"],
                                     row.config.window_mode, row.config.budget_chars)


def _apply_and_flash() -> None:
    picked = _picked()
    if picked is None:
        return
    window, top_k, mode, params, wmode, budget = picked
    apply_config(window, top_k, mode, params, wmode, budget)
    shape = f"window {window}" if wmode in (None, "fixed") else f"{wmode} window, {budget} chars"
    flash("success", f"Applied to the chat: {shape} · top-k {top_k} · {mode} ({knobs_text(params)}).")


def tune_results(kb: str, engine=None) -> None:
    """The kept sweep: table, charts, budget table, missed questions, apply to chat, export."""
    res = state.TUNE_RESULT.get()
    show_flash()
    if not res:
        return
    if res["kb"] != kb:
        st.info(md(f"The last sweep ran on knowledge base {res['kb']}; run one for {kb}."))
        return
    rows = res["rows"]
    df = tune_frame(rows)
    st.markdown("##### Results")
    st.caption(md(f"{res['questions']} questions ({res['source']}) · {len(rows)} configurations · "
                  f"{res['seconds']} s · other knobs as in the chat: {knobs_text(res['params'])}"
                  + ("".join(f" · {n}" for n in res["notes"]))))
    _charts(df)
    table = df.drop(columns=["series"])
    st.dataframe(table.dropna(axis=1, how="all"),  # e.g. no chunk size without the chunk baseline
                 hide_index=True, width="stretch", key=KEYS.tune_table, placeholder="–",  # not "None"
                 column_config={"configuration": st.column_config.TextColumn(width="medium"),
                                **{m: st.column_config.NumberColumn(TUNE_METRICS[m], format="%.3f")
                                   for m in TUNE_METRICS},
                                "context_chars": st.column_config.NumberColumn("ctx chars", format="%.0f"),
                                "context_tokens": st.column_config.NumberColumn("ctx tokens", format="%.0f"),
                                "latency_ms": st.column_config.NumberColumn("p50 ms", format="%.1f")})
    c1, c2 = st.columns([1, 3])
    c1.download_button("Export CSV", data=table.to_csv(index=False).encode("utf-8"), file_name=f"sweep-{kb}.csv",
                       mime="text/csv", key=KEYS.tune_csv, icon=":material/download:", on_click="ignore")
    with c2.expander("Best configuration under a context budget"):
        st.dataframe(pd.DataFrame(evaluate.budget_table(rows)), hide_index=True, width="stretch")
    _use_in_chat(res, engine)


def _charts(df: pd.DataFrame) -> None:
    metrics = [m for m in TUNE_METRICS if df[m].notna().any()] or ["hit_rate"]
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    metric = c1.radio("Metric", metrics, format_func=TUNE_METRICS.get, horizontal=True, key=TUNE.metric)
    modes = [m for m in MODES if m in set(df.loc[df["method"] == "window", "mode"])]
    mode = c2.selectbox("Heatmap mode", modes, key=TUNE.heat_mode) if len(modes) > 1 else modes[0]
    left, right = st.columns([3, 2], gap="medium")
    left.altair_chart(frontier_chart(df, metric), width="stretch", height=380)
    if df.loc[df["method"] == "window", "window_size"].notna().any():  # the heatmap is of fixed windows
        right.altair_chart(heatmap_chart(df, mode, metric), width="stretch",
                           height=max(220, 34 * int(df["top_k"].nunique()) + 120))
    else:
        right.caption("No fixed windows in this sweep: the window x top-k heatmap is of fixed windows.")


def _use_in_chat(res: dict, engine=None) -> None:
    st.markdown("##### Use a configuration in the chat")
    rows = res["rows"]
    windows = [r for r in rows if r.config.method == "window"]
    best = best_window_row(rows)
    labels = [r.config.label() for r in windows]
    c1, c2, c3 = st.columns([3, 1.4, 1.4], vertical_alignment="bottom")  # room for the buttons' labels
    pick = c1.selectbox("Configuration", labels, index=labels.index(best.config.label()) if best else 0,
                        key=TUNE.pick, help="Preselected: the best sentence-window configuration (the highest hit "
                                            "rate and evidence recall with the smallest context).",
                        format_func=lambda lab: _pick_label(windows[labels.index(lab)]))
    row = windows[labels.index(pick)]
    c2.button("Apply to chat", key=KEYS.tune_apply, on_click=_apply_and_flash, width="stretch",
              icon=":material/check:")
    if c3.button("Apply and chat", key=KEYS.tune_apply_go, type="primary", width="stretch",
                 icon=":material/chat:"):
        apply_config(row.config.window_size, row.config.top_k, row.config.mode, res["params"],
                     row.config.window_mode, row.config.budget_chars)
        st.switch_page(base.CHAT_PAGE)
    if engine is not None and published.can_publish(engine, res["kb"]):
        if st.button("Publish for this knowledge base", key="tune_publish", icon=":material/publish:",
                     help="Every agent's chat, the API, MCP, Dify and the CLI then start from this configuration."):
            tested = res["params"].with_(window_size=row.config.window_size, top_k=int(row.config.top_k),
                                         mode=row.config.mode, window_mode=row.config.window_mode or "fixed",
                                         budget_chars=row.config.budget_chars)
            published.publish(engine, res["kb"], tested, origin="tune", evidence=tune_evidence(res, row))
    missed = [o for o in row.outcomes if o.get("hit") is False]
    with st.expander(f"Questions this configuration misses ({len(missed)})"):
        if missed:
            st.dataframe(pd.DataFrame([{"question": o["question"], "context chars": o["chars"]} for o in missed]),
                         hide_index=True, width="stretch")
            st.caption("Open the Compare page to see why: two configurations side by side, and a probe that "
                       "says which limit cut a sentence.")
        else:
            st.caption("None.")


def tune_evidence(res: dict, row) -> dict:
    """The sweep row a publication was chosen on: its figures, the question set and its size."""
    return {"configuration": row.config.label(), "hit_rate": row.hit_rate, "mrr": row.mrr,
            "context_chars": round(row.context_chars or 0), "n": res["questions"], "question_set": res["source"]}


def _pick_label(row) -> str:
    f = (lambda v: "–" if v is None else f"{v:.2f}")
    return (f"{row.config.label()} · hit {f(row.hit_rate)} · MRR {f(row.mrr)} · "
            f"{row.context_chars:,.0f} chars")
