"""Widgets to play with LayerNorm in a notebook: edit a row, step through a lecture, edit a matrix, check an answer.

Only core ipywidgets, and only what ipywidgets 7.7 (Google Colab) and 8.1 (JupyterLab, Notebook 7)
both have, so the same notebook runs unchanged everywhere. Every widget:

- computes with ``helpers.core.layernorm`` and shows numbers through ``helpers.display``;
- renders results into HTML values (not printed into an Output), so a stored notebook is the same
  with or without a browser;
- prints as its current numbers in aligned text (``repr``), which is what a terminal, nbval and
  GitHub's notebook viewer show;
- never raises from a callback: bad input shows a message in plain words next to its field and the
  last good numbers stay on screen.

Each widget has methods (``set_row``, ``next``, ``set_cell``, ``check``, ...) that go through the
same handlers as a person's edit, for tests and for notebooks that set values in code.
Introduced in notebook 01 (``matrix_editor``, ``multiple_choice``); ``row_editor`` and
``answer_checker`` come in notebook 02, ``step_explorer`` in notebook 03.
"""

from helpers.display import STAGE_LABELS  # noqa: F401 - notebooks read widgets.STAGE_LABELS
from helpers.widgets.answer import AnswerChecker, answer_checker
from helpers.widgets.base import (
    EPS_SLIDER_EXPONENTS,
    EXPLORER_STAGES,
    IPYWIDGETS_8,
    MAX_MATRIX_CELLS,
    MAX_VALUE_BOXES,
    LessonWidget,
)
from helpers.widgets.explorer import StepExplorer, step_explorer
from helpers.widgets.live import LiveTable, live_table
from helpers.widgets.matrix import MatrixEditor, matrix_editor
from helpers.widgets.questions import MultipleChoice, NumberQuestion, multiple_choice, number_question
from helpers.widgets.row import RowEditor, row_editor

__all__ = [
    "EPS_SLIDER_EXPONENTS",
    "EXPLORER_STAGES",
    "IPYWIDGETS_8",
    "MAX_MATRIX_CELLS",
    "MAX_VALUE_BOXES",
    "STAGE_LABELS",
    "AnswerChecker",
    "LiveTable",
    "MatrixEditor",
    "MultipleChoice",
    "NumberQuestion",
    "LessonWidget",
    "RowEditor",
    "StepExplorer",
    "answer_checker",
    "live_table",
    "matrix_editor",
    "multiple_choice",
    "number_question",
    "row_editor",
    "step_explorer",
]
