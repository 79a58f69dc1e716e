"""The row editor's status line in words (helpers.widgets.accessibility.result_sentence, status_html).

From the docstrings: "mean now …" up to the mean; then "standard deviation now … (√(σ² + ε))"; at the
normalised stage the normalised values (up to 12 of them) and the variance of x̂ at 6 places or more; with
everything, the output (up to 12 values); by hand, at its places, saying so. The sentence sits in a polite,
atomic live region, the hidden words first. Expected numbers are numpy's, formatted here.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from helpers.core.layernorm import layer_norm_steps  # noqa: E402
from helpers.widgets.accessibility import result_sentence, status_html  # noqa: E402

ROW = np.array([1.133, -0.299, 0.503])


def numpy_parts(row, eps=1e-5):
    row = np.asarray(row, dtype=np.float64)
    mean, std = row.mean(), np.sqrt(row.var() + eps)
    return mean, std, (row - mean) / std


def listed(values, places=4):
    return ", ".join(f"{v:.{places}f}" for v in values)


def test_with_everything_taught_it_says_mean_std_and_output_at_4_places():
    mean, std, normalised = numpy_parts(ROW)
    assert result_sentence(layer_norm_steps(ROW)) == (
        f"mean now {mean:.4f}, standard deviation now {std:.4f} (√(σ² + ε)), output now {listed(normalised)}."
    )


def test_up_to_the_mean_it_says_only_the_mean():
    mean, _, _ = numpy_parts(ROW)
    assert result_sentence(layer_norm_steps(ROW), "mean") == f"mean now {mean:.4f}."
    assert result_sentence(layer_norm_steps(ROW), "variance") == f"mean now {mean:.4f}."


def test_at_the_normalised_stage_it_says_x_hat_and_its_variance_at_six_places():
    eps = 1e-2
    mean, std, normalised = numpy_parts(ROW, eps)
    variance = ROW.var() / (ROW.var() + eps)
    assert result_sentence(layer_norm_steps(ROW, eps=eps), "normalised") == (
        f"mean now {mean:.4f}, standard deviation now {std:.4f} (√(σ² + ε)), normalised x̂ now {listed(normalised)}"
        f"; variance of x̂ now {variance:.6f} (1 when ε is nothing beside σ²)."
    )


@pytest.mark.parametrize(("n", "listed_values"), [(12, True), (13, False)])
def test_up_to_twelve_values_are_listed_and_a_longer_row_only_summed_up(n, listed_values):
    row = np.arange(1.0, n + 1.0) ** 1.5
    _, _, normalised = numpy_parts(row)
    everything = result_sentence(layer_norm_steps(row))
    at_normalised = result_sentence(layer_norm_steps(row), "normalised")
    assert (f"output now {listed(normalised)}." in everything) is listed_values
    assert ("output now" in everything) is listed_values
    assert (f"normalised x̂ now {listed(normalised)};" in at_normalised) is listed_values
    assert ("normalised x̂ now" in at_normalised) is listed_values
    assert "variance of x̂ now 1.000000" in at_normalised  # said whatever the length


def test_by_hand_every_number_is_at_the_places_used_and_the_sentence_says_so():
    record = layer_norm_steps(ROW, decimals=2)
    sentence = result_sentence(record)
    assert sentence.endswith("; by hand, rounding every step to 2 places.")
    assert sentence.startswith(f"mean now {record.mean:.2f}, standard deviation now {record.std:.2f} (√(σ² + ε))")
    assert f"output now {listed(record.output, 2)};" in sentence
    variance = float(np.var(record.normalised))
    assert f"variance of x̂ now {variance:.6f} " in result_sentence(record, "normalised")


def test_the_status_region_is_polite_atomic_and_reads_the_hidden_words_first():
    assert status_html("mean now 2 <b>", "<span>Value 2 is not a number. </span>") == (
        '<div role="status" aria-live="polite" aria-atomic="true" style="font-size:13px;color:#333;margin:2px 0">'
        "<span>Value 2 is not a number. </span>mean now 2 &lt;b&gt;</div>"
    )
