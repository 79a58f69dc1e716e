"""Notebook 08's assignment, graded: a torch ``nn.Module`` class judged alone in a fresh process.

Expected grades are computed here from what was planted. A right module earns every point. A module
whose forward computes one catalogue mistake (the catalogue's own maths, ``Mistake.value``) loses that
mistake's test and the hidden one, and the tests its check never reached. A module with one of a
module's own mistakes loses that test and every test the check could not reach after it: a ✓ is given
only for what was judged (``plan.judged``). Calling PyTorch's own layer norm earns nothing, and
patching torch is undone.
"""

from __future__ import annotations

import pytest

from classroom.grading import grade, plan
from helpers.checking.mistakes import KEYS, MISTAKES

pytest.importorskip("torch")
# each judgement is a fresh Python with torch (~1.5 s): about a minute in all
pytestmark = pytest.mark.slow

STEP = "module"
HEAD = "import torch\nfrom torch import nn\n"


def module(forward: str, init: str = "", head: str = "", signature: str = "n_features, eps=1e-5") -> str:
    """An answer cell: a MyLayerNorm with γ = 1 and β = 0 (or ``init``) and the given forward body."""
    init = init or (
        "        self.eps = eps\n        self.gamma = nn.Parameter(torch.ones(n_features))\n"
        "        self.beta = nn.Parameter(torch.zeros(n_features))\n"
    )
    return (
        HEAD
        + head
        + "\nclass MyLayerNorm(nn.Module):\n"
        + f"    def __init__(self, {signature}):\n        super().__init__()\n{init}\n"
        + "    def forward(self, x):\n"
        + "".join(f"        {line}\n" for line in forward.strip("\n").split("\n"))
    )


NORMALISED = "(x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)"
RIGHT = [
    module(f"return self.gamma * {NORMALISED} + self.beta"),
    module(
        "var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)\n"
        "return (x - mean) * torch.rsqrt(var + self.eps) * self.gamma + self.beta"
    ),
    module(
        "centred = x - x.mean(dim=-1, keepdim=True)\n"
        "return self.gamma * centred / (centred.pow(2).mean(dim=-1, keepdim=True) + self.eps).sqrt() + self.beta"
    ),
]


def mistaken(mistake) -> str:
    """A module whose forward computes ``mistake``'s formula on the batch (float64, then back)."""
    pick = f"[m for m in MISTAKES if m.key == {mistake.key!r} and m.name == {mistake.name!r}][0]"
    head = f"import numpy as np\nfrom helpers.checking.mistakes import MISTAKES\n_m = {pick}\n"
    return module(
        "value = _m.value('normalised', x.detach().double().numpy(), self.eps)\n"
        "if value is None:  # where the mistaken formula cannot run, the code it stands for raises\n"
        "    raise ValueError('operands could not be broadcast together')\n"
        "return self.gamma * torch.as_tensor(np.asarray(value), dtype=x.dtype) + self.beta",
        head=head,
    )


def planted() -> list:
    """One variant of each formula mistake the module's tests name (the first of each key)."""
    keys = {key for key, _ in plan.mistakes_for(STEP)}
    found = {}
    for m in MISTAKES:
        shows = "normalised" in m.quantities or "matrix" in m.quantities
        if m.key in keys and not m.signature and shows and m.key not in plan.MODULE_LAST:
            found.setdefault(m.key, m)
    return list(found.values())


# A module's own mistakes: the key the check names, and a module that makes only that mistake.
OWN = {
    "no-super-init": HEAD
    + "class MyLayerNorm(nn.Module):\n    def __init__(self, n_features, eps=1e-5):\n        self.eps = eps\n"
    + "        self.gamma = nn.Parameter(torch.ones(n_features))\n"
    + "        self.beta = nn.Parameter(torch.zeros(n_features))\n"
    + f"    def forward(self, x):\n        return self.gamma * {NORMALISED} + self.beta\n",
    "no-parameters": module(
        f"return self.gamma * {NORMALISED} + self.beta",
        init="        self.eps = eps\n        self.gamma = torch.ones(n_features)\n"
        "        self.beta = nn.Parameter(torch.zeros(n_features))\n",
    ),
    "parameter-shape": module(
        f"return self.gamma[:x.shape[-1]] * {NORMALISED} + self.beta",
        init="        self.eps = eps\n        self.gamma = nn.Parameter(torch.ones(n_features + 1))\n"
        "        self.beta = nn.Parameter(torch.zeros(n_features))\n",
    ),
    "scalar-gamma": module(
        f"return self.gamma * {NORMALISED} + self.beta",
        init="        self.eps = eps\n        self.gamma = nn.Parameter(torch.tensor(1.0))\n"
        "        self.beta = nn.Parameter(torch.tensor(0.0))\n",
    ),
    "hard-coded-width": module(
        f"return self.gamma * {NORMALISED} + self.beta",
        init="        self.eps = eps\n        self.gamma = nn.Parameter(torch.ones(3))\n"
        "        self.beta = nn.Parameter(torch.zeros(3))\n",
    ),
    "mutates-input": module(f"y = self.gamma * {NORMALISED} + self.beta\nx.zero_()\nreturn y"),
    "torch-layer-norm": module("return nn.functional.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)"),
    "initial-values": module(
        f"return self.gamma * {NORMALISED} + self.beta - 1",
        init="        self.eps = eps\n        self.gamma = nn.Parameter(torch.ones(n_features))\n"
        "        self.beta = nn.Parameter(torch.ones(n_features))\n",
    ),
    "gamma-beta": module(f"return {NORMALISED} + 0 * self.gamma.sum() + 0 * self.beta.sum()"),
    "not-differentiable": module(f"return (self.gamma * {NORMALISED} + self.beta).detach()"),
    "no-eps-argument": module(
        "return self.gamma * (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False)"
        " + 1e-5) + self.beta",
        init="        self.gamma = nn.Parameter(torch.ones(n_features))\n"
        "        self.beta = nn.Parameter(torch.zeros(n_features))\n",
        signature="n_features",
    ),
    "eps-ignored": module(
        "return self.gamma * (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False)"
        " + 1e-5) + self.beta"
    ),
    "gamma-beta-swapped": module(f"return self.beta * {NORMALISED} + self.gamma"),
}


