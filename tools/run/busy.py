"""`run.py test --busy N`: N busy loops beside the tests, to prove the suite holds on a busy machine
(tests wait for states, with deadlines that scale with the load: tests/patience.py). Not part of CI.
Standard library only."""

from __future__ import annotations

import contextlib
import subprocess
import sys

from tools.run.env import Failure, say

# Spins, and ends itself once run.py has gone (its parent changes), even if run.py was killed outright.
LOOP = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    for _ in range(1_000_000):\n        pass\n"


def take_busy(extra: list[str]) -> tuple[int, list[str]]:
    """(N from ``--busy N`` or ``--busy=N``, 0 without it; the other arguments)."""
    count, rest, args = 0, [], iter(extra)
    for arg in args:
        if arg == "--busy" or arg.startswith("--busy="):
            value = arg.partition("=")[2] if "=" in arg else next(args, "")
            if not value.isdigit() or int(value) < 1:
                raise Failure(f"error: --busy needs a number of busy loops (1 or more), not {value!r}", code=2)
            count = int(value)
        else:
            rest.append(arg)
    return count, rest


@contextlib.contextmanager
def busy_loops(count: int):
    """``count`` busy-loop processes for the duration of the block; ended afterwards, also on Ctrl-C or a
    failure, and said so."""
    if count < 1:
        yield []
        return
    loops = [
        subprocess.Popen([sys.executable, "-c", LOOP], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for _ in range(count)
    ]
    pids = ", ".join(str(loop.pid) for loop in loops)
    say(f"Started {count} busy loop(s) beside the tests (pids {pids}): the suite must hold on a busy machine.")
    try:
        yield loops
    finally:
        for loop in loops:
            loop.terminate()
        for loop in loops:
            try:
                loop.wait(timeout=10)
            except subprocess.TimeoutExpired:
                loop.kill()
                loop.wait()
        say(f"Ended the {count} busy loop(s) (pids {pids}).")
