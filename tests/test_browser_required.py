"""Under CI (``CI=true``) or ``SWR_REQUIRE_BROWSER=1`` a missing Chromium fails the browser tests;
elsewhere they are skipped with the reason. Runs pytest on tests/test_browser.py in a subprocess
with ``SWR_CHROMIUM`` pointing at nothing (no server or browser starts either way)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_browser_tests(tmp_path, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "SWR_REQUIRE_BROWSER")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfs", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "test_browser.py")],
                          cwd=ROOT, env={**base, "SWR_CHROMIUM": str(tmp_path / "no-chromium"), **env},
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("env", [{"CI": "true"}, {"SWR_REQUIRE_BROWSER": "1"}], ids=["CI", "SWR_REQUIRE_BROWSER"])
def test_a_missing_browser_fails_under_ci(tmp_path, env):
    p = run_browser_tests(tmp_path, **env)
    assert p.returncode == 1, p.stdout[-3000:]
    last = p.stdout.strip().splitlines()[-1]  # "2 errors in 5 s": failed at setup, before any server starts
    assert re.search(r"\b\d+ (errors?|failed)\b", last) and "skipped" not in last and "passed" not in last, p.stdout[-3000:]
    assert "no-chromium is missing" in p.stdout and "must run, not skip" in p.stdout


def test_a_missing_browser_skips_elsewhere(tmp_path):
    p = run_browser_tests(tmp_path)
    assert p.returncode == 0, p.stdout[-3000:]
    last = p.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ skipped in .*", last) and "no-chromium is missing" in p.stdout, p.stdout[-3000:]
