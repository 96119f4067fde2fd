"""`python -m swr index|ask|kbs|delete|eval|verify`. With ``--json`` one JSON document goes to
stdout; logs and progress go to stderr."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from .errors import SwrError


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
    ask.add_argument("--top-k", type=int, default=None)
    ask.add_argument("--mode", choices=["dense", "sparse", "hybrid"], default=None)
    ask.add_argument("--fusion", choices=["rrf", "weighted"], default="rrf")
    ask.add_argument("--dense-weight", type=float, default=0.5)
    ask.add_argument("--source", action="append", default=[], help="only this source file (repeatable)")
    ask.add_argument("--tag", action="append", default=[], help="only sentences with this tag (repeatable)")
    ask.add_argument("--lang", default=None, help="only sentences of this language (zh, en)")
    ask.add_argument("--no-llm", action="store_true", help="extractive answer even when an LLM is configured")
    ask.add_argument("--json", action="store_true")

    kbs = sub.add_parser("kbs", help="list knowledge bases")
    kbs.add_argument("--docs", action="store_true", help="also list each knowledge base's documents")
    kbs.add_argument("--json", action="store_true")

    de = sub.add_parser("delete", help="delete a knowledge base, or one document of it")
    de.add_argument("--kb", required=True)
    de.add_argument("--doc", default=None, help="document id (see `kbs --docs`); omit to delete the whole KB")
    de.add_argument("--json", action="store_true")

    for name, text in (("eval", "evaluate retrieval on a question set"), ("verify", "verify a claim")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("args", nargs="*")
        sp.add_argument("--json", action="store_true")
    return p


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


def cmd_ask(a) -> dict:
    eng = _engine()
    res = eng.ask(a.question, a.kb, window_size=a.window_size, llm=not a.no_llm, top_k=a.top_k, mode=a.mode,
                  fusion=a.fusion, dense_weight=a.dense_weight, sources=a.source, tags=a.tag, lang=a.lang)
    eng.close()
    return res.to_dict()


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
        n = eng.delete_doc(a.kb, a.doc)
    else:
        n = eng.delete_kb(a.kb)
    eng.close()
    return {"kb": a.kb, "doc": a.doc, "deleted_sentences": n}


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
        print(f"{label}: {out['answer']}\n")
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


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    handlers = {"index": cmd_index, "ask": cmd_ask, "kbs": cmd_kbs, "delete": cmd_delete}
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
