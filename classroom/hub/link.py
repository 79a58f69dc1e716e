"""nbgitpuller links: one click puts the series (and every later fix) in a student's home.

The link goes to the hub, which logs the student in, starts their server and asks nbgitpuller to
clone the series into ~/layernorm-step-by-step, or, when it is there already, to merge the new
commits into it while keeping the student's own changes; then it opens the notebook.
"""

from __future__ import annotations

from urllib.parse import urlencode

from classroom.hub.mirror import BRANCH, FOLDER


def pull_query(repo: str, notebook: str = "notebooks/00_contents.ipynb", branch: str = BRANCH) -> str:
    """The query nbgitpuller's /git-pull takes: the repository, branch, folder and page to open."""
    return urlencode({"repo": repo, "branch": branch, "targetpath": FOLDER, "urlpath": f"lab/tree/{FOLDER}/{notebook}"})


def hub_link(hub_url: str, repo: str, notebook: str = "notebooks/00_contents.ipynb", branch: str = BRANCH) -> str:
    """The link to hand out (on the course page, a slide, an e-mail) for ``notebook`` of the series."""
    return f"{hub_url.rstrip('/')}/hub/user-redirect/git-pull?{pull_query(repo, notebook, branch)}"
