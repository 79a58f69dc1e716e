"""The command line (helpers/cli.py): its output matrix is γ · x̂ + β with the γ and β given.
(Moved from tests/checking/test_checking_behaviour.py, issue 24's behaviour tests.)"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from cli_driver import finish, start
from conftest import EPS
from conftest import LESSON_X as LESSON  # the lesson's matrix as printed

# --- 5. the command line's output matrix uses γ and β --------------------------------------------


GAMMA, BETA = [2.0, 0.5, -1.5], [0.25, -1.0, 3.0]
AFFINE = {
    "gamma and beta": (["--gamma", *map(str, GAMMA), "--beta", *map(str, BETA)], GAMMA, BETA),
    "gamma only": (["--gamma", *map(str, GAMMA)], GAMMA, [0.0, 0.0, 0.0]),
    "beta only": (["--beta", *map(str, BETA)], [1.0, 1.0, 1.0], BETA),
}


@pytest.fixture(scope="module")
def affine_runs() -> dict[str, subprocess.CompletedProcess]:
    """`python -m helpers` with each γ/β, run side by side as a person runs it."""
    processes = {name: start(*args) for name, (args, _, _) in AFFINE.items()}
    return {name: finish(process) for name, process in processes.items()}


def _printed_rows(text: str) -> list[list[str]]:
    return [line.split()[2:] for line in text.splitlines() if re.match(r"row \d+ ", line)]


@pytest.mark.parametrize("name", AFFINE)
def test_the_cli_output_matrix_is_gamma_x_hat_plus_beta(affine_runs, name):
    _, gamma, beta = AFFINE[name]
    result = affine_runs[name]
    assert result.returncode == 0 and result.stderr == "", result.stderr
    tail = result.stdout.split("LayerNorm output (exact, eps = 1e-05)")[1]
    printed = _printed_rows(tail)
    places = len(printed[0][0].split(".")[1])
    assert places >= 2
    mean = LESSON.mean(axis=1, keepdims=True)
    x_hat = (LESSON - mean) / np.sqrt(((LESSON - mean) ** 2).mean(axis=1, keepdims=True) + EPS)
    expected = np.array(gamma) * x_hat + np.array(beta)
    assert printed == [[f"{v:.{places}f}" for v in row] for row in expected]
    # and every row's own last step says the same
    outputs = [line.split()[-3:] for line in result.stdout.splitlines() if line.strip().startswith("output ")]
    assert outputs == printed
