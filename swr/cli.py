"""`python -m swr index|ask|kbs|delete|trash|eval|verify|check`. With ``--json`` one JSON document goes to
stdout; logs and progress go to stderr."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from .errors import BadRequest, SwrError
from .params import (
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
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m swr", description="Sentence-window retrieval workbench.")
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
                    help="support cosine (default: calibrated per model; see swr/verdict.py)")
    vf.add_argument("--top-k", type=int, default=None, help=f"entries per claim, one per chunk (default {d.top_k})")
    vf.add_argument("--mode", choices=MODES, default=None, help="retrieval mode (default from SWR_MODE)")
    vf.add_argument("--fusion", choices=FUSIONS, default=None, help="hybrid fusion (default from SWR_FUSION)")
    vf.add_argument("--source", action="append", default=[], help="only this source file (repeatable)")
    vf.add_argument("--json", action="store_true")

    ck = sub.add_parser("check", help="check an answer, sentence by sentence, against the evidence for a question")
    ck.add_argument("question")
    ck.add_argument("--answer", required=True, help="the answer to check (from any system)")
    ck.add_argument("--kb", required=True)
    ck.add_argument("--top-k", type=int, default=None)
    ck.add_argument("--window-size", type=int, default=None)
    ck.add_argument("--json", action="store_true")

    from .access import cli as access_cli

    access_cli.add_parser(sub)
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


def _expand(paths: list[Path]) -> list[Path]:
    from .load import SUPPORTED

    out = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED))
        else:
            out.append(p)
    return out


def _engine():
    from .engine import Engine
    from .settings import Settings

    return Engine(Settings.from_env())


def cmd_index(a) -> dict:
    from tqdm import tqdm

    files = _expand(a.paths)
    eng = _engine()
    bar = tqdm(total=0, unit="sent", file=sys.stderr, disable=a.json and not sys.stderr.isatty())
    state = {"file": None}

    def progress(ev):
        if ev["file"] != state["file"]:
            state["file"] = ev["file"]
            bar.reset(total=ev["total"])
            bar.set_description(f"[{ev['file_no'] + 1}/{ev['files']}] {ev['file'][:40]}")
        bar.n = ev["done"]
        bar.refresh()

    tags = [t.strip() for t in a.tags.split(",") if t.strip()]
    results = eng.index_files(a.kb, files, tags=tags, progress=progress)
    bar.close()
    info = eng.embedder.info()
    eng.close()
    return {"kb": a.kb, "files": [r.to_dict() for r in results],
            "indexed": sum(r.ok for r in results), "failed": sum(not r.ok for r in results),
            "sentences": sum(r.sentences for r in results if r.ok and not r.skipped),
            "embedding": info}


def _read_history(path: Path) -> list[dict]:
    """The ``--history`` file: a JSON list of turns (checked by swr.condense)."""
    from .condense import check_history

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"--history {path}: not a readable JSON file ({type(exc).__name__}: {exc})") from None
    return check_history(data)


def cmd_ask(a) -> dict:
    from .check import check_answer

    eng = _engine()
    history = _read_history(a.history) if a.history else None
    res = eng.ask(a.question, a.kb, ask_params(eng.default_params, a), llm=not a.no_llm, history=history)
    out = res.to_dict()
    # the per-sentence check of a written answer (an extractive one is the evidence itself)
    out["check"] = (check_answer(eng, res.question, res.answer, res.passages, kb=a.kb).to_dict()
                    if res.answer_kind == "llm" and res.answerable else None)
    eng.close()
    return out


def cmd_check(a) -> dict:
    from .check import check_answer

    eng = _engine()
    try:
        res = eng.ask(a.question, a.kb, eng.default_params(window_size=a.window_size, top_k=a.top_k), llm=False)
        out = check_answer(eng, res.question, a.answer, res.passages, kb=a.kb).to_dict()
    finally:
        eng.close()
    out.update({"question": res.question, "kb": a.kb, "answer": a.answer, "answerable": res.answerable,
                "answerable_score": res.answerable_score,
                "passages": [{"n": n, "source": p.source, "first": p.first, "last": p.last, "text": p.text}
                             for n, p in enumerate(res.passages, 1)]})
    if not a.json:
        print(f"support {out['support']:.0%} over {len(out['sentences'])} sentence(s)")
        for s in out["sentences"]:
            mark = "+" if s["supported"] and not s["bad_citations"] else "!"
            where = f" [passage {s['passage']}]" if s["passage"] else ""
            print(f"  {mark} {s['verdict']}{where}: {s['text']}")
            for why in s["reasons"]:
                print(f"      because: {why}")
    return out


def cmd_kbs(a) -> dict:
    eng = _engine()
    out = eng.kbs()
    if a.docs:
        for kb in out:
            kb["docs"] = [d.to_dict() for d in eng.docs(kb["kb"])]
    eng.close()
    return {"kbs": out}


def cmd_delete(a) -> dict:
    eng = _engine()
    if a.doc:
        n = eng.delete_doc(a.kb, a.doc, trash=not a.purge)
    else:
        n = eng.delete_kb(a.kb, trash=not a.purge)
    entry = None if a.purge else next((e for e in eng.trash.entries() if e.kb == a.kb and e.doc_id == a.doc), None)
    eng.close()
    return {"kb": a.kb, "doc": a.doc, "deleted_sentences": n, "trash": entry.to_dict() if entry else None}


def cmd_trash(a) -> dict:
    eng = _engine()
    try:
        if a.action == "restore":
            if not a.id:
                raise BadRequest("`trash restore` needs the entry id (see `trash list`).")
            return {"action": "restore", "restored": [eng.trash.restore(a.id).to_dict()]}
        if a.action == "purge":
            return {"action": "purge", "purged": [e.to_dict() for e in eng.trash.purge(a.id)]}
        entries = [e.to_dict() for e in eng.trash.entries()]
        return {"action": "list", "days": eng.settings.trash_days, "entries": entries}
    finally:
        eng.close()


def _int_list(text: str, flag: str) -> list[int]:
    if text.strip().lower() in ("", "none", "0") and flag == "--chunk-sizes":
        return []
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SwrError(f"{flag} takes comma-separated integers, not {text!r}.") from None


# Long on purpose (one command top to bottom: load the set, index it, sweep, report).
def cmd_eval(a) -> dict:
    import time

    from tqdm import tqdm

    from . import evaluate as ev

    if not a.questions.is_file():
        raise SwrError(f"No question set at {a.questions}.")
    windows, top_ks = _int_list(a.windows, "--windows"), _int_list(a.top_k, "--top-k")
    chunk_sizes, budgets = _int_list(a.chunk_sizes, "--chunk-sizes"), _int_list(a.budgets, "--budgets")
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    if any(m not in MODES for m in modes):
        raise SwrError(f"--modes takes dense, sparse and/or hybrid, not {a.modes!r}.")
    window_modes = [m.strip() for m in a.window_modes.split(",") if m.strip()]
    if not window_modes or any(m not in WINDOW_MODES for m in window_modes):
        raise SwrError(f"--window-modes takes fixed, section and/or budget, not {a.window_modes!r}.")
    fmt = a.format or ev.guess_format(a.questions)
    docs, questions = ev.load_set(a.questions, fmt, max_articles=a.max_articles)
    questions = ev.sample(questions, a.max_questions)
    eng = _engine()
    t0 = time.perf_counter()
    bar = tqdm(total=0, file=sys.stderr, mininterval=1.0)
    state = {"key": None}

    def progress(e):
        key = (e.get("stage", "index"), e.get("kb"), e.get("file"))
        if key != state["key"]:
            state["key"] = key
            bar.reset(total=e["total"])
            label = {"questions": "questions", "chunks": "chunks"}.get(e.get("stage"), "sentences")
            bar.unit = label[:-1] if label.endswith("s") else label
            where = (f" [{e['file_no'] + 1}/{e['files']}] {e['file'][:30]}" if "file" in e
                     else f" {e['kb']} ({e['documents']} documents)" if e.get("stage") == "chunks" else "")
            bar.set_description(f"{label}{where}")
        bar.update(e["done"] - bar.n)  # respects mininterval, unlike refresh()

    indexed = []
    files = [(n, t.encode("utf-8")) for n, t in docs] + list(_expand(a.docs))
    if files:
        indexed = eng.index_files(a.kb, files, progress=progress)
        bad = [r for r in indexed if not r.ok]
        if bad:
            print(f"warning: {len(bad)} document(s) could not be indexed: "
                  + "; ".join(r.error["message"] for r in bad[:3]), file=sys.stderr)
    t_index = time.perf_counter() - t0
    rows = ev.sweep(eng, a.kb, questions, windows=windows, top_ks=top_ks, modes=modes, chunk_sizes=chunk_sizes,
                    chunk_overlap=a.chunk_overlap, progress=progress, params=eval_params(eng.default_params, a),
                    window_modes=window_modes, budgets=budgets)
    bar.close()
    table = ev.budget_table(rows, budgets)
    info = eng.embedder.info()
    n_docs = len(docs) if docs else len([d for d in eng.docs(a.kb) if d.complete])
    eng.close()
    out = ev.rows_to_json(rows, table, questions=len(questions), documents=n_docs, kb=a.kb,
                          question_set=str(a.questions), format=fmt, chunk_overlap=a.chunk_overlap,
                          embedding={"model": info["model"], "runtime": info["runtime"]},
                          seconds={"index": round(t_index, 1), "total": round(time.perf_counter() - t0, 1)},
                          newly_indexed=sum(1 for r in indexed if r.ok and not r.skipped))
    if not a.json:
        print(f"{out['questions']} questions, {out['documents']} documents in '{a.kb}' "
              f"({info['model']} via {info['runtime']}); chunk overlap {a.chunk_overlap} tokens\n")
        print(ev.format_rows(rows))
        print("\nBest hit rate per method under each mean context budget:\n")
        print(ev.format_budgets(table))
    return out


def cmd_verify(a) -> dict:
    from . import verify as vf

    claims = [c for c in a.claims if c.strip()]
    if a.file is not None:
        if not a.file.is_file():
            raise SwrError(f"No claims file at {a.file}.")
        claims += vf.read_claims(a.file.name, a.file.read_bytes())
    if not claims:
        raise SwrError("Give a claim to verify (or --file with one claim per line).")
    eng = _engine()
    try:
        vp = verify_params(eng.settings, a)
        # verify.py takes the knobs as keywords (fusion and sources go through to engine.retrieve)
        results = vf.verify_many(eng, claims, a.kb, candidates=vp.candidates, use_top=vp.use_top, window=vp.window,
                                 step=vp.step, passage_window=vp.passage_window, threshold=vp.threshold,
                                 top_k=vp.top_k, mode=vp.mode, fusion=vp.fusion, sources=a.source or None)
        counts = {v: sum(r.verdict == v for r in results) for v in vf.VERDICTS}
    finally:
        eng.close()
    if not a.json:
        for r in results:
            print(vf.format_result(r))
    if len(results) == 1 and not a.file:
        return results[0].to_dict()
    return {"kb": a.kb, "results": [r.to_dict() for r in results],
            "supported": counts["supported"], "contradicted": counts["contradicted"],
            "not_found": counts["not found"], "claims": len(results)}


def cmd_users(a) -> dict:
    from .access import cli as access_cli
    from .settings import Settings

    return access_cli.cmd_users(a, Settings.from_env())


def _print_human(cmd: str, out: dict) -> None:
    if cmd == "index":
        for f in out["files"]:
            if f["ok"]:
                state = "unchanged, skipped" if f["skipped"] else f"{f['sentences']} sentences"
                print(f"  ok    {f['source']}: {state}")
            else:
                print(f"  error {f['error']['message']}")
        e = out["embedding"]
        print(f"{out['indexed']} indexed, {out['failed']} failed into '{out['kb']}' "
              f"({e['model']} via {e['runtime']} on {e['device']})")
    elif cmd == "ask":
        label = "answer" if out["answer_kind"] == "llm" else "extractive answer"
        if out.get("llm_error"):
            print(f"! {out['llm_error']}")
        if out.get("standalone_question") and out["standalone_question"] != out["question"]:
            print(f"searched for: {out['standalone_question']}")
        print(f"{label}: {out['answer']}\n")
        if not out.get("answerable", True):
            print(f"(not answered by this knowledge base: {out['answerability'].get('reason', '')}; "
                  "the passages below are the closest, not an answer)\n")
        for n, p in enumerate(out["passages"], 1):
            hits = ", ".join(f"#{h['i']} score {h['score']:.4f}" for h in p["hits"])
            print(f"[{n}] {p['source']} sentences {p['first']}-{p['last']} ({hits})")
            print("    " + p["text"].replace("\n", "\n    "))
        s = out["settings"]
        print(f"\nwindow {s['window_size']}, top_k {s['top_k']}, mode {s['mode']}; "
              f"context {out['context_chars']} chars / {out['context_tokens']} tokens")
    elif cmd == "kbs":
        for kb in out["kbs"]:
            print(f"{kb['kb']}: {kb['documents']} documents, {kb['sentences']} sentences")
            for d in kb.get("docs", []):
                flag = "" if d["complete"] else " (incomplete: index it again)"
                print(f"    {d['doc_id']}  {d['source']}  {d['sentences']} sentences{flag}")
    elif cmd == "delete":
        print(f"deleted {out['deleted_sentences']} sentences from '{out['kb']}'")
        if out.get("trash"):
            print(f"moved to the trash as {out['trash']['id']} (restorable until {out['trash']['expires_at']}: "
                  f"python -m swr trash restore {out['trash']['id']})")
    elif cmd == "trash":
        rows = out.get("entries") or out.get("restored") or out.get("purged") or []
        verb = {"list": "", "restore": "restored ", "purge": "purged "}[out["action"]]
        if not rows:
            print("the trash is empty" if out["action"] == "list" else "nothing to do")
        for e in rows:
            what = (f"knowledge base '{e['kb']}'" if e["kind"] == "kb"
                    else f"{e['source']} ({e['doc_id']}) from '{e['kb']}'")
            print(f"{verb}{e['id']}  {what}: {e['sentences']} sentences, deleted {e['deleted_at']}, "
                  f"kept until {e['expires_at']}")
    elif cmd == "users":
        from .access import cli as access_cli

        access_cli.print_human(out)


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    handlers = {"index": cmd_index, "ask": cmd_ask, "kbs": cmd_kbs, "delete": cmd_delete, "eval": cmd_eval,
                "verify": cmd_verify, "check": cmd_check, "users": cmd_users, "trash": cmd_trash}
    try:
        if a.cmd not in handlers:
            raise SwrError(f"`{a.cmd}` is not available in this version yet.")
        out = handlers[a.cmd](a)
    except SwrError as exc:
        if a.json:
            print(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps(out, ensure_ascii=False, default=str))
    else:
        _print_human(a.cmd, out)
    if a.cmd == "index" and out["failed"]:
        return 3 if out["indexed"] == 0 else 0
    return 0