def expected_points(named: set[str] | None, hidden_passes: bool) -> int:
    """The grade of a module the check names ``named`` for (None: wrong, unnamed): computed from the plan."""
    total = 0
    for test in plan.tests_for(STEP):
        if test.hidden:
            total += test.points if hidden_passes else 0
        elif named is not None and test.key not in named and plan.judged(STEP, named, test.key):
            total += test.points
    return total


def test_the_plan_tests_every_mistake_a_module_can_be_named_for():
    assert set(OWN) <= {key for key, _ in plan.mistakes_for(STEP)}
    assert {key for key, _ in plan.mistakes_for(STEP)} <= set(OWN) | {m.key for m in planted()} | {"one-pass"}


@pytest.mark.parametrize("number", range(len(RIGHT)))
def test_right_modules_earn_every_point(number):
    result = grade.grade_code(STEP, RIGHT[number])
    assert result.problem == "" and result.ignored == []
    assert result.score == result.max_score == plan.total_points(STEP), grade.feedback_text(result)


@pytest.mark.parametrize("key", list(OWN))
def test_a_modules_own_mistake_loses_its_test_and_what_comes_after_it(key):
    result = grade.grade_code(STEP, OWN[key])
    failed = {o.test.key for o in result.outcomes if not o.passed and not o.test.hidden}
    assert key in failed, grade.feedback_text(result)
    assert result.score == expected_points({key}, False), grade.feedback_text(result)
    mine = next(o for o in result.outcomes if o.test.key == key)
    assert not mine.sentence.startswith("Not judged"), mine.sentence  # the checker's own sentence
    if key in plan.MODULE_LAST:  # everything before ε was checked, and right
        assert failed == {key}


@pytest.mark.parametrize("mistake", planted(), ids=lambda m: m.key)
def test_a_formula_mistake_in_forward_loses_its_test_and_the_hidden_one(mistake):
    result = grade.grade_code(STEP, mistaken(mistake))
    named = {
        o.test.key for o in result.outcomes if not o.passed and not o.test.hidden and o.sentence.startswith("Looks")
    }
    assert mistake.key in named or named == set(), grade.feedback_text(result)
    assert result.score == expected_points(named or None, False), grade.feedback_text(result)
    assert result.score < plan.total_points(STEP) - 2  # the hidden test and at least one more


def test_patching_torch_is_undone_and_named():
    trick = (
        "import torch.nn.functional as F\n_ln = F.layer_norm\n"
        "F.layer_norm = lambda x, shape, w=None, b=None, eps=1e-5: _ln(x, shape, w, b, eps) + 1\n"
        "torch.Tensor.var = lambda self, *a, **k: torch.zeros_like(self)\n"
    )
    result = grade.grade_code(STEP, RIGHT[0] + trick)
    assert result.score == result.max_score, grade.feedback_text(result)
    assert len(result.ignored) == 1 and "patched torch" in result.ignored[0], result.ignored


def test_a_module_that_patches_torch_while_judged_earns_nothing_and_says_so():
    code = module(f"torch.sqrt = lambda v: v\nreturn self.gamma * {NORMALISED} + self.beta")
    result = grade.grade_code(STEP, code)
    assert result.score == 0
    assert "while it was being judged (torch.sqrt)" in result.problem, result.problem


def test_pytorchs_own_layer_norm_earns_nothing():
    result = grade.grade_code(STEP, HEAD + "MyLayerNorm = nn.LayerNorm\n")
    assert result.score == 0 and "PyTorch's own layer norm" in result.outcomes[-1].sentence


# What plan.judged relies on, checked on the checker itself (in this process: no grade, only the verdict)


