"""roster.name_problem: every name a Unix system or JupyterHub reserves is refused, even though it is a
well-formed name; a name is the whole text (nothing after it, not even a line break); 31 characters at most."""

from __future__ import annotations

import pytest

from classroom.hub import roster

DOCUMENTED = (
    "root daemon bin sys sync games man lp mail news uucp proxy www-data backup list irc gnats nobody "
    "systemd-network systemd-resolve messagebus sshd admin hub jupyterhub services user users"
).split()


@pytest.mark.parametrize("name", DOCUMENTED)
def test_a_reserved_name_is_refused_in_one_sentence(name):
    assert roster.name_problem(name) == f"{name!r} is reserved for the system or the hub; choose another name"


def test_a_reserved_name_in_the_class_list_names_its_line():
    with pytest.raises(roster.RosterError) as caught:
        roster.parse("alice\nusers\n", "list.txt")
    assert str(caught.value) == "list.txt line 2: 'users' is reserved for the system or the hub; choose another name"


def test_a_name_close_to_a_reserved_one_is_fine():
    assert [roster.name_problem(n) for n in ("user1", "hubert", "admins", "rooted")] == [None] * 4


@pytest.mark.parametrize("name", ["alice\n", "alice ", "a" * 32])
def test_a_name_with_anything_after_it_or_too_long_is_not_a_name(name):
    assert roster.name_problem(name).startswith(f"{name!r} cannot be a user name")


def test_31_characters_is_a_name():
    assert roster.name_problem("a" * 31) is None
