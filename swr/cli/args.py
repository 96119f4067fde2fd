"""The command line's arguments: the parser of ``python -m swr`` and the typed parameters its flags
build (every default comes from :mod:`swr.core.params` and the settings, never from here)."""
from __future__ import annotations

import argparse
from pathlib import Path

from swr.core.params import (
    FUSIONS,
    MODES,
    SWEEP_BUDGETS,
    SWEEP_MODES,
    SWEEP_TOP_KS,
    SWEEP_WINDOW_MODES,
    SWEEP_WINDOWS,
    WINDOW_MODES,
    RetrievalParams,
    VerifyParams,
)


def _csv(xs) -> str:
    return ",".join(str(x) for x in xs)


def _retrieval_flags(p: argparse.ArgumentParser, *, filters: bool = True) -> None:
    """The retrieval flags ask, eval and verify share; None everywhere = the settings' default."""
    p.add_argument("--fusion", choices=FUSIONS, default=None, help="hybrid fusion (default from SWR_FUSION)")
    p.add_argument("--dense-weight", type=float, default=None, help="weighted fusion: dense share 0..1 (default 0.5)")
    p.add_argument("--source", action="append", default=[], help="only this source file (repeatable)")
    if filters:
        p.add_argument("--tag", action="append", default=[], help="only sentences with this tag (repeatable)")
        p.add_argument("--lang", default=None, help="only sentences of this language (zh, en)")


