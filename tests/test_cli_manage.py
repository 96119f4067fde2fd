"""The command line end to end, command after command as a user runs them: index a folder with
tags (a bad file among good ones, then a folder of bad files only: exit status 3), ``kbs`` and
``kbs --docs``, ``ask`` with its filter and mode flags, ``verify --file``, ``delete --doc`` and
``delete --kb``, in ``--json`` and in the human-readable form.

A temporary SWR_HOME without the sample KB; the bundled MiniLM (``SWR_EMBED_MODEL``) instead of
e5, as these tests are about the command line, not the model (tests/test_engine.py runs e5).
Commands run through ``swr.cli.main`` in this process (a subprocess each took ~25 s on a busy
machine), two through ``python -m swr`` for the entry point itself: the exit status, the lone JSON
document on stdout, an error as ``{"error": ...}`` with status 1 and its readable line on stderr.
The suite's one test of a command's ``python -m swr`` process (elsewhere the command line runs in
the test's process, conftest's ``swr_cli``, and only servers, ``serve`` and streamlit, are started).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KETTLE = ("The kettle must be boiled empty of any smell before first use. Fill it to MAX and pour the water away. "
          "The E4 code means poor base contact. Descale the kettle every month with white vinegar.\n")
WARRANTY = ("# Warranty\n\nThe heating element has a two-year warranty. Keep the receipt to claim it. "
            "The warranty does not cover a dropped kettle.\n")
NOTES = "Le couvercle se ferme avec un déclic. Never immerse the base in water.\n"


UNSET = ("QDRANT_URL", "QDRANT_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "SWR_TOP_K", "SWR_MODE",
         "SWR_FUSION", "SWR_WINDOW_SIZE")


@pytest.fixture
def cli(tmp_path, swr_cli):
    """``cli(*args, code=0)``: ``swr.cli.main`` in this process (conftest's ``swr_cli``: the model loads
    once per command, as in a shell, but without starting Python and torch each time); ``cli.proc``
    runs a real ``python -m swr`` subprocess; ``.json`` variants add ``--json`` and parse stdout."""
    env = {"SWR_HOME": str(tmp_path / "home"), "SWR_SECRETS": str(tmp_path / "none.toml"),
           "SWR_SAMPLE_KB": "", "SWR_EMBED_MODEL": "all-MiniLM-L6-v2", "HF_HUB_OFFLINE": "1"}

    def run(*args: str, code: int = 0) -> str:
        return swr_cli(*args, env=env, unset=UNSET, code=code).stdout

    def proc(*args: str, code: int = 0) -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-m", "swr", *args], cwd=tmp_path,
                           env={**{k: v for k, v in os.environ.items() if k not in UNSET}, **env},
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == code, (args, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        return p

    run.json = lambda *args, code=0: json.loads(run(*args, "--json", code=code))
    run.proc = proc
    return run


def make_folder(root: Path) -> Path:
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "kettle.txt").write_text(KETTLE, encoding="utf-8")
    (docs / "warranty.md").write_text(WARRANTY, encoding="utf-8")
    (docs / "sub" / "notes.txt").write_text(NOTES, encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (docs / "picture.png").write_bytes(b"\x89PNG not a document")  # not a supported type: not picked up
    return docs


# Long on purpose: one knowledge base's life from the command line, each step building on the last.
def test_index_list_ask_verify_delete_round_trip(cli, tmp_path, monkeypatch):
    docs = make_folder(tmp_path)

    # index a folder (recursively), with tags; one bad file does not fail the others: exit 0
    out = cli.json("index", str(docs), "--kb", "manuals", "--tags", "kettle, v2,")
    by_source = {f["source"]: f for f in out["files"]}
    assert set(by_source) == {"kettle.txt", "warranty.md", "notes.txt", "broken.pdf"}
    assert out["indexed"] == 3 and out["failed"] == 1 and out["kb"] == "manuals"
    assert not by_source["broken.pdf"]["ok"] and "broken.pdf" in by_source["broken.pdf"]["error"]["message"]
    assert out["sentences"] == sum(f["sentences"] for f in out["files"] if f["ok"]) > 6

    # every file failing: exit status 3, and nothing is created
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_bytes(b"")
    (bad / "cut.pdf").write_bytes(b"%PDF-1.4 no")
    p = cli.proc("index", str(bad), "--kb", "junk", "--json", code=3)
    out = json.loads(p.stdout)  # ONE JSON document on stdout; the reasons are in it
    assert out["indexed"] == 0 and out["failed"] == 2 and "empty.txt: " in p.stdout
    human = cli("index", str(bad), "--kb", "junk", code=3)
    assert "error empty.txt: " in human and "0 indexed, 2 failed into 'junk'" in human

    # kbs and kbs --docs
    kbs = {k["kb"]: k for k in cli.json("kbs")["kbs"]}
    assert kbs["manuals"]["documents"] == 3 and "docs" not in kbs["manuals"]
    assert kbs.get("junk", {}).get("documents", 0) == 0
    listed = {k["kb"]: k for k in cli.json("kbs", "--docs")["kbs"]}["manuals"]["docs"]
    assert {d["source"] for d in listed} == {"kettle.txt", "warranty.md", "notes.txt"}
    assert all(d["complete"] and d["tags"] == ["kettle", "v2"] for d in listed)
    doc_of = {d["source"]: d for d in listed}
    human = cli("kbs", "--docs")
    assert f"manuals: 3 documents, {kbs['manuals']['sentences']} sentences" in human
    assert f"    {doc_of['warranty.md']['doc_id']}  warranty.md  {doc_of['warranty.md']['sentences']} sentences" in human

    # ask: mode, fusion, top-k and window flags reach the search; the filters restrict it
    q = "How long is the warranty of the heating element?"
    out = cli.json("ask", q, "--kb", "manuals", "--mode", "sparse", "--top-k", "2", "--window-size", "0", "--no-llm")
    s = out["settings"]
    assert (s["mode"], s["top_k"], s["window_size"]) == ("sparse", 2, 0) and out["answer_kind"] == "extractive"
    assert out["passages"][0]["source"] == "warranty.md" and "two-year" in out["passages"][0]["text"]
    assert all(p["last"] - p["first"] + 1 == len(p["hits"]) for p in out["passages"])  # window 0: hits alone
    out = cli.json("ask", q, "--kb", "manuals", "--source", "kettle.txt", "--top-k", "5")
    assert out["passages"] and {p["source"] for p in out["passages"]} == {"kettle.txt"}
    assert out["settings"]["sources"] == ["kettle.txt"] and out["settings"]["fusion"] == "dbsf"
    out = cli.json("ask", q, "--kb", "manuals", "--tag", "nosuchtag")
    assert out["passages"] == [] and out["settings"]["tags"] == ["nosuchtag"]
    assert cli.json("ask", q, "--kb", "manuals", "--tag", "v2")["passages"]
    assert cli.json("ask", q, "--kb", "manuals", "--lang", "zh")["passages"] == []  # every document is English
    assert cli.json("ask", q, "--kb", "manuals", "--lang", "en")["passages"]
    # a fusion property: without the cross-lingual subject bonus (which may lift a named document)
    monkeypatch.setenv("SWR_CROSSLINGUAL", "off")
    out = cli.json("ask", q, "--kb", "manuals", "--fusion", "weighted", "--dense-weight", "0", "--top-k", "3")
    sparse = cli.json("ask", q, "--kb", "manuals", "--mode", "sparse", "--top-k", "3")
    monkeypatch.delenv("SWR_CROSSLINGUAL")
    assert out["settings"]["fusion"] == "weighted" and out["settings"]["dense_weight"] == 0
    assert [p["hits"][0]["i"] for p in out["passages"]] == [p["hits"][0]["i"] for p in sparse["passages"]]
    human = cli("ask", q, "--kb", "manuals", "--top-k", "1", "--window-size", "1")
    assert human.startswith("extractive answer: ") and "\n[1] warranty.md sentences " in human
    assert "window 1, top_k 1, mode hybrid; context " in human

    # verify --file: one claim per line
    claims = tmp_path / "claims.txt"
    claims.write_text("The heating element has a two-year warranty.\nThe kettle is made of solid gold.\n")
    out = cli.json("verify", "--file", str(claims), "--kb", "manuals", "--threshold", "0.5")
    assert out["claims"] == 2 and [r["claim"] for r in out["results"]] == claims.read_text().splitlines()
    assert out["results"][0]["verdict"] == "supported"
    assert out["supported"] == sum(r["verdict"] == "supported" for r in out["results"])
    # the entry point itself: an error is ONE JSON document {"error": ...} on stdout, exit status 1,
    # and the readable line on stderr
    p = cli.proc("verify", "--file", str(tmp_path / "none.txt"), "--kb", "manuals", "--json", code=1)
    assert json.loads(p.stdout)["error"]["message"] == f"No claims file at {tmp_path / 'none.txt'}."
    assert "error: No claims file at " in p.stderr and "error: " not in p.stdout

    # delete --doc, then delete --kb
    gone = doc_of["notes.txt"]
    out = cli.json("delete", "--kb", "manuals", "--doc", gone["doc_id"])
    trash = out.pop("trash")  # a delete goes to the trash, restorable by its id
    assert out == {"kb": "manuals", "doc": gone["doc_id"], "deleted_sentences": gone["sentences"]}
    assert trash["doc_id"] == gone["doc_id"] and trash["id"]
    left = {k["kb"]: k for k in cli.json("kbs", "--docs")["kbs"]}["manuals"]
    assert {d["source"] for d in left["docs"]} == {"kettle.txt", "warranty.md"}
    out = cli.json("ask", "immerse the base", "--kb", "manuals", "--top-k", "5")
    assert all(p["source"] != "notes.txt" for p in out["passages"])
    human = cli("delete", "--kb", "manuals")
    assert human.strip().splitlines()[0] == f"deleted {left['sentences']} sentences from 'manuals'"
    assert "moved to the trash as " in human
    assert "manuals" not in {k["kb"] for k in cli.json("kbs")["kbs"]}
    out = cli.json("ask", q, "--kb", "manuals", code=1)
    assert out["error"]["kind"] == "not_found"


class _FailingEngine:
    """A stand-in engine whose calls fail the way a missing knowledge base does; records its closing."""

    closed = 0

    def close(self):
        self.closed += 1

    def _missing(self, *args, **kw):
        from swr.core.errors import SwrError

        raise SwrError("No knowledge base 'nope'.")

    kbs = delete_kb = delete_doc = index_files = _missing


@pytest.mark.parametrize("command", ["kbs", "delete"])
def test_a_failed_command_releases_the_store(command, monkeypatch):
    """kbs and delete close their engine when they fail too: a server, or the next command of the
    same process (the app's command line, a test), opens the store after them."""
    import swr.cli.main as cli_main
    from swr.core.errors import SwrError

    eng = _FailingEngine()
    monkeypatch.setattr(cli_main, "_engine", lambda: eng)
    args = cli_main._parser().parse_args(["kbs"] if command == "kbs" else ["delete", "--kb", "nope"])
    with pytest.raises(SwrError):
        {"kbs": cli_main.cmd_kbs, "delete": cli_main.cmd_delete}[command](args)
    assert eng.closed == 1


def test_publish_set_words_from_a_file(cli, tmp_path):
    """``publish set --words FILE`` publishes a knowledge base's own words with its other settings; a
    line it cannot read or a missing file is a clear error and publishes nothing; an empty file clears."""
    docs = make_folder(tmp_path)
    cli("index", str(docs / "kettle.txt"), "--kb", "k")
    words = tmp_path / "words.tsv"
    words.write_text("AquaBoil\t电热水壶\n# a comment\nbase = 底座\n", encoding="utf-8")
    got = cli.json("publish", "set", "--kb", "k", "--words", str(words), "--top-k", "4")
    assert got["published"]["params"]["glossary"] == [["AquaBoil", "电热水壶"], ["base", "底座"]]
    assert (got["published"]["version"], got["published"]["params"]["top_k"]) == (1, 4)
    words.write_text("AquaBoil only\n", encoding="utf-8")
    assert "Line 1" in json.loads(cli("publish", "set", "--kb", "k", "--words", str(words), "--json", code=1))[
        "error"]["message"]
    cli("publish", "set", "--kb", "k", "--words", str(tmp_path / "missing.tsv"), code=1)
    words.write_text("", encoding="utf-8")
    got = cli.json("publish", "set", "--kb", "k", "--words", str(words))
    assert got["published"]["version"] == 2 and got["published"]["params"]["glossary"] == []
    assert got["published"]["params"]["top_k"] == 4  # the other settings as published
