"""The command line's plain-text output (without ``--json``): one layout per command."""
from __future__ import annotations


def _check(out: dict) -> None:
    print(f"support {out['support']:.0%} over {len(out['sentences'])} sentence(s)")
    for s in out["sentences"]:
        mark = "+" if s["supported"] and not s["bad_citations"] else "!"
        where = f" [passage {s['passage']}]" if s["passage"] else ""
        print(f"  {mark} {s['verdict']}{where}: {s['text']}")
        for why in s["reasons"]:
            print(f"      because: {why}")


def _index(out: dict) -> None:
    for f in out["files"]:
        if f["ok"]:
            state = "unchanged, skipped" if f["skipped"] else f"{f['sentences']} sentences"
            print(f"  ok    {f['source']}: {state}")
        else:
            print(f"  error {f['error']['message']}")
    e = out["embedding"]
    print(f"{out['indexed']} indexed, {out['failed']} failed into '{out['kb']}' "
          f"({e['model']} via {e['runtime']} on {e['device']})")


def _ask(out: dict) -> None:
    label = "answer" if out["answer_kind"] == "llm" else "extractive answer"
    if out.get("llm_error"):
        print(f"! {out['llm_error']}")
    if out.get("standalone_question") and out["standalone_question"] != out["question"]:
        print(f"searched for: {out['standalone_question']}")
    print(f"{label}: {out['answer']}\n")
    ck = out.get("check")
    if ck and ck["sentences"]:
        print(f"check: {ck['status']}, support {ck['support']:.0%} over {len(ck['sentences'])} sentence(s)")
        for x in ck["sentences"]:
            if not x["supported"] or x["bad_citations"]:
                print(f"  ! {x['verdict']}: {x['text']} ({'; '.join(x['reasons'])})")
        print()
    if not out.get("answerable", True):
        print(f"(not answered by this knowledge base: {out['answerability'].get('reason', '')}; "
              "the passages below are the closest, not an answer)\n")
    for n, p in enumerate(out["passages"], 1):
        hits = ", ".join(f"sentence {h['i'] + 1} score {h['score']:.4f}" for h in p["hits"])
        print(f"[{n}] {p['source']} sentences {p['first'] + 1}-{p['last'] + 1} ({hits})")
        print("    " + p["text"].replace("\n", "\n    "))
    s = out["settings"]
    print(f"\nwindow {s['window_size']}, top_k {s['top_k']}, mode {s['mode']}; "
          f"context {out['context_chars']} chars / {out['context_tokens']} tokens")


def _kbs(out: dict) -> None:
    for kb in out["kbs"]:
        print(f"{kb['kb']}: {kb['documents']} documents, {kb['sentences']} sentences")
        for d in kb.get("docs", []):
            flag = "" if d["complete"] else " (incomplete: index it again)"
            print(f"    {d['doc_id']}  {d['source']}  {d['sentences']} sentences{flag}")


def _delete(out: dict) -> None:
    print(f"deleted {out['deleted_sentences']} sentences from '{out['kb']}'")
    if out.get("trash"):
        print(f"moved to the trash as {out['trash']['id']} (restorable until {out['trash']['expires_at']}: "
              f"python -m swr trash restore {out['trash']['id']})")


def _trash(out: dict) -> None:
    rows = out.get("entries") or out.get("restored") or out.get("purged") or []
    verb = {"list": "", "restore": "restored ", "purge": "purged "}[out["action"]]
    if not rows:
        print("the trash is empty" if out["action"] == "list" else "nothing to do")
    for e in rows:
        what = (f"knowledge base '{e['kb']}'" if e["kind"] == "kb"
                else f"{e['source']} ({e['doc_id']}) from '{e['kb']}'")
        print(f"{verb}{e['id']}  {what}: {e['sentences']} sentences, deleted {e['deleted_at']}, "
              f"kept until {e['expires_at']}")


def _golden(out: dict) -> None:
    rows = out.get("questions") or ([out["added"]] if out.get("added") else out.get("deleted") or [])
    verb = {"list": "", "add": "added ", "delete": "deleted "}[out["action"]]
    if not rows:
        print(f"no golden questions in '{out['kb']}'" if out["action"] == "list" else "nothing to do")
    for r in rows:
        origin = f" [{r['origin']}]" if r.get("origin") else ""
        print(f"{verb}{r['id']}  {r['question']}  ->  {r['expected_answer']}"
              + (f"  ({r['source']})" if r.get("source") else "") + origin)


def _users(out: dict) -> None:
    import swr.cli.users as access_cli

    access_cli.print_human(out)


def _served(cmd: str, out: dict) -> None:
    import swr.cli.serve as cli_serve

    cli_serve.print_human(cmd, out)


_LAYOUTS = {
    "index": _index,
    "ask": _ask,
    "kbs": _kbs,
    "delete": _delete,
    "trash": _trash,
    "golden": _golden,
    "users": _users,
    "check": _check,
}


def print_human(cmd: str, out: dict) -> None:
    """Print ``cmd``'s result ``out`` (its ``--json`` document) for a person."""
    if cmd in ("keys", "serve", "publish"):
        _served(cmd, out)
    elif cmd in _LAYOUTS:
        _LAYOUTS[cmd](out)
