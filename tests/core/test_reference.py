"""helpers.reference: the lesson's PyTorch module and the side-by-side comparison.

Skipped where torch is not installed (e.g. a small Colab-like environment).
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import helpers  # noqa: E402
from helpers.reference import (  # noqa: E402
    CLOSE_TOLERANCE,
    LessonLayerNorm,
    UnbiasedVarianceLayerNorm,
    compare,
    compare_implementations,
)

from conftest import LESSON_X as X  # noqa: E402
from conftest import LESSON_X_TEXT, exact_layer_norm  # noqa: E402


def exact_output(texts, unbiased=False):
    """LayerNorm of one row from its exact decimals (fractions), biased or unbiased variance."""
    return exact_layer_norm(texts, unbiased=unbiased)[3]


@pytest.fixture(scope="module")
def report():
    return compare_implementations(helpers.load_residual())


def test_lesson_module_parameters_are_scale_and_shift():
    module = LessonLayerNorm(4)
    parameters = dict(module.named_parameters())
    assert list(parameters) == ["scale", "shift"]
    assert torch.equal(parameters["scale"].detach(), torch.ones(4))
    assert torch.equal(parameters["shift"].detach(), torch.zeros(4))
    assert all(p.requires_grad for p in parameters.values())
    assert module.eps == 1e-5


def test_lesson_module_matches_exact_arithmetic_in_float64():
    module = LessonLayerNorm(3).double()
    with torch.no_grad():
        out = module(torch.from_numpy(X.copy())).numpy()
    np.testing.assert_allclose(out, [exact_output(row) for row in LESSON_X_TEXT], rtol=0, atol=1e-14)
    np.testing.assert_allclose(out[0], [1.1729, -1.2707, 0.0978], atol=0.5e-4)


def test_lesson_module_learns_scale_and_shift():
    module = LessonLayerNorm(3).double()
    with torch.no_grad():
        module.scale.copy_(torch.tensor([2.0, 1.0, -1.0]))
        module.shift.copy_(torch.tensor([0.0, 0.5, 1.0]))
        out = module(torch.from_numpy(X.copy())).numpy()
    np.testing.assert_allclose(out, helpers.layer_norm(X, [2, 1, -1], [0, 0.5, 1]), rtol=0, atol=1e-14)


def test_lesson_module_gradients_flow_to_scale_and_shift():
    module = LessonLayerNorm(3).double()
    module(torch.from_numpy(X.copy())).sum().backward()
    # d(sum y)/d shift = number of rows; d(sum y)/d scale = column sums of the normalised values
    np.testing.assert_allclose(module.shift.grad.numpy(), [5.0, 5.0, 5.0])
    np.testing.assert_allclose(module.scale.grad.numpy(), helpers.layer_norm(X).sum(axis=0), atol=1e-13)


def test_unbiased_variance_module_is_the_classic_mistake():
    with torch.no_grad():
        out = UnbiasedVarianceLayerNorm(3).double()(torch.from_numpy(X.copy())).numpy()
    np.testing.assert_allclose(out, [exact_output(row, unbiased=True) for row in LESSON_X_TEXT], rtol=0, atol=1e-14)
    # With n = 3, the unbiased variance is 3/2 of the biased one: outputs shrink by about √(2/3).
    np.testing.assert_allclose(out[0], np.array(exact_output(LESSON_X_TEXT[0])) * math.sqrt(2 / 3), atol=1e-4)


def test_compare_implementations_on_the_residual_matrix(report):
    by_name = {row.name: row for row in report.rows}
    assert report.shape == (5, 3)
    assert report.eps == 1e-5
    assert report.reference_name == "torch.nn.LayerNorm"
    correct = ["lesson's module (LessonLayerNorm)", "torch.nn.functional.layer_norm", "helpers.layer_norm (numpy)"]
    for name in correct:
        assert by_name[name].close and by_name[name].expected_to_match and by_name[name].as_expected, name
        assert by_name[name].max_difference <= CLOSE_TOLERANCE
    mistake = by_name["unbiased variance (the classic mistake)"]
    assert not mistake.close and not mistake.exact
    assert not mistake.expected_to_match and mistake.as_expected
    # the largest difference, computed here from exact arithmetic
    expected_gap = max(
        abs(a - b) for row in LESSON_X_TEXT for a, b in zip(exact_output(row, unbiased=True), exact_output(row))
    )
    assert mistake.max_difference == pytest.approx(expected_gap, abs=1e-12)
    assert mistake.max_difference > 0.2


def test_compare_implementations_reference_is_torch_layer_norm():
    """The reference the report uses agrees with an independently built torch.nn.LayerNorm."""
    x = np.random.default_rng(3).normal(size=(4, 7)) * 5 + 2
    layer = torch.nn.LayerNorm(7, dtype=torch.float64)
    with torch.no_grad():
        reference = layer(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(helpers.layer_norm(x), reference, rtol=0, atol=1e-13)
    report = compare_implementations(x, eps=1e-3)
    assert [row.as_expected for row in report.rows] == [True, True, True, True]


def test_report_text_and_html(report):
    text = str(report)
    assert text == repr(report)
    assert "LayerNorm on a 5×3 matrix (float64, eps = 1e-05) against torch.nn.LayerNorm" in text
    assert "DIFFERS (as it should)" in text
    assert text.count("matches") == 3
    assert "0x" not in text
    markup = report._repr_html_()
    assert markup.count("<tr") == 1 + 4
    assert "DIFFERS (as it should)" in markup


def test_compare_reports_exact_close_and_difference():
    same = compare("same", np.array([1.0, 2.0]), torch.tensor([1.0, 2.0], dtype=torch.float64))
    assert same.exact and same.close and same.max_difference == 0.0
    near = compare("near", [1.0, 2.0 + 1e-13], [1.0, 2.0])
    assert not near.exact and near.close
    far = compare("far", [1.0, 2.5], [1.0, 2.0])
    assert not far.close and far.max_difference == 0.5
    with pytest.raises(ValueError, match=r"far: shape \(3,\) does not match the reference's \(2,\)"):
        compare("far", [1.0, 2.0, 3.0], [1.0, 2.0])


def nbval_sanitized(text: str) -> str:
    """``text`` as nbval compares it under ``--nbval-sanitize-with tests/nbval_sanitize.cfg``."""
    nbval_plugin = pytest.importorskip("nbval.plugin")
    patterns = nbval_plugin.get_sanitize_patterns(
        (Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg").read_text()
    )
    assert patterns, "tests/nbval_sanitize.cfg has no patterns"
    for regex, replacement in patterns:
        text = re.sub(regex, replacement, text)
    return text


@pytest.mark.parametrize("view", [str, lambda report: report._repr_html_()], ids=["text", "html"])
def test_stored_comparisons_do_not_depend_on_the_processor(report, view):
    """Whether a matching implementation is bit-for-bit equal to nn.LayerNorm depends on the order in
    which PyTorch adds, so on the processor; nbval must not see that, and must see everything else."""

    def with_rows(rows):
        return dataclasses.replace(report, rows=tuple(rows))

    bitwise = with_rows(dataclasses.replace(r, exact=True, max_difference=0.0) if r.close else r for r in report.rows)
    last_bit = with_rows(
        dataclasses.replace(r, exact=False, max_difference=2e-16) if r.close else r for r in report.rows
    )
    assert view(bitwise) != view(last_bit)
    assert nbval_sanitized(view(bitwise)) == nbval_sanitized(view(last_bit))
    stops_matching = with_rows([dataclasses.replace(report.rows[0], close=False, max_difference=0.3), *report.rows[1:]])
    assert nbval_sanitized(view(stops_matching)) != nbval_sanitized(view(report))
    assert "2.6e-01" in nbval_sanitized(view(report)) and "DIFFERS (as it should)" in nbval_sanitized(view(report))


# --- a batch, ε, and what compare reads -------------------------------------------------------------------


def _hand(x, gamma, beta, eps, ddof):
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).sum(axis=-1, keepdims=True) / (x.shape[-1] - ddof)
    return gamma * (x - mean) / np.sqrt(variance + eps) + beta


@pytest.mark.parametrize(("module", "ddof"), [(LessonLayerNorm, 0), (UnbiasedVarianceLayerNorm, 1)])
def test_each_module_normalises_over_the_last_axis_of_a_batch_then_scales_and_shifts(module, ddof):
    """A batch of 2 sequences of 5 tokens with 3 features: each token alone, γ and β per feature."""
    x = np.random.default_rng(7).normal(0.5, 2.0, (2, 5, 3))
    gamma, beta = np.array([2.0, -0.5, 1.5]), np.array([0.25, -1.0, 3.0])
    layer = module(3, eps=0.1).double()
    with torch.no_grad():
        layer.scale.copy_(torch.from_numpy(gamma))
        layer.shift.copy_(torch.from_numpy(beta))
        out = layer(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, _hand(x, gamma, beta, 0.1, ddof), rtol=1e-12, atol=1e-12)


def test_compare_of_empty_results_finds_no_difference():
    found = compare("nothing", np.zeros((0, 3)), np.zeros((0, 3)))
    assert (found.exact, found.close, found.max_difference) == (True, True, 0.0)


def test_compare_reads_every_number_as_float64_so_integers_far_apart_do_not_overflow():
    found = compare("far apart", [2**62], [-(2**62)])
    assert found.max_difference == 2.0**63 and not found.close


def test_compare_implementations_reads_integers_as_float64_and_a_batch_by_its_last_axis():
    ints = compare_implementations(np.array([[1, 2, 4], [3, 3, 9]]))
    batch = compare_implementations(np.random.default_rng(3).normal(size=(2, 4, 3)))
    for report in (ints, batch):
        assert all(row.as_expected for row in report.rows), report.rows
    assert ints.shape == (2, 3) and batch.shape == (2, 4, 3)


def test_compare_implementations_runs_the_mistake_with_the_eps_it_is_given():
    x = np.asarray(X, dtype=np.float64)
    report = compare_implementations(x, eps=0.5)
    mistake = next(row for row in report.rows if not row.expected_to_match)
    expected = np.max(np.abs(_hand(x, 1.0, 0.0, 0.5, 1) - _hand(x, 1.0, 0.0, 0.5, 0)))
    assert mistake.max_difference == pytest.approx(expected, rel=1e-9)
