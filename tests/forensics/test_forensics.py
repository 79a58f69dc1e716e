"""helpers.forensics.fingerprints: fingerprint any LayerNorm, and which LayerNorm explains a printed table (notebook 13)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from patience import time_limit_s

import helpers
from helpers.core.published_table import check_published_output
from helpers.forensics.fingerprints import Fingerprint, departures, fingerprint
from helpers.forensics.gallery import gallery
from helpers.forensics.orientations import orientations
from helpers.forensics.table import compare_gallery, fingerprint_table, printed_places

from conftest import examples

torch = pytest.importorskip("torch")

ATTRIBUTES = ("centres", "variance", "eps_placement", "eps", "axis", "one_pass", "matches_torch", "gamma")

# What each gallery entry computes, from its source's documentation (written out here, not read from helpers).
GALLERY_EXPECTED = {
    "PyTorch nn.LayerNorm": (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "none"),
    "the lesson's module": (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "per feature"),
    "Annotated Transformer": (True, "unbiased", "added to std", 1e-6, "rows", False, False, "none"),
    "one-pass variance": (True, "biased", "inside sqrt", 1e-5, "rows", True, False, "none"),
    "Keras default": (True, "biased", "inside sqrt", 1e-3, "rows", False, False, "none"),
    "BERT": (True, "biased", "inside sqrt", 1e-12, "rows", False, False, "none"),
    "RMSNorm (LLaMA 1)": (False, "biased", "inside sqrt", 1e-6, "rows", False, False, "none"),
    "scalar γ": (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "scalar"),
    "wrong axis": (True, "biased", "inside sqrt", 1e-5, "columns", False, False, "none"),
}


def assert_fingerprint(found: Fingerprint, expected) -> None:
    assert found.problem is None, found.problem
    for name, want in zip(ATTRIBUTES, expected, strict=True):
        got = getattr(found, name)
        if name == "eps":
            assert got == pytest.approx(want, rel=1e-3, abs=1e-300), f"{found.name}: eps {got} != {want}"
        else:
            assert got == want, f"{found.name}: {name} is {got!r}, expected {want!r}"


@pytest.mark.parametrize("entry", gallery(), ids=lambda e: e.name)
def test_every_gallery_entry_is_identified(entry):
    assert_fingerprint(fingerprint(entry.fn, entry.name), GALLERY_EXPECTED[entry.name])


def test_the_gallery_is_the_one_tested():
    assert sorted(e.name for e in gallery()) == sorted(GALLERY_EXPECTED)


@pytest.mark.parametrize("entry", gallery(), ids=lambda e: e.name)
def test_matches_torch_agrees_with_torch_itself(entry):
    """On ordinary rows, far-from-0 rows and a tiny-variance row, compared with torch's own F.layer_norm."""
    x = np.vstack(
        [np.random.default_rng(1).normal(size=(6, 3)), [[0.5, 0.5001, 0.4999]], [[1e8 + 0.5, 1e8 - 0.5, 1e8]]]
    )
    reference = torch.nn.functional.layer_norm(torch.from_numpy(x), (3,), eps=1e-5).numpy()
    with np.errstate(all="ignore"):
        close = np.allclose(entry.fn(x.copy()), reference, rtol=1e-9, atol=1e-12)
    assert fingerprint(entry.fn, entry.name).matches_torch == close


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-5, 1e-3])
@pytest.mark.parametrize("placement", ["inside sqrt", "added to std"])
def test_common_eps_values_are_told_apart(eps, placement):
    def fn(x):
        d = x - x.mean(axis=-1, keepdims=True)
        var = (d * d).mean(axis=-1, keepdims=True)
        return d / (np.sqrt(var + eps) if placement == "inside sqrt" else np.sqrt(var) + eps)

    found = fingerprint(fn)
    assert found.eps_placement == placement
    assert found.eps == pytest.approx(eps, rel=1e-3)
    others = [e for e in (1e-12, 1e-6, 1e-5, 1e-3) if e != eps]
    assert all(abs(found.eps - e) > 0.1 * e for e in others)


