"""Claims the notebooks' prose makes about checking by hand, recomputed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers.core.formula import layer_norm_forward

ROOT = Path(__file__).resolve().parents[2]


def test_08_copying_token_1_shown_to_4_places_matches_the_first_row_to_3_places_not_always_4():
    torch = pytest.importorskip("torch")
    text = "".join("".join(c["source"]) for c in json.loads((ROOT / "notebooks/08_pytorch.ipynb").read_text())["cells"])
    assert "to 3 decimal places" in text and "4th place can differ by one" in text
    torch.manual_seed(0)  # the notebook's batch
    batch = torch.randn(2, 5, 3, dtype=torch.float64)
    table = torch.nn.functional.layer_norm(batch[0, 0], (3,), eps=1e-5).numpy()
    copied = layer_norm_forward(np.round(batch[0, 0].numpy(), 4), 1e-5)[0]  # what the learner types in
    assert np.array_equal(np.round(copied, 3), np.round(table, 3))
    assert np.max(np.abs(np.round(copied, 4) - np.round(table, 4))) <= 1e-4 + 1e-12  # the 4th by one at most
