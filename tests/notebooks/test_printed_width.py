"""Printed lines in notebooks 02–08 fit a laptop's output (issue 33: "divi|ded").

JupyterLab shows printed text in a <pre> that wraps anywhere ("word-break: break-all"), so a line longer
than the output breaks inside a word. At 1024×768 with the file browser open an output holds about 72
characters of its 13 px monospace font. Code listings are shown with helpers.display.show_source (whole
lines, scrolling sideways), tables as HTML; what is printed must be short. Reads the stored outputs (the
notebooks are committed executed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.display import text_width

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("0[2-8]_*.ipynb"))
PRINTED_WIDTH = 72


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_printed_line_fits_a_laptops_output(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    long = []
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream":
                continue
            for line in "".join(output["text"]).splitlines():
                if text_width(line) > PRINTED_WIDTH:
                    long.append(f"cell {index}: {text_width(line)} columns: {line[:60]}…")
    assert not long, f"{path.name}: printed lines that break mid-word on a laptop:\n" + "\n".join(long)
