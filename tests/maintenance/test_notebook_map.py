"""pyproject.toml's ``[tool.mutmut.notebooks]`` says which notebooks a module feeds: `run.py test --changed`
re-executes and nbval-checks those notebooks when the module changes, and mutmut gives nbval its credit by it.
A notebook that uses a lesson's or a figure's module, and is missing from that module's entry, would go
unchecked after a change to it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import tomllib

import helpers

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def notebook_map() -> dict[str, list[str]]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["mutmut"]["notebooks"]


def code_of(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            lines.extend(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    return "\n".join(lines)


def module_path(dotted: str) -> str | None:
    """``helpers.numerics`` (an old name) or ``helpers.lessons.numerics.moments`` -> its file, from the root."""
    name = dotted.removeprefix("helpers.")
    dotted = helpers.MOVED.get(name, dotted)
    parts = dotted.split(".")
    for candidate in (Path(*parts).with_suffix(".py"), Path(*parts, "__init__.py")):
        if (ROOT / candidate).is_file():
            return candidate.as_posix()
    return None


def plot_modules_called(code: str) -> set[str]:
    """The helpers/plots modules that define what ``plots.<name>`` calls in this code."""
    found = set()
    for name in set(re.findall(r"\bplots\.([A-Za-z_]\w*)", code)):
        obj = getattr(__import__("helpers.plots", fromlist=["x"]), name, None)
        module = getattr(obj, "__module__", None)
        if module and module.startswith("helpers.plots"):
            found.add(module_path(module))
    return found


def modules_used(notebook: Path) -> set[str]:
    """The files under helpers/lessons and helpers/plots whose code this notebook runs directly."""
    code = code_of(notebook)
    used = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("helpers"):
            for alias in node.names:
                path = module_path(f"{node.module}.{alias.name}") or module_path(node.module)
                if path:
                    used.add(path)
        elif isinstance(node, ast.Import):
            used.update(
                filter(None, (module_path(alias.name) for alias in node.names if alias.name.startswith("helpers")))
            )
    used.discard("helpers/plots/__init__.py")  # importing the package runs nothing of a figure's; calls decide
    used |= plot_modules_called(code)
    return {path for path in used if path.startswith(("helpers/lessons/", "helpers/plots/"))}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_lesson_or_figure_module_a_notebook_uses_names_it(notebook):
    mapped = notebook_map()
    missing = sorted(path for path in modules_used(notebook) if notebook.stem not in mapped.get(path, []))
    assert not missing, f"{notebook.name} uses {missing}, whose [tool.mutmut.notebooks] entries do not name it"


def test_every_notebook_the_map_names_exists_and_uses_its_module():
    for path, names in notebook_map().items():
        assert (ROOT / path).is_file(), path
        for name in names:
            notebook = ROOT / "notebooks" / f"{name}.ipynb"
            assert notebook.is_file(), f"{path} names {name}, which is no notebook"
            if path.startswith(("helpers/lessons/", "helpers/plots/")) and path != "helpers/plots/style.py":
                assert path in modules_used(notebook), f"{path} names {name}, which does not use it"


def test_a_notebook_that_uses_a_lesson_module_is_found():
    """The reading above finds an old name's module and a figure's module from its call (not vacuous)."""
    assert "helpers/lessons/numerics/moments.py" in modules_used(ROOT / "notebooks" / "09_numerics.ipynb")
    assert "helpers/plots/number_line.py" in modules_used(ROOT / "notebooks" / "02_mean.ipynb")
