"""The Tune page's table and charts: one row per configuration, each method's Pareto frontier of a
metric against context size, the window x top-k heatmap, the best configuration. No Streamlit."""
from __future__ import annotations

import pandas as pd

TUNE_METRICS = {"hit_rate": "Hit rate", "mrr": "MRR", "evidence_recall": "Evidence recall"}


def series_name(method: str, mode: str, chunk_size, modes: int) -> str:
    name = "sentence windows" if method == "window" else f"chunks {int(chunk_size)}"
    return f"{name} · {mode}" if modes > 1 else name


def tune_frame(rows) -> pd.DataFrame:
    """The sweep as a table: one row per configuration, with its label and chart series."""
    df = pd.DataFrame([{"configuration": r.config.label(), **r.to_dict(), "questions": r.questions} for r in rows])
    if df.empty:
        return df
    for c in ("window_size", "chunk_size"):  # None for the other method: integers with gaps, not floats
        df[c] = df[c].astype("Int64")
    n_modes = df["mode"].nunique()
    df["series"] = [series_name(m, mo, c, n_modes) for m, mo, c in zip(df["method"], df["mode"], df["chunk_size"])]
    return df


def pareto(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Each series' Pareto frontier: no other configuration of it scores higher with less context."""
    keep = []
    for _, g in df.dropna(subset=[metric]).groupby("series", sort=False):
        best = None
        for idx, r in g.sort_values(["context_chars", metric], ascending=[True, False]).iterrows():
            if best is None or r[metric] > best:
                keep.append(idx)
                best = r[metric]
    return df.loc[keep].sort_values(["series", "context_chars"])


def frontier_chart(df: pd.DataFrame, metric: str = "hit_rate"):
    """Metric against mean context size: every configuration a point, each series' frontier a line."""
    import altair as alt

    title = TUNE_METRICS.get(metric, metric)
    d = df.dropna(subset=[metric]).copy()
    d["on_frontier"] = d.index.isin(pareto(d, metric).index)
    # labelLimit=0: the series names are never cut ("chunks 51…"); two columns leave room for them
    color = alt.Color("series:N", title="Method", legend=alt.Legend(orient="bottom", columns=2, labelLimit=0))
    tooltip = [alt.Tooltip("configuration:N"), alt.Tooltip(f"{metric}:Q", title=title, format=".3f"),
               alt.Tooltip("mrr:Q", title="MRR", format=".3f"),
               alt.Tooltip("context_chars:Q", title="context chars", format=",.0f"),
               alt.Tooltip("context_tokens:Q", title="context tokens", format=",.0f"),
               alt.Tooltip("latency_ms:Q", title="p50 ms", format=".1f")]
    x = alt.X("context_chars:Q", title="Mean context size (characters sent to the LLM)")
    y = alt.Y(f"{metric}:Q", title=title, scale=alt.Scale(domain=[0, 1]))
    points = alt.Chart(d).mark_point(filled=True, size=70).encode(
        x=x, y=y, color=color, tooltip=tooltip,
        opacity=alt.condition("datum.on_frontier", alt.value(1.0), alt.value(0.35)),
        shape=alt.Shape("on_frontier:N", title="On the frontier",
                        scale=alt.Scale(domain=[True, False], range=["circle", "triangle"]), legend=None))
    line = alt.Chart(d[d["on_frontier"]]).mark_line(strokeWidth=2).encode(
        x=x, y=y, color=color, order="context_chars:Q", tooltip=tooltip)
    return (line + points).properties(height=360, title=f"{title} against context size (lines: the frontier)")


def heatmap_chart(df: pd.DataFrame, mode: str, metric: str = "hit_rate"):
    """Window x top-k grid of the metric for the sentence windows of one mode."""
    import altair as alt

    title = TUNE_METRICS.get(metric, metric)
    d = df[(df["method"] == "window") & (df["mode"] == mode)].dropna(subset=[metric, "window_size"]).copy()
    d["window_size"] = d["window_size"].astype(int)  # fixed windows only (section/budget rows have none)
    base = alt.Chart(d).encode(x=alt.X("window_size:O", title="Window (sentences each side)"),
                               y=alt.Y("top_k:O", title="Top-k", sort="descending"))
    rect = base.mark_rect().encode(
        color=alt.Color(f"{metric}:Q", title=title, scale=alt.Scale(domain=[0, 1], scheme="blues")),
        tooltip=[alt.Tooltip("configuration:N"), alt.Tooltip(f"{metric}:Q", title=title, format=".3f"),
                 alt.Tooltip("context_chars:Q", title="context chars", format=",.0f")])
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text(f"{metric}:Q", format=".2f"),
        color=alt.condition(f"datum.{metric} > 0.6", alt.value("white"), alt.value("#1f2328")))
    return (rect + text).properties(height=max(160, 34 * d["top_k"].nunique()),
                                    title=f"{title} by window and top-k ({mode})")


def best_window_row(rows):
    """The best sentence-window configuration: the highest hit rate (then evidence recall) for the
    smallest context, then the higher MRR: the cheapest configuration at the top of the frontier."""
    cands = [r for r in rows if r.config.method == "window"]
    return max(cands, key=lambda r: (r.hit_rate if r.hit_rate is not None else -1.0, r.evidence_recall or 0.0,
                                     -r.context_chars, r.mrr or 0.0), default=None)
