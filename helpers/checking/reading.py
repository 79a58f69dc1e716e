"""Reading what a learner's function returned: numbers, or one sentence naming what came back.

:func:`read_result` turns a returned value into a float64 array shaped like the expected one, or gives
the sentence a learner reads: text (a ``str``, or a list or array of them), booleans, None, a dict, a
ragged list, complex numbers, an object that is not numbers. A torch tensor is read through
``detach()`` (a tensor that requires grad is right when its values are), on the CPU, without importing
torch. It never raises. Pure reading: numpy only.
"""

from __future__ import annotations

import decimal
import numbers

import numpy as np

SCALAR_STEPS = ("mean", "variance", "std")


def a_type(value) -> str:
    """The value's type with its article, as a sentence says it: "a list", "an ndarray", "an object", "a uint8"."""
    name = type(value).__name__
    low = name.lower()
    if name[:1].isupper() and (len(name) == 1 or name[1:2].isupper()):  # a letter or an acronym: said letter by letter
        vowel = name[0] in LETTERS_SAID_WITH_A_VOWEL  # "an R", "an MLP", "an HTTPError"; "a UUID", "a KeyError"
    else:  # by sound, not letter: numpy's "ndarray" is said "en-dee-array"; "uint8" starts with "you"
        vowel = low[:1] in "aeiou" and not low.startswith(("uint", "user", "uni")) or low.startswith("nd")
    return f"{'an' if vowel else 'a'} {name}"


LETTERS_SAID_WITH_A_VOWEL = (
    "AEFHILMNORSX"  # "ay", "ee", "ef", "aitch", "eye", "el", "em", "en", "oh", "ar", "ess", "ex"
)


def _describe(value) -> str:
    """What a value is, in a few words: "text ('1.17')", "a bool (True)", "a list of str", …"""
    if isinstance(value, (str, bytes)):
        return f"text ({value!r:.40})"
    if isinstance(value, (bool, np.bool_)):
        return f"a boolean ({bool(value)})"
    return a_type(value)


def _short(text) -> str:
    """A piece of text as its repr, cut to about 20 characters with the quotes kept."""
    shown = repr(text)
    return shown if len(shown) <= 20 else shown[:18] + "…" + shown[-1]


def _leaves(value, depth: int = 0):
    """Every leaf of nested lists and tuples (at most a few thousand), for naming what they hold."""
    if isinstance(value, (list, tuple)) and depth < 4:
        for item in value[:2000]:
            yield from _leaves(item, depth + 1)
    else:
        yield value


def _tensor_to_numpy(value):
    """A torch (or similar) tensor's values as a numpy array, through detach() and the CPU; None when
    ``value`` is not one."""
    if not (hasattr(value, "detach") and hasattr(value, "numpy")):
        return None
    tensor = value.detach()
    if hasattr(tensor, "cpu"):
        tensor = tensor.cpu()
    if hasattr(tensor, "resolve_conj"):
        tensor = tensor.resolve_conj().resolve_neg()
    try:
        return np.asarray(tensor.numpy())
    except TypeError:  # a dtype numpy lacks (bfloat16): its values in float64
        return np.asarray(tensor.double().numpy())


def _plain(value, depth: int = 0):
    """Nested lists with every tensor in them replaced by its numpy values."""
    if isinstance(value, (list, tuple)) and depth < 4:
        return [_plain(item, depth + 1) for item in value]
    array = _tensor_to_numpy(value)
    return value if array is None else array


def _not_numbers(kind: str) -> str:
    return f"Your function returned {kind}, not numbers: return the numbers themselves (floats or a numeric array)."


def _leaf_problem(leaf) -> str | None:
    """Why one element of a returned list is not a number, or None when it is one."""
    if isinstance(leaf, (str, bytes)):
        return (
            f"Your function returned text ({_short(leaf)} among its values), not numbers: "
            "return the numbers themselves, without str() or an f-string."
        )
    if isinstance(leaf, (bool, np.bool_)):
        return _not_numbers("booleans (True/False)")
    if leaf is None:
        return _not_numbers("None among its values")
    if isinstance(leaf, complex) or isinstance(leaf, np.complexfloating):
        return _not_numbers("complex numbers")
    if isinstance(leaf, (numbers.Real, np.number, decimal.Decimal)):
        return None
    array = _tensor_to_numpy(leaf)
    if array is not None or isinstance(leaf, np.ndarray):
        return _dtype_problem(np.asarray(leaf if array is None else array).dtype)
    return _not_numbers(f"{_describe(leaf)} among its values")


