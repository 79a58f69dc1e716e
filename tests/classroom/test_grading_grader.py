"""The grader (classroom/grading), without root: an answer cell judged alone in a fresh process.

Every expected grade is computed here from what was planted, not read from the grader: a right
function earns every point; a function made from one catalogue mistake (its formula from
``Mistake.value``, the catalogue's own maths) loses exactly that mistake's test and the hidden test;
two mistakes lose both tests and the hidden one. Tampering changes no grade and adds one sentence.
"""

from __future__ import annotations

import json

import pytest

from classroom.grading import grade, notebook, plan
from helpers.checking.mistakes import MISTAKES

pytestmark = pytest.mark.slow  # each judgement is a fresh Python process (~0.4 s)

RIGHT = {
    "mean": [
        "def mean(row):\n    return sum(row) / len(row)\n",
        "import numpy as np\ndef mean(row):\n    return float(np.mean(row))\n",
        "import math\ndef mean(row):\n    return math.fsum(row) / len(row)\n",
    ],
    "variance": [
        "import numpy as np\ndef variance(row):\n    return float(np.var(row))\n",
        "def variance(row):\n    m = sum(row) / len(row)\n    return sum((v - m) ** 2 for v in row) / len(row)\n",
        # the standard library's own helpers (statistics defines namedtuples: sys._getframe at import)
        "import statistics\ndef variance(row):\n    return statistics.pvariance([float(v) for v in row])\n",
    ],
    "std": ["import numpy as np\ndef std(row, eps):\n    return float(np.sqrt(np.var(row) + eps))\n"],
    "normalise": [
        "import numpy as np\ndef normalise(row, eps):\n    row = np.asarray(row)\n"
        "    return (row - row.mean()) / np.sqrt(row.var() + eps)\n"
    ],
    "scale_shift": ["def scale_shift(x_hat, gamma, beta):\n    return gamma * x_hat + beta\n"],
    "layer_norm": [
        "import numpy as np\ndef layer_norm(x, eps):\n    m = x.mean(axis=-1, keepdims=True)\n"
        "    return (x - m) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n"
    ],
}
SIGNATURE = {"mean": "row", "variance": "row", "std": "row, eps", "normalise": "row, eps"}
QUANTITY = {"mean": "mean", "variance": "variance", "std": "std", "normalise": "normalised"}


def mistaken(step: str, mistake) -> str:
    """An answer cell whose function computes ``mistake``'s formula (the catalogue's own maths)."""
    pick = f"[m for m in MISTAKES if m.key == {mistake.key!r} and m.name == {mistake.name!r}][0]"
    head = (
        f"import numpy as np\nfrom helpers.checking.mistakes import MISTAKES\n_m = {pick}\n"
        "def _ran(value):  # where the mistaken formula cannot run, the code it stands for raises\n"
        "    if value is None:\n        raise ValueError('operands could not be broadcast together')\n"
        "    return value\n"
    )
    if step in SIGNATURE:
        eps = "eps" if "eps" in SIGNATURE[step] else "1e-5"
        value = f"_ran(_m.value({QUANTITY[step]!r}, np.asarray(row, dtype=np.float64), {eps}))"
        body = (
            f"    return float(np.asarray({value}).reshape(()))\n" if step != "normalise" else f"    return {value}\n"
        )
        return head + f"def {step}({SIGNATURE[step]}):\n" + body
    if step == "scale_shift":
        return head + (
            "def scale_shift(x_hat, gamma, beta):\n    x_hat = np.asarray(x_hat, dtype=np.float64)\n"
            "    return _ran(_m.value('output', x_hat, gamma=np.asarray(gamma), beta=np.asarray(beta), x_hat=x_hat))\n"
        )
    return (
        head
        + "def layer_norm(x, eps):\n    return _ran(_m.value('normalised', np.asarray(x, dtype=np.float64), eps))\n"
    )


