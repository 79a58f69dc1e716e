"""The series as the students' nbgitpuller sees it: a git repository every student can read.

By default the hub serves its own copy: a bare repository in the state folder
(``series.git``), updated from the lecturer's checkout by ``python3 run.py hub`` and
``python3 run.py hub-publish`` (committed work only). A course that publishes the series on a
git host can point the hub at that address instead (``--repo URL``) and skip the copy.

The bare repository is owned by root; git refuses to read a repository another user owns
("dubious ownership"), and in git 2.39 only a system or global setting can allow it. The hub gives
the students' servers a small system git config (``GIT_CONFIG_SYSTEM``) that includes
/etc/gitconfig and marks just this repository safe, so a student's own ~/.gitconfig still applies.

Standard library only.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

BRANCH = "main"
FOLDER = "layernorm-step-by-step"  # where nbgitpuller puts the series in each student's home


class MirrorError(RuntimeError):
    """A problem publishing the series, in one sentence."""


def _git(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise MirrorError(f"git {' '.join(args[:2])} failed: {said[-1] if said else 'no reason given'}")
    return done.stdout


def publish(checkout: Path, bare: Path) -> str:
    """Push ``checkout``'s committed HEAD to ``bare`` (created if missing) as ``main``, even when it is not a
    descendant of what ``main`` was (an amended fix); return the commit."""
    if not (checkout / ".git").exists():
        raise MirrorError(f"{checkout} is not a git checkout: the hub serves the series' committed history")
    if not bare.exists():
        bare.parent.mkdir(parents=True, exist_ok=True)
        _git("init", "--quiet", "--bare", "--shared=0644", str(bare))
    commit = _git("rev-parse", "HEAD", cwd=checkout).strip()
    # --shared also sets receive.denyNonFastForwards, which refuses even a forced push: without this, a fix
    # amended, or HEAD moved back, could never be served ("failed to push some refs"), in a copy made before too.
    _git("config", "receive.denyNonFastForwards", "false", cwd=bare)
    _git("push", "--quiet", "--force", str(bare), f"{commit}:refs/heads/{BRANCH}", cwd=checkout)
    _git("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}", cwd=bare)
    return commit


def uncommitted(checkout: Path) -> list[str]:
    """Files changed in ``checkout`` but not committed (they are not served)."""
    return [line[3:] for line in _git("status", "--porcelain", "--untracked-files=no", cwd=checkout).splitlines()]


def safe_config(bare: Path, config: Path) -> Path:
    """Write the students' system git config that allows reading ``bare`` (see the module's docstring)."""
    config.write_text(f"[include]\n\tpath = /etc/gitconfig\n[safe]\n\tdirectory = {bare}\n", encoding="utf-8")
    config.chmod(0o644)
    return config
