"""The copy-paste examples of docs/api.md run as written (native API, Dify, the openai client, the
mcp client) against a real server, and the README links to them."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_api import team  # noqa: F401  (the shared server fixture)

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


def test_the_readme_links_the_api_guide_and_keeps_two_commands_on_its_first_screen():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.split("\n---\n", 1)[0]
    assert len(re.findall(r"```sh\n", first)) == 2 and "docs/api.md" in readme


@pytest.mark.parametrize("n", range(len(BLOCKS)))
def test_every_example_of_the_api_guide_runs(team, n):  # noqa: F811
    env = dict(os.environ, SWR_URL=team["url"], SWR_KEY=team["keys"]["ann"], SWR_KB="alpha")
    out = subprocess.run([sys.executable, "-c", BLOCKS[n]], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip(), "every example prints what it got"