def planted(step: str) -> list:
    """Every catalogue variant of every mistake the step's tests name (the one-pass variance, right in
    exact arithmetic, has its own test below)."""
    keys = {key for key, _ in plan.mistakes_for(step)}

    def shows(q):
        if step == "scale_shift":  # given x̂: what goes wrong after it
            return q == ("output",)
        if step == "layer_norm":
            return "normalised" in q or "matrix" in q
        return QUANTITY[step] in q

    return [m for m in MISTAKES if m.key in keys and not m.signature and shows(m.quantities)]


def expected_points(step: str, wrong_keys: set[str], hidden_passes: bool) -> int:
    """The grade a function earns that makes exactly ``wrong_keys``: computed from the plan's tests."""
    return sum(
        t.points
        for t in plan.tests_for(step)
        if (t.hidden and hidden_passes) or (not t.hidden and t.key not in wrong_keys)
    )


ROW_AND_MATRIX = [step for step in plan.STEPS if step not in plan.MODULE_STEPS]  # the module: test_grading_module


@pytest.mark.parametrize("step", ROW_AND_MATRIX)
def test_right_functions_earn_every_point(step):
    for code in RIGHT[step]:
        result = grade.grade_code(step, code)
        assert result.problem == "" and result.ignored == []
        assert result.score == result.max_score == plan.total_points(step), grade.feedback_text(result)


@pytest.mark.parametrize("step", ROW_AND_MATRIX)
def test_each_catalogued_mistake_loses_its_test_and_the_hidden_one(step):
    seen = set()
    for mistake in planted(step):
        result = grade.grade_code(step, mistaken(step, mistake))
        assert result.score == expected_points(step, {mistake.key}, False), (mistake.name, grade.feedback_text(result))
        failed = [o for o in result.outcomes if not o.passed and not o.test.hidden]
        assert [o.test.key for o in failed] == [mistake.key]
        assert failed[0].sentence.startswith("Looks like a known mistake:")
        seen.add(mistake.key)
    # every named test of the step can fail: none is a test that cannot
    assert seen | ({"one-pass"} & {k for k, _ in plan.mistakes_for(step)}) == {k for k, _ in plan.mistakes_for(step)}


def test_the_one_pass_variance_loses_its_test():
    code = (
        "import numpy as np\ndef variance(row):\n    row = np.asarray(row)\n"
        "    return float((row * row).mean() - row.mean() ** 2)\n"
    )
    result = grade.grade_code("variance", code)
    assert result.score == expected_points("variance", {"one-pass"}, False), grade.feedback_text(result)


def test_two_mistakes_lose_both_tests_with_the_checkers_sentence():
    code = (
        "import numpy as np\ndef std(row, eps):\n    row = np.asarray(row)\n"
        "    return float(np.sqrt(((row - row.mean()) ** 2).sum() / (len(row) - 1)))\n"
    )
    result = grade.grade_code("std", code)
    assert result.score == expected_points("std", {"n-1", "no-eps"}, False)
    failed = {o.test.key: o.sentence for o in result.outcomes if not o.passed}
    assert set(failed) == {"n-1", "no-eps", None}
    assert len(set(failed.values())) == 1  # exactly the checker's one sentence, naming both
    assert "n − 1" in failed["n-1"] and "ε" in failed["n-1"]


@pytest.mark.parametrize(
    "code, why",
    [
        ("def mean(row):\n    raise NotImplementedError\n", "Not written"),
        ("def mean(row):\n    return 0.0\n", "differs"),
        ("def mean(row):\n    return 1 / 0\n", "ZeroDivisionError"),
        ("def mean(row):\n    while True:\n        pass\n", "did not finish"),
        ("x = 1\n", "does not define mean"),
        ("def mean(row:\n    return 1\n", "syntax error"),
    ],
)
def test_what_earns_nothing_gets_nothing_and_says_why(code, why):
    result = grade.grade_code("mean", code)
    assert result.score == 0, grade.feedback_text(result)
    assert all(why in o.sentence for o in result.outcomes)


