"""The class list's lines as a lecturer's editor leaves them (classroom/hub/roster.py): a problem names the
file's own line number, counting the comments and blank lines above it from 1; a name and "instructor" may be
set apart by any spaces or tabs; a file saved with Windows line ends reads the same; and "instructor" is
written in lower case, as the template shows, or the line is not a name.
"""

from __future__ import annotations

import pytest

from classroom.hub import roster


def problem(text: str) -> str:
    with pytest.raises(roster.RosterError) as caught:
        roster.parse(text)
    return str(caught.value)


def test_a_problem_names_the_files_own_line_counting_comments_and_blank_lines():
    text = "# the class of 2026\n\nlecturer instructor\n   \n# group A\nalice\nAlice\n"
    assert problem(text) == (
        "students.txt line 7: 'Alice' has capital letters; Unix names are lower case: write 'alice'"
    )


def test_a_name_listed_twice_names_both_lines_of_the_file():
    assert problem("# list\n\nalice\n# again:\nalice instructor\n") == (
        "students.txt line 5: 'alice' is listed twice (first on line 3)"
    )


def test_a_reserved_name_below_the_template_names_its_line():
    text = roster.TEMPLATE + "alice\nhub\n"
    line = len(roster.TEMPLATE.splitlines()) + 2
    assert (
        problem(text) == f"students.txt line {line}: 'hub' is reserved for the system or the hub; choose another name"
    )


def test_tabs_and_runs_of_spaces_set_a_name_apart_from_instructor():
    parsed = roster.parse("lecturer\tinstructor\n  ta-1    instructor  \n\talice\t\n")
    assert parsed == roster.Roster(("alice",), ("lecturer", "ta-1"))


def test_windows_line_ends_read_the_same():
    assert roster.parse("lecturer instructor\r\nalice\r\nbob\r\n") == roster.parse("lecturer instructor\nalice\nbob\n")


@pytest.mark.parametrize("word", ["Instructor", "INSTRUCTOR", "instructors", "admin"])
def test_instructor_is_written_as_the_template_shows(word):
    assert problem(f"alice\nbob {word}\n") == (
        f"students.txt line 2: 'bob {word}' is not a name: write one name per line, optionally followed by "
        '"instructor"'
    )


def test_a_class_list_of_only_the_template_lists_nobody():
    assert problem(roster.TEMPLATE) == (
        "students.txt lists nobody: add the students' names, one per line, and start the hub again"
    )


def test_a_class_list_saved_with_a_byte_order_mark_reads_its_first_name(tmp_path):
    from classroom.hub import roster as class_roster

    path = tmp_path / "students.txt"
    path.write_bytes("alice\r\nbob instructor\r\n".encode("utf-8-sig"))  # Windows Notepad's "UTF-8 with BOM"
    listed = class_roster.read(path)
    assert (listed.students, listed.instructors) == (("alice",), ("bob",))
