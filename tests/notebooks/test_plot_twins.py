"""Every plot in lesson notebooks 02-08 stores its text twin in the same cell's output, so that a
screen reader (and nbval) gets the picture's content, not just an image and "<Figure size …>"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("0[2-8]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_plot_cell_stores_its_text_twin(path):
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        outputs = cell.get("outputs", [])
        if not any("image/png" in output.get("data", {}) for output in outputs):
            continue
        texts = ["".join(output.get("text", "")) for output in outputs if output.get("output_type") == "stream"]
        texts += ["".join(output.get("data", {}).get("text/plain", "")) for output in outputs]
        words = [text for text in texts if text.strip() and not text.startswith("<Figure size")]
        assert words, f"{path.name}, cell {cell.get('id')}: a plot with no text twin"
        assert any(any(ch.isdigit() for ch in text) for text in words), f"{path.name}, cell {cell.get('id')}"
