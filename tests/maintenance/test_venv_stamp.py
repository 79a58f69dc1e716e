"""run.py reinstalls the venv when its stamp differs from what requirements.txt and pyproject.toml ask for
(tools/run/env.py). Only what changes the install may count: a new mutmut area or pytest option must not
cost a maintainer a reinstall, and a new dependency must always get one."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.env import install_part, requirements_hash  # noqa: E402

PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]

[project]
name = "x"
dependencies = ["numpy>=1.26"]

[project.optional-dependencies]
torch = ["torch==2.13.0"]

[tool.setuptools.packages.find]
include = ["helpers*"]

[tool.pytest.ini_options]
addopts = "-q"

[tool.mutmut]
only_mutate = ["a.py"]
"""


def stamp(tmp_path: Path, pyproject: str, requirements: str = "numpy==2.0\n") -> str:
    (tmp_path / "requirements.txt").write_text(requirements, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return requirements_hash(tmp_path / "requirements.txt", tmp_path / "pyproject.toml")


def test_test_and_mutation_settings_do_not_count(tmp_path):
    before = stamp(tmp_path, PYPROJECT)
    changed = PYPROJECT.replace('"-q"', '"-q -x"').replace('["a.py"]', '["a.py", "b.py"]')
    changed += '\n[tool.mutmut.areas.new]\nmodules = ["c.py"]\n'
    assert stamp(tmp_path, changed) == before


def test_every_install_table_counts(tmp_path):
    before = stamp(tmp_path, PYPROJECT)
    for old, new in [
        ('"setuptools>=64"', '"setuptools>=70"'),
        ('"numpy>=1.26"', '"numpy>=2"'),
        ('"torch==2.13.0"', '"torch==2.14.1"'),
        ('["helpers*"]', '["helpers*", "classroom*"]'),
        ('name = "x"', 'name = "y"'),
    ]:
        assert old in PYPROJECT
        assert stamp(tmp_path, PYPROJECT.replace(old, new)) != before, new


def test_a_new_install_table_counts_wherever_it_is_written(tmp_path):
    before = stamp(tmp_path, PYPROJECT)
    assert stamp(tmp_path, PYPROJECT + '\n[project.scripts]\nlesson = "helpers.cli:main"\n') != before
    moved = PYPROJECT.replace("[tool.mutmut]", '[project.scripts]\nlesson = "helpers.cli:main"\n\n[tool.mutmut]')
    assert stamp(tmp_path, moved) != before


def test_requirements_count_whole(tmp_path):
    assert stamp(tmp_path, PYPROJECT) != stamp(tmp_path, PYPROJECT, "numpy==2.1\n")
    assert stamp(tmp_path, PYPROJECT, "numpy==2.0\r\n") == stamp(tmp_path, PYPROJECT, "numpy==2.0\n")


def test_the_install_part_of_this_projects_pyproject():
    part = install_part((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert part.startswith("[build-system]") and "[project]" in part and "[tool.setuptools.packages.find]" in part
    assert "mutmut" not in part and "pytest" not in part
