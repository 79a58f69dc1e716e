"""The series as the students' nbgitpuller sees it (classroom/hub/mirror.py), and the link that pulls it
(classroom/hub/link.py), from their docstrings: the hub's own bare copy gets the lecturer's committed HEAD as
``main`` (uncommitted work is not served, and is listed), the students' git config marks just that copy safe,
and every git failure is one sentence. Plain git in temporary folders: no hub, no root."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from classroom.hub import link, mirror
from classroom.hub.mirror import MirrorError

GIT_ID = {
    "GIT_AUTHOR_NAME": "Lecturer",
    "GIT_AUTHOR_EMAIL": "lecturer@example.edu",
    "GIT_COMMITTER_NAME": "Lecturer",
    "GIT_COMMITTER_EMAIL": "lecturer@example.edu",
}


def git(*args, cwd: Path) -> str:
    """The test's own git (not mirror's): its output, stripped."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT_ID})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(autouse=True)
def outside_any_repository(tmp_path, monkeypatch):
    """Run from a folder that is no git repository, so that a git command without its folder touches none."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def checkout(tmp_path):
    """A lecturer's checkout with one commit, on a branch that is not called main."""
    folder = tmp_path / "series"
    folder.mkdir()
    git("init", "--quiet", "--initial-branch=lecture", cwd=folder)
    (folder / "a.txt").write_text("one\n", encoding="utf-8")
    (folder / "b.txt").write_text("two\n", encoding="utf-8")
    git("add", "a.txt", "b.txt", cwd=folder)
    git("commit", "--quiet", "-m", "first", cwd=folder)
    return folder


def commit(folder: Path, name: str, text: str, message: str) -> str:
    (folder / name).write_text(text, encoding="utf-8")
    git("add", name, cwd=folder)
    git("commit", "--quiet", "-m", message, cwd=folder)
    return git("rev-parse", "HEAD", cwd=folder)


def test_publishing_makes_a_bare_copy_whose_main_and_head_are_the_committed_head(checkout, tmp_path):
    bare = tmp_path / "state" / "deeper" / "series.git"  # its folders do not exist yet
    head = git("rev-parse", "HEAD", cwd=checkout)
    assert mirror.publish(checkout, bare) == head
    assert git("rev-parse", "--is-bare-repository", cwd=bare) == "true"
    assert git("rev-parse", "refs/heads/main", cwd=bare) == head
    assert git("symbolic-ref", "HEAD", cwd=bare) == "refs/heads/main"
    # the lecturer's own branch name stays at home
    assert git("for-each-ref", "--format=%(refname)", cwd=bare) == "refs/heads/main"
    assert git("config", "core.sharedRepository", cwd=bare) == "0644"  # readable by every student


def test_publishing_again_moves_main_to_the_new_commit(checkout, tmp_path):
    bare = tmp_path / "series.git"
    mirror.publish(checkout, bare)
    newer = commit(checkout, "a.txt", "one, fixed\n", "a fix")
    assert mirror.publish(checkout, bare) == newer
    assert git("rev-parse", "refs/heads/main", cwd=bare) == newer


def test_a_rewritten_history_is_served_too_even_in_a_copy_made_before(checkout, tmp_path):
    bare = tmp_path / "series.git"
    git("init", "--quiet", "--bare", "--shared=0644", str(bare), cwd=tmp_path)  # as an earlier hub made it
    mirror.publish(checkout, bare)
    commit(checkout, "a.txt", "one, fixed\n", "a fix")
    mirror.publish(checkout, bare)
    git("reset", "--quiet", "--hard", "HEAD~1", cwd=checkout)  # the fix withdrawn: main is not a fast-forward now
    rewritten = commit(checkout, "b.txt", "two, instead\n", "another fix")
    assert mirror.publish(checkout, bare) == rewritten
    assert git("rev-parse", "refs/heads/main", cwd=bare) == rewritten


def test_only_committed_work_is_served_and_the_changed_files_are_listed(checkout, tmp_path):
    bare = tmp_path / "series.git"
    (checkout / "a.txt").write_text("half done\n", encoding="utf-8")  # changed, not staged
    (checkout / "b.txt").write_text("staged\n", encoding="utf-8")
    git("add", "b.txt", cwd=checkout)
    (checkout / "notes.txt").write_text("mine\n", encoding="utf-8")  # untracked: not part of the series
    mirror.publish(checkout, bare)
    assert git("show", "main:a.txt", cwd=bare) == "one"
    assert git("show", "main:b.txt", cwd=bare) == "two"
    assert mirror.uncommitted(checkout) == ["a.txt", "b.txt"]


