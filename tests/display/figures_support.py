"""What the tests that draw with matplotlib share: the Agg backend (no screen needed), and every figure closed
after each test (pyplot keeps each one until it is closed). A test module takes it with
``from figures_support import close_figures``; the fixture is autouse there."""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")
