"""pyproject.toml's [tool.mutmut]: each area's modules and tests exist, and a plain `mutmut run` mutates every
module of every area (``only_mutate`` is their union), so no area's module is left out of the whole-scope run."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def files(pattern: str) -> set[str]:
    """The Python files a module entry names (an entry may be a glob, as mutmut reads it)."""
    return {path.relative_to(ROOT).as_posix() for path in ROOT.glob(pattern) if path.suffix == ".py"}


def settings() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["mutmut"]


def test_every_areas_modules_and_tests_exist():
    for name, area in settings()["areas"].items():
        assert area["modules"] and area["tests"], name
        missing = [path for path in area["modules"] if not files(path)]
        missing += [path for path in area["tests"] if not (ROOT / path).is_file()]
        assert not missing, f"area {name}: {missing}"


def test_the_whole_scope_run_mutates_every_areas_modules():
    config = settings()
    union = {path for area in config["areas"].values() for pattern in area["modules"] for path in files(pattern)}
    listed = set()
    for pattern in config["only_mutate"]:
        assert files(pattern), f"only_mutate's {pattern} matches no file"
        listed |= files(pattern)
    assert union - listed == set(), f"modules of an area that a plain `mutmut run` leaves out: {sorted(union - listed)}"