def _defined(code: str):
    space: dict = {}
    exec(compile(code, "<answer cell>", "exec"), space)  # noqa: S102 — the test's own answer cells
    return space["MyLayerNorm"]


@pytest.mark.parametrize("mistake", [m for m in planted() if m.key not in plan.MODULE_EARLY], ids=lambda m: m.key)
def test_each_formula_mistake_of_a_module_shows_at_the_first_width(mistake):
    from helpers.checking.exercises import check

    verdict = check(STEP, _defined(mistaken(mistake)))
    assert not verdict.passed
    if verdict.mistake in KEYS:  # a formula mistake named: where the check stopped is the first width, (2, 4, 3)
        assert "(2, 4, 3)" in verdict.case, (mistake.key, verdict.case)


@pytest.mark.parametrize("key", ["mutates-input", "torch-layer-norm", "no-super-init"])
def test_a_modules_own_mistake_at_a_later_width_is_named_before_any_formula_mistake(key):
    """Every width is built and run before any output is compared: a module's own mistake that shows only
    at 5 features is named even when its formula is wrong at 3 (so a formula verdict judged them all)."""
    from helpers.checking.exercises import check

    wrong = NORMALISED.replace(", unbiased=False", "")  # n − 1 at every width
    forward = {
        "mutates-input": f"y = self.gamma * {wrong} + self.beta\nif x.shape[-1] == 5:\n    x.zero_()\nreturn y",
        "torch-layer-norm": "if x.shape[-1] == 5:\n    return nn.functional.layer_norm(x, x.shape[-1:])\n"
        f"return self.gamma * {wrong} + self.beta",
        "no-super-init": f"return self.gamma * {wrong} + self.beta",
    }[key]
    code = module(forward)
    if key == "no-super-init":  # at 5 features only
        code = code.replace(
            "        super().__init__()\n", "        if n_features != 5:\n            super().__init__()\n"
        )
    verdict = check(STEP, _defined(code))
    assert verdict.mistake == key, verdict


def test_a_grader_without_torch_says_it_judged_nothing(tmp_path):
    """Judged with a Python whose torch cannot be imported: no grade is blamed on the student's code."""
    import sys

    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no torch in this environment')\n")
    wrapper = tmp_path / "python"
    # the judge starts `python -I …`; this Python drops the -I, so that the broken torch above comes first
    wrapper.write_text(f'#!/bin/sh\nshift\nPYTHONPATH={tmp_path} exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    result = grade.grade_code(STEP, RIGHT[0], python=str(wrapper))
    assert result.score == 0
    assert result.problem.startswith("The grader could not run its checks here, so nothing was judged"), result.problem
    assert "no torch in this environment" in result.problem


# The judged rule, from the spec (written out here, not computed with plan.judged): which tests each verdict earns
NOT_REACHED_AFTER_OUTPUTS = {
    "hard-coded-width",
    "eps-ignored",
    "no-eps-argument",
    "initial-values",
    "gamma-beta",
    "not-differentiable",
}


@pytest.mark.parametrize(
    "key, code, lost",
    [
        (
            "n-1",
            module(NORMALISED.replace(", unbiased=False", "").join(("return self.gamma * ", " + self.beta"))),
            {"n-1"} | NOT_REACHED_AFTER_OUTPUTS,
        ),
        ("eps-ignored", OWN["eps-ignored"], {"eps-ignored"}),
        (
            "gamma-beta",
            OWN["gamma-beta"],
            {
                "gamma-beta",
                "hard-coded-width",
                "eps-ignored",
                "no-eps-argument",
                "initial-values",
                "not-differentiable",
            },
        ),
        ("no-super-init", OWN["no-super-init"], {key for key, _ in plan.mistakes_for(STEP)}),
    ],
)
def test_a_verdict_earns_exactly_the_tests_it_judged(key, code, lost):
    result = grade.grade_code(STEP, code)
    failed = {o.test.key for o in result.outcomes if not o.passed and not o.test.hidden}
    assert failed == lost, grade.feedback_text(result)
    assert result.score == len(plan.mistakes_for(STEP)) - len(lost), grade.feedback_text(result)


def test_the_memory_ceiling_is_room_beyond_what_the_grader_itself_loaded():
    """The ceiling is the student's room on top of the grader's own imports (torch maps 0.6 GB as the CPU
    build and 3.2 GB as the CUDA build): a room far smaller than torch itself still judges a right module,
    and code that asks for more than its room gets no ✓."""
    from classroom.grading import judge

    roomy = grade.grade_code(STEP, RIGHT[0], memory=256 << 20)
    assert not roomy.problem, roomy.problem
    assert roomy.score == roomy.max_score == plan.total_points(STEP), grade.feedback_text(roomy)
    hog = RIGHT[0].replace("super().__init__()", "super().__init__()\n        self.hog = bytearray(512 << 20)", 1)
    assert hog != RIGHT[0]
    verdict = judge.judge(STEP, plan.function_name(STEP), hog, memory=256 << 20)
    assert not verdict.passed, verdict
