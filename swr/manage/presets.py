"""Preset (golden) questions per knowledge base: ``SWR_HOME/golden/<kb>.csv`` (question,
expected answer, source), the bundled ``samples/golden.csv`` for the sample knowledge base.
Demo mode shows them as buttons; Tune sweeps them. No Streamlit here."""
from __future__ import annotations

import csv
import tempfile
from pathlib import Path

import pandas as pd

from swr import evaluate
from swr.core.errors import SwrError
from swr.core.files import write_text_atomic
from swr.core.settings import Settings
from swr.manage import golden

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_GOLDEN = golden.SAMPLE_GOLDEN
GOLDEN_COLUMNS = golden.COLUMNS


def golden_path(settings: Settings, kb: str) -> Path:
    """``SWR_HOME/golden/<kb>.csv`` (a name that is safe as a file name; :func:`swr.manage.golden.golden_path`)."""
    return golden.golden_path(settings, kb)


def golden_source(settings: Settings, kb: str) -> str | None:
    """Where the preset questions of ``kb`` come from (a path, the bundled file), None if none."""
    path = golden_path(settings, kb)
    if path.is_file():
        return str(path)
    return "the bundled samples/golden.csv" if kb == settings.sample_kb and SAMPLE_GOLDEN.is_file() else None


def load_golden(settings: Settings, kb: str) -> pd.DataFrame:
    """The golden questions of ``kb``: its saved file, the bundled file for the sample KB, or none."""
    path = golden_path(settings, kb)
    if not path.is_file() and kb == settings.sample_kb and SAMPLE_GOLDEN.is_file():
        path = SAMPLE_GOLDEN
    if path.is_file():
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    else:
        df = pd.DataFrame(columns=GOLDEN_COLUMNS)
    for c in GOLDEN_COLUMNS:
        if c not in df.columns:
            df[c] = ""
    return df[GOLDEN_COLUMNS + [c for c in df.columns if c not in GOLDEN_COLUMNS]].astype(str)


def save_golden(settings: Settings, kb: str, df: pd.DataFrame) -> Path:
    """Write the edited preset questions of ``kb`` (rows without a question dropped), atomically."""
    df = df.fillna("").astype(str)
    df = df[df["question"].str.strip() != ""]
    return write_text_atomic(golden_path(settings, kb), df.to_csv(index=False), mode=None)


def preset_questions(settings: Settings, kb: str | None) -> list[str]:
    if not kb:
        return []
    return [q for q in load_golden(settings, kb)["question"].tolist() if q.strip()]


def questions_from_file(name: str, data: bytes, fmt: str):
    """Questions (:class:`swr.evaluate.questions.Question`) from CSV/JSONL bytes, parsed by the same
    loader as ``swr eval``; a clear error naming the file when they are not a question set."""
    suffix = ".jsonl" if fmt == "jsonl" else ".csv"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"questions{suffix}"
        path.write_bytes(data)
        try:
            return evaluate.load_set(path, fmt)[1]
        except (KeyError, TypeError, ValueError, csv.Error) as exc:
            what = f"column/field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            raise SwrError(f"{name}: not a question set ({what}). Expected CSV with a header "
                           "question,expected_answer[,evidence,source] or JSONL with those fields.") from exc


def golden_questions(settings: Settings, kb: str):
    """The knowledge base's preset (golden) questions as :class:`swr.evaluate.questions.Question`."""
    df = load_golden(settings, kb)
    return questions_from_file("preset questions", df.to_csv(index=False).encode("utf-8"), "csv")
