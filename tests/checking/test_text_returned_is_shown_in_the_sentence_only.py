"""A function that returns text (helpers/checking/exercises.py, ``_failure``): text that reads like the right
number is shown as the text it is, in the sentence (its repr), with no "expected"/"got" pair under it that would
set the right number beside digits that look the same."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.exercises import check


@pytest.mark.parametrize("as_text", [str, lambda m: f"{m}".encode()], ids=["str", "bytes"])
def test_text_that_reads_like_the_right_mean_is_named_and_shown_only_as_text(as_text):
    result = check("mean", lambda row: as_text(float(np.mean(row))))
    assert (result.passed, result.mistake) == (False, "text"), result
    assert (result.expected, result.got) == ("", ""), result
    assert result.case and result.arguments  # the input is still shown
    assert "not a number" in result.diagnosis


def test_the_text_itself_is_in_the_sentence():
    result = check("mean", lambda row: "0.5")
    assert "returned text (a str), '0.5', not a number" in result.diagnosis, result
    assert "expected" not in repr(result).split("\n", 1)[-1], repr(result)
