"""The README tells the truth about the settings and the layout."""
from __future__ import annotations

import re

from conftest import ROOT
from swr.core.settings import ENV_VARS

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def test_every_variable_settings_reads_is_in_the_readme_settings_table():
    rows = [line for line in _section("Settings").splitlines() if line.startswith("| `")]
    documented = {re.match(r"\| `([A-Z0-9_]+)`", line).group(1) for line in rows}
    source = (ROOT / "swr" / "core" / "settings.py").read_text(encoding="utf-8")
    read = set(ENV_VARS) | set(re.findall(r'"(SWR_[A-Z0-9_]+)"', source))
    assert read - documented == set(), "add these to the README settings table"


def test_every_path_of_the_layout_table_exists():
    rows = [line for line in _section("Layout").splitlines() if line.startswith("| `")]
    paths = [p for line in rows for p in re.findall(r"`([^`]+)`", line.split("|")[1])]
    assert paths, "the layout table lists paths"
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert missing == [], "the README layout table names paths that do not exist"
    # and every module of swr/ is in it (a package counts by its folder)
    listed = {p.rstrip("/") for p in paths}
    for mod in sorted((ROOT / "swr").iterdir()):
        if mod.name.startswith("_") or mod.name == "__pycache__" or mod.suffix not in (".py", ""):
            continue
        rel = f"swr/{mod.name}"
        assert rel in listed, f"{rel} is missing from the README layout table"
