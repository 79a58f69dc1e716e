"""``LessonWidget``: "Problems with what was typed are kept in ``_problems`` (field name → plain words) and shown
in ``message_html``": each on a line of its own (a ⚠ and the words, escaped, in the message colour), in the
order they were found, and ``message`` is the same words as one text, a space apart.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402


def warning(words: str) -> str:
    return f'<span style="color:#a33c00">⚠ {words}</span>'


def test_three_problems_of_the_matrix_editor_are_three_lines_in_the_order_found():
    editor = widgets.matrix_editor([[1, 2, 3], [4, 5, 6]])
    editor.set_cell(0, 0, "abc")
    editor.set_cell(1, 2, "<b>")
    editor.set_eps("-1")
    first = "row 1, feature 1: the cell 'abc' is not a number."
    second = "row 2, feature 3: the cell '&lt;b&gt;' is not a number."
    third = "eps must be a number 0 or larger, such as 1e-5 (PyTorch's default); got -1."
    assert editor.message_html.value.split("<br>") == [warning(first), warning(second), warning(third)]
    assert editor.message == " ".join([first, second.replace("&lt;b&gt;", "<b>"), third])


def test_when_the_problems_are_put_right_no_line_is_left():
    editor = widgets.matrix_editor([[1, 2, 3], [4, 5, 6]])
    editor.set_cell(0, 0, "abc")
    editor.set_cell(0, 0, "1")
    assert editor.message_html.value == "" and editor.message == ""
