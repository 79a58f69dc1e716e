"""helpers.forensics.table.fingerprint_table: which LayerNorm prints a table, as notebook 13 shows it.

The evidence table the learner reads (its title, rows in order, ε ranges and notes), the places read
from the digits or given, and the one sentence a table that cannot be compared gets.
"""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from helpers.forensics.table import fingerprint_table, printed_places

torch = pytest.importorskip("torch")


def pytorch_table(places: int) -> tuple[np.ndarray, np.ndarray]:
    x = helpers.load_residual()
    return x, np.round(torch.nn.functional.layer_norm(torch.from_numpy(x), (3,), eps=1e-5).numpy(), places)


def test_a_pytorch_table_at_4_places_shows_the_full_evidence_best_first():
    """Rows explaining every line with one ε first; the ε range is the one 4 places allow, not 2."""
    found = fingerprint_table(*pytorch_table(4))
    assert str(found).splitlines() == [
        "Which LayerNorm prints this table? (4 places; γ = 1, β = 0)",
        "  statistics over  convention                 lines explained  which          common ε          well-known ε in range",
        "  rows             ÷ n, ε inside √ (PyTorch)  5 of 5           1, 2, 3, 4, 5  9.9e-06 to 1e-05  PyTorch, GPT-2 (1e-05)",
        "  rows             ÷ n, ε outside √           5 of 5           1, 2, 3, 4, 5  no common ε       —",
        "  rows             ÷ (n − 1), ε inside √      0 of 5           none           no common ε       —",
        "  rows             ÷ (n − 1), ε outside √     0 of 5           none           no common ε       —",
        "  columns          ÷ n, ε inside √ (PyTorch)  0 of 3           none           no common ε       —",
        "  columns          ÷ (n − 1), ε inside √      0 of 3           none           no common ε       —",
        "  columns          ÷ n, ε outside √           0 of 3           none           no common ε       —",
        "  columns          ÷ (n − 1), ε outside √     0 of 3           none           no common ε       —",
        "  ✓ Explained to 4 places, with one ε for every line, by: biased variance (÷ n), eps inside the root "
        "(PyTorch), statistics over the rows.",
    ]


def test_the_places_given_are_kept_when_the_digits_read_fewer():
    """-1.000 and 1.000 printed to 3 places read as 0 places from their digits; places=3 is what is checked."""
    x, y = [[-1.0, 1.0], [2.0, 4.0]], [[-1.0, 1.0], [-1.0, 1.0]]
    assert fingerprint_table(x, y).places == 0
    found = fingerprint_table(x, y, places=3)
    assert found.places == 3
    assert str(found).splitlines()[:4] == [
        "Which LayerNorm prints this table? (3 places; γ = 1, β = 0)",
        "  statistics over  convention                 lines explained  which  common ε     well-known ε in range",
        "  rows             ÷ n, ε inside √ (PyTorch)  2 of 2           1, 2   0 to 0.001   BERT (1e-12), "
        "Flax, LLaMA 1 (1e-06), PyTorch, GPT-2 (1e-05), Keras (0.001), no ε (0)",
        "  rows             ÷ n, ε outside √           2 of 2           1, 2   0 to 0.0005  BERT (1e-12), "
        "Flax, LLaMA 1 (1e-06), PyTorch, GPT-2 (1e-05), no ε (0)",
    ]


@pytest.mark.parametrize(
    "x, y, sentence",
    [
        (
            [[1.0, 2.0, 3.0], [4.0, 5.0]],
            np.zeros((2, 3)),
            "Row 2 of x has 2 numbers and row 1 has 3; every row needs the same.",
        ),
        (
            np.zeros((2, 3)),
            [[1.0, 2.0, 3.0], [4.0, 5.0]],
            "Row 2 of y has 2 numbers and row 1 has 3; every row needs the same.",
        ),
        (
            [[1.0, "two", 3.0], [4.0, 5.0]],
            np.zeros((2, 3)),
            "x must be a table of numbers: one of its rows holds something else.",
        ),
        (
            [[1.0, 2.0], [3.0, 5.0]],
            [[[0.0, 1.0]], [0.0, 1.0]],  # one row nested one level deeper
            "y must be a table of numbers.",
        ),
        (
            [1.0, 2.0, 3.0],
            [-1.22, 0.0, 1.22],
            "x has shape (3,), not rows and columns: give it as a table, one row written [[…]] with two brackets.",
        ),
        (
            [[1.0, 2.0, 3.0]],
            [-1.22, 0.0, 1.22],
            "y has shape (3,), not rows and columns: give it as a table, one row written [[…]] with two brackets.",
        ),
        (
            np.ones((2, 2, 3)),
            np.ones((2, 2, 3)),
            "x has shape (2, 2, 3), not rows and columns: give it as a table of two dimensions.",
        ),
        (
            np.ones((2, 3)),
            np.ones((3, 2)),
            "x has shape (2, 3) and y has shape (3, 2); they need the same rows and columns.",
        ),
        (
            [[1.0]],
            [[0.0]],
            "Each row and each column has a single value; LayerNorm needs at least 2.",
        ),
    ],
    ids=[
        "ragged x",
        "ragged y",
        "a word in x",
        "a nested row in y",
        "one flat row",
        "a flat y",
        "a batch",
        "transposed",
        "one value",
    ],
)
def test_a_table_that_cannot_be_compared_gets_one_sentence(x, y, sentence):
    with pytest.raises(ValueError) as problem:
        fingerprint_table(x, y)
    assert str(problem.value) == sentence


