"""Every key a checker records is in the one catalogue, and the class service accepts it (issue 35).

Behaviour, not source text: learners that reach each of the code checker's outcomes (a stub, an exception,
the wrong type, a loop, a module without super().__init__(), …) and modules with the catalogue's mistakes
are checked, and each verdict's key must be the one expected, be in helpers.checking.mistakes.labels(),
be accepted in a body the class service reads (classroom.service.results.parse), and be sent by the class
record unless it is not an attempt. And the other way: every outcome the catalogue lists is reached here
or, for the page's, by tests/checking/test_page.py.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from classroom.service import results as service_results  # noqa: E402
from helpers.checking import mistakes as catalogue  # noqa: E402
from helpers.checking import results  # noqa: E402
from helpers.checking.exercises import check  # noqa: E402
from helpers.checking.mistakes.outcomes import NOT_AN_ATTEMPT, OUTCOMES  # noqa: E402

REACHED_ELSEWHERE = {"off-the-page": "tests/checking/test_page.py (needs an IPython shell)"}


def stub(row):
    raise NotImplementedError


def mutates(row, eps):
    row -= np.mean(row)
    return row / np.sqrt(np.mean(row * row) + eps)


def rows_loop(x, eps):
    return np.array([(r - r.mean()) / np.sqrt(r.var() + eps) for r in x])


def endless(row):
    while True:
        pass


LEARNERS = {
    "not-written": ("mean", stub),
    "exception": ("mean", lambda row: 1 / 0),
    "mutates-input": ("normalise", mutates),
    "text": ("mean", lambda row: str(float(np.mean(row)))),
    "list-not-number": ("mean", lambda row: [float(np.mean(row))]),
    "wrong-length": ("normalise", lambda row, eps: np.zeros(len(row) + 1)),
    "no-return": ("mean", lambda row: None),
    "wrong-type": ("mean", lambda row: object()),
    "nan": ("normalise", lambda row, eps: np.full(len(row), np.nan)),
    "float32-precision": ("variance", lambda row: float(np.float32(np.var(np.asarray(row, dtype=np.float64))))),
    "boolean": ("mean", lambda row: True),
    "ragged": ("layer_norm", lambda x, eps: [[1.0], [1.0, 2.0]]),
    "python-loop": ("layer_norm", rows_loop),
    "per-row": ("scale_shift", lambda x, g, b: g[:, None] * x + b[:, None]),
    "n-1": ("variance", lambda row: float(np.var(row, ddof=1))),
    "timeout": ("mean", endless),
}


def _modules():
    torch = pytest.importorskip("torch")
    from torch import nn

    class Good(nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = nn.Parameter(torch.ones(n_features))
            self.beta = nn.Parameter(torch.zeros(n_features))

        def forward(self, x):
            mean = x.mean(-1, keepdim=True)
            return self.gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps) + self.beta

    class NoSuper(nn.Module):
        def __init__(self, n_features, eps=1e-5):
            self.eps = eps
            self.gamma = nn.Parameter(torch.ones(n_features))

    class NoParameters(Good):
        def __init__(self, n_features, eps=1e-5):
            super().__init__(n_features, eps)
            del self.gamma, self.beta
            self.gamma, self.beta = torch.ones(n_features), torch.zeros(n_features)

    class TwosAtStart(Good):  # β starts at 1, and forward subtracts that 1 again: right output, wrong β
        def __init__(self, n_features, eps=1e-5):
            super().__init__(n_features, eps)
            self.beta = nn.Parameter(torch.ones(n_features))

        def forward(self, x):
            return super().forward(x) - 1

    class NoEps(Good):
        def __init__(self, n_features):
            super().__init__(n_features)

    class Detached(Good):
        def forward(self, x):
            return super().forward(x).detach()

    class WrongShape(Good):
        def __init__(self, n_features, eps=1e-5):
            super().__init__(n_features, eps)
            self.gamma = nn.Parameter(torch.ones(n_features + 1))

    class NoAffine(Good):
        def forward(self, x):
            mean = x.mean(-1, keepdim=True)
            return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps) + 0 * self.gamma.sum()

    class Borrowed(Good):  # PyTorch's own layer norm, through the functional form
        def forward(self, x):
            return nn.functional.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)

    return {
        "not-a-module": int,
        "torch-layer-norm": Borrowed,
        "no-super-init": NoSuper,
        "no-parameters": NoParameters,
        "initial-values": TwosAtStart,
        "no-eps-argument": NoEps,
        "not-differentiable": Detached,
        "parameter-shape": WrongShape,
        "gamma-beta": NoAffine,
    }


def _accepted(step: str, key: str) -> bool:
    body = {"notebook": "03", "step": step, "passed": False, "mistake": key, "id": str(uuid.uuid4())}
    try:
        service_results.parse(json.dumps(body).encode())
    except service_results.Refused:
        return False
    return True


def _assert_recorded(result, key):
    assert not result.passed and result.mistake == key, (key, result)
    assert key in catalogue.labels(), key
    assert _accepted(result.step, key), key
    assert (key in NOT_AN_ATTEMPT) is (key == "not-written")


@pytest.mark.parametrize("key", LEARNERS)
def test_each_outcome_of_the_code_checker_is_a_catalogue_key_the_service_accepts(key, monkeypatch):
    step, fn = LEARNERS[key]
    if key == "timeout":  # the endless loop runs to the limit: a short one (its own tests: test_exercises.py)
        monkeypatch.setattr(results, "TIME_LIMIT", 0.2)
    _assert_recorded(check(step, fn), key)


# The module check's outcomes, each reached by one of _modules()'s classes.
MODULE_OUTCOMES = (
    "not-a-module",
    "torch-layer-norm",
    "no-super-init",
    "no-parameters",
    "initial-values",
    "no-eps-argument",
    "not-differentiable",
    "parameter-shape",
    "gamma-beta",
)


@pytest.mark.parametrize("key", MODULE_OUTCOMES)
def test_each_outcome_of_the_module_check_is_a_catalogue_key_the_service_accepts(key):
    _assert_recorded(check("module", _modules()[key]), key)


def test_every_outcome_the_catalogue_lists_is_reached():
    reached = set(LEARNERS) | set(MODULE_OUTCOMES)
    assert set(OUTCOMES) - reached == set(REACHED_ELSEWHERE)


def test_the_service_and_the_record_read_the_one_catalogue():
    from classroom.service import catalogue as service_catalogue
    from helpers.checking import class_record
    from helpers.checking.mistakes import outcomes

    assert service_catalogue.MISTAKES == catalogue.labels()
    assert class_record.NOT_AN_ATTEMPT is outcomes.NOT_AN_ATTEMPT
    assert not _accepted("variance", "no-such-key") and _accepted("variance", "n-1+no-eps")
