"""Notebook 11's backward helpers refuse a wrong shape in one sentence that names the shapes they were given,
in the order the arguments came (x first, then the upstream gradient)."""

import re

import numpy as np
import pytest

from helpers.lessons.backward.gradients import layer_norm_backward_steps, layer_norm_jacobian
from helpers.lessons.backward.precision import layer_norm_backward_pytorch_form


def refusal(call):
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


def test_steps_name_the_row_then_the_upstream_gradient():
    assert refusal(lambda: layer_norm_backward_steps([1.0, 2.0, 4.0], np.ones(2))) == (
        "Give one row and one upstream gradient of the same length; got shapes (3,) and (2,)."
    )
    assert refusal(lambda: layer_norm_backward_steps(np.ones((2, 3)), np.ones((2, 3)))) == (
        "Give one row and one upstream gradient of the same length; got shapes (2, 3) and (2, 3)."
    )


def test_the_jacobian_names_the_shape_that_is_not_one_row():
    assert refusal(lambda: layer_norm_jacobian(np.arange(6.0).reshape(2, 3))) == (
        "layer_norm_jacobian takes one row (a flat list of numbers); got shape (2, 3)."
    )


def test_the_pytorch_form_names_what_is_not_a_matrix_and_a_mismatched_gradient():
    assert refusal(lambda: layer_norm_backward_pytorch_form(np.ones(4), np.ones(4), [0.0], [1.0])) == (
        "Give x as a matrix (rows × features); got shape (4,)."
    )
    message = refusal(lambda: layer_norm_backward_pytorch_form(np.ones((2, 4)), np.ones((4, 2)), [0, 0], [1, 1]))
    assert message == "grad_output must have x's shape (2, 4); got (4, 2)."
    assert re.fullmatch(r"[^\n]+\.", message)
