"""`run.py test`'s other installs, made beside .venv's: pip keeps one core busy for that minute and more,
and the other was idle. The Colab-like environment (.venv-colab) and, as root, the class hub's own (the
hub tests would install it in the middle of a half, on the run's longest path). Each is done again, and
its failure said, where it is needed: here a failure is only left for that. Standard library only.

``python3 -m tools.run.ahead`` makes all three and exits: CI (.ci/run) runs it beside apt-get, which
installs chromium and PostgreSQL on a fresh machine for about a minute while pip waited; `run.py test`
then finds every environment up to date."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable

from tools.run.env import ensure_env, say


def hub_env() -> None:
    """The class hub's environment and proxy, as `run.py hub` installs them; as root only (the hub tests
    need root, and are skipped without it)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    from classroom.hub import install

    install.ensure_python_env(install.DEFAULT_HOME, say)
    install.ensure_proxy(install.DEFAULT_HOME, say)


@contextlib.contextmanager
def installs_beside(*installs: Callable[[], None] | None):
    """Each install in a thread of its own while the block runs; all ended before the block's end returns
    (the tests that follow need both cores, and each install's files whole)."""
    failures: list[str] = []

    def attempt(install: Callable[[], None]) -> None:
        try:
            install()
        except Exception as error:  # noqa: BLE001 (redone, and reported, where it is needed)
            failures.append(f"{install.__name__}: {error}")

    threads = [threading.Thread(target=attempt, args=(i,), name=f"run.py test: {i.__name__}", daemon=True)
               for i in installs if i is not None]  # fmt: skip
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for thread in threads:
            thread.join()
        for failure in failures:
            say(f"(installing ahead did not finish, so it is tried again where it is needed: {failure})")


def environments():
    """.venv's Python, made with the Colab-like environment and (as root) the hub's beside it: what a whole
    `run.py test` installs before its first test (the others are only tried: their tests retry them)."""
    from tools.run.tests import colab_env  # tools.run.tests imports this module

    with installs_beside(colab_env, hub_env):
        return ensure_env()


def everything() -> int:
    """`python3 -m tools.run.ahead`: :func:`environments`, then 0 (a failed .venv raises Failure)."""
    environments()
    return 0


if __name__ == "__main__":
    import sys

    from tools.run.env import Failure

    try:
        sys.exit(everything())
    except Failure as failure:
        print(failure, file=sys.stderr)
        sys.exit(failure.code)
