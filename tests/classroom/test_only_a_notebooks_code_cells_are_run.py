"""lesson.code_cells: a notebook's code cells, each joined from its lines, in order; markdown and raw cells
are not code and are never sent to a kernel (a torch student runs "every cell" of 08: its code cells)."""

from __future__ import annotations

from classroom.sim import lesson


def test_markdown_and_raw_cells_are_left_out_and_code_cells_keep_their_order():
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Title\n", "text"]},
            {"cell_type": "code", "source": ["import torch\n", "x = 1\n"]},
            {"cell_type": "raw", "source": ["%%not python at all"]},
            {"cell_type": "code", "source": []},
            {"cell_type": "code", "source": ["print(x)"]},
        ]
    }
    assert lesson.code_cells(notebook) == ["import torch\nx = 1\n", "", "print(x)"]


def test_a_notebook_without_code_has_nothing_to_run():
    assert lesson.code_cells({"cells": [{"cell_type": "raw", "source": ["a"]}]}) == []
