"""helpers.forensics.table.compare_gallery: each LayerNorm fingerprinted and run on the learner's matrix.

The rows notebook 13 shows (the verdict, how far each output moves from PyTorch's on x and on x + 100
in float32, NaN named as NaN), and what each result holds: the entry's fingerprint under its own
name, at the matrix's width, and its output on x itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics.gallery import GalleryEntry, mystery, pytorch_layer_norm
from helpers.forensics.table import GALLERY_OFFSET, compare_gallery

torch = pytest.importorskip("torch")

NOTES = [
    "  change on x: the largest |output − PyTorch's output| on x (γ = 1, β = 0), and the row where it is; "
    "0 means 0 at the places shown.",
    "  on x + 100, float32: the same, for x + 100 computed in float32 (LayerNorm's output should not move).",
]


def test_a_row_of_equal_values_shows_nan_for_the_function_without_eps():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])
    comparison = compare_gallery(
        x, [GalleryEntry("no ε", mystery, "notebook 13"), GalleryEntry("ours", pytorch_layer_norm, "")]
    )
    assert str(comparison).splitlines() == [
        "Every LayerNorm of the gallery, fingerprinted and run on the 2 × 3 matrix",
        "  implementation  = PyTorch?  departs from PyTorch in  mean?  variance  ε placement  ε      axis  one pass?  "
        "change on x  on x + 100, float32",
        "  no ε            ✗ no        no ε                     yes    ÷ n       none         0      rows  no         "
        "NaN (row 2)  NaN (row 2)",
        "  ours            ✓ yes       nothing                  yes    ÷ n       inside √     1e-05  rows  no         "
        "0            0",
        *NOTES,
    ]
    assert [r.fingerprint.name for r in comparison.results] == ["no ε", "ours"]  # its gallery name, not fn's


def test_an_integer_matrix_is_run_in_float64_even_by_a_torch_module():
    comparison = compare_gallery(
        [[1, 2, 4], [3, 5, 9]], [GalleryEntry("torch.nn.LayerNorm", torch.nn.LayerNorm(3), "")]
    )
    assert comparison.x.dtype == np.float64
    assert str(comparison).splitlines()[2] == (
        "  torch.nn.LayerNorm  ✓ yes       nothing                  yes    ÷ n       inside √     1e-05  rows  no         "
        "0            0"
    )


def test_an_entry_written_for_the_matrixs_width_only_is_fingerprinted_at_that_width():
    gamma = np.ones(5)

    def five_features(x):
        return gamma * pytorch_layer_norm(x)

    x = np.random.default_rng(13).normal(size=(4, 5))
    (result,) = compare_gallery(x, [GalleryEntry("five", five_features, "")]).results
    assert result.fingerprint.problem is None and result.fingerprint.matches_torch
    assert result.fingerprint.measured.features == 5


def test_each_result_holds_its_output_on_x_and_is_run_on_x_plus_100_in_float32():
    float32_inputs = []

    def recording(x):
        if x.dtype == np.float32:
            float32_inputs.append(x.copy())
        return pytorch_layer_norm(x)

    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    (result,) = compare_gallery(x, [GalleryEntry("recording", recording, "")]).results
    np.testing.assert_array_equal(result.output, pytorch_layer_norm(x))
    np.testing.assert_array_equal(float32_inputs[-1], (x + GALLERY_OFFSET).astype(np.float32))


def test_an_entry_that_refuses_float64_is_still_run_on_x_plus_100_in_float32():
    def float32_only(x):
        if x.dtype == np.float64:
            raise TypeError("float32 only")
        return pytorch_layer_norm(x)

    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    (result,) = compare_gallery(x, [GalleryEntry("float32 only", float32_only, "")]).results
    assert result.row_differences is None and result.output is None  # its output on x + 100 is not one on x
    assert result.offset_differences is not None and result.offset_differences.max() < 1e-4
    assert (
        str(compare_gallery(x, [GalleryEntry("float32 only", float32_only, "")]))
        .splitlines()[2]
        .endswith("could not run  0")
    )