def test_a_harmless_warning_or_print_costs_nothing():
    code = (
        "import warnings, sys\ndef mean(row):\n    warnings.warn('careful')\n    print('debug', file=sys.stderr)\n"
        "    return sum(row) / len(row)\nprint(mean([1.0, 2.0]))\n"
    )
    result = grade.grade_code("mean", code)
    assert result.score == result.max_score and result.ignored == []


# ---------------------------------------------------------------------------------------------
# Tampering: the grade its function earns, and one sentence saying what was ignored

TAMPERING = {
    "redefines the checker": "import helpers.exercises\nhelpers.exercises.check = lambda step, fn: True\n",
    "patches the checker's module": (
        "import helpers.checking.exercises as e\ne.close = lambda *a, **k: True\n"
        "vars(e)['match_mistake'] = lambda *a: None\n"
    ),
    "patches numpy": "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.isclose = lambda *a, **k: True\n",
    "patches builtins": "import builtins\nbuiltins.abs = lambda x: 0\n",
    "reads the solutions": (
        "try:\n    from lecturer.solutions import mean as _m\nexcept Exception:\n    pass\n"
        "try:\n    open(__import__('classroom.grading.judge').grading.judge.SOLUTIONS / 'solutions.py').read()\n"
        "except Exception:\n    pass\n"
    ),
    "reads the solutions by path": "open('{solutions}').read()\n",
    "writes a file": "open('grades.csv', 'w').write('me,100')\n",
    "writes into the exchange": "import os\nos.makedirs('/tmp/exchange-of-the-class', exist_ok=True)\n",
    "starts a process": "import subprocess\nsubprocess.run(['true'])\n",
    "forges a verdict": "import os\nos.write(1, b'\\x1egrading-verdict\\x1e{{\"passed\": true}}\\n')\n",
    "never returns at the top": "while True:\n    pass\n",
    "steals the seal": (
        "import sys, os\ntry:\n    f = sys._getframe(0)\n    while 'seal' not in f.f_locals:\n"
        "        f = f.f_back\n    seal = f.f_locals['seal']\n"
        '    os.write(1, (\'\\x1egrading-verdict\\x1e\' + seal + \'{{"passed": true, "defined": true, '
        '"cell_failed": [], "refused": [], "patched": [], "mistake": null, "diagnosis": "", '
        '"text": ""}}\\n\').encode())\n'
        "    os._exit(0)\nexcept Exception:\n    pass\n"
        "try:\n    sys._current_frames()\nexcept PermissionError:\n    pass\n"
    ),
    "uses ctypes": "import ctypes\ntry:\n    ctypes.string_at(id(1), 8)\nexcept PermissionError:\n    pass\n",
}
FUNCTIONS = {
    "right": ("def mean(row):\n    return sum(row) / len(row)\n", set(), True),
    "n-1": ("def mean(row):\n    return sum(row) / (len(row) - 1)\n", {"n-1"}, False),
    "nothing": ("def mean(row):\n    return 0.0\n", None, False),
}


@pytest.mark.parametrize("function", list(FUNCTIONS))
@pytest.mark.parametrize("tampering", list(TAMPERING))
def test_tampering_changes_no_grade_and_is_named_once(tampering, function):
    from classroom.grading.judge import SOLUTIONS

    code, wrong, passes = FUNCTIONS[function]
    trick = TAMPERING[tampering].format(solutions=SOLUTIONS / "solutions.py")
    result = grade.grade_code("mean", code + trick, timeout=20)
    earned = 0 if wrong is None else expected_points("mean", wrong, passes)
    assert result.score == earned, (tampering, grade.feedback_text(result))
    if tampering != "forges a verdict":  # a forged line is simply not the sealed verdict: nothing to say
        assert len(result.ignored) == 1, result.ignored
        assert result.ignored[0].endswith("."), result.ignored


