"""Fresh mutations, set 5 (issue 35): the 6 of 50 bugs planted by someone who had not read the tests that the
suite did not catch (44 of 50, 88 %, were caught before any new test), each closed by a behaviour test.

Same fields as tools/mutation/curated.py's ``Mutation``; ``AREAS`` adds the test files that catch them. The 50
bugs, what each breaks for a learner and which test caught it: tools/mutation/bugsets/set5.md, with each bug's
patch in tools/mutation/bugsets/set5/ (made against commit 639fbb2).
"""

from __future__ import annotations

AREAS: dict[str, list[str]] = {
    "set5-core": ["tests/core/test_published_check.py"],
    "set5-checking": ["tests/checking/test_far_from_zero.py", "tests/checking/test_answer_check.py"],
    "set5-views": [
        "tests/widgets/test_widgets.py",
        "tests/widgets/test_reveal.py",
        "tests/display/test_plots.py",
    ],
}

# (name, path, old, new, area, learner_visible): tuples, made into Mutation by tools/mutation/curated.py
MUTATIONS: list[tuple] = [
    (
        "set5: a row's distance from the zero-sum plane divided by n, not √n",
        "helpers/core/published_table.py",
        "return abs(self.row_sum) / math.sqrt(self.n)",
        "return abs(self.row_sum) / self.n",
        "set5-core",
        True,
    ),
    (
        "set5: float64 rows far from zero only at 100 σ, not 30 σ",
        "helpers/checking/cases.py",
        "(np.abs(x.mean(axis=-1)) >= FAR_FLOAT64 * spread)))",
        "(np.abs(x.mean(axis=-1)) >= FAR * spread)))",
        "set5-checking",
        True,
    ),
    (
        "set5: the std recipe adds ε after the root",
        "helpers/checking/answers.py",
        '"std": "Find the variance (divide by n), add ε, then take the square root.",',
        '"std": "Find the variance (divide by n), take the square root, then add ε.",',
        "set5-checking",
        True,
    ),
    (
        "set5: the answer box shows a right answer in the warning colour",
        "helpers/widgets/answer.py",
        'colour = "#005a87" if self.verdict.is_right else MESSAGE_COLOUR',
        'colour = "#005a87" if not self.verdict.is_right else MESSAGE_COLOUR',
        "set5-views",
        True,
    ),
    (
        "set5: the lecture's reveal counts its stages from 0",
        "helpers/widgets/reveal.py",
        'return f"{self._position + 1} of {len(self.stages)}"',
        'return f"{self._position} of {len(self.stages)}"',
        "set5-views",
        True,
    ),
    (
        "set5: the heatmaps' rows named from row 0",
        "helpers/plots/__init__.py",
        '[f"row {i + 1}" for i in range(values.shape[0])]',
        '[f"row {i}" for i in range(values.shape[0])]',
        "set5-views",
        True,
    ),
]
