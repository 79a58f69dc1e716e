"""helpers.checking.exercises.check: every lecturer solution passes, every named mistake is caught and named,
and nothing the learner writes (stubs, exceptions, loops, wrong types) makes it raise."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
from patience import scaled_s

from helpers.checking import results
from helpers.checking.exercises import CheckResult, check

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "lecturer"))
import solutions  # noqa: E402


@pytest.mark.parametrize("step", sorted(solutions.SOLUTIONS))
def test_every_solution_passes(step):
    result = check(step, solutions.SOLUTIONS[step])
    assert result.passed, result
    assert result.mistake is None
    assert "✓" in result._repr_html_() and "✓" in repr(result)


def test_the_module_solution_passes_as_class_and_instance():
    pytest.importorskip("torch")
    module = solutions.make_module()
    assert check("module", module).passed, check("module", module)
    assert check("module", module(4)).passed


def _var(row, ddof=0):
    row = np.asarray(row, dtype=float)
    return ((row - row.mean()) ** 2).sum() / (len(row) - ddof)


# step → (mistake key, a words that the diagnosis must contain, the wrong function)
WRONG = [
    ("mean", "n-1", "n − 1", lambda row: sum(row) / (len(row) - 1)),
    ("mean", "sum-not-divided", "sum", lambda row: sum(row)),
    ("mean", "rounding", "rounding", lambda row: round(float(np.mean(row)), 3)),
    ("variance", "n-1", "n − 1", lambda row: np.var(row, ddof=1)),
    ("variance", "mean-not-subtracted", "mean", lambda row: np.mean(np.square(row))),
    ("variance", "rounding", "rounding", lambda row: round(float(np.var(row)), 2)),
    ("mean", "hard-coded-width", "by 3", lambda row: sum(row) / 3),
    ("variance", "hard-coded-width", "by 3", lambda row: sum((v - sum(row) / 3) ** 2 for v in row) / 3),
    ("variance", "hard-coded-width", "by 3", lambda row: float(np.sum((np.asarray(row) - np.mean(row)) ** 2)) / 3),
    ("std", "hard-coded-width", "as 3", lambda row, eps: np.sqrt(np.sum((row - np.sum(row) / 3) ** 2) / 3 + eps)),
    (
        "normalise",
        "hard-coded-width",
        "as 3",
        lambda row, eps: (row - np.sum(row) / 3) / np.sqrt(np.sum((row - np.sum(row) / 3) ** 2) / 3 + eps),
    ),
    ("std", "n-1", "n − 1", lambda row, eps: np.sqrt(_var(row, 1) + eps)),
    ("std", "eps-outside-root", "outside the square root", lambda row, eps: np.sqrt(np.var(row)) + eps),
    ("std", "no-eps", "ε forgotten", lambda row, eps: np.sqrt(np.var(row))),
    ("std", "eps-added-to-std", "added to the std", lambda row, eps: np.sqrt(np.var(row) + eps) + eps),
    ("std", "eps-ignored", "eps argument ignored", lambda row, eps: np.sqrt(np.var(row) + 1e-5)),
    ("normalise", "n-1", "n − 1", lambda row, eps: (row - np.mean(row)) / np.sqrt(_var(row, 1) + eps)),
    (
        "normalise",
        "eps-outside-root",
        "outside the square root",
        lambda row, eps: (row - np.mean(row)) / (np.std(row) + eps),
    ),
    ("normalise", "no-eps", "ε forgotten", lambda row, eps: (row - np.mean(row)) / np.std(row)),
    (
        "normalise",
        "eps-added-to-std",
        "added to the std",
        lambda row, eps: (row - np.mean(row)) / (np.sqrt(np.var(row) + eps) + eps),
    ),
    ("normalise", "mean-not-subtracted", "mean not subtracted", lambda row, eps: row / np.sqrt(np.var(row) + eps)),
    (
        "normalise",
        "rounding",
        "rounding",
        lambda row, eps: np.round((row - np.mean(row)) / np.sqrt(np.var(row) + eps), 4),
    ),
    (
        "normalise",
        "wrong-length",
        "wrong length",
        lambda row, eps: ((row - np.mean(row)) / np.sqrt(np.var(row) + eps))[:-1],
    ),
    (
        "normalise",
        "wrong-length",
        "wrong length",
        lambda row, eps: list((row - np.mean(row)) / np.sqrt(np.var(row) + eps)) + [0.0],
    ),
    ("scale_shift", "gamma-beta-swapped", "swapped", lambda x_hat, gamma, beta: beta * x_hat + gamma),
    ("scale_shift", "per-row", "per row", lambda x_hat, gamma, beta: gamma[:, None] * x_hat + beta[:, None]),
    ("scale_shift", "scalar-gamma", "scalar γ", lambda x_hat, gamma, beta: gamma[0] * x_hat + beta),
    ("scale_shift", "per-row", "one per column", lambda x_hat, gamma, beta: gamma[:, None] * x_hat + beta),
    ("scale_shift", "per-row", "one per column", lambda x_hat, gamma, beta: gamma * x_hat + beta[:, None]),
    ("scale_shift", "per-row", "one per column", lambda x_hat, gamma, beta: (gamma * x_hat.T).T + beta),
    ("scale_shift", "forgot-gamma", "forgot γ", lambda x_hat, gamma, beta: x_hat + beta),
    ("scale_shift", "forgot-beta", "forgot β", lambda x_hat, gamma, beta: gamma * x_hat),
    (
        "variance",
        "sum-not-divided",
        "not dividing the sum of squares by n",
        lambda row: ((row - np.mean(row)) ** 2).sum(),
    ),
    (
        "layer_norm",
        "wrong-axis",
        "wrong axis",
        lambda x, eps: (x - x.mean(axis=0, keepdims=True)) / np.sqrt(x.var(axis=0, keepdims=True) + eps),
    ),
    ("layer_norm", "lost-keepdims", "keepdims", lambda x, eps: (x - x.mean(axis=-1)) / np.sqrt(x.var(axis=-1) + eps)),
    ("layer_norm", "no-axis", "whole matrix", lambda x, eps: (x - x.mean()) / np.sqrt(x.var() + eps)),
    (
        "layer_norm",
        "n-1",
        "n − 1",
        lambda x, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + eps),
    ),
    (
        "layer_norm",
        "eps-outside-root",
        "outside the square root",
        lambda x, eps: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + eps),
    ),
    ("layer_norm", "no-eps", "ε forgotten", lambda x, eps: (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True)),
    ("layer_norm", "rounding", "rounding", lambda x, eps: np.round(solutions.layer_norm(x, eps), 2)),
]


def _mutating_normalise(row, eps):
    row -= row.mean()
    row /= np.sqrt(row.var() + eps)
    return row


def _mutating_mean(row):
    row.sort()
    return float(np.mean(row))


WRONG += [
    ("normalise", "mutates-input", "changed the array it was given", _mutating_normalise),
    ("mean", "mutates-input", "changed the array it was given", _mutating_mean),
]


@pytest.mark.parametrize(
    ("step", "key", "words", "fn"), WRONG, ids=[f"{s}-{k}-{i}" for i, (s, k, _, _) in enumerate(WRONG)]
)
def test_each_named_mistake_fails_with_its_name(step, key, words, fn):
    result = check(step, fn)
    assert not result.passed
    assert result.mistake == key, result
    assert words in result.diagnosis, result
    assert "✗" in result._repr_html_()
    assert result.case  # the first failing input is named


def test_a_per_row_gamma_on_a_square_matrix_alone_is_named():
    import helpers.checking.cases as ec

    square = [c for c in ec.cases("scale_shift") if c.args[0].ndim == 2 and c.args[0].shape[0] == c.args[0].shape[1]]
    assert square  # the square case is where a per-row γ gives the right shape and wrong values
    result = check("scale_shift", lambda x_hat, gamma, beta: gamma[:, None] * x_hat + beta[:, None])
    assert "one per column" in result.diagnosis and "broadcast" not in result.diagnosis, result


def test_where_a_result_differs_is_said_in_1_based_rows_and_features():
    result = check("scale_shift", lambda x_hat, gamma, beta: gamma * x_hat + beta + (x_hat > 1) * 0.5)
    assert "at row " in result.diagnosis and ", feature " in result.diagnosis, result
    assert "np.int64" not in repr(result) and "position (" not in repr(result)
    row = check("normalise", lambda row, eps: (row - row.mean()) / np.sqrt(row.var() + eps) + (row > 1) * 0.5)
    assert "at feature 4 " in row.diagnosis, row  # the first row's 4th value is its only one above 1


def test_text_that_reads_like_the_number_is_not_shown_as_the_same_got():
    result = check("mean", lambda row: str(np.mean(row)))
    assert "text (a str)" in result.diagnosis and result.got == "" and result.expected == "", result


def test_array_steps_accept_a_plain_list_of_numbers():
    assert check("normalise", lambda row, eps: list(solutions.normalise(row, eps))).passed
    assert check("layer_norm", lambda x, eps: solutions.layer_norm(x, eps).tolist()).passed


def test_the_checker_names_at_least_the_issues_mistakes():
    named = {key for _, key, _, _ in WRONG} | {"hard-coded-width", "no-parameters", "not-differentiable"}
    assert len(named) >= 17


def _stub(row):
    raise NotImplementedError


def _endless(row):
    while True:
        pass


@pytest.mark.parametrize(
    ("fn", "words", "key"),
    [
        (_stub, "Not written yet", "not-written"),
        (lambda row: 1 / 0, "ZeroDivisionError", "exception"),
        (lambda row: None, "forget `return`", "no-return"),
        (lambda row: "0.4", "returned text (a str)", "text"),
        (lambda row: {0.4}, "should return numbers", "wrong-type"),
        (lambda row: np.array([1.0, 2.0]), "one number", "wrong-length"),
        (lambda row: [float(np.mean(row))], "not a list", "list-not-number"),
        (lambda row: (float(np.mean(row)),), "not a tuple", "list-not-number"),
        (lambda row: float("nan"), "NaN", "nan"),
    ],
)
def test_learner_code_never_crashes_the_check(fn, words, key):
    result = check("mean", fn)
    assert isinstance(result, CheckResult) and not result.passed
    assert words in result.diagnosis and result.mistake == key, result


def test_an_endless_loop_is_stopped_by_the_time_limit(monkeypatch):
    monkeypatch.setattr(results, "TIME_LIMIT", 0.2)
    started = time.perf_counter()
    result = check("mean", _endless)
    assert not result.passed and result.mistake == "timeout" and "did not finish" in result.diagnosis
    assert time.perf_counter() - started < scaled_s(5)  # the limit stopped it, not the test's patience


def test_bad_steps_and_non_functions_get_a_sentence():
    assert "no exercise called" in check("median", np.mean).diagnosis
    assert "without brackets" in check("mean", 3.0).diagnosis


class _Torch:
    @staticmethod
    def wrong_modules():
        import torch
        from torch import nn

        class HardCoded(nn.Module):
            def __init__(self, n_features, eps=1e-5):
                super().__init__()
                self.gamma, self.beta = nn.Parameter(torch.ones(3)), nn.Parameter(torch.zeros(3))

            def forward(self, x):
                mean = x.mean(-1, keepdim=True)
                return self.gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5) + self.beta

        class NoParameters(nn.Module):
            def __init__(self, n_features, eps=1e-5):
                super().__init__()
                self.gamma, self.beta = torch.ones(n_features), torch.zeros(n_features)

            def forward(self, x):
                mean = x.mean(-1, keepdim=True)
                return self.gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5) + self.beta

        class Detached(solutions.make_module()):
            def forward(self, x):
                return super().forward(x).detach()

        class Unbiased(solutions.make_module()):
            def forward(self, x):
                mean = x.mean(-1, keepdim=True)
                return self.gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + self.eps) + self.beta

        class Swapped(solutions.make_module()):
            def forward(self, x):
                mean = x.mean(-1, keepdim=True)
                x_hat = (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
                return self.beta * x_hat + self.gamma

        class ThroughNumpy(solutions.make_module()):
            def forward(self, x):
                values = x.numpy()
                mean = values.mean(-1, keepdims=True)
                x_hat = (values - mean) / np.sqrt(values.var(-1, keepdims=True) + self.eps)
                return self.gamma * torch.from_numpy(x_hat) + self.beta

        class NoSuper(nn.Module):
            def __init__(self, n_features, eps=1e-5):
                self.eps = eps
                self.gamma = nn.Parameter(torch.ones(n_features))
                self.beta = nn.Parameter(torch.zeros(n_features))

        class FixedEps(solutions.make_module()):
            def forward(self, x):
                mean = x.mean(-1, keepdim=True)
                x_hat = (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5)
                return self.gamma * x_hat + self.beta

        return [
            (NoSuper, "no-super-init", "super().__init__()"),
            (FixedEps, "eps-ignored", "self.eps"),
            (HardCoded, "hard-coded-width", "hard-codes the width"),
            (ThroughNumpy, "not-differentiable", "not differentiable"),
            (NoParameters, "no-parameters", "no learnable parameters"),
            (Detached, "not-differentiable", "not differentiable"),
            (Unbiased, "n-1", "n − 1"),
            (Swapped, "gamma-beta-swapped", "swapped"),
        ]


def test_each_module_mistake_is_named():
    pytest.importorskip("torch")
    for module, key, words in _Torch.wrong_modules():
        result = check("module", module)
        assert not result.passed and result.mistake == key and words in result.diagnosis, (module, result)


def test_a_module_failure_shows_its_input_values():
    torch = pytest.importorskip("torch")
    unbiased = [m for m, key, _ in _Torch.wrong_modules() if key == "n-1"][0]
    result = check("module", unbiased)
    line = [text for text in repr(result).splitlines() if "input:" in text][0]
    assert line.rstrip().endswith("]") and "_parameters" not in repr(result), result
    assert torch  # imported for the skip


def test_an_instance_with_a_fixed_eps_is_caught_through_its_eps_attribute():
    pytest.importorskip("torch")
    fixed = [m for m, key, _ in _Torch.wrong_modules() if key == "eps-ignored"][0]
    assert check("module", fixed(4)).mistake == "eps-ignored"
    layer = solutions.make_module()(4)
    assert check("module", layer).passed and layer.eps == 1e-5  # its eps is put back


def test_a_module_stub_and_a_non_module_do_not_crash():
    torch = pytest.importorskip("torch")

    class Stub(torch.nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            raise NotImplementedError

    assert check("module", Stub).mistake == "not-written"
    assert check("module", np.mean).mistake == "not-a-module"


def test_an_endless_loop_is_stopped_not_left_running(monkeypatch):
    import threading

    monkeypatch.setattr(results, "TIME_LIMIT", 0.2)
    before = set(threading.enumerate())
    result = check("mean", _endless)
    assert result.mistake == "timeout" and "stopped it" in result.diagnosis, result
    assert set(threading.enumerate()) <= before  # the loop's thread has ended: the kernel is free again


def _endless_and_forgiving(row):
    while True:  # a learner who wraps everything in try/except must still be stopped
        try:
            sum(range(100))
        except Exception:  # noqa: BLE001, S112 — the learner's own blanket except
            continue


def test_an_endless_loop_is_stopped_even_inside_the_learners_except_exception(monkeypatch):
    import threading

    monkeypatch.setattr(results, "TIME_LIMIT", 0.2)
    before = set(threading.enumerate())
    result = check("mean", _endless_and_forgiving)
    assert result.mistake == "timeout" and "stopped it" in result.diagnosis, result
    # no thread of the check is left (counted as a set: another test's timer may end meanwhile, and did)
    assert set(threading.enumerate()) <= before


NOTEBOOK_STEPS = {
    "02_mean": "mean",
    "03_variance": "variance",
    "04_epsilon_and_std": "std",
    "05_normalise": "normalise",
    "06_gamma_and_beta": "scale_shift",
    "07_whole_matrix": "layer_norm",
    "08_pytorch": "module",
}


@pytest.mark.parametrize("name", sorted(NOTEBOOK_STEPS))
def test_each_lesson_notebook_stores_a_stub_and_its_not_written_verdict(name):
    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / f"{name}.ipynb", as_version=4)
    step = NOTEBOOK_STEPS[name]
    checks = [cell for cell in nb.cells if cell.cell_type == "code" and f'exercises.check("{step}"' in cell.source]
    assert len(checks) == 1, f"{name}: expected one check cell for {step!r}"
    stored = "".join(output.get("data", {}).get("text/plain", "") for output in checks[0].outputs)
    assert "Not written yet" in stored, f"{name}: the stored check should say 'Not written yet', got {stored!r}"
    stubs = [cell for cell in nb.cells if cell.cell_type == "code" and "raise NotImplementedError" in cell.source]
    assert stubs, f"{name}: the exercise's stub is missing (a solution must never be stored in a student notebook)"
