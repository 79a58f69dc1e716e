"""``buffers_to_rotate(bytes_per_call, last_level_cache, factor)``: enough sets that together they reach at least
``factor`` × the last-level cache (4 unless told), and never fewer than two."""

import pytest

from helpers.lessons.speed import timing as speed

MIB = 2**20


@pytest.mark.parametrize(
    ("factor", "sets"),
    [(1, 3), (2, 6), (4, 11), (8, 22), (16, 43)],  # ⌈factor × 8 MiB / 3 MiB⌉
)
def test_the_sets_reach_factor_times_the_cache(factor, sets):
    assert speed.buffers_to_rotate(3 * MIB, 8 * MIB, factor=factor) == sets
    assert sets * 3 * MIB >= factor * 8 * MIB > (sets - 1) * 3 * MIB


def test_a_factor_small_enough_for_one_set_still_rotates_two():
    assert speed.buffers_to_rotate(8 * MIB, 8 * MIB, factor=1) == 2


def test_without_a_factor_it_is_four():
    assert speed.buffers_to_rotate(3 * MIB, 8 * MIB) == speed.buffers_to_rotate(3 * MIB, 8 * MIB, factor=4) == 11