def make_implementation(eps, unbiased, placement, axis, centres, one_pass=False):
    """A LayerNorm with the given conventions, written independently of helpers.forensics.fingerprints."""
    reduce = -1 if axis == "rows" else 0

    def fn(x):
        n = x.shape[reduce]
        mean = x.mean(axis=reduce, keepdims=True) if centres else 0.0
        d = x - mean
        if one_pass:
            var = ((x * x).mean(axis=reduce, keepdims=True) - mean * mean) * n / (n - 1 if unbiased else n)
        else:
            var = (d * d).sum(axis=reduce, keepdims=True) / (n - 1 if unbiased else n)
        if placement == "inside sqrt":
            return d / np.sqrt(var + eps)
        if placement == "added to std":
            return d / (np.sqrt(var) + eps)
        return d / np.sqrt(var)

    return fn


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    exponent=st.floats(-14, -1),
    unbiased=st.booleans(),
    placement=st.sampled_from(["inside sqrt", "added to std", "none"]),
    axis=st.sampled_from(["rows", "columns"]),
    centres=st.booleans(),
    one_pass=st.booleans(),
    features=st.integers(2, 9),
)
@pytest.mark.slow
def test_random_conventions_are_identified(exponent, unbiased, placement, axis, centres, one_pass, features):
    eps = 0.0 if placement == "none" else 10.0**exponent
    one_pass = one_pass and centres
    fn = make_implementation(eps, unbiased, placement, axis, centres, one_pass)
    found = fingerprint(fn, features=features)
    matches = (
        centres
        and not unbiased
        and placement == "inside sqrt"
        and axis == "rows"
        and not one_pass
        and abs(eps - 1e-5) <= 1e-14
    )
    assert_fingerprint(
        found, (centres, "unbiased" if unbiased else "biased", placement, eps, axis, one_pass, matches, "none")
    )
    assert (found.differences == []) == matches


@pytest.mark.parametrize(
    "module, expected",
    [
        (lambda: torch.nn.LayerNorm(3), (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "per feature")),
        (
            lambda: torch.nn.LayerNorm(6, eps=1e-6, bias=False),
            (True, "biased", "inside sqrt", 1e-6, "rows", False, False, "per feature"),
        ),
        (
            lambda: torch.nn.RMSNorm(4, eps=1e-6),
            (False, "biased", "inside sqrt", 1e-6, "rows", False, False, "per feature"),
        ),
    ],
    ids=["nn.LayerNorm", "nn.LayerNorm eps 1e-6", "nn.RMSNorm"],
)
def test_torch_modules(module, expected):
    assert_fingerprint(fingerprint(module()), expected)


def test_torch_functions_and_the_lessons_modules():
    reference = pytest.importorskip("helpers.reference")
    assert_fingerprint(
        fingerprint(lambda x: torch.nn.functional.layer_norm(x, x.shape[-1:])),
        (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "none"),
    )
    assert_fingerprint(
        fingerprint(reference.LessonLayerNorm(3)),
        (True, "biased", "inside sqrt", 1e-5, "rows", False, True, "per feature"),
    )
    assert_fingerprint(
        fingerprint(reference.UnbiasedVarianceLayerNorm(3)),
        (True, "unbiased", "inside sqrt", 1e-5, "rows", False, False, "per feature"),
    )


def test_a_trained_gamma_and_beta_are_divided_out():
    module = torch.nn.LayerNorm(4, eps=1e-3)
    with torch.no_grad():
        module.weight.copy_(torch.tensor([2.0, -1.0, 0.5, 3.0]))
        module.bias.copy_(torch.tensor([0.1, 0.2, -0.3, 0.0]))
    found = fingerprint(module)
    assert_fingerprint(found, (True, "biased", "inside sqrt", 1e-3, "rows", False, False, "per feature"))
    assert any("divided out" in d for d in found.differences)
    assert module.weight.dtype == torch.float32  # the probes used a copy


