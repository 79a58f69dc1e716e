"""What a learner's function returned, read as numbers or named in one sentence (helpers.checking.reading):
each kind of value that is not numbers gets its own sentence and key, numbers of any reasonable kind are
read as float64, and a result of the wrong shape or length says what came back and what was expected."""

from __future__ import annotations

import decimal

import numpy as np
import pytest

from helpers.checking.reading import a_type, numbers_of, problem_key, read_result

NOT_NUMBERS = "not numbers: return the numbers themselves (floats or a numeric array)."


@pytest.mark.parametrize(
    "value, sentence, key",
    [
        (None, "Your function returned nothing (None): did you forget `return`?", "no-return"),
        (
            "1.5",
            "Your function returned text (a str), '1.5', not a number: "
            "return the number itself, without str() or an f-string.",
            "text",
        ),
        (
            b"1",
            "Your function returned text (a bytes), b'1', not a number: "
            "return the number itself, without str() or an f-string.",
            "text",
        ),
        (
            np.bool_(False),
            "Your function returned a boolean (False), not a number: a comparison such as `x == y` "
            "gives True or False; return the computed value.",
            "boolean",
        ),
        (
            True,
            "Your function returned a boolean (True), not a number: a comparison such as `x == y` "
            "gives True or False; return the computed value.",
            "boolean",
        ),
        ({"out": 1.0}, "Your function returned a dict; it should return numbers.", "wrong-type"),
        (frozenset(), "Your function returned a frozenset; it should return numbers.", "wrong-type"),
        (1j, f"Your function returned a complex number, {NOT_NUMBERS}", "wrong-type"),
        (np.complex64(1), f"Your function returned a complex number, {NOT_NUMBERS}", "wrong-type"),
        (
            [[1.0, 2.0], [3.0]],
            "Your function returned a ragged list (its rows have different lengths), which is not an array of numbers.",
            "ragged",
        ),
        (
            ((1.0,), (2.0, 3.0)),
            "Your function returned a ragged tuple (its rows have different lengths), which is not an array of numbers.",
            "ragged",
        ),
        (
            np.array(["1.5"]),
            "Your function returned text (an array of strings), not numbers: "
            "return the numbers themselves, without .astype(str), str() or an f-string.",
            "text",
        ),
        (
            np.array([b"1"]),
            "Your function returned text (an array of strings), not numbers: "
            "return the numbers themselves, without .astype(str), str() or an f-string.",
            "text",
        ),
        (np.array([True]), f"Your function returned booleans (True/False), {NOT_NUMBERS}", "boolean"),
        (np.array([1j]), f"Your function returned complex numbers, {NOT_NUMBERS}", "wrong-type"),
        (
            np.array(["2020-01-01"], dtype="datetime64[D]"),
            f"Your function returned an array of datetime64[D], {NOT_NUMBERS}",
            "wrong-type",
        ),
        (
            np.array([1.0, None], dtype=object),
            f"Your function returned None among its values, {NOT_NUMBERS}",
            "wrong-type",
        ),
    ],
    ids=[
        "none",
        "str",
        "bytes",
        "numpy-bool",
        "bool",
        "dict",
        "frozenset",
        "complex",
        "numpy-complex",
        "ragged-list",
        "ragged-tuple",
        "str-array",
        "bytes-array",
        "bool-array",
        "complex-array",
        "datetime-array",
        "object-array",
    ],
)
def test_a_value_that_is_not_numbers_gets_its_own_sentence_and_key(value, sentence, key):
    assert numbers_of(value) == (None, sentence)
    assert problem_key(sentence) == key


