"""`python -m swr index|ask|kbs|delete|trash|eval|verify|check|golden`. With ``--json`` one JSON document goes to
stdout; logs and progress go to stderr."""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from swr.cli.args import ask_params, eval_params, parser as _parser, verify_params
from swr.cli.show import print_human
from swr.core.errors import BadRequest, StoreLocked, SwrError
from swr.core.params import MODES, WINDOW_MODES


def _expand(paths: list[Path]) -> list[Path]:
    from swr.ingest.load import SUPPORTED

    out = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED))
        else:
            out.append(p)
    return out


def _engine():
    from swr.core.settings import Settings
    from swr.engine import Engine

    return Engine(Settings.from_env())


def cmd_index(a, eng=None) -> dict:
    from tqdm import tqdm

    files = _expand(a.paths)
    own, eng = eng is None, eng or _engine()
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
    if own:
        eng.close()
    return {"kb": a.kb, "files": [r.to_dict() for r in results],
            "indexed": sum(r.ok for r in results), "failed": sum(not r.ok for r in results),
            "sentences": sum(r.sentences for r in results if r.ok and not r.skipped),
            "embedding": info}


def _read_history(path: Path) -> list[dict]:
    """The ``--history`` file: a JSON list of turns (checked by swr.answer.history)."""
    from swr.answer.history import check_history

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"--history {path}: not a readable JSON file ({type(exc).__name__}: {exc})") from None
    return check_history(data)


def cmd_ask(a, eng=None) -> dict:
    own, eng = eng is None, eng or _engine()
    try:
        history = _read_history(a.history) if a.history else None
        # the knowledge base's published settings, with the flags given
        res = eng.ask(a.question, a.kb, ask_params(lambda **c: eng.kb_params(a.kb, **c), a), llm=not a.no_llm,
                      history=history)
        eng.check(res)  # each answer sentence against the passages: "check" in the JSON, as in the chat
        return numbered(res.to_dict())
    finally:
        if own:
            eng.close()


def numbered(out: dict) -> dict:
    """The ask JSON with the 1-based sentence numbers people see in the app and the CLI beside the
    0-based indexes: ``first_sentence`` / ``last_sentence`` per passage, ``sentence_no`` per hit."""
    for p in out.get("passages") or []:
        p["first_sentence"], p["last_sentence"] = p["first"] + 1, p["last"] + 1
        for h in p.get("hits") or []:
            h["sentence_no"] = h["i"] + 1
    return out


def cmd_check(a, eng=None) -> dict:
    own, eng = eng is None, eng or _engine()
    try:
        res = eng.ask(a.question, a.kb, eng.kb_params(a.kb, window_size=a.window_size, top_k=a.top_k), llm=False)
        res.answer, res.answer_kind, res.answerable = a.answer, "llm", True
        out = eng.check(res) or {"support": 0.0, "sentences": [], "status": "empty"}
    finally:
        if own:
            eng.close()
    out.update({"question": res.question, "kb": a.kb, "answer": a.answer, "answerable": res.answerable,
                "answerable_score": res.answerable_score,
                "passages": [{"n": n, "source": p.source, "first": p.first, "last": p.last, "text": p.text}
                             for n, p in enumerate(res.passages, 1)]})
    return out


def cmd_kbs(a, eng=None) -> dict:
    own, eng = eng is None, eng or _engine()
    try:
        out = eng.kbs()
        for kb in out:
            pub = eng.published(kb["kb"])
            kb["published_version"] = pub.version if pub else None
        if a.docs:
            for kb in out:
                kb["docs"] = [d.to_dict() for d in eng.docs(kb["kb"])]
    finally:  # an error too releases the store (a server or the next command in this process opens it)
        if own:
            eng.close()
    return {"kbs": out}


def cmd_delete(a) -> dict:
    eng = _engine()
    try:
        if a.doc:
            n = eng.delete_doc(a.kb, a.doc, trash=not a.purge)
        else:
            n = eng.delete_kb(a.kb, trash=not a.purge)
        entry = None if a.purge else next((e for e in eng.trash.entries() if e.kb == a.kb and e.doc_id == a.doc),
                                          None)
    finally:  # a missing knowledge base or document too releases the store
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


