"""The hub's port book (classroom/hub/ports.py) at its edges: the first and last port numbers, the range it draws
from (low included, high not), the address it checks, and how long it looks before it says there is none."""

from __future__ import annotations

import random
import socket

import pytest

from classroom.hub import ports
from classroom.hub.ports import PortBook, bindable


class Asked:
    """A chooser that proposes ``numbers`` in turn (the last for ever after) and records each range it is given."""

    def __init__(self, *numbers: int):
        self.numbers, self.ranges = list(numbers), []

    def randrange(self, low: int, high: int) -> int:
        self.ranges.append((low, high))
        return self.numbers.pop(0) if len(self.numbers) > 1 else self.numbers[0]


def a_listener(ip: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((ip, 0))
    sock.listen()
    return sock


def test_the_default_range_lies_between_the_hubs_own_ports_and_the_systems_ephemeral_ones():
    assert (ports.LOW, ports.HIGH) == (10_000, 32_000)
    book = PortBook()
    assert (book.low, book.high, book.ip, book.held) == (10_000, 32_000, "127.0.0.1", {})


@pytest.mark.parametrize("low,high", [(1, 2), (1, 65_535), (65_534, 65_535)])
def test_the_first_and_last_port_numbers_make_a_range(low, high):
    book = PortBook(low, high)
    assert (book.low, book.high) == (low, high)


@pytest.mark.parametrize("low,high", [(-1, 10), (0, 1), (5, 5), (6, 5), (1, 65_536)])
def test_a_range_one_past_either_end_is_refused_naming_it(low, high):
    with pytest.raises(ValueError) as caught:
        PortBook(low, high)
    assert str(caught.value) == f"a port range is low < high within 1–65535: got {low}–{high}"


def test_each_port_is_drawn_from_low_up_to_but_not_including_high():
    with a_listener() as busy:
        taken = busy.getsockname()[1]
        free = taken + 1 if bindable(taken + 1) else taken + 2
        chooser = Asked(taken, free)
        assert PortBook(20_000, 20_050, chooser=chooser).take("ana/") == free
    assert chooser.ranges == [(20_000, 20_050)] * 2


def test_a_book_without_a_chooser_draws_at_random_within_its_range():
    book = PortBook(20_000, 20_400)
    ports_given = {book.take(f"s{i}/") for i in range(20)}
    assert all(20_000 <= port < 20_400 for port in ports_given) and len(ports_given) == 20
    assert isinstance(book._chooser, random.Random)


def test_the_book_checks_its_own_address():
    with a_listener("127.0.0.1") as busy:
        port = busy.getsockname()[1]
        assert not bindable(port) and not bindable(port, "127.0.0.1")
        assert bindable(port, "127.0.0.2")  # another loopback address: that port is free there
        assert PortBook(1, 65_535, ip="127.0.0.2", chooser=Asked(port)).take("ana/") == port
        with pytest.raises(RuntimeError):
            PortBook(1, 65_535, chooser=Asked(port)).take("ana/")


def test_it_looks_a_few_hundred_times_before_saying_there_is_none():
    with a_listener() as busy:
        chooser = Asked(busy.getsockname()[1])
        with pytest.raises(RuntimeError) as caught:
            PortBook(1, 65_535, chooser=chooser).take("ana/")
    assert str(caught.value) == "no free port for a student's server between 1 and 65535"
    assert 200 <= len(chooser.ranges) <= 1000  # "a few hundred tries"


def test_an_owner_that_takes_again_may_get_its_own_port_back():
    with a_listener() as other:
        port = other.getsockname()[1]
    book = PortBook(1, 65_535, chooser=Asked(port))
    assert book.take("ana/") == port
    assert book.take("ana/") == port  # its server restarted: its old port was given back first
    assert book.held == {"ana/": port}
