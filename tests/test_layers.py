"""The package layout: each stage imports only the stages below it, the backend never imports the
app, and no module imports itself back through a circle. Read from the source (ast), so lazy
imports inside functions count too."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SWR = ROOT / "swr"

#: The stages, lowest first. A module may import its own stage and those before it.
#: ``verify`` sits below ``answer``: an extractive yes/no answer compares the question's claim with a
#: sentence (verify's claim facts); ``evaluate`` below ``manage``: the sample presets are question sets.
#: The interfaces come last: the command line reaches a running server through the API's client and
#: starts ``serve``; the Streamlit app hosts the API beside its pages (``swr/app/asgi.py``).
ORDER = ["core", "text", "embed", "ingest", "store", "retrieve", "verify", "answer", "evaluate", "manage",
         "engine", "llamaindex", "api", "cli", "app", "__main__"]
INTERFACES: set[str] = set()
#: Third-party packages only one stage may import.
OWNERS = {"streamlit": {"app"}, "fastapi": {"api"}, "mcp": {"api"}, "torch": {"embed"}}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    me = _module(path)
    pkg = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for stmt in ast.walk(tree) if isinstance(stmt, ast.If)
                   and getattr(stmt.test, "id", getattr(stmt.test, "attr", "")) == "TYPE_CHECKING"
                   for n in ast.walk(stmt)}  # type hints only: never run, so never a circle
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            for a in node.names:  # "from pkg import module" imports the module
                sub = SWR.parent / f"{mod}.{a.name}".replace(".", "/")
                if sub.with_suffix(".py").exists() or (sub / "__init__.py").exists():
                    out.add(f"{mod}.{a.name}")
    return out


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "swr" and len(parts) > 1 else None


MODULES = {p: _module(p) for p in sorted(SWR.rglob("*.py"))}


def test_every_module_sits_in_a_known_stage_and_the_top_level_is_small():
    stages = {_stage(m) for m in MODULES.values()} - {None}
    assert stages <= set(ORDER), f"unknown stages: {sorted(stages - set(ORDER))}"
    top = [p.name for p in SWR.glob("*.py")]
    assert len(top) <= 12, top


@pytest.mark.parametrize("path", list(MODULES), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_down_the_stages(path):
    me = _stage(MODULES[path])
    upward = []
    for imp in _imports(path):
        first = imp.split(".")[0]
        if first in OWNERS and me not in OWNERS[first]:
            upward.append(f"{imp} (only {sorted(OWNERS[first])} may import it)")
        other = _stage(imp)
        if other is None or other == me or me is None:
            continue
        if me in INTERFACES and other in INTERFACES:
            upward.append(imp)
        elif ORDER.index(other) > ORDER.index(me):
            upward.append(imp)
    assert not upward, f"{MODULES[path]} ({me}) imports a higher stage: {sorted(upward)}"


def test_no_import_circle_between_modules():
    known = set(MODULES.values())
    graph = {m: {i for i in _imports(p) if i in known and i != m} for p, m in MODULES.items()}
    # a package's __init__ importing its own submodules is how a package is built: not a circle
    for m in graph:
        graph[m] = {i for i in graph[m] if not i.startswith(m + ".")}
    seen, stack, circles = set(), [], []

    def visit(m):
        if m in stack:
            circles.append(stack[stack.index(m):] + [m])
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for n in sorted(graph[m]):
            visit(n)
        stack.pop()

    for m in sorted(graph):
        visit(m)
    assert not circles, "\n".join(" -> ".join(c) for c in circles[:10])