def test_a_clean_checkout_has_nothing_uncommitted(checkout):
    assert mirror.uncommitted(checkout) == []


def test_a_folder_that_is_not_a_checkout_is_refused_and_nothing_is_made(tmp_path):
    plain, bare = tmp_path / "plain", tmp_path / "series.git"
    plain.mkdir()
    with pytest.raises(MirrorError) as caught:
        mirror.publish(plain, bare)
    assert str(caught.value) == f"{plain} is not a git checkout: the hub serves the series' committed history"
    assert not bare.exists()


def test_a_git_failure_is_one_sentence_with_gits_last_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    git("init", "--quiet", cwd=empty)  # a checkout with no commit: HEAD names nothing
    said = subprocess.run(["git", "rev-parse", "HEAD"], cwd=empty, capture_output=True, text=True)
    last = said.stderr.strip().splitlines()[-1]
    with pytest.raises(MirrorError) as caught:
        mirror.publish(empty, tmp_path / "series.git")
    assert str(caught.value) == f"git rev-parse HEAD failed: {last}"


def test_a_git_that_fails_without_a_word_says_no_reason_was_given(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(MirrorError) as caught:
        mirror.uncommitted(tmp_path)
    assert str(caught.value) == "git status --porcelain failed: no reason given"


def test_a_git_failure_on_stdout_only_is_named_from_stdout(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\necho first\necho 'the last word'\nexit 1\n", encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(MirrorError) as caught:
        mirror.uncommitted(tmp_path)
    assert str(caught.value) == "git status --porcelain failed: the last word"


def test_the_students_git_config_includes_the_systems_and_marks_only_the_copy_safe(tmp_path):
    bare, config = tmp_path / "state" / "series.git", tmp_path / "gitconfig"
    assert mirror.safe_config(bare, config) == config
    assert config.read_text(encoding="utf-8") == f"[include]\n\tpath = /etc/gitconfig\n[safe]\n\tdirectory = {bare}\n"
    assert stat.S_IMODE(config.stat().st_mode) == 0o644


def test_a_student_can_clone_the_published_copy_with_that_config(checkout, tmp_path):
    bare = tmp_path / "series.git"
    head = mirror.publish(checkout, bare)
    config = mirror.safe_config(bare, tmp_path / "gitconfig")
    done = subprocess.run(
        ["git", "config", "--system", "--get-all", "safe.directory"],
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CONFIG_SYSTEM": str(config)},
    )
    assert done.stdout.strip() == str(bare)
    clone = tmp_path / "student"
    git("clone", "--quiet", str(bare), str(clone), cwd=tmp_path)
    assert git("rev-parse", "HEAD", cwd=clone) == head
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=clone) == mirror.BRANCH == "main"


def test_a_link_for_another_notebook_and_branch_opens_that_notebook():
    repo = "https://git.example.edu/course/layernorm.git"
    expected = (
        "https://hub.example.edu/hub/user-redirect/git-pull?"
        f"repo={quote(repo, safe='')}&branch=fixes&targetpath=layernorm-step-by-step"
        "&urlpath=lab%2Ftree%2Flayernorm-step-by-step%2Fnotebooks%2F02_mean.ipynb"
    )
    for hub in ("https://hub.example.edu", "https://hub.example.edu/", "https://hub.example.edu//"):
        assert link.hub_link(hub, repo, "notebooks/02_mean.ipynb", "fixes") == expected
    under_a_path = link.hub_link("https://example.edu/course-X/", repo, "notebooks/02_mean.ipynb", "fixes")
    assert under_a_path == expected.replace("https://hub.example.edu", "https://example.edu/course-X")


def test_the_pull_query_defaults_to_the_contents_on_main():
    assert link.pull_query("/srv/series.git") == (
        "repo=%2Fsrv%2Fseries.git&branch=main&targetpath=layernorm-step-by-step"
        "&urlpath=lab%2Ftree%2Flayernorm-step-by-step%2Fnotebooks%2F00_contents.ipynb"
    )
    assert link.hub_link("http://hub", "/srv/series.git") == (
        "http://hub/hub/user-redirect/git-pull?" + link.pull_query("/srv/series.git")
    )
