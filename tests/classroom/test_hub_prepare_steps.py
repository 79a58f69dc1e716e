"""Everything before the hub process (classroom/hub/launch.py's ``prepare``), with every step that needs root
or the network stood in for: the installs, the students' accounts, the series' copy and nbgrader's course.

From the module's docstrings: root first; every problem is one sentence (an install's, the class list's, an
account's, git's); the state folder is open to all (students' git reads series.git) and private/ is root's
alone, whatever they were before; a missing class list is made from the template and the lecturer is told
where; every name on the list gets an account, instructors too; without --repo the hub serves its own copy
of the committed series and says which commit, and how many changed files are not served; the students' git
config is written either way; and the class list is what ``prepare`` returns.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from classroom.hub import accounts, install, launch, mirror, roster
from classroom.hub.launch import HubError
from classroom.hub.settings import HubSettings

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def steps(monkeypatch) -> list:
    """The steps taken, in order, each by name (and what it was given)."""
    taken: list = []
    monkeypatch.setattr(launch, "require_root", lambda: taken.append("root"))
    monkeypatch.setattr(install, "ensure_python_env", lambda home, say: taken.append(("python", home)))
    monkeypatch.setattr(install, "ensure_proxy", lambda home, say: taken.append(("proxy", home)))
    monkeypatch.setattr(accounts, "ensure_student", lambda name: taken.append(("account", name)))
    monkeypatch.setattr(mirror, "publish", lambda checkout, bare: taken.append(("publish", checkout, bare)) or COMMIT)
    monkeypatch.setattr(mirror, "uncommitted", lambda checkout: [])
    monkeypatch.setattr(launch, "set_up_grading", lambda settings: taken.append(("grading", settings.grading)))
    monkeypatch.setattr(launch.os, "umask", lambda mask: taken.append(("umask", mask)))
    return taken


def settings_in(tmp_path: Path, class_list: str | None = "lecturer instructor\nalice\nbob\n", **options):
    settings = HubSettings(state=str(tmp_path / "state"), home=str(tmp_path / "home"), **options)
    if class_list is not None:
        settings.roster_path.parent.mkdir(parents=True, exist_ok=True)
        settings.roster_path.write_text(class_list, encoding="utf-8")
    return settings


def test_every_step_in_order_and_the_class_list_is_returned(tmp_path, steps):
    settings = settings_in(tmp_path)
    said = []
    class_list = launch.prepare(settings, say=said.append)
    assert class_list == roster.Roster(("alice", "bob"), ("lecturer",))
    home = Path(settings.home)
    assert steps == [
        "root",
        ("python", home),
        ("proxy", home),
        ("umask", 0o022),
        ("account", "lecturer"),
        ("account", "alice"),
        ("account", "bob"),
        ("publish", launch.REPOSITORY, settings.bare_repo),
        ("grading", settings.grading),
    ]
    assert said == [f"Serving the series at commit 0123456 from {settings.bare_repo}."]
    assert settings.git_config.read_text(encoding="utf-8") == (
        f"[include]\n\tpath = /etc/gitconfig\n[safe]\n\tdirectory = {settings.bare_repo}\n"
    )


def test_not_root_stops_before_anything_is_installed(tmp_path, steps, monkeypatch):
    def refuse():
        raise HubError("not root")

    monkeypatch.setattr(launch, "require_root", refuse)
    with pytest.raises(HubError, match="^not root$"):
        launch.prepare(settings_in(tmp_path), say=print)
    assert steps == []


def test_the_state_folder_is_open_to_all_and_private_is_roots_alone_whatever_they_were(tmp_path, steps):
    settings = settings_in(tmp_path)
    Path(settings.state).chmod(0o700)
    settings.private.mkdir()
    settings.private.chmod(0o755)
    launch.prepare(settings, say=lambda message: None)
    assert stat.S_IMODE(Path(settings.state).stat().st_mode) == 0o755
    assert stat.S_IMODE(settings.private.stat().st_mode) == 0o700


def test_a_missing_class_list_is_made_from_the_template_and_the_lecturer_is_told_where(tmp_path, steps):
    settings = settings_in(tmp_path, class_list=None)
    with pytest.raises(HubError) as caught:
        launch.prepare(settings, say=lambda message: None)
    path = Path(settings.state) / "students.txt"
    assert str(caught.value) == f"there is no class list yet: add the students' names to {path} (made for you)"
    assert path.read_text(encoding="utf-8") == roster.TEMPLATE
    assert not [step for step in steps if step[0] in ("account", "publish", "grading")]


def test_a_class_list_given_elsewhere_is_the_one_read(tmp_path, steps):
    elsewhere = tmp_path / "my-class.txt"
    elsewhere.write_text("carol\n", encoding="utf-8")
    settings = settings_in(tmp_path, class_list=None, students_file=str(elsewhere))
    assert launch.prepare(settings, say=lambda message: None) == roster.Roster(("carol",), ())
    assert ("account", "carol") in steps and not (Path(settings.state) / "students.txt").exists()


def test_a_class_list_problem_is_its_one_sentence_and_no_account_is_made(tmp_path, steps):
    settings = settings_in(tmp_path, class_list="alice\nRoot\n")
    with pytest.raises(HubError) as caught:
        launch.prepare(settings, say=lambda message: None)
    assert str(caught.value) == (
        f"{settings.roster_path} line 2: 'Root' has capital letters; Unix names are lower case: write 'root'"
    )
    assert not [step for step in steps if step[0] == "account"]


def test_an_account_problem_is_its_one_sentence(tmp_path, steps, monkeypatch):
    def refuse(name):
        raise accounts.AccountError(f"{name} is a system account, not a student")

    monkeypatch.setattr(accounts, "ensure_student", refuse)
    with pytest.raises(HubError) as caught:
        launch.prepare(settings_in(tmp_path), say=lambda message: None)
    assert str(caught.value) == "lecturer is a system account, not a student"


def test_an_install_problem_is_its_one_sentence(tmp_path, steps, monkeypatch):
    def refuse(home, say):
        raise install.InstallError("npm is missing: apt-get install npm")

    monkeypatch.setattr(install, "ensure_proxy", refuse)
    with pytest.raises(HubError) as caught:
        launch.prepare(settings_in(tmp_path), say=lambda message: None)
    assert str(caught.value) == "npm is missing: apt-get install npm"
    assert not [step for step in steps if step[0] in ("account", "publish")]


def test_a_git_problem_is_its_one_sentence(tmp_path, steps, monkeypatch):
    def refuse(checkout, bare):
        raise mirror.MirrorError("git rev-parse HEAD failed: bad revision")

    monkeypatch.setattr(mirror, "publish", refuse)
    with pytest.raises(HubError) as caught:
        launch.prepare(settings_in(tmp_path), say=lambda message: None)
    assert str(caught.value) == "git rev-parse HEAD failed: bad revision"


@pytest.mark.parametrize("changed", [["a.txt"], ["a.txt", "notebooks/02_mean.ipynb", "b.txt"]])
def test_changed_files_are_counted_as_not_served(tmp_path, steps, monkeypatch, changed):
    monkeypatch.setattr(mirror, "uncommitted", lambda checkout: list(changed))
    said = []
    settings = settings_in(tmp_path)
    launch.prepare(settings, say=said.append)
    assert said == [
        f"Serving the series at commit 0123456 from {settings.bare_repo}.",
        f"Note: {len(changed)} changed file(s) are not committed, so students do not get them yet.",
    ]


def test_a_series_on_a_git_host_is_not_copied_and_nothing_is_said_of_it(tmp_path, steps):
    said = []
    settings = settings_in(tmp_path, repo="https://git.example.edu/course/layernorm.git")
    launch.prepare(settings, say=said.append)
    assert said == [] and not [step for step in steps if step[0] == "publish"]
    assert settings.git_config.is_file() and ("grading", settings.grading) in steps