def _loops(x):
    while True:
        pass


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda x: 1 / 0, "raised ZeroDivisionError: division by zero"),
        (lambda x: x * np.nan, "NaN or infinity"),
        (lambda x: x[:, :2], "shape (7, 2)"),
        (lambda x: "text", "returned str"),
        (lambda x: None, "shape ()"),
        (42, "not a function"),
        (_loops, "did not finish within {limit:g} s"),
    ],
)
def test_broken_functions_give_one_plain_sentence(fn, words):
    limit = time_limit_s(0.2)
    words = words.format(limit=limit)
    found = fingerprint(fn, "broken", time_limit=limit)
    assert found.problem is not None and words in found.problem
    assert found.differences == [found.problem] and found.matches_torch is False
    assert "could not be measured" in str(found) and words in found._repr_html_().replace("&#x27;", "'")


def test_the_time_limit_also_works_off_the_main_thread_and_stops_the_loop():
    # Off the main thread there is no SIGALRM: fingerprint stops waiting, then stops the loop itself (an
    # exception raised inside its thread). stop only ends the loop if that failed, so that a failure
    # here cannot leave a thread spinning for the rest of the run and slow every test after this one.
    # A new event each time: the test can run twice in one process (mutmut's stats, then its clean run).
    stop = threading.Event()

    def loops_until_stopped(x):
        while not stop.is_set():
            pass

    result = {}
    worker = threading.Thread(
        target=lambda: result.setdefault("f", fingerprint(loops_until_stopped, time_limit=time_limit_s(0.2)))
    )
    try:
        worker.start()
        worker.join(10)
        assert "did not finish" in result["f"].problem
        left = [t.name for t in threading.enumerate() if t.name == "helpers.forensics.fingerprints call"]
        assert not left, "the learner's endless loop is still running after fingerprint gave up on it"
    finally:
        stop.set()


def test_mixing_rows_and_columns_is_reported():
    found = fingerprint(lambda x: (x - x.mean()) / x.std())
    assert found.axis == "neither" and found.centres is None and not found.matches_torch
    assert "other tokens" in found.differences[0]


def test_not_a_normaliser_is_not_a_layer_norm_not_a_guess():
    found = fingerprint(lambda x: 2 * x)
    assert found.is_layer_norm is False and found.not_layer_norm_because == "scale"
    assert found.variance is None and found.eps_placement is None and found.eps is None and not found.matches_torch
    assert "its output grows with its input" in str(found) and departures(found) == "not a LayerNorm"


def test_importing_the_forensics_does_not_import_torch():
    code = (
        "import helpers.forensics.fingerprints, helpers.forensics.table, helpers.forensics.gallery, helpers.forensics.display, "
        "helpers.forensics.orientations, sys; print('torch' in sys.modules)"
    )
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


# --- Displays -----------------------------------------------------------------------------------


def test_fingerprint_shows_its_evidence_without_rounding_noise():
    found = fingerprint(gallery()[2].fn, "Annotated Transformer")
    text, page = str(found), found._repr_html_()
    for words in (
        "unbiased: ÷ (n − 1)",
        "added to the std",
        "1e-06",
        "divisor k = 3.0000 for n = 4",
        "adds ε to the standard deviation",
    ):
        assert words in text and words in page.replace("&#x27;", "'")
    assert "e-1" not in text.replace("1e-10", "")  # no noisy tiny numbers, only "< 1e-09"


def test_departures_in_short_words():
    words = {e.name: departures(fingerprint(e.fn)) for e in gallery()}
    assert words["PyTorch nn.LayerNorm"] == "nothing"
    assert words["Annotated Transformer"] == "÷ (n − 1), ε + std, ε value"
    assert words["scalar γ"] == "one γ" and words["wrong axis"] == "axis"


def test_gallery_on_the_lesson_matrix():
    x = helpers.load_residual()
    comparison = compare_gallery(x, gallery())
    truth = torch.nn.functional.layer_norm(torch.from_numpy(x), (3,), eps=1e-5).numpy()
    for result, entry in zip(comparison.results, gallery(), strict=True):
        with np.errstate(all="ignore"):
            expected = np.abs(entry.fn(x.copy()) - truth).max(axis=1)
        np.testing.assert_allclose(result.row_differences, expected, rtol=1e-12, atol=1e-15)
    by_name = {r.name: r for r in comparison.results}
    for name in ("Keras default", "BERT", "RMSNorm (LLaMA 1)", "wrong axis"):
        assert by_name[name].worst_row == 5, name  # row 5, the tiny-variance row, is where it shows
    assert np.argmax(by_name["one-pass variance"].offset_differences) == 4
    assert (
        by_name["one-pass variance"].offset_differences.max()
        > 0.05
        > by_name["PyTorch nn.LayerNorm"].offset_differences.max()
    )
    assert "0.1670 (row 5)" in str(comparison) and "0.114 (row 5)" in str(comparison)