@pytest.mark.parametrize(
    "leaf, words, key",
    [
        (
            "0.5",
            "text ('0.5' among its values), not numbers: return the numbers themselves, without str() or an f-string.",
            "text",
        ),
        (
            "0.123456789012345678901234",
            "text ('0.123456789012345…' among its values), not numbers: "  # 20 characters, quotes kept
            "return the numbers themselves, without str() or an f-string.",
            "text",
        ),
        (
            b"2",
            "text (b'2' among its values), not numbers: return the numbers themselves, without str() or an f-string.",
            "text",
        ),
        (True, f"booleans (True/False), {NOT_NUMBERS}", "boolean"),
        (np.bool_(True), f"booleans (True/False), {NOT_NUMBERS}", "boolean"),
        (None, f"None among its values, {NOT_NUMBERS}", "wrong-type"),
        (2j, f"complex numbers, {NOT_NUMBERS}", "wrong-type"),
        (np.complex128(2), f"complex numbers, {NOT_NUMBERS}", "wrong-type"),
        (np.array([True, False]), f"booleans (True/False), {NOT_NUMBERS}", "boolean"),
        ({"a": 1}, f"a dict among its values, {NOT_NUMBERS}", "wrong-type"),
    ],
    ids=["text", "long-text", "bytes", "bool", "numpy-bool", "none", "complex", "numpy-complex", "bool-array", "dict"],
)
def test_a_list_holding_what_is_not_a_number_names_it(leaf, words, key):
    for value in ([1.0, leaf], [[1.0, 2.0], [3.0, leaf]], (leaf,)):
        array, problem = numbers_of(value)
        assert array is None and problem == "Your function returned " + words, value
        assert problem_key(problem) == key


def test_text_among_the_values_is_shown_whole_up_to_20_characters_with_its_quotes():
    for text in ("x" * 18, "y" * 19, "z" * 40):
        problem = numbers_of([1.0, text])[1]
        shown = problem.removeprefix("Your function returned text (").partition(" among")[0]
        assert shown == (repr(text) if len(text) <= 18 else repr(text)[:18] + "…'"), shown
        assert len(shown) <= 20


def test_lists_are_read_four_deep_and_a_list_deeper_than_that_is_named():
    assert numbers_of([[[["1"]]]])[1].startswith("Your function returned text ('1' among")
    array, problem = numbers_of([[[[1.0, 2.0]]]])
    assert problem is None and array.shape == (1, 1, 1, 2)
    assert numbers_of([[[[[1.0]]]]]) == (None, f"Your function returned a list among its values, {NOT_NUMBERS}")
    looped = [1.0]
    looped.append(looped)  # a list that holds itself: named, never followed for ever
    assert numbers_of(looped) == (None, f"Your function returned a list among its values, {NOT_NUMBERS}")


def test_numbers_of_every_kind_are_read_as_float64():
    for value, expected in [
        (3, 3.0),
        (np.float32(0.5), 0.5),
        (decimal.Decimal("2.5"), 2.5),
        ([decimal.Decimal("1.5"), 2], [1.5, 2.0]),
        (np.array([1, 2], dtype=np.int8), [1.0, 2.0]),
        (np.array([1, 2.5], dtype=object), [1.0, 2.5]),
        ((1.0, np.float32(2.0)), [1.0, 2.0]),
        ([[1, 2], [3, 4]], [[1.0, 2.0], [3.0, 4.0]]),
    ]:
        array, problem = numbers_of(value)
        assert problem is None and array.dtype == np.float64, value
        np.testing.assert_array_equal(array, expected)


def test_an_object_that_is_not_numbers_is_named_by_its_type():
    class Result:
        pass

    assert numbers_of(Result()) == (
        None,
        "Your function returned a Result, which is not a number or an array of numbers.",
    )


def test_an_object_whose_array_form_raises_is_named_not_raised():
    class Odd:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("no")

    assert numbers_of(Odd()) == (
        None,
        f"Your function returned an Odd that could not be read as numbers (RuntimeError), {NOT_NUMBERS}",
    )


class _Tensor:
    """Just enough of a torch tensor for reading: detach(), cpu(), numpy(); ``fails`` numpy() lacks its dtype."""

    def __init__(self, values, fails=False, calls=None):
        self.values, self.fails, self.calls = np.asarray(values), fails, calls if calls is not None else []

    def detach(self):
        self.calls.append("detach")
        return self

    def cpu(self):
        self.calls.append("cpu")
        return self

    def resolve_conj(self):
        self.calls.append("resolve_conj")
        return self

    def resolve_neg(self):
        self.calls.append("resolve_neg")
        return self

    def numpy(self):
        if self.fails:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.values

    def double(self):
        return _Tensor(self.values.astype(np.float64), calls=self.calls)


