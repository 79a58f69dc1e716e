"""mutmut, pinned, over the maths, checking and display modules and classroom/'s hub-free code: a maintainer's command, not part of CI.

    .venv/bin/python tools/mutation/mutmut_run.py                   # every area in pyproject.toml ([tool.mutmut.areas.*])
    .venv/bin/python tools/mutation/mutmut_run.py --area core       # one area
    .venv/bin/python tools/mutation/mutmut_run.py --area core --module '*formula.py' --no-nbval --jobs 1
    .venv/bin/python tools/mutation/mutmut_run.py --area core --mutant 'helpers.core.formula.x_layer_norm_forward__mutmut_3'

tools/mutation/mutmut_triage.md has the last run's score and every survivor's verdict.

Each area is configured in pyproject.toml's ``[tool.mutmut.areas.<area>]`` (its modules and its fast
tests, and optionally ``pytest_args`` added to pytest's for that area; the rest of ``[tool.mutmut]`` is
mutmut's own configuration). For each area this

1. installs mutmut==3.8.1 into this Python if it is missing or another version (printing the pip command);
2. deletes ``mutants/`` (git-ignored; ``--resume`` keeps it, to go on after a stop) and runs ``mutmut run``
   with only the area's modules mutated and only the area's tests selected (mutmut then runs each mutant
   against the tests that call its function). Starting afresh keeps a result from ever coming out of another
   area's or an older run's cache. ``--mutant NAME`` (repeatable) runs only those mutants, e.g. the survivors
   of a run again after new tests, and counts only them;
3. gives nbval its credit: a survivor in a module that feeds notebooks (``[tool.mutmut.notebooks]``) is
   written into a temporary copy of the repository (``tools/mutation/run.py``'s copy; ``mutmut apply``
   run inside the copy, with the copy's ``mutants/`` linked to this one, rewrites only the copy's module),
   and nbval runs those notebooks there with ``-x``; a notebook whose outputs change kills the mutant.
   The unmutated copy must pass nbval first, or no credit is given at all;
4. prints killed / total by module and area, then every survivor with its diff.

"Killed" counts mutmut's killed and timeout (a hang is caught: the real suite has timeouts too), and the time-outs
are printed apart: mutmut stops a mutant at a wall-clock limit as well as a CPU one, so on a loaded machine a
time-out may be a slow test, not a hang. Check a module's time-outs by name on a quiet machine before counting them.
"No tests" (no selected test calls the function) counts as a survivor. The exit code is the number
of survivors (at most 100). Nothing here runs in ``run.py test``; it takes minutes to an hour on 2 cores,
and runs at nice 10.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
MUTMUT = "mutmut==3.8.1"
MUTANTS = ROOT / "mutants"
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
NBVAL = [
    "--nbval",
    "--nbval-current-env",
    "--nbval-cell-timeout",
    "300",
    "-p",
    "no:cacheprovider",
    "-p",
    "tools.pytest_plugins.nbval_store_history",
    "--nbval-sanitize-with",
    "tests/nbval_sanitize.cfg",
    "-q",
    "-x",
]


@dataclass
class Module:
    path: str
    status: dict[str, str] = field(default_factory=dict)  # mutant name -> mutmut's status
    nbval: dict[str, str] = field(default_factory=dict)  # survivor -> the notebook that killed it

    def killed(self, with_nbval: bool = True) -> int:
        caught = sum(s in KILLED for s in self.status.values())
        return caught + (len(self.nbval) if with_nbval else 0)

    def timed_out(self) -> int:
        return sum(s == "timeout" for s in self.status.values())

    def survivors(self) -> list[str]:
        return [name for name, s in self.status.items() if s not in KILLED and name not in self.nbval]


def settings() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]


def ensure_mutmut() -> None:
    wanted = MUTMUT.split("==")[1]
    try:
        installed = metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        installed = None
    if installed == wanted:
        print(f"mutmut {installed} is installed")
        return
    command = [sys.executable, "-m", "pip", "install", MUTMUT]
    print(f"mutmut is {'at ' + installed if installed else 'missing'}; installing the pinned one: {' '.join(command)}")
    subprocess.run(command, check=True)


def run_mutmut(area: dict, jobs: int, names: list[str]) -> int:
    """``mutmut run`` in a child process with the area's modules and tests put into mutmut's configuration."""
    tests = [t for t in area["tests"] if (ROOT / t).exists()]  # a new test file may not be written yet
    child = (
        "import sys\n"
        "from mutmut.configuration import config\n"
        "from mutmut.__main__ import cli\n"
        "c = config()\n"
        f"c.only_mutate = {area['modules']!r}\n"
        f"c.pytest_add_cli_args_test_selection = {tests!r}\n"
        f"c.pytest_add_cli_args = [*c.pytest_add_cli_args, *{area.get('pytest_args', [])!r}]\n"
        f"cli(['run', '--max-children', '{jobs}', *{names!r}])\n"
    )
    print(f"mutmut run: mutating {', '.join(area['modules'])}\n  tests: {' '.join(tests)}", flush=True)
    if sys.stdout.isatty():
        return subprocess.run([sys.executable, "-c", child], cwd=ROOT).returncode
    # Into a log or a pipe, mutmut's spinner (redrawn with "\r") would be thousands of frames: keep the last of each line.
    with subprocess.Popen(
        [sys.executable, "-c", child], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        for line in process.stdout:
            last = line.rstrip("\n").split("\r")[-1]
            progress = re.match(r"\W*(\d+)/(\d+) ", last)  # "⠇ 88/781  🎉 25 🫥 60 ...": one in 100, and the end
            if not progress or int(progress[1]) % 100 == 0 or progress[1] == progress[2]:
                print(last, flush=True)
    return process.returncode


def mutant_of(name: str, module: str) -> bool:
    """Whether mutant ``name`` (mutmut's: the module's dotted name, then the function's, e.g.
    ``helpers.checking.answers.x_diagnose__mutmut_3``) is one of ``module``'s (a path). A package's
    ``__init__.py`` is named without ``__init__``: ``helpers.checking.mistakes.x_name_of__mutmut_6``.
    The module part of ``name`` may be a glob (``helpers.checking.*.x_forward__mutmut_1``)."""
    dotted = module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return fnmatch.fnmatchcase(dotted, name.rpartition(".")[0])


def read_results(patterns: list[str]) -> list[Module]:
    from mutmut.stats import status_by_exit_code

    modules = []
    for meta in sorted([*MUTANTS.glob("helpers/**/*.py.meta"), *MUTANTS.glob("classroom/**/*.py.meta")]):
        path = meta.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        if any(fnmatch.fnmatch(path, p) for p in patterns):
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            status = {name: status_by_exit_code[code] for name, code in codes.items()}
            # with --mutant, the mutants not named are not run: leave them out of the counts
            modules.append(Module(path, {name: s for name, s in status.items() if s != "not checked"}))
    return modules


def diff(name: str, path: str) -> str:
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = os.getcwd()
    os.chdir(ROOT)  # mutmut reads mutants/ relative to the working folder
    try:
        return get_diff_for_mutant(name, path=path)
    finally:
        os.chdir(cwd)


def nbval(copy: Path, notebooks: list[str], timeout: int) -> str | None:
    """The first of ``notebooks`` whose nbval fails in ``copy``, or None when they all pass."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    for name in notebooks:
        command = [sys.executable, "-m", "pytest", f"notebooks/{name}.ipynb", *NBVAL]
        try:
            result = subprocess.run(command, cwd=copy, env=env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return name  # a hang is caught
        if result.returncode != 0:
            return name
    return None


def credit_nbval(modules: list[Module], notebook_map: dict[str, list[str]], timeout: int) -> None:
    """Run each survivor of a module that feeds notebooks against nbval of those notebooks, in a copy."""
    from tools.mutation.run import copy_repository

    fed = [m for m in modules if notebook_map.get(m.path) and m.survivors()]
    if not fed:
        return
    with tempfile.TemporaryDirectory(prefix="mutmut-nbval-") as folder:
        copy = copy_repository(Path(folder))
        (copy / "mutants").symlink_to(MUTANTS)  # `mutmut apply` in the copy reads the mutants from here
        needed = sorted({nb for m in fed for nb in notebook_map[m.path]})
        print(f"nbval credit: checking that {', '.join(needed)} pass unmutated in {copy}", flush=True)
        failing = nbval(copy, needed, timeout)
        if failing:
            print(f"  no nbval credit: {failing} fails in the copy before any mutation")
            return
        for module in fed:
            original = (copy / module.path).read_text(encoding="utf-8")
            for name in module.survivors():
                start = time.monotonic()
                applied = subprocess.run(
                    [sys.executable, "-m", "mutmut", "apply", name], cwd=copy, capture_output=True, text=True
                )
                try:
                    if applied.returncode != 0 or (copy / module.path).read_text(encoding="utf-8") == original:
                        print(f"  {name}: NOT APPLIED {applied.stderr.strip()[-200:]}")
                        continue
                    killer = nbval(copy, notebook_map[module.path], timeout)
                finally:
                    (copy / module.path).write_text(original, encoding="utf-8")
                if killer:
                    module.nbval[name] = killer
                verdict = f"killed by nbval of {killer}" if killer else "survives nbval"
                print(f"  {name}: {verdict} ({time.monotonic() - start:.0f} s)", flush=True)


def report(area_name: str, modules: list[Module]) -> None:
    total = sum(len(m.status) for m in modules)
    fast = sum(m.killed(with_nbval=False) for m in modules)
    credited = sum(len(m.nbval) for m in modules)
    timed_out = sum(m.timed_out() for m in modules)
    print(
        f"\n== area {area_name}: {fast + credited} / {total} killed ({fast} by its tests, of which {timed_out} "
        f"by mutmut's time-out; {credited} by nbval)"
    )
    for m in modules:
        print(f"  {m.path:40} {m.killed():4} / {len(m.status):4}   time-outs {m.timed_out():4}   nbval {len(m.nbval)}")
    for m in modules:
        for name in m.survivors():
            print(f"\n  SURVIVOR ({m.status[name]}) {name}\n{diff(name, m.path)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--area", choices=list(settings()["areas"]), help="one area (default: every one)")
    parser.add_argument("--jobs", type=int, default=2, help="mutmut's worker processes (default 2)")
    parser.add_argument("--module", action="append", default=[], help="only the area's modules matching this glob")
    parser.add_argument(
        "--mutant",
        action="append",
        default=[],
        help="run only this mutant (a name or glob, repeatable): e.g. to re-run survivors",
    )
    parser.add_argument(
        "--resume", action="store_true", help="keep mutants/ and run only the mutants not yet checked (after a stop)"
    )
    parser.add_argument("--no-nbval", action="store_true", help="give no nbval credit (faster)")
    parser.add_argument("--nbval-timeout", type=int, default=600, help="seconds per notebook (default 600)")
    args = parser.parse_args(argv)
    os.nice(10)  # the machine is shared; the children inherit it
    # One thread of numerical work per process, as the fast loop runs (tools/run/tests.py). mutmut forks a child
    # per mutant from a process whose tests already ran torch on its thread pool; OpenMP's pool does not survive
    # a fork, so a child that calls torch again can hang until mutmut's wall-clock limit, which counts as a kill.
    # Measured on helpers/reference.py (180 mutants, 2 cores): 180 "killed", 132 of them by time-out, without
    # this; 167 killed by a failing test, no time-out and 13 survivors with it.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    ensure_mutmut()
    config = settings()
    sys.path.insert(0, str(ROOT))  # run as a script: tools/ is a package under ROOT
    survivors = 0
    for area_name in [args.area] if args.area else list(config["areas"]):
        area = dict(config["areas"][area_name])
        # "helpers/checking/mistakes/*" → its files, so that --module can pick one of them
        area["modules"] = sorted(
            {p.relative_to(ROOT).as_posix() for m in area["modules"] for p in ROOT.glob(m) if p.suffix == ".py"}
        )
        if args.module:
            area["modules"] = [m for m in area["modules"] if any(fnmatch.fnmatch(m, g) for g in args.module)]
            if not area["modules"]:
                continue
        started = time.monotonic()
        if not args.resume:
            shutil.rmtree(MUTANTS, ignore_errors=True)
        names = [n for n in args.mutant if any(mutant_of(n, m) for m in area["modules"])]
        if args.mutant and not names:
            continue
        code = run_mutmut(area, args.jobs, names)
        if code != 0:
            print(f"error: mutmut run failed for {area_name} (exit {code})", file=sys.stderr)
            return 100
        modules = read_results(area["modules"])
        if not args.no_nbval:
            credit_nbval(modules, config.get("notebooks", {}), args.nbval_timeout)
        report(area_name, modules)
        print(f"  ({time.monotonic() - started:.0f} s)")
        survivors += sum(len(m.survivors()) for m in modules)
    return min(survivors, 100)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
