"""A curated mutation run: plant one semantic one-line bug at a time and see whether the tests catch it.

For maintainers, not CI (it takes minutes on 2 cores). The repository is copied once to a temporary
folder (the notebooks too, so a sentence of prose can be mutated like a line of code); each mutation
in ``tools/mutation/curated.py`` is applied to that copy only (never to the working tree), the tests named for its area run with ``-x``, and the copy is restored. A mutation the
tests do not catch is a survivor: the report lists them, and the exit code is the number of them.

    .venv/bin/python tools/mutation/run.py              # every mutation
    .venv/bin/python tools/mutation/run.py -k widgets   # those whose name contains "widgets"
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: tools/ is a package under ROOT

from tools.mutation.curated import AREA_TESTS, MUTATIONS  # noqa: E402

# notebooks: prose mutations; lecturer, classroom: tests import lecturer.solutions and classroom.service;
# lecture: the lecture's tests run its notebook (tests/lessons/test_lecture_reveal.py)
COPIED = ("helpers", "tests", "data", "tools", "notebooks", "lecture", "lecturer", "classroom", "pyproject.toml")


def copy_repository(destination: Path) -> Path:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, destination / name, ignore=shutil.ignore_patterns("__pycache__", "_artifacts", "*.pyc")
            )
        elif source.is_file():
            shutil.copy2(source, destination / name)
    return destination


def run_tests(copy: Path, tests: list[str], timeout: int) -> tuple[bool, float]:
    """True when the tests fail (the mutation is caught); and the seconds it took."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        *tests,
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "not browser",
        "--hypothesis-seed=0",
    ]
    start = time.monotonic()
    try:
        result = subprocess.run(
            cmd, cwd=copy, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return True, time.monotonic() - start  # a hang is caught (the real suite has timeouts too)
    return result.returncode != 0, time.monotonic() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", default="", help="only mutations whose name contains this")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per mutation (default 300)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if args.k in m.name]
    with tempfile.TemporaryDirectory(prefix="mutation-run-") as folder:
        copy = copy_repository(Path(folder))
        check = subprocess.run(
            [sys.executable, "-c", "import helpers; print(helpers.__file__)"],
            cwd=copy,
            env={**os.environ, "PYTHONPATH": str(copy)},
            capture_output=True,
            text=True,
        )
        if not check.stdout.strip().startswith(str(copy)):
            print(f"error: the copy's helpers is not the one imported ({check.stdout.strip()})", file=sys.stderr)
            return 100
        # an area whose tests already fail in the copy would report every mutation as caught
        for area in sorted({m.area for m in chosen}):
            failing, seconds = run_tests(copy, AREA_TESTS[area], args.timeout)
            if failing:
                print(
                    f"error: the {area!r} tests fail in the copy before any mutation ({seconds:.0f} s)", file=sys.stderr
                )
                return 100
        caught, survivors, broken = 0, [], []
        for number, mutation in enumerate(chosen, start=1):
            path = copy / mutation.path
            original = path.read_text(encoding="utf-8")
            if original.count(mutation.old) != 1:
                broken.append(mutation)
                print(f"[{number:2}/{len(chosen)}] {mutation.name}: NOT APPLIED (the line is not there once)")
                continue
            path.write_text(original.replace(mutation.old, mutation.new), encoding="utf-8")
            try:
                killed, seconds = run_tests(copy, AREA_TESTS[mutation.area], args.timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            caught += killed
            if not killed:
                survivors.append(mutation)
            print(
                f"[{number:2}/{len(chosen)}] {mutation.name}: {'caught' if killed else 'SURVIVED'} ({seconds:.0f} s)",
                flush=True,
            )
    applied = len(chosen) - len(broken)
    print(f"\n{caught} of {applied} mutations caught; {len(survivors)} survived; {len(broken)} not applied.")
    for mutation in survivors:
        visible = " (learner-visible)" if mutation.learner_visible else ""
        print(
            f"  SURVIVOR{visible}: {mutation.name} in {mutation.path}: {mutation.old.strip()!r} → {mutation.new.strip()!r}"
        )
    return len(survivors) + len(broken)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