def test_a_tensor_is_read_through_detach_and_the_cpu_and_a_dtype_numpy_lacks_through_float64():
    calls = []
    array, problem = numbers_of(_Tensor([1.5, 2.5], calls=calls))
    assert problem is None and calls == ["detach", "cpu", "resolve_conj", "resolve_neg"]
    np.testing.assert_array_equal(array, [1.5, 2.5])
    array, problem = numbers_of(_Tensor(np.array([0.5], dtype=np.float16), fails=True))
    assert problem is None and array.dtype == np.float64 and array.tolist() == [0.5]
    array, problem = numbers_of([_Tensor([1.0, 2.0]), _Tensor([3.0, 4.0])])
    assert problem is None and array.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    for nested, value in (([[[_Tensor([1.0])]]], 1.0), ([[[[_Tensor([2.0])]]]], 2.0)):  # three and four deep
        array, problem = numbers_of(nested)
        assert problem is None and array.ravel().tolist() == [value]
    assert numbers_of([_Tensor([True])])[1] == f"Your function returned booleans (True/False), {NOT_NUMBERS}"


@pytest.mark.parametrize("step", ["mean", "variance", "std"])
def test_a_scalar_step_wants_one_number_itself(step):
    for box in ([1.0], (1.0,)):
        array, problem = read_result(step, (), box)
        kind = type(box).__name__
        assert array is None and problem == (
            f"{step}(row) should return a number, not a {kind}: return the value itself, without [ ] around it."
        )
        assert problem_key(problem) == "list-not-number"
    array, problem = read_result(step, (), np.array([1.0, 2.0]))
    assert array is None and problem == f"{step}(row) should return one number; yours returned 2 values."
    assert problem_key(problem) == "wrong-length"
    array, problem = read_result(step, (), np.array([[2.5]]))
    assert problem is None and array.shape == () and array == 2.5
    assert read_result(step, (), "2.5") == numbers_of("2.5")


def test_an_array_step_of_the_wrong_shape_or_length_says_what_came_back():
    array, problem = read_result("normalise", (3,), [1.0, 2.0])
    assert array.tolist() == [1.0, 2.0]
    assert (
        problem == "Your function returned 2 values (shape (2,)) where 3 were expected (shape (3,)): the wrong length."
    )
    assert problem_key(problem) == "wrong-length"
    array, problem = read_result("layer_norm", [2, 2], [5.0])
    assert (
        problem == "Your function returned 1 value (shape (1,)) where 4 were expected (shape (2, 2)): the wrong length."
    )
    array, problem = read_result("layer_norm", (2, 3), np.zeros((3, 2)))
    assert array.shape == (3, 2) and problem == "Your function returned shape (3, 2) where (2, 3) was expected."
    assert problem_key(problem) == "wrong-type"
    array, problem = read_result("normalise", [3], (1, 2, 3))
    assert problem is None and array.tolist() == [1.0, 2.0, 3.0]
    assert read_result("normalise", (3,), [1.0, "2"]) == numbers_of([1.0, "2"])


def test_a_tensor_of_another_library_without_detach_is_read_through_its_array_form():
    class Other:  # e.g. TensorFlow's: numpy() but no detach()
        def numpy(self):
            raise AssertionError("not a torch tensor: read through __array__")

        def __array__(self, dtype=None, copy=None):
            return np.array([1.0, 2.0])

    array, problem = numbers_of(Other())
    assert problem is None and array.tolist() == [1.0, 2.0]


def test_an_object_array_of_numbers_that_still_cannot_be_one_array_is_named():
    ragged = np.empty(2, dtype=object)
    ragged[0], ragged[1] = np.array([1.0, 2.0]), 3.0  # each a number or numbers, but not one array together
    assert numbers_of(ragged) == (
        None,
        f"Your function returned an ndarray that could not be read as numbers, {NOT_NUMBERS}",
    )


class Unusual:
    pass


R = type("R", (), {})
MLP = type("MLP", (), {})
HTTPError = type("HTTPError", (), {})
UUID = type("UUID", (), {})
KeyError_ = type("KeyError", (), {})


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ([1.0], "a list"),
        (object(), "an object"),
        (np.zeros(2), "an ndarray"),
        (Unusual(), "an Unusual"),
        (np.uint8(3), "a uint8"),
        (1, "an int"),
        ({1}, "a set"),
        (R(), "an R"),
        (MLP(), "an MLP"),
        (HTTPError(), "an HTTPError"),
        (UUID(), "a UUID"),
        (KeyError_(), "a KeyError"),
        (OSError(), "an OSError"),
    ],
)
def test_a_type_is_said_with_the_article_it_takes(value, said):
    assert a_type(value) == said
