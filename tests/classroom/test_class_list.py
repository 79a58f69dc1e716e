"""The class list (classroom/hub/roster.py), from its docstring: one name per line, optionally followed by
"instructor"; a "#" starts a comment; a name is a Unix account's (lower-case letters, digits, - or _,
starting with a letter, at most 31 characters); every problem is one sentence naming the file and line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.hub import roster  # noqa: E402

RULE = "use lower-case letters, digits, - or _, starting with a letter, at most 31 characters"


def test_the_file_is_named_students_txt_unless_another_is_given():
    with pytest.raises(roster.RosterError) as caught:
        roster.parse("alice\nRoot\n")
    assert str(caught.value).startswith("students.txt line 2: ")


def test_a_comment_ends_the_line_even_when_it_holds_another_hash():
    parsed = roster.parse("alice  # a comment # with a second hash\nbob instructor # the TA #2\n")
    assert parsed == roster.Roster(("alice",), ("bob",))


@pytest.mark.parametrize("line", ["alice instructor extra", "alice instructor instructor", "alice bob carol dave"])
def test_more_than_a_name_and_instructor_is_not_a_name(line):
    with pytest.raises(roster.RosterError) as caught:
        roster.parse(f"bob\n{line}\n", "class.txt")
    assert str(caught.value) == (
        f'class.txt line 2: {line!r} is not a name: write one name per line, optionally followed by "instructor"'
    )


@pytest.mark.parametrize(("name", "lower"), [("Alice", "alice"), ("ALICE", "alice"), ("S1234", "s1234")])
def test_a_name_that_is_right_but_for_capitals_is_told_its_lower_case_spelling(name, lower):
    assert roster.name_problem(name) == f"{name!r} has capital letters; Unix names are lower case: write {lower!r}"


@pytest.mark.parametrize("name", ["Bob!", "Jan de Vries", "1Alice", "A" * 32, "123", "-x", "a.b"])
def test_a_name_that_lower_case_would_not_mend_gets_the_rule_not_a_spelling(name):
    assert roster.name_problem(name) == f"{name!r} cannot be a user name: {RULE}"


def test_a_class_list_file_is_read_as_utf8_and_its_problems_name_the_file(tmp_path):
    path = tmp_path / "my class.txt"
    path.write_text("# Élodie's class — the lecturer first\nlecturer instructor\nalice\n", encoding="utf-8")
    assert roster.read(path) == roster.Roster(("alice",), ("lecturer",))
    path.write_text("alice\nalice\n", encoding="utf-8")
    with pytest.raises(roster.RosterError) as caught:
        roster.read(path)
    assert str(caught.value) == f"{path} line 2: 'alice' is listed twice (first on line 1)"


def test_a_class_list_that_is_not_utf8_says_so_naming_the_file(tmp_path):
    path = tmp_path / "students.txt"
    path.write_bytes("alice\n# Élodie\n".encode("latin-1"))
    with pytest.raises(roster.RosterError) as caught:
        roster.read(path)
    assert str(caught.value) == f"the class list {path} is not plain text (UTF-8)"
