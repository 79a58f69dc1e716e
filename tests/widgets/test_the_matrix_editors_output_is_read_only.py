"""``MatrixEditor.output``: "LayerNorm of the last good matrix (read-only)" - from the start, and after every
edit: a notebook that writes into it gets an error instead of changing what the editor shows.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from conftest import numpy_layer_norm  # noqa: E402


def test_the_output_of_a_new_editor_cannot_be_written_into():
    editor = widgets.matrix_editor(X)
    np.testing.assert_allclose(editor.output, numpy_layer_norm(X), atol=1e-12)
    with pytest.raises(ValueError, match="read-only"):
        editor.output[0, 0] = 99.0
    np.testing.assert_allclose(editor.output, numpy_layer_norm(X), atol=1e-12)


def test_the_output_after_an_edit_cannot_be_written_into_either():
    editor = widgets.matrix_editor(X)
    editor.set_cell(1, 2, "2.5")
    edited = X.copy()
    edited[1, 2] = 2.5
    np.testing.assert_allclose(editor.output, numpy_layer_norm(edited), atol=1e-12)
    with pytest.raises(ValueError, match="read-only"):
        editor.output[1, 2] = 0.0
