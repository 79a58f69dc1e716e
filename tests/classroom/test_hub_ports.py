"""The hub's ports for students' servers (classroom/hub/ports.py), from its docstring: each port handed out is
free when handed out, within the book's range, and held by no other server until its own has stopped; two
servers started at once never share one (the system's "any free port" handed two of them the same)."""

from __future__ import annotations

import itertools
import socket
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.hub.ports import HIGH, LOW, PortBook, bindable  # noqa: E402


class Script:
    """A chooser that proposes the given numbers in turn (the last one for ever after)."""

    def __init__(self, *numbers: int):
        self.numbers = list(numbers)

    def randrange(self, low: int, high: int) -> int:
        number = self.numbers.pop(0) if len(self.numbers) > 1 else self.numbers[0]
        assert low <= number < high
        return number


def free_ports(count: int) -> list[int]:
    """``count`` ports in the book's range that nothing holds now."""
    found = list(itertools.islice((port for port in range(LOW + 1234, HIGH) if bindable(port)), count))
    assert len(found) == count
    return found


def test_two_servers_proposed_the_same_number_get_different_ports():
    first, second = free_ports(2)
    book = PortBook(chooser=Script(first, first, first, second))
    assert book.take("ana/") == first
    assert book.take("ben/") == second
    assert book.held == {"ana/": first, "ben/": second}


def test_a_port_something_listens_on_is_never_handed_out():
    busy, free = free_ports(2)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", busy))
        listener.listen()
        assert PortBook(chooser=Script(busy, free)).take("ana/") == free


def test_a_stopped_servers_port_can_be_handed_out_again_and_a_restart_gives_its_old_one_back():
    port, other = free_ports(2)
    book = PortBook(chooser=Script(port, port, other))
    assert book.take("ana/") == port
    book.give_back("ana/")
    assert book.take("ben/") == port
    assert book.take("ben/") == other  # ben's server started again: its old port is given back first
    assert book.held == {"ben/": other}
    book.give_back("nobody/")  # a server that never had a port: nothing happens
    assert book.held == {"ben/": other}


def test_with_no_free_port_it_says_so_in_one_sentence():
    busy = free_ports(1)[0]
    book = PortBook(chooser=Script(busy))
    book.take("ana/")
    with pytest.raises(RuntimeError, match="no free port for a student's server between"):
        book.take("ben/")
    assert book.held == {"ana/": busy}


@pytest.mark.parametrize("low,high", [(0, 100), (100, 100), (200, 100), (60_000, 70_000)])
def test_a_range_that_is_not_a_range_of_ports_is_refused(low, high):
    with pytest.raises(ValueError, match="a port range is low < high within 1–65535"):
        PortBook(low, high)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from("abcdef")), max_size=20))
def test_any_starts_and_stops_leave_every_running_server_its_own_port_in_range(events):
    book = PortBook(LOW, LOW + 40)  # a small range, so that the same numbers come up often
    running = set()
    for start, name in events:
        owner = f"{name}/"
        if start:
            port = book.take(owner)
            assert LOW <= port < LOW + 40
            running.add(owner)
        else:
            book.give_back(owner)
            running.discard(owner)
        assert set(book.held) == running
        assert len(set(book.held.values())) == len(book.held)