def test_orientations_show_the_reduced_axis():
    view = orientations(helpers.load_residual())
    text, page = str(view), view._repr_html_()
    assert "token 1   1.133  -0.299   0.503  ◀ one LayerNorm: this row" in text
    assert "▲ one LayerNorm: this column" in text and "(2, 5, 3)" in text
    # Shaded: the values one statistic uses, token 1's row (rows, batch) and token 1's column (columns).
    shaded_rows = re.findall(r'<tr style="background:#dbe9f6"><th[^>]*>([^<]*)</th>', page)
    assert shaded_rows == ["token 1", "b1 t1"]
    assert re.findall(r';background:#dbe9f6">([^<]*)</td>', page) == ["1.133", "-0.299", "0.503"]
    assert "◀ one LayerNorm: this row" in page and "▲ one LayerNorm: this column" in page  # said, not only shaded


# --- Tables -----------------------------------------------------------------------------------


def test_the_lessons_published_table_is_explained_by_nothing():
    x, published = helpers.load_residual(), helpers.load_published_output()
    found = fingerprint_table(x, published)
    assert found.places == 2 and found.explained_by == ()
    check = check_published_output(published, x)
    assert found.unexplained_rows == tuple(r.row for r in check.rows if not r.could_be_layer_norm_of_x)
    assert "No single convention" in str(found)


@pytest.mark.parametrize("places", [3, 4])
def test_a_pytorch_table_is_explained_by_pytorchs_convention(places):
    x = helpers.load_residual()
    y = np.round(torch.nn.functional.layer_norm(torch.from_numpy(x), (3,), eps=1e-5).numpy(), places)
    found = fingerprint_table(x, y)
    assert found.places == places
    pytorch = [e for e in found.explained_by if e.axis == "rows" and e.convention.short_name.endswith("(PyTorch)")]
    assert pytorch and pytorch[0].eps_low <= 1e-5 <= pytorch[0].eps_high
    assert ("PyTorch, GPT-2", 1e-5) in pytorch[0].known_eps
    assert found.unexplained_rows == ()


def test_a_column_normalised_table_is_explained_along_the_columns():
    x = np.random.default_rng(4).normal(size=(6, 3))
    y = np.round(((x - x.mean(0)) / x.std(0, ddof=1)), 4)  # no ε, ÷ (n − 1), down each column
    found = fingerprint_table(x, y)
    best = found.explained_by[0]
    assert best.axis == "columns" and best.convention.unbiased and best.eps_low == 0.0
    assert not any(e.axis == "rows" for e in found.explained_by)


def test_printed_places_and_bad_tables():
    assert printed_places([[1.5, 2.25]]) == 2 and printed_places([[1.0, 2.0]]) == 0
    with pytest.raises(ValueError, match="same rows and columns"):
        fingerprint_table(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        fingerprint_table([[1.0, 2.0], [3.0, 5.0]], [[np.nan, 1.0], [1.0, -1.0]])


def test_notebook_13s_typed_table_is_the_annotated_transformers():
    """Notebook 13's prose: both ÷ (n − 1) conventions explain it (ε down to 0); both ÷ n fit each row, not with one ε."""
    from helpers.forensics.gallery import annotated_transformer

    x = helpers.load_residual()
    found = fingerprint_table(x, np.round(annotated_transformer(x), 3))
    assert {(e.axis, e.convention.unbiased) for e in found.explained_by} == {("rows", True)}
    assert len(found.explained_by) == 2 and all(e.eps_low == 0.0 for e in found.explained_by)
    biased = [e for e in found.explanations if e.axis == "rows" and not e.convention.unbiased]
    assert all(len(e.rows) == 5 and e.eps_low is None for e in biased)


def test_the_check_yourself_answer_comes_from_the_fingerprint():
    from helpers.forensics.gallery import annotated_transformer, mystery
    from helpers.forensics.table import mystery_question

    question = mystery_question(mystery)
    assert question["answer"] == "it adds no ε at all" and question["answer"] in question["options"]
    with pytest.raises(ValueError, match="exactly one"):
        mystery_question(annotated_transformer)  # departs in three ways


def test_code_written_for_three_features_only_is_probed_at_three():
    gamma = np.array([1.0, 1.0, 1.0])

    def three_only(x):
        d = x - x.mean(axis=-1, keepdims=True)
        return gamma * d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-5)

    found = fingerprint(three_only)
    assert found.problem is None and found.measured.features == 3 and found.matches_torch
    assert "broadcast" in fingerprint(three_only, features=4).problem  # asked for 4: the first problem is reported