@pytest.mark.parametrize(
    "values, most, places",
    [
        ([[0.25, -1.5]], 12, 2),
        ([[0.25]], 3, 2),  # one short of the most
        ([[0.125]], 3, 3),  # the most itself
        ([[0.125]], 2, 2),  # needs more than the most: the most
        ([[3.0, -2.0]], 12, 0),
        ([[1.2345678901, -0.5]], 12, 10),  # 10¹⁰ × 1.2345678901 is 1.9e-6 off a whole number in float64
        ([[1.23456789012]], 12, 11),
    ],
)
def test_printed_places_are_the_fewest_that_write_every_value_up_to_the_most(values, most, places):
    assert printed_places(values, most=most) == places


def test_a_typed_line_with_a_decimal_comma_is_quoted_and_rewritten_with_a_point():
    from helpers.forensics.table import read_table

    with pytest.raises(ValueError) as problem:
        read_table("0.958, -1,038, 0.080", like=np.zeros((1, 3)))
    assert str(problem.value) == (
        "Line 1 has 4 numbers where x has 3: “-1,038” looks like a decimal comma. "
        "Write decimals with a point (-1.038), and separate the numbers with a comma and a space."
    )


def test_a_float32_table_is_read_to_the_places_it_was_printed_with():
    """np.round of PyTorch's float32 output stays float32 (1.173 is 1.17299998...): still 3 places, PyTorch's."""
    x = helpers.load_residual()
    y = np.round(torch.nn.functional.layer_norm(torch.from_numpy(x).float(), (3,), eps=1e-5).numpy(), 3)
    assert y.dtype == np.float32 and printed_places(y) == 3
    assert printed_places(np.float16([[0.123, -1.5]])) == 3
    lines = str(fingerprint_table(x, y)).splitlines()
    assert lines[0] == "Which LayerNorm prints this table? (3 places; γ = 1, β = 0)"
    assert lines[2] == (
        "  rows             ÷ n, ε inside √ (PyTorch)  5 of 5           1, 2, 3, 4, 5  9.5e-06 to 1.4e-05  "
        "PyTorch, GPT-2 (1e-05)"
    )
    assert lines[-1].startswith("  ✓ Explained to 3 places, with one ε for every line, by: biased variance (÷ n)")


@pytest.mark.parametrize(
    "line, sentence",
    [
        (
            "12,5 3,25 1",
            "Line 1 has 5 numbers where x has 3: “12,5” looks like a decimal comma. "
            "Write decimals with a point (12.5), and separate the numbers with a comma and a space.",
        ),
        (
            "1.5, 0,958, 2.0",
            "Line 1 has 4 numbers where x has 3: “0,958” looks like a decimal comma. "
            "Write decimals with a point (0.958), and separate the numbers with a comma and a space.",
        ),
        (
            "0,95831 1 2",
            "Line 1 has 4 numbers where x has 3: “0,95831” looks like a decimal comma. "
            "Write decimals with a point (0.95831), and separate the numbers with a comma and a space.",
        ),
        ("1.5,2.5,3.5,4.5", "Line 1 has 4 numbers; x has 3 in each row."),
    ],
    ids=["two digits before", "after a number with a point", "five decimals", "points, no spaces"],
)
def test_a_decimal_comma_is_quoted_as_the_whole_number_typed(line, sentence):
    from helpers.forensics.table import read_table

    with pytest.raises(ValueError) as problem:
        read_table(line, like=np.zeros((1, 3)))
    assert str(problem.value) == sentence
