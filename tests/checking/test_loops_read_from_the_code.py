"""How helpers/checking/structure.py reads a function's loops, from its docstrings: which loops go over the rows
(``x``, ``enumerate(x)``, ``x.tolist()``, ``list(x)``, ``range(len(x))``, ``range(x.shape[0])``, ``x.shape[-2]``,
``x.size(0)``, ``zip(x, …)``), which are over a few things written out (``fixed``: not over the data), the line
and text each is named by (a helper's loop by the line that calls it), and the words of the verdict. Read
directly with python_loops and loop_words (no check of values: those are tests/checking/test_structure.py's)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.structure import Loop, data_loops, loop_words, python_loops


def by_enumerate(x, eps):
    return np.array([r - r.mean() for _, r in enumerate(x)])


def by_tolist(x, eps):
    return np.array([np.array(r) - np.mean(r) for r in x.tolist()])


def by_list(x, eps):
    return np.array([r - r.mean() for r in list(x)])


def by_enumerate_from_one(x, eps):
    return np.array([r - r.mean() for i, r in enumerate(x, 1)])


def by_second_last_axis(x, eps):
    return np.array([x[i] - x[i].mean() for i in range(x.shape[-2])])


def by_torch_size(x, eps):
    return np.array([x[i] - x[i].mean() for i in range(x.size(0))])


def by_zip(x, eps):
    return np.array([r - m for r, m in zip(x, x.mean(axis=-1))])


def over_three(x, eps):
    return sum(x * k for k in range(3))


def over_column_blocks(x, eps):
    return np.hstack([b - b.mean(axis=-1, keepdims=True) for b in np.hsplit(x, 1)])


def no_named_matrix(*args):
    return np.array([r - r.mean() for r in args[0]])


@pytest.mark.parametrize(
    "fn",
    [by_enumerate, by_enumerate_from_one, by_tolist, by_list, by_second_last_axis, by_torch_size, by_zip],
    ids=lambda f: f.__name__,
)
def test_each_way_of_going_over_the_matrix_is_a_loop_over_the_rows(fn):
    [loop] = python_loops(fn)
    assert loop.over_rows and not loop.fixed and loop.line == 2, loop


@pytest.mark.parametrize("fn", [over_three, over_column_blocks, no_named_matrix], ids=lambda f: f.__name__)
def test_a_loop_over_something_else_is_a_python_loop_but_not_over_the_rows(fn):
    [loop] = python_loops(fn)
    assert not loop.over_rows and not loop.fixed, loop


def statistics_written_out(x, eps):
    mean, var = (f(x, axis=-1, keepdims=True) for f in (np.mean, np.var))
    return (x - mean) / np.sqrt(var + eps)


def statistics_from_a_pair(x, eps):
    pair = (np.mean, np.var)
    mean, var = (f(x, axis=-1, keepdims=True) for f in [pair[0], pair[1]])
    return (x - mean) / np.sqrt(var + eps)


def rows_written_out(x, eps):
    return np.stack([(r - r.mean()) / np.sqrt(r.var() + eps) for r in (x[0], x[1], x[2])])


def rows_unpacked(x, eps):
    return np.stack([(r - r.mean()) / np.sqrt(r.var() + eps) for r in (*x,)])


def test_a_loop_over_a_few_things_written_out_is_fixed_and_not_over_the_data():
    for fn, line in ((statistics_written_out, 2), (statistics_from_a_pair, 3)):
        [loop] = python_loops(fn)
        assert loop.fixed and not loop.over_rows and loop.line == line, (fn.__name__, loop)
        assert data_loops([loop]) == []


def test_rows_written_out_or_unpacked_and_a_hard_coded_count_are_loops_over_the_data():
    for fn in (rows_written_out, rows_unpacked, over_three):
        [loop] = python_loops(fn)
        assert not loop.fixed and data_loops([loop]) == [loop], (fn.__name__, loop)


def centre_rows(x):
    return np.array([r - r.mean() for r in x])


def unit(x):
    return x


def scale():
    return 1.0


def through_a_helper(x, eps):
    centred = centre_rows(x)
    return centred / np.sqrt(np.mean(centred**2, axis=-1, keepdims=True) + eps)


def helper_called_on_a_long_line(x, eps):
    return centre_rows(x) / np.sqrt(np.mean(centre_rows(x) ** 2, axis=-1, keepdims=True) + eps) * scale() * 1.0


def through_two_helpers(x, eps):
    return unit(centre_rows(x)) * scale()


def calls_on_its_last_line(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    return centre_rows(x) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) + 0 * mean


def test_a_helpers_loop_is_named_by_the_line_that_calls_it():
    assert python_loops(through_a_helper) == [Loop(2, "centred = centre_rows(x)", True, "centre_rows")]
    line = "return centre_rows(x) / np.sqrt(np.mean(centre_rows(x) ** 2, axis=-1, keepdims=True) + eps) * scale() * 1.0"
    [first, second] = python_loops(helper_called_on_a_long_line)  # the line's text cut to 80 characters
    assert first == second == Loop(2, line[:80], True, "centre_rows")
    assert python_loops(calls_on_its_last_line) == [
        Loop(3, "return centre_rows(x) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) + 0 * mean", True, "centre_rows")
    ]
    through_a_lambda = lambda x, eps: centre_rows(x) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)  # noqa: E731
    [loop] = python_loops(through_a_lambda)
    assert (loop.line, loop.inside, loop.over_rows) == (1, "centre_rows", True)
    assert loop.text.startswith("through_a_lambda = lambda x, eps: centre_rows(x)")


def test_a_helper_without_a_loop_or_without_arguments_adds_nothing():
    assert python_loops(through_two_helpers) == [Loop(2, "return unit(centre_rows(x)) * scale()", True, "centre_rows")]
    assert python_loops(through_two_helpers, depth=0) == []  # its own code has no loop


@pytest.mark.parametrize("loops", [None, []])
def test_no_loop_has_no_words(loops):
    assert loop_words(loops) == ""


def test_the_words_name_the_first_loop_over_the_rows_where_it_is_and_how_many_more():
    features = Loop(2, "for j in range(x.shape[1]):", False)
    rows = Loop(4, "for r in x:", True)
    helper = Loop(3, "centred = centre_rows(x)", True, "centre_rows")
    assert loop_words([features]) == "a Python loop (line 2 of the function, `for j in range(x.shape[1]):`)"
    assert (
        loop_words([features, rows])
        == "a Python loop over the rows (line 4 of the function, `for r in x:`) (and 1 more)"
    )
    assert loop_words([features, features, features]) == (
        "a Python loop (line 2 of the function, `for j in range(x.shape[1]):`) (and 2 more)"
    )
    assert loop_words([helper]) == (
        "a Python loop over the rows (line 3 of the function, `centred = centre_rows(x)`, in `centre_rows`, "
        "which it calls there)"
    )


def feature_sums(x):
    return sum(x[:, j] for j in range(x.shape[1]))


def calls_a_helper_that_loops_over_features(x, eps):
    return (x - feature_sums(x)[:, None] / x.shape[1]) / np.sqrt(x.var(axis=-1) + eps)[:, None]


def test_a_helpers_loop_is_over_the_rows_only_when_the_helpers_loop_is():
    text = "return (x - feature_sums(x)[:, None] / x.shape[1]) / np.sqrt(x.var(axis=-1) + eps)[:, None]"
    assert python_loops(calls_a_helper_that_loops_over_features) == [Loop(2, text[:80], False, "feature_sums")]


def third(x):
    return np.array([r - r.mean() for r in x])


def second(x):
    return third(x)


def first(x):
    return second(x)


def three_calls_down(x, eps):
    return first(x) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def test_helpers_are_read_two_calls_deep_and_no_deeper():
    assert [loop.inside for loop in python_loops(first)] == ["second"]  # first → second → third, which loops
    assert python_loops(first, depth=1) == []  # first → second, which has no loop of its own
    assert python_loops(three_calls_down) == []  # three_calls_down → first → second → third: too deep


def own_and_helper_loops(x, eps):
    centred = centre_rows(x)
    for _ in range(1):
        centred = centred * 1.0
    scale_of = np.mean([v for v in np.abs(centred[0])])
    return centred / np.sqrt(np.mean(centred**2, axis=-1, keepdims=True) + eps) + 0 * scale_of


def test_loops_are_listed_in_the_order_of_their_lines_with_their_text():
    assert python_loops(own_and_helper_loops) == [
        Loop(2, "centred = centre_rows(x)", True, "centre_rows"),
        Loop(3, "for _ in range(1):", False),
        Loop(5, "scale_of = np.mean([v for v in np.abs(centred[0])])", False),
    ]


def by_map(x, eps):
    return np.array(list(map(lambda r: (r - r.mean()) / np.sqrt(r.var() + eps), x)))


def loop_on_a_long_last_line(x, eps):
    return np.stack([(row - row.mean(keepdims=True)) / np.sqrt(row.var(keepdims=True) + eps) for row in x])


def test_an_own_loop_is_named_by_its_line_and_its_text_cut_to_80_characters():
    assert python_loops(by_map) == [
        Loop(2, "return np.array(list(map(lambda r: (r - r.mean()) / np.sqrt(r.var() + eps), x)))", True)
    ]
    text = "return np.stack([(row - row.mean(keepdims=True)) / np.sqrt(row.var(keepdims=True) + eps) for row in x])"
    assert python_loops(loop_on_a_long_last_line) == [Loop(2, text[:80], True)]
    one_line = lambda x, eps: np.array([(r - r.mean()) / np.sqrt(r.var() + eps) for r in x])  # noqa: E731
    [loop] = python_loops(one_line)
    assert (loop.line, loop.over_rows) == (1, True) and loop.text.startswith("one_line = lambda x, eps:")


class Normaliser:
    def __call__(self, x, eps):
        return centre_rows(x)


class NoMethods:
    pass


def statistics_by_name(x, eps):
    by_name = {"mean": np.mean, "var": np.var}
    mean = by_name["mean"](x, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(by_name["var"](x, axis=-1, keepdims=True) + eps)


@pytest.mark.parametrize(
    "given", [len, Normaliser, Normaliser(), NoMethods, statistics_by_name], ids=["builtin", "class", "object", "empty-class", "call-of-a-subscript"]
)  # fmt: skip
def test_reading_loops_never_raises_whatever_it_is_given(given):
    assert python_loops(given) in (None, [])