def test_the_solutions_cannot_be_listed_or_imported():
    code = (
        "import os\nfound = []\ntry:\n    found += os.listdir('{lecturer}')\nexcept Exception:\n    pass\n"
        "def mean(row):\n    assert not found\n    return sum(row) / len(row)\n"
    )
    from classroom.grading.judge import SOLUTIONS

    result = grade.grade_code("mean", code.format(lecturer=SOLUTIONS))
    assert result.score == result.max_score and "read the solutions" in result.ignored[0]


# ---------------------------------------------------------------------------------------------
# A submitted notebook: the answer cell by grade_id, the test cells as released


def _notebook(cells):
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _cell(grade_id, source, points=None, kind="code"):
    meta = {"grade_id": grade_id, "solution": points is None, "grade": points is not None, "locked": points is not None}
    if points is not None:
        meta["points"] = points
    return {"cell_type": kind, "metadata": {"nbgrader": {**meta, "schema_version": 3}}, "source": source, "outputs": []}


def _released(step="mean"):
    tests = [_cell(t.grade_id, f"# test {t.key}\n", t.points) for t in plan.tests_for(step)]
    return _notebook([_cell(plan.answer_id(step), "def mean(row):\n    raise NotImplementedError\n"), *tests])


def _write(tmp_path, notebook_json, name="mean.ipynb"):
    path = tmp_path / name
    path.write_text(notebook_json if isinstance(notebook_json, str) else json.dumps(notebook_json))
    return path


def test_the_answer_is_found_by_its_id_not_its_position(tmp_path):
    released = _released()
    submitted = json.loads(json.dumps(released))
    submitted["cells"][0]["source"] = "def mean(row):\n    return sum(row) / len(row)\n"
    submitted["cells"].reverse()  # moved: found by grade_id all the same
    submitted["cells"].insert(0, {"cell_type": "code", "metadata": {}, "source": "def mean(row):\n    return 0\n"})
    result = grade.grade_notebook(_write(tmp_path, submitted), "mean", released)
    assert result.score == result.max_score
    assert result.ignored == [
        "Your notebook moved cells: the grade uses the tests as released, found by their ids, so that was ignored."
    ]


def test_an_edited_test_cell_or_its_points_is_ignored(tmp_path):
    released = _released()
    submitted = json.loads(json.dumps(released))
    submitted["cells"][0]["source"] = "def mean(row):\n    return sum(row) / (len(row) - 1)\n"
    submitted["cells"][1]["source"] = "pass\n"  # the n-1 test, emptied
    submitted["cells"][-1]["metadata"]["nbgrader"]["points"] = 100  # the hidden test, worth more
    result = grade.grade_notebook(_write(tmp_path, submitted), "mean", released)
    assert result.score == expected_points("mean", {"n-1"}, False)
    assert len(result.ignored) == 1 and "edited test cells test_mean_n-1, test_mean_hidden" in result.ignored[0]


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "is not a readable notebook"),
        ("", "is empty"),
        ('{"cells": 3}', "is not a notebook"),
        (None, "No notebook was submitted"),
    ],
)
def test_a_bad_notebook_gets_one_sentence_and_nothing(tmp_path, content, words):
    path = tmp_path / "mean.ipynb" if content is None else _write(tmp_path, content)
    result = grade.grade_notebook(path, "mean", _released())
    assert result.score == 0 and words in result.problem and result.problem.count(". ") == 0


def test_a_deleted_answer_cell_gets_one_sentence(tmp_path):
    released = _released()
    submitted = json.loads(json.dumps(released))
    del submitted["cells"][0]
    result = grade.grade_notebook(_write(tmp_path, submitted), "mean", released)
    assert result.score == 0 and "no answer cell answer_mean" in result.problem
    assert notebook.by_id(submitted).get("answer_mean") is None
