"""Notebook 13's orientation translator in Jupyter: its three drawings side by side in one grid, each its
own panel (the text keeps them apart with a blank line, the page with the grid's gap, nothing else)."""

from __future__ import annotations

import re

import numpy as np

from helpers.forensics.orientations import orientations


def test_the_page_holds_the_three_panels_one_after_another_in_one_grid():
    page = orientations(np.array([[1, 2, 3], [4, 5, 7]]))._repr_html_()
    opening = '<div class="layernorm-orientations" style="display:grid;gap:12px">'
    assert page.startswith(opening + '<div class="layernorm-orientation">') and page.endswith("</div></div>")
    before, *panels = re.split(r'(?=<div class="layernorm-orientation">)', page[len(opening) : -len("</div>")])
    assert before == "" and len(panels) == 3 and all(p.endswith("</div>") for p in panels)  # nothing between the panels
    titles = [re.search(r'<div style="font-weight:600;margin:4px 0">([^<]*)</div>', p).group(1) for p in panels]
    assert [t.split(":")[0] for t in titles] == [
        "Tokens as rows (PyTorch, this series)",
        "Tokens as columns (some textbooks and visual explainers)",
        "Batch × time × channels, shape (2, 2, 3)",
    ]