def cmd_golden(a) -> dict:
    """``golden list|add|delete --kb KB``: the same golden set the app's preset-questions panel edits."""
    eng = _engine()
    try:
        if a.action == "add":
            if not a.question or not a.expected:
                raise BadRequest("`golden add` needs --question and --expected.")
            return {"kb": a.kb, "action": "add", "added": eng.add_golden(a.kb, a.question, a.expected, a.source)}
        if a.action == "delete":
            if not a.ids:
                raise BadRequest("`golden delete` needs the ids (see `golden list`).")
            return {"kb": a.kb, "action": "delete", "deleted": eng.delete_golden(a.kb, a.ids)}
        return {"kb": a.kb, "action": "list", "questions": eng.golden(a.kb)}
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
    # long: the sweep's steps in order (sets, knowledge base, progress, baseline, report), each a few lines
    import time

    from tqdm import tqdm

    from swr import evaluate as ev

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

    try:
        indexed = []
        files = [(n, t.encode("utf-8")) for n, t in docs] + list(_expand(a.docs))
        if files:
            indexed = eng.index_files(a.kb, files, progress=progress)
            bad = [r for r in indexed if not r.ok]
            if bad:
                print(f"warning: {len(bad)} document(s) could not be indexed: "
                      + "; ".join(r.error["message"] for r in bad[:3]), file=sys.stderr)
        t_index = time.perf_counter() - t0
        words = eng.kb_params(a.kb).glossary  # the knowledge base's own words: content, not a knob swept
        rows = ev.sweep(eng, a.kb, questions, windows=windows, top_ks=top_ks, modes=modes, chunk_sizes=chunk_sizes,
                        chunk_overlap=a.chunk_overlap, progress=progress,
                        params=eval_params(eng.default_params, a).with_(glossary=words),
                        window_modes=window_modes, budgets=budgets)
        bar.close()
        table = ev.budget_table(rows, budgets)
        info = eng.embedder.info()
        n_docs = len(docs) if docs else len([d for d in eng.docs(a.kb) if d.complete])
    finally:  # a failed sweep too releases the store
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
    import swr.verify.verify as vf
    from swr.verify.claim_io import format_result, read_claims

    claims = [c for c in a.claims if c.strip()]
    if a.file is not None:
        if not a.file.is_file():
            raise SwrError(f"No claims file at {a.file}.")
        claims += read_claims(a.file.name, a.file.read_bytes())
    if not claims:
        raise SwrError("Give a claim to verify (or --file with one claim per line).")
    eng = _engine()
    try:
        vp = verify_params(eng.settings, a)
        if getattr(a, "llm", False) and not eng.answerer.configured:
            raise SwrError("--llm needs an LLM: set OPENAI_BASE_URL and SWR_LLM_MODEL, or SWR_LLM_GGUF.")
        # verify.py takes the knobs as keywords (fusion and sources go through to engine.retrieve)
        results = vf.verify_many(eng, claims, a.kb, candidates=vp.candidates, use_top=vp.use_top, window=vp.window,
                                 step=vp.step, passage_window=vp.passage_window, threshold=vp.threshold,
                                 top_k=vp.top_k, mode=vp.mode, fusion=vp.fusion, sources=a.source or None,
                                 llm=eng.answerer if getattr(a, "llm", False) else None)
        counts = {v: sum(r.verdict == v for r in results) for v in vf.VERDICTS}
    finally:
        eng.close()
    if not a.json:
        for r in results:
            print(format_result(r))
    if len(results) == 1 and not a.file:
        return results[0].to_dict()
    return {"kb": a.kb, "results": [r.to_dict() for r in results],
            "supported": counts["supported"], "contradicted": counts["contradicted"],
            "not_found": counts["not found"], "claims": len(results)}


def cmd_users(a) -> dict:
    import swr.cli.users as access_cli
    from swr.core.settings import Settings

    return access_cli.cmd_users(a, Settings.from_env())


def run_command(command: str, args: dict, view) -> dict:
    """One command of a command line on this machine, run by the server that holds the store
    (``POST /api/v1/cli/{command}``), on the caller's checked view; its ``--json`` document."""
    from swr.cli.serve import namespace

    handler = {"ask": cmd_ask, "index": cmd_index, "kbs": cmd_kbs, "check": cmd_check}[command]
    return handler(namespace(command, args), eng=view)


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    import swr.cli.serve as cli_serve

    handlers = {"index": cmd_index, "ask": cmd_ask, "kbs": cmd_kbs, "delete": cmd_delete, "eval": cmd_eval,
                "verify": cmd_verify, "check": cmd_check, "users": cmd_users, "trash": cmd_trash,
                "golden": cmd_golden, **cli_serve.HANDLERS,
                "serve": lambda a: cli_serve.cmd_serve(a, cli_commands=run_command)}
    try:
        if a.cmd not in handlers:
            raise SwrError(f"`{a.cmd}` is not available in this version yet.")
        try:
            out = handlers[a.cmd](a)
        except StoreLocked as locked:  # a running server holds the store: through it (swr.api.client)
            out = cli_serve.through_server(a, locked)
    except SwrError as exc:
        if a.json:
            print(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps(out, ensure_ascii=False, default=str))
    else:
        print_human(a.cmd, out)
    if a.cmd == "index" and out["failed"]:
        return 3 if out["indexed"] == 0 else 0
    return 0