def test_a_scalar_gamma_that_is_not_one_is_divided_out():
    from helpers.forensics.gallery import ScalarGammaLayerNorm

    module = ScalarGammaLayerNorm(eps=1e-3)
    module.gamma, module.beta = np.float64(2.5), np.float64(-1.0)
    found = fingerprint(module)
    assert_fingerprint(found, (True, "biased", "inside sqrt", 1e-3, "rows", False, False, "scalar"))
    assert any("divided out" in d for d in found.differences)


def test_the_typed_table_box_keeps_the_last_good_table():
    pytest.importorskip("ipywidgets")
    from ipywidgets import Textarea

    from helpers.widgets import live_table

    x = helpers.load_residual()
    box = Textarea(value="\n".join(", ".join(f"{v:.2f}" for v in row) for row in helpers.load_published_output()))
    table = live_table(
        lambda table: fingerprint_table(x, [helpers.parse_row(r) for r in table.splitlines()]), table=box
    )
    before = str(table.current)
    box.value = "1.0, two, 3.0"
    assert str(table.current) == before and "two" in table.text()
    box.value = "1, 2"
    assert "shape" in table.text() and str(table.current) == before


@pytest.mark.parametrize(
    "typed, words",
    [
        (
            "0,958, -1,038, 0,080\n1 2 3\n1 2 3\n1 2 3\n1 2 3",
            "Line 1 has 6 numbers where x has 3: “0,958” looks like a decimal comma",
        ),
        ("1 2 3\n1 2\n1 2 3\n1 2 3\n1 2 3", "Line 2 has 2 numbers; x has 3 in each row."),
        ("1 2 3\n\n1 a 3\n1 2 3\n1 2 3\n1 2 3", "Line 3: Value 2 'a' is not a number."),
        ("1 2 3\n1 2 3", "The table has 2 lines of numbers; x has 5 rows"),
    ],
    ids=["decimal comma", "short line", "not a number", "too few lines"],
)
def test_a_typed_table_that_cannot_be_read_names_its_line(typed, words):
    from helpers.forensics.table import read_table

    with pytest.raises(ValueError) as problem:
        read_table(typed, like=np.zeros((5, 3)))
    assert str(problem.value).startswith(words)


def test_a_typed_table_is_read_as_numbers():
    from helpers.forensics.table import read_table

    read = read_table("1, 2, 3\n[4 5 6]\n\n7;8;9", like=np.zeros((3, 3)))
    np.testing.assert_array_equal(read, np.arange(1.0, 10.0).reshape(3, 3))


def test_a_ragged_table_names_its_row():
    with pytest.raises(ValueError, match="Row 2 of y has 2 numbers and row 1 has 3"):
        fingerprint_table(np.zeros((2, 3)), [[1, 2, 3], [1, 2]])


def test_an_eps_range_from_0_names_no_eps_among_the_known_values():
    """The known ε values inside an explanation's range, its ends included: from 0, "no ε" is one of them."""
    from helpers.core.published_table import CONVENTIONS
    from helpers.forensics.table import Explanation

    found = Explanation("rows", CONVENTIONS[0], (1,), 0.0, 1e-5, 1)
    assert found.known_eps == (("BERT", 1e-12), ("Flax, LLaMA 1", 1e-6), ("PyTorch, GPT-2", 1e-5), ("no ε", 0.0))