def _dtype_problem(dtype) -> str | None:
    """Why an array of this dtype is not numbers, or None when it is (integers or floats)."""
    if dtype.kind in "fiu":
        return None
    if dtype.kind == "b":
        return _not_numbers("booleans (True/False)")
    if dtype.kind in "US":
        return (
            "Your function returned text (an array of strings), not numbers: "
            "return the numbers themselves, without .astype(str), str() or an f-string."
        )
    if dtype.kind == "c":
        return _not_numbers("complex numbers")
    return None if dtype.kind == "O" else _not_numbers(f"an array of {dtype}")


def numbers_of(value):
    """``value`` as a float64 numpy array, or (None, a sentence) when it is not numbers. Never raises."""
    try:
        return _numbers_of(value)
    except Exception as error:  # noqa: BLE001 — an odd object's __array__ or __len__ may raise anything
        return None, _not_numbers(f"{_describe(value)} that could not be read as numbers ({type(error).__name__})")


def _numbers_of(value):
    if value is None:
        return None, "Your function returned nothing (None): did you forget `return`?"
    if isinstance(value, (str, bytes)):
        return None, (
            f"Your function returned text (a {type(value).__name__}), {value!r:.40}, not a number: "
            "return the number itself, without str() or an f-string."
        )
    if isinstance(value, (bool, np.bool_)):
        return None, (
            f"Your function returned a boolean ({bool(value)}), not a number: a comparison such as `x == y` "
            "gives True or False; return the computed value."
        )
    if isinstance(value, (dict, set, frozenset)):
        return None, f"Your function returned {a_type(value)}; it should return numbers."
    array = _tensor_to_numpy(value)
    if array is None and isinstance(value, (list, tuple)):
        for leaf in _leaves(value):
            problem = _leaf_problem(leaf)
            if problem is not None:
                return None, problem
        try:
            array = np.asarray(_plain(value), dtype=np.float64)
        except (TypeError, ValueError):
            return None, (
                f"Your function returned a ragged {type(value).__name__} (its rows have different lengths), "
                "which is not an array of numbers."
            )
    elif array is None:
        if isinstance(value, (complex, np.complexfloating)):
            return None, _not_numbers("a complex number")
        if isinstance(value, decimal.Decimal):
            array = np.asarray(float(value))
        elif isinstance(value, (numbers.Real, np.number, np.ndarray)) or hasattr(value, "__array__"):
            array = np.asarray(value)
        else:
            return (
                None,
                f"Your function returned {a_type(value)}, which is not a number or an array of numbers.",
            )
    problem = _dtype_problem(array.dtype)
    if problem is None and array.dtype.kind == "O":  # an object array: each element must be a number
        for leaf in array.ravel()[:2000]:
            problem = _leaf_problem(leaf)
            if problem is not None:
                break
    if problem is not None:
        return None, problem
    try:
        return np.asarray(array, dtype=np.float64), None
    except (TypeError, ValueError):
        return None, _not_numbers(f"{a_type(value)} that could not be read as numbers")


def read_result(step: str, expected_shape: tuple, value):
    """``(array, None)`` shaped like the expected result, or ``(array or None, a sentence)``: None for
    what is not numbers; the array itself when only its shape is wrong (a named mistake may explain it)."""
    if step in SCALAR_STEPS and isinstance(value, (list, tuple)):
        return None, (
            f"{step}(row) should return a number, not {a_type(value)}: return the value itself, without [ ] around it."
        )
    array, problem = numbers_of(value)
    if problem is not None:
        return None, problem
    if step in SCALAR_STEPS:
        if array.size != 1:
            return None, f"{step}(row) should return one number; yours returned {array.size} values."
        return array.reshape(()), None
    if array.shape != tuple(expected_shape):
        size = int(np.prod(expected_shape))
        if array.size != size:
            return array, (
                f"Your function returned {array.size} value{'s' if array.size != 1 else ''} "
                f"(shape {array.shape}) where {size} were expected (shape {tuple(expected_shape)}): the wrong length."
            )
        return array, f"Your function returned shape {array.shape} where {tuple(expected_shape)} was expected."
    return array, None


def problem_key(problem: str) -> str:
    """The short key a sentence of :func:`read_result` is recorded under."""
    if "returned text" in problem:
        return "text"
    if "not a list" in problem or "not a tuple" in problem:
        return "list-not-number"
    if "boolean" in problem:
        return "boolean"
    if "ragged" in problem:
        return "ragged"
    return (
        "wrong-length"
        if "wrong length" in problem or "values" in problem and "should return one" in problem
        else ("no-return" if "None" in problem and "did you forget" in problem else "wrong-type")
    )
