"""``matrix_editor`` "makes one box per cell, at most MAX_MATRIX_CELLS" (400): a larger matrix is refused when
the editor is made, in one sentence that gives the limit and this matrix's number of cells (rows × features,
not its rows or features alone) and says what shows a larger one.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402


@pytest.mark.parametrize(("rows", "features"), [(21, 20), (1, 401), (401, 1)])
def test_a_matrix_of_more_than_400_cells_is_refused_naming_its_cell_count(rows, features):
    assert widgets.MAX_MATRIX_CELLS == 400
    matrix = np.arange(rows * features, dtype=float).reshape(rows, features) % 7
    with pytest.raises(ValueError) as refused:
        widgets.matrix_editor(matrix)
    assert str(refused.value) == (
        f"matrix_editor makes one box per cell, at most 400; this matrix has {rows * features}. "
        "Show a larger one with helpers.show_matrix."
    )