# Long on purpose (declarative: one add_argument per flag of every command, read top to bottom like --help).
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m swr", description="Sentence-window retrieval workbench.")
    # long: one declaration per command and flag, read top to bottom as the command line's reference
    p.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")
    sub = p.add_subparsers(dest="cmd", required=True)

    ix = sub.add_parser("index", help="index files or folders into a knowledge base")
    ix.add_argument("paths", nargs="+", type=Path)
    ix.add_argument("--kb", required=True)
    ix.add_argument("--tags", default="", help="comma-separated tags stored with every sentence")
    ix.add_argument("--json", action="store_true")

    ask = sub.add_parser("ask", help="answer a question from a knowledge base, with evidence")
    ask.add_argument("question")
    ask.add_argument("--kb", required=True)
    ask.add_argument("--window-size", type=int, default=None)
    ask.add_argument("--window-mode", choices=WINDOW_MODES, default=None,
                     help="fixed (±window size), section (the hit's list/table/paragraph) or budget "
                          "(default SWR_WINDOW_MODE)")
    ask.add_argument("--budget", type=int, default=None,
                     help="characters of context section and budget windows may use (default SWR_WINDOW_BUDGET)")
    ask.add_argument("--top-k", type=int, default=None)
    ask.add_argument("--mode", choices=MODES, default=None)
    _retrieval_flags(ask)
    ask.add_argument("--no-llm", action="store_true", help="extractive answer even when an LLM is configured")
    ask.add_argument("--history", type=Path, default=None,
                     help='earlier turns, a JSON file [{"role": "user"|"assistant", "content": ...}]: '
                          "QUESTION is a follow-up, searched for as a standalone question")
    ask.add_argument("--json", action="store_true")

    kbs = sub.add_parser("kbs", help="list knowledge bases")
    kbs.add_argument("--docs", action="store_true", help="also list each knowledge base's documents")
    kbs.add_argument("--json", action="store_true")

    de = sub.add_parser("delete", help="delete a knowledge base, or one document of it")
    de.add_argument("--kb", required=True)
    de.add_argument("--doc", default=None, help="document id (see `kbs --docs`); omit to delete the whole KB")
    de.add_argument("--purge", action="store_true", help="delete for good instead of moving it to the trash")
    de.add_argument("--json", action="store_true")

    tr = sub.add_parser("trash", help="list, restore or purge deleted knowledge bases and documents")
    tr.add_argument("action", choices=["list", "restore", "purge"])
    tr.add_argument("id", nargs="?", default=None, help="the entry id (see `trash list`); purge without it: all")
    tr.add_argument("--json", action="store_true")

    ev = sub.add_parser("eval", help="sweep window_size x top_k x mode on a question set, against plain chunks")
    ev.add_argument("questions", type=Path, help="question set: SQuAD-format JSON, CSV or JSONL")
    ev.add_argument("--kb", required=True, help="knowledge base to evaluate (SQuAD articles are indexed into it)")
    ev.add_argument("--format", choices=["squad", "csv", "jsonl"], default=None,
                    help="question-set format (default: from the file)")
    ev.add_argument("--docs", action="append", type=Path, default=[],
                    help="a file or folder to index into --kb first (repeatable)")
    ev.add_argument("--windows", default=_csv(SWEEP_WINDOWS), help="window sizes to sweep (comma-separated)")
    ev.add_argument("--top-k", default=_csv(SWEEP_TOP_KS), help="top_k values to sweep (comma-separated)")
    ev.add_argument("--modes", default=_csv(SWEEP_MODES), help="retrieval modes to sweep: dense,sparse,hybrid")
    ev.add_argument("--chunk-sizes", default="256,512",
                    help="chunk sizes (tokens) of the plain-chunk baseline; 'none' for no baseline")
    ev.add_argument("--chunk-overlap", type=int, default=20, help="chunk overlap (tokens) of the baseline")
    ev.add_argument("--budgets", default=_csv(SWEEP_BUDGETS),
                    help="context budgets (characters) to compare at; also the budgets of section and budget windows")
    ev.add_argument("--window-modes", default=_csv(SWEEP_WINDOW_MODES),
                    help="window modes to sweep: fixed (over --windows), section and budget (over --budgets)")
    ev.add_argument("--max-articles", type=int, default=None, help="SQuAD: only the first N articles")
    ev.add_argument("--max-questions", type=int, default=None,
                    help="a seeded random sample of N questions (seed 0), in file order")
    _retrieval_flags(ev)
    ev.add_argument("--json", action="store_true")

    vf = sub.add_parser("verify", help="check claims against a knowledge base with sliding windows")
    vf.add_argument("claims", nargs="*", metavar="CLAIM", help="claim(s) to verify")
    vf.add_argument("--kb", required=True)
    vf.add_argument("--file", type=Path, default=None,
                    help="more claims: .txt (one per line), .csv (a 'claim' column) or .jsonl ('claim' key)")
    d = VerifyParams()  # the defaults named in the help; the values come from VerifyParams.from_settings
    vf.add_argument("--candidates", type=int, default=None, help=f"chunks retrieved per claim (default {d.candidates})")
    vf.add_argument("--use-top", type=int, default=None, help=f"chunks the windows slide over (default {d.use_top})")
    vf.add_argument("--window", type=int, default=None, help=f"sentences per sliding window (default {d.window})")
    vf.add_argument("--step", type=int, default=None, help=f"sentences the window moves each step (default {d.step})")
    vf.add_argument("--passage-window", type=int, default=None,
                    help=f"chunk = hits +- this many sentences (default {d.passage_window})")
    vf.add_argument("--threshold", type=float, default=None,
                    help="support cosine (default: calibrated per model; see swr/verify/verdict.py)")
    vf.add_argument("--top-k", type=int, default=None, help=f"entries per claim, one per chunk (default {d.top_k})")
    vf.add_argument("--mode", choices=MODES, default=None, help="retrieval mode (default from SWR_MODE)")
    vf.add_argument("--fusion", choices=FUSIONS, default=None, help="hybrid fusion (default from SWR_FUSION)")
    vf.add_argument("--source", action="append", default=[], help="only this source file (repeatable)")
    vf.add_argument("--llm", action="store_true",
                    help="also put each 'supported' to the configured or local LLM (it may take it away)")
    vf.add_argument("--json", action="store_true")

    ck = sub.add_parser("check", help="check an answer, sentence by sentence, against the evidence for a question")
    ck.add_argument("question")
    ck.add_argument("--answer", required=True, help="the answer to check (from any system)")
    ck.add_argument("--kb", required=True)
    ck.add_argument("--top-k", type=int, default=None)
    ck.add_argument("--window-size", type=int, default=None)
    ck.add_argument("--json", action="store_true")

    gd = sub.add_parser("golden", help="list, add or delete the golden (preset) questions of a knowledge base")
    gd.add_argument("action", choices=["list", "add", "delete"])
    gd.add_argument("ids", nargs="*", metavar="ID", help="delete: the ids (see `golden list`) or question texts")
    gd.add_argument("--kb", required=True)
    gd.add_argument("--question", default=None, help="add: the question")
    gd.add_argument("--expected", default=None, help="add: the expected answer snippet the context must contain")
    gd.add_argument("--source", default="", help="add: the source file the answer is in")
    gd.add_argument("--json", action="store_true")

    import swr.cli.serve as cli_serve
    import swr.cli.users as access_cli

    access_cli.add_parser(sub)
    cli_serve.add_parsers(sub)
    return p


def ask_params(default_params, a) -> RetrievalParams:
    """The retrieval params of ``ask``'s flags over ``default_params()`` (``engine.default_params``)."""
    return default_params(window_size=a.window_size, top_k=a.top_k, mode=a.mode, fusion=a.fusion,
                          dense_weight=a.dense_weight, sources=a.source, tags=a.tag, lang=a.lang,
                          window_mode=a.window_mode, budget_chars=a.budget)


def eval_params(default_params, a) -> RetrievalParams:
    """The fixed (not swept) retrieval params of ``eval``'s flags over ``default_params()``."""
    return default_params(fusion=a.fusion, dense_weight=a.dense_weight, sources=a.source, tags=a.tag, lang=a.lang)


def verify_params(settings, a) -> VerifyParams:
    """The verification params of ``verify``'s flags over the settings' defaults."""
    return VerifyParams.from_settings(settings, candidates=a.candidates, use_top=a.use_top, window=a.window,
                                      step=a.step, passage_window=a.passage_window, threshold=a.threshold,
                                      top_k=a.top_k, mode=a.mode, fusion=a.fusion)
