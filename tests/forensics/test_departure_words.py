"""What notebook 13 writes about a fingerprint, read against what the fingerprint holds: the short list of
departures (the gallery's "departs from PyTorch in"), its yes / no / — cells, the no-ε sentence's two bounds,
and the order in which a printed table's explanations are offered."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from helpers.core.formula import layer_norm_forward
from helpers.forensics.display import _gallery_rows
from helpers.forensics.fingerprints import fingerprint
from helpers.forensics.table import GalleryComparison, GalleryResult, fingerprint_table
from helpers.forensics.words import departures, differences_from_torch


def _layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return layer_norm_forward(x, eps)[0]


@pytest.fixture(scope="module")
def pytorch_like():
    return fingerprint(_layer_norm, "like PyTorch's")


@pytest.mark.parametrize("factor", [0.5, -1.0, 2.0])
def test_a_constant_factor_is_listed_whether_it_shrinks_flips_or_grows(factor):
    found = fingerprint(lambda x: factor * _layer_norm(x), f"{factor} × LayerNorm")
    assert found.factor == pytest.approx(factor, rel=1e-6)
    assert "× factor" in departures(found).split(", "), departures(found)


def test_a_layer_norm_like_pytorchs_departs_in_nothing(pytorch_like):
    assert departures(pytorch_like) == "nothing"


def test_an_axis_that_could_not_be_measured_is_no_departure(pytorch_like):
    """ "axis" is listed for a LayerNorm over the columns, not for one whose axis the probes could not read."""
    assert "axis" not in departures(dataclasses.replace(pytorch_like, axis=None)).split(", ")
    assert "axis" in departures(dataclasses.replace(pytorch_like, axis="columns")).split(", ")


@pytest.mark.parametrize("field", ["centres", "one_pass"])
def test_the_gallery_shows_an_undecided_probe_as_a_dash_not_as_no(pytorch_like, field):
    column = {"centres": 3, "one_pass": 8}[field]
    cells = {}
    for value in (True, False, None):
        found = dataclasses.replace(pytorch_like, **{field: value})
        comparison = GalleryComparison(np.zeros((1, 3)), (GalleryResult("f", found, None, None, None),))
        cells[value] = _gallery_rows(comparison)[0][column]
    assert cells == {True: "yes", False: "no", None: "—"}


def test_the_no_eps_sentence_puts_each_bound_with_its_placement():
    """With no ε, the sentence bounds an ε "inside the root" and one "added to the std". Both stay unseen on the
    smallest variance v the probes used when they change the squared scale by the same fraction t: inside,
    ε = t·v; added to σ, (√v + ε)² = (1 + t)·v, so ε ≈ √v·t/2, far larger than t·v for v ≪ 1."""
    found = fingerprint(lambda x: _layer_norm(x, eps=0.0), "no ε")
    assert found.eps_placement == "none"
    (sentence,) = [s for s in differences_from_torch(found) if "inside the root" in s]
    inside, added = (float(v) for v in re.search(r"under (\S+) inside the root \(under (\S+) added", sentence).groups())
    v = found.measured.smallest_variance
    assert v < 0.01 and added > inside, sentence
    t = inside / v  # read from the first bound; the second must follow from the same t
    assert added == pytest.approx(math.sqrt(v) * t / 2, rel=0.6), (sentence, v)


def test_a_tables_partial_explanations_come_most_rows_first():
    x = np.random.default_rng(7).normal(size=(6, 4))
    y = _layer_norm(x)
    y[4:] = y[4:] * 1.5  # two rows no convention reproduces along the rows
    found = fingerprint_table(x, np.round(y, 4), places=4)
    partial = [e for e in found.explanations if not e.explains_all]
    assert len({len(e.rows) for e in partial}) >= 2, "the case must hold partial explanations of different sizes"
    complete = [e.explains_all for e in found.explanations]
    assert complete == sorted(complete, reverse=True)  # every complete explanation first
    sizes = [len(e.rows) for e in partial]
    assert sizes == sorted(sizes, reverse=True), sizes
