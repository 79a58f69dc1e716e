"""Fresh mutations (issue 24: bugs nobody planted before) in the checking area, each closed by a behaviour test.

Same fields as tools/mutation/curated.py's ``Mutation``; ``AREAS`` adds the test files that catch them.
The behaviour tests are in tests/checking/test_tolerance_edges.py (a mistake named within its tolerance
and not outside it, single mistakes before two at once, the float64 tolerance as a near miss of
1 + 3e-6, a forgotten ε's own words, NaN in part of a result), tests/core/test_csv_import.py (the CSV
files people save) and tests/core/test_cli_output_matrix.py (the command line's γ and β).
"""

from __future__ import annotations

# Only tests that run in tools/mutation/run.py's copy of the repository, which leaves out lecturer/ and
# classroom/: there tests/checking/test_verdicts.py and tests/checking/test_exercises.py fail before any mutation (they
# import lecturer.solutions and classroom.service), so every mutation would be "caught" by them.
AREAS: dict[str, list[str]] = {
    "checking-behaviour": [
        "tests/checking/test_tolerance_edges.py",
        "tests/core/test_csv_import.py",
        "tests/core/test_cli_output_matrix.py",
        "tests/core/test_data.py",
        "tests/core/test_cli.py",
        "tests/checking/test_answer_check.py",
    ],
}

D, AC, EX = "helpers/core/data.py", "helpers/checking/answers.py", "helpers/checking/exercises.py"
RS = "helpers/checking/results.py"  # what exercises.py and module_check.py share: the mistake matching
EC, MI, CLI, V = (
    "helpers/checking/cases.py",
    "helpers/checking/mistakes/__init__.py",
    "helpers/cli.py",
    "helpers/core/validation.py",
)
B = "checking-behaviour"

# (name, path, old, new, area, learner_visible): tuples, made into Mutation by tools/mutation/curated.py
MUTATIONS: list[tuple] = [
    # the audit's survivors
    ("checking: CSV delimiter guess tries a comma first", D, '(";", "\\t", ",")', '(",", ";", "\\t")', B, True),
    (
        "checking: answer box names a mistake ten units away",
        AC,
        "if abs(value - candidate) <= unit + slack and",
        "if abs(value - candidate) <= 10 * unit + slack and",
        B,
        True,
    ),
    (
        "checking: code checker names a mistake at 10x the tolerance",
        RS,
        "or not close(value, theirs, case)",
        "or not np.allclose(value, theirs, rtol=10 * case.tolerance[0], atol=10 * case.tolerance[1], equal_nan=True)",
        B,
        True,
    ),
    (
        "checking: float64 exercise tolerance 100x looser",
        "helpers/core/tolerance.py",
        'ROOM = {"float32": (1e-4, 1e-6), "float64": (2.0**-43, 2.0**-49)}',
        'ROOM = {"float32": (1e-4, 1e-6), "float64": (2.0**-36, 2.0**-42)}',
        B,
        True,
    ),
    (
        "checking: the eps-outside sentence for a forgotten eps",
        MI,
        '{"eps_at": "none"}, eps_steps, no_eps)',
        '{"eps_at": "none"}, eps_steps, eps_outside)',
        B,
        True,
    ),
    (
        "checking: CLI output matrix ignores gamma and beta",
        CLI,
        "layer_norm(matrix, gamma=gamma, beta=beta, eps=eps)",
        "layer_norm(matrix, eps=eps)",
        B,
        True,
    ),
    # more fresh ones
    (
        "checking: decimal commas looked for below the first line only",
        D,
        'any("," in line for _, line in lines)',
        'any("," in line for _, line in lines[1:])',
        B,
        True,
    ),
    ("checking: only a short row is ragged", D, "if len(cells) != width:", "if len(cells) < width:", B, True),
    (
        "checking: a first line with one label is a header",
        D,
        "return all(is_name(cell) for cell in cells)",
        "return any(is_name(cell) for cell in cells)",
        B,
        True,
    ),
    (
        "checking: compounds tried before single mistakes",
        MI,
        "return singles(quantity, matrix) + compounds(quantity, matrix)",
        "return compounds(quantity, matrix) + singles(quantity, matrix)",
        B,
        True,
    ),
    (
        "checking: answer box names the nearest, compound or not",
        AC,
        '(not _same_at(value, candidate, places), "+" in mistake, abs(value - candidate), order, mistake, hint)',
        '(not _same_at(value, candidate, places), abs(value - candidate), "+" in mistake, order, mistake, hint)',
        B,
        True,
    ),
    (
        "checking: answer box names the last mistake with the same digits",
        AC,
        "mistake, hint = digits[0]",
        "mistake, hint = digits[-1]",
        B,
        True,
    ),
    (
        "checking: NaN sentence only when every value is NaN",
        EX,
        "if np.any(np.isnan(value)):",
        "if np.all(np.isnan(value)):",
        B,
        True,
    ),
    (
        "checking: typed places count the exponent the wrong way",
        AC,
        "return max(0, len(fraction) - exponent)",
        "return max(0, len(fraction) + exponent)",
        B,
        True,
    ),
    ("checking: eps of 0 refused", V, "or eps < 0:", "or eps <= 0:", B, True),
]
