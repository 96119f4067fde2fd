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


def _doc_files() -> list:
    bench = ROOT / "bench"
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(bench.glob("*.md")),
            *sorted(bench.glob("*.py"))]


def test_the_documentation_describes_the_product_not_its_history():
    # history lives in git: no work-session diary and no issue numbers in the docs and benchmarks
    diary = re.compile(r"session [0-9]|#1[0-9]|#2[0-9]", re.IGNORECASE)
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in _doc_files()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if diary.search(line)]
    assert found == [], "describe what a thing is and where it was measured, not when it changed"


def test_every_relative_link_of_the_documentation_resolves():
    missing = []
    for page in [p for p in _doc_files() if p.suffix == ".md"]:
        for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = link.split("#", 1)[0]
            if path and not link.startswith(("http://", "https://")) and not (page.parent / path).exists():
                missing.append(f"{page.relative_to(ROOT)} -> {link}")
    assert missing == [], "links to files that do not exist"
