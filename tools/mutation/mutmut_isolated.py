"""mutmut's mutants of a module that forks, each run by its own pytest in its own session: a maintainer's command.

mutmut runs every mutant inside its own worker processes, and two things break that for
``helpers/forensics/isolate.py``: a mutant that makes the parent take the child's branch calls
``os.kill(0, SIGKILL)`` and kills mutmut's whole process group (the run ends with no result), and the
code that runs in the forked child is never seen by mutmut's stats (it reports "no tests"). This script
uses the mutants mutmut generated (its ``mutants/`` folder; generate them with ``mutmut_run.py --area
forensics --module '*isolate.py'`` and stop it once "Generating mutants" is done) and runs each one as
``MUTANT_UNDER_TEST=<name> setsid pytest <tests> -x`` inside ``mutants/``: a mutant that kills its group
kills only its own run (it counts as killed: the suite dies), and the forked child inherits the
variable, so its code runs mutated too.

    PYTHONPATH=/tmp/mutmut-pkgs .venv/bin/python tools/mutation/mutmut_isolated.py \\
        --module helpers/forensics/isolate.py --tests tests/forensics/test_isolated_run.py [--mutant NAME ...]

It prints one line per mutant (name, pytest's exit code, seconds) and the survivors (exit code 0).
The unmutated module must pass first. mutmut itself must be importable (its trampolines import it).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "mutants"


def mutant_names(module: str) -> list[str]:
    """Every mutant mutmut wrote for ``module`` (a path such as helpers/forensics/isolate.py), in order."""
    source = (MUTANTS / module).read_text(encoding="utf-8")
    dotted = module.removesuffix(".py").replace("/", ".")
    keys = set(re.findall(r"'(x[^']*__mutmut_\d+)'", source))
    return [f"{dotted}.{key}" for key in sorted(keys, key=lambda k: (k.rsplit("_", 1)[0], int(k.rsplit("_", 1)[1])))]


def run(name: str, tests: list[str], limit: float) -> tuple[int, float, str]:
    """pytest on ``tests`` with mutant ``name`` active ("" for none), in a session of its own."""
    env = {**os.environ, "MUTANT_UNDER_TEST": name, "PY_IGNORE_IMPORTMISMATCH": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH", ""), str(MUTANTS)]))
    command = ["setsid", "timeout", "-s", "KILL", str(limit), sys.executable, "-m", "pytest", *tests]
    start = time.monotonic()
    done = subprocess.run(
        [*command, "-x", "-q", "-p", "no:cacheprovider"], cwd=MUTANTS, env=env, capture_output=True, text=True
    )
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, time.monotonic() - start, lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", required=True, help="the mutated module, e.g. helpers/forensics/isolate.py")
    parser.add_argument("--tests", required=True, action="append", help="a test file (repeatable)")
    parser.add_argument("--mutant", action="append", default=[], help="only this mutant (repeatable)")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds before one run is killed (killed)")
    args = parser.parse_args(argv)
    if not (MUTANTS / args.module).exists():
        parser.error(f"{MUTANTS / args.module} does not exist: let mutmut generate the mutants first")
    code, seconds, last = run("", args.tests, args.limit)
    print(f"unmutated\t{code}\t{seconds:.1f}\t{last}", flush=True)
    if code != 0:
        print("The unmutated module fails its tests: no mutant is judged.")
        return 1
    names = args.mutant or mutant_names(args.module)
    survivors = []
    for name in names:
        code, seconds, last = run(name, args.tests, args.limit)
        print(f"{name}\t{code}\t{seconds:.1f}\t{last[:100]}", flush=True)
        if code == 0:
            survivors.append(name)
    print(f"killed {len(names) - len(survivors)} / {len(names)}")
    for name in survivors:
        print(f"  SURVIVOR {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
