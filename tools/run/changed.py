"""`run.py test --changed`: the quick safe path for a change. Standard library only.

What changed: the files that differ from where this branch left main (``git merge-base main HEAD``;
LAYERNORM_CHANGED_BASE=HEAD: only what is not committed yet), committed or not, and new files git does not
ignore. From them:

* the tests of the packages touched: helpers/<package>/… → tests/<package>/ (helpers/plots → tests/display,
  helpers' top-level modules → tests/core), classroom/… → tests/classroom/, a changed test file itself;
  run as `--fast` runs them (not browser, hub or slow; two workers) but with the figures' tests (draws), then
  ruff on the changed Python files;
* the notebooks those modules feed, read from pyproject.toml's [tool.mutmut.notebooks] (the map kept for
  mutmut), and any changed notebook: each re-executed from a fresh kernel (`run.py execute`) and then
  checked with nbval, so that what a learner sees is the new output and it is reproducible.

Nothing else is run: `run.py test --fast` and `run.py test` stay the wider nets.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

from tools.run import fast_order
from tools.run.env import ROOT, ensure_env, say

TESTS_OF = {"plots": "display", "lessons": "lessons"}  # helpers/<package> -> tests/<folder>, where they differ


def changed_files(base: str = "main") -> list[str]:
    """Paths (relative to the repository) changed since this branch left ``base``, committed or not."""

    def git(*args) -> list[str]:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
        return [line for line in done.stdout.splitlines() if line]

    fork = git("merge-base", base, "HEAD")[0]
    found = git("diff", "--name-only", fork) + git("ls-files", "--others", "--exclude-standard")
    return sorted({path for path in found if (ROOT / path).exists()})


def test_targets(paths: list[str]) -> list[str]:
    """The test folders (or files) that guard the changed paths."""
    found = set()
    for path in paths:
        parts = Path(path).parts
        if parts[0] == "tests" and path.endswith(".py"):
            found.add(path if Path(path).name.startswith("test_") else str(Path(*parts[:2])))
        elif parts[0] == "helpers" and len(parts) > 2:
            found.add(f"tests/{TESTS_OF.get(parts[1], parts[1])}")
        elif parts[0] == "helpers":
            found.add("tests/core")
        elif parts[0] == "classroom":
            found.add("tests/classroom")
        elif parts[:2] == ("tools", "mutation") or parts[:2] == ("tools", "run"):
            found.add("tests/maintenance")
    folders = {target for target in found if not target.endswith(".py")}
    return sorted(
        t for t in found if (ROOT / t).exists() and not (t.endswith(".py") and str(Path(t).parent) in folders)
    )


def notebooks_fed(paths: list[str]) -> list[str]:
    """The notebooks whose stored outputs the changed modules feed, and the changed notebooks themselves."""
    feeds = _notebook_map((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = set()
    for path in paths:
        names.update(feeds.get(path, ()))
        if path.startswith("notebooks/") and path.endswith(".ipynb"):
            names.add(Path(path).stem)
    return sorted(f"notebooks/{name}.ipynb" for name in names if (ROOT / "notebooks" / f"{name}.ipynb").exists())


def _notebook_map(text: str) -> dict[str, list[str]]:
    """pyproject.toml's [tool.mutmut.notebooks]: module path -> notebook names (tomllib where Python has it)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the table's lines are `"path" = ["name", …]`
        part = text.split("[tool.mutmut.notebooks]", 1)[-1].split("\n[", 1)[0]
        pairs = re.findall(r'^"([^"]+)"\s*=\s*(\[[^\]]*\])', part, flags=re.MULTILINE)
        return {path: json.loads(names) for path, names in pairs}
    return tomllib.loads(text).get("tool", {}).get("mutmut", {}).get("notebooks", {})


BASE_VARIABLE = "LAYERNORM_CHANGED_BASE"  # what "changed" is measured from: main, unless set (e.g. HEAD)


def cmd_test_changed(extra: list[str], base: str | None = None) -> int:
    from tools.run.tests import (  # here, so that tests.py may import this module
        CHANGED_MARKERS,
        FAST_LEAVES_OUT,
        HYPOTHESIS_PROFILE_VARIABLE,
        NBVAL_FIX_PLUGIN,
        SANITIZE_CFG,
        cmd_execute,
        fast_workers,
        keep_bytecode,
        run,
    )

    python = ensure_env()
    base = base or os.environ.get(BASE_VARIABLE, "") or "main"
    paths = changed_files(base)
    targets, notebooks = test_targets(paths), notebooks_fed(paths)
    code_files = [p for p in paths if p.endswith(".py")]
    say(
        f"Changed since {base}: {len(paths)} files; tests: {', '.join(targets) or 'none'}; "
        f"notebooks: {', '.join(Path(n).stem for n in notebooks) or 'none'}"
    )
    start, codes = time.monotonic(), []
    os.environ.setdefault(HYPOTHESIS_PROFILE_VARIABLE, "fast")
    os.environ[fast_order.ENVIRONMENT] = str(fast_order.DURATIONS)  # its modules too, the longest first
    keep_bytecode()
    if targets:
        cmd = [str(python), "-m", "pytest", *targets, "-m", CHANGED_MARKERS, "-q", "-p", "no:cacheprovider"]
        cmd += FAST_LEAVES_OUT
        codes.append(run([*cmd, *fast_workers(python, extra), *extra]))
    if code_files:
        codes.append(run([str(python), "-m", "ruff", "check", *code_files]))
    if notebooks:
        codes.append(cmd_execute(notebooks, 600))
        nbval = [str(python), "-m", "pytest", "--nbval", "--nbval-current-env", "-p", NBVAL_FIX_PLUGIN]
        nbval += ["--nbval-sanitize-with", str(SANITIZE_CFG.relative_to(ROOT)), "-p", "no:cacheprovider", "-q"]
        codes.append(run([*nbval, *notebooks]))
    say(f"--changed took {time.monotonic() - start:.0f} s; `python3 run.py test` runs everything.")
    return next((code for code in codes if code), 0)
