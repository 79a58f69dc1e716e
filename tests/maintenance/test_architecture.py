"""The house's plan, checked: helpers/ is in layers, each importing only the layers below it, with no cycle.

Every import counts, also one inside a function (a lazy import is still a dependency). The layers, bottom
to top, are in ``LAYERS``; a module may import its own package's modules too, as long as that makes no
cycle. Only the learner's API (``helpers/__init__.py``), the CLI and the PyTorch reference sit loose in
helpers/, above every layer. A name with a leading underscore is private to its module: no other module
imports it. The graph is read from the source with ``ast``, so these tests need no import of helpers.
"""

from __future__ import annotations

import ast
import functools
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELPERS = ROOT / "helpers"
LAYERS = ("core", "display", "plots", "checking", "widgets", "lessons", "forensics")
LOOSE = {"helpers", "helpers.__main__", "helpers.cli", "helpers.reference"}  # the API, above every layer


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(found: dict[str, Path], package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its source (functions included)."""

    def resolve(target: str) -> str | None:
        while target and target not in found:
            target = target.rpartition(".")[0]
        return target or None

    edges: dict[str, set[str]] = {}
    for name, path in found.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                # `from a import b`: b is a module of a, or a name in a
                targets.update(
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in found else base for alias in node.names
                )
        edges[name] = {resolved for t in targets if t.split(".")[0] == package and (resolved := resolve(t)) != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> int:
    """The module's layer: its index in LAYERS, or len(LAYERS) for the API above them."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else len(LAYERS)


def upward(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a higher layer, or of the API by a layer, as 'a -> b'."""
    return [
        f"{a} -> {b}"
        for a in sorted(edges)
        for b in sorted(edges[a])
        if (layer(b) > layer(a)) or (b in LOOSE and a not in LOOSE)
    ]


def private_imports(found: dict[str, Path], package: str) -> list[str]:
    """``from x import _name`` across modules of the package, as 'module: x._name'."""
    crossing = []
    for name, path in found.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
                crossing += [f"{name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return crossing


@functools.cache
def found() -> dict[str, Path]:
    """helpers' modules, read when a test first asks (not at collection, in every worker)."""
    return modules(HELPERS, "helpers")


@functools.cache
def edges() -> dict[str, set[str]]:
    return imports(found(), "helpers")


def test_only_the_api_cli_and_reference_sit_outside_a_layer():
    loose = sorted(name for name in found() if layer(name) == len(LAYERS))
    assert loose == sorted(LOOSE)
    assert {path.parent.name for path in HELPERS.glob("*/__init__.py")} <= set(LAYERS)


def test_no_import_cycle_in_helpers():
    assert cycles(edges()) == []


def test_helpers_imports_only_downward():
    assert upward(edges()) == []


def test_no_private_name_crosses_a_module_line():
    assert private_imports(found(), "helpers") == []


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for relative, source in files.items():
        path = tmp_path / "helpers" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return imports(modules(tmp_path / "helpers", "helpers"), "helpers")


def test_the_checks_see_a_cycle_through_a_function_and_an_upward_import(tmp_path):
    edges = _package(
        tmp_path,
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/a.py": "def f():\n    from helpers.core.b import g\n",
            "core/b.py": "from helpers.core import a\nfrom helpers.display import c\n",
            "core/views.py": "",
            "display/__init__.py": "",
            "display/c.py": "import helpers\nfrom . import d\n",
            "display/d.py": "from .. import core\nfrom ..core import views\n",
        },
    )
    assert cycles(edges) == [["helpers.core.a", "helpers.core.b"]]
    assert upward(edges) == ["helpers.core.b -> helpers.display.c", "helpers.display.c -> helpers"]
    assert edges["helpers.display.c"] == {"helpers", "helpers.display.d"}
    assert edges["helpers.display.d"] == {"helpers.core", "helpers.core.views"}


def test_a_private_import_is_seen(tmp_path):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "a.py").write_text("from helpers.b import _hidden, shown\n")
    found = modules(tmp_path / "helpers", "helpers")
    assert private_imports(found, "helpers") == ["helpers.a: helpers.b._hidden"]


@pytest.mark.parametrize("old", sorted(importlib.import_module("helpers").MOVED))
def test_an_old_module_name_imports_the_very_same_module(old):
    helpers = importlib.import_module("helpers")
    new = importlib.import_module(helpers.MOVED[old])
    assert importlib.import_module(f"helpers.{old}") is new
    assert getattr(helpers, old) is new
    assert new.__spec__.name == new.__name__ == helpers.MOVED[old]  # its own spec, not the alias's
    assert helpers.MOVED[old] in found()


def test_an_unknown_name_is_still_an_error():
    helpers = importlib.import_module("helpers")
    with pytest.raises(AttributeError):
        _ = helpers.no_such_module
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("helpers.no_such_module")
