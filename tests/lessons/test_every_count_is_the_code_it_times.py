"""``kernels.COUNTS``: flops and bytes per value for every timed implementation. The roofline and notebook 12's
achieved GFLOP/s read these, so each must be what its code does: here counted by hand from the timed code."""

import re

import pytest

from helpers.lessons.speed import kernels


def listed_parts(name):
    return [int(n) for n in re.findall(r": (\d+)", kernels.COUNTS[name].how)]


@pytest.mark.parametrize(
    ("name", "flops"),
    [
        ("copy, numpy", 0),  # np.copyto: no arithmetic
        ("copy, torch", 0),
        ("sum only, torch", 1),  # one add per value
        ("multiply-add, torch", 2),  # addcmul: x·γ, then + β
        ("F.rms_norm", 4),  # x², mean's add, × rstd, × γ
        ("numpy two-pass, out=", 7),
        ("numpy two-pass, new arrays", 7),
        ("torch LayerNorm", 10),
        ("native_layer_norm.out", 10),  # the same forward kernel, into new tensors, then copied
        ("torch backward", 15),
    ],
)
def test_flops_per_value(name, flops):
    assert kernels.COUNTS[name].flops == flops


def test_the_new_arrays_version_lists_seven_one_flop_steps():
    # helpers.core.formula: Σx, x − μ, (x − μ)², Σ, ÷ σ, then × γ and + β
    assert listed_parts("numpy two-pass, new arrays") == [1] * 7


@pytest.mark.parametrize(
    ("name", "read", "written"),
    [
        ("sum only, torch", 4, 0),  # one number per row out: nothing per value
        ("torch backward", 8, 4),  # read x and dy, write dx
        ("native_layer_norm.out", 4, 4),
        ("multiply-add, torch", 4, 4),
    ],
)
def test_bytes_read_and_written_per_value(name, read, written):
    count = kernels.COUNTS[name]
    assert (count.read, count.written, count.bytes) == (read, written, read + written)


def test_the_out_wrapper_does_the_forward_kernels_arithmetic():
    assert kernels.COUNTS["native_layer_norm.out"].intensity == kernels.COUNTS["torch LayerNorm"].intensity
