"""Points from a verdict whose values were right but whose shape was not, and the other corners of
classroom/grading/grade.py: "python-loop" (notebook 07: right values, a Python loop over the rows) names no
catalogued mistake, so every mistake's test is earned and only the hidden full check is lost, with the
checker's sentence; an outcome the catalogue does not key (returned text, the wrong type) earns nothing; a
module's own-ε mistake came last, so it judged every other test; ``points()`` is each test's grade_id with
the points it earned; a test passes only with all its points.
"""

from __future__ import annotations

import pytest

from classroom.grading import grade, judge, plan

LOOP = "Right values on all 12 unseen inputs, but it has a loop over the rows: notebook 07 asks for no loop."


def outcomes(step, mistake, diagnosis="said"):
    verdict = judge.Verdict(judged=True, passed=False, mistake=mistake, diagnosis=diagnosis)
    return grade.outcomes_of(step, verdict)


def test_right_values_in_a_loop_earn_every_mistake_test_and_lose_only_the_hidden_one():
    found = outcomes("layer_norm", "python-loop", LOOP)
    *named, hidden = found
    assert [o.test for o in found] == plan.tests_for("layer_norm")
    assert all(o.earned == plan.MISTAKE_POINTS and o.sentence == "Not made." for o in named)
    assert hidden.test.hidden and hidden.earned == 0 and hidden.sentence == LOOP
    result = grade.Grade("layer_norm", found)
    assert result.score == plan.total_points("layer_norm") - plan.HIDDEN_POINTS


def test_the_verdicts_keys_are_read_as_the_catalogue_names_them():
    assert grade._named(None) is None
    assert grade._named("python-loop") == set()
    assert grade._named("n-1") == {"n-1"}
    assert grade._named("n-1+no-eps") == {"n-1", "no-eps"}
    assert grade._named("no-super-init") == {"no-super-init"}  # a module's own
    assert grade._named("text") is None  # an outcome, not a mistake
    assert grade._named("n-1+python-loop") is None


@pytest.mark.parametrize("outcome", ["text", "wrong-type", "no-return", "nan"])
def test_an_outcome_the_catalogue_does_not_key_earns_nothing(outcome):
    found = outcomes("variance", outcome, "You returned text.")
    assert all(o.earned == 0 and o.sentence == "You returned text." for o in found)


@pytest.mark.parametrize("mistake", ["eps-ignored", "no-eps-argument", "eps-ignored+no-eps-argument"])
def test_a_modules_own_eps_mistake_judged_every_other_test(mistake):
    found = {o.test.key: o for o in outcomes("module", mistake, "ε.")}
    lost = set(mistake.split("+")) | {None}
    assert {key for key, o in found.items() if o.earned == 0} == lost
    assert all(found[key].sentence == "ε." for key in lost)
    assert all(o.sentence == "Not made." for key, o in found.items() if key not in lost)


def test_a_grades_points_are_each_tests_grade_id_and_what_it_earned():
    found = outcomes("std", "no-eps")
    points = grade.Grade("std", found).points()
    assert list(points) == [t.grade_id for t in plan.tests_for("std")]
    assert points["test_std_no-eps"] == 0 and points["test_std_hidden"] == 0
    assert all(v == 1 for k, v in points.items() if k not in ("test_std_no-eps", "test_std_hidden"))


def test_a_test_passes_only_with_all_its_points():
    hidden = plan.tests_for("mean")[-1]
    assert hidden.points == 2
    assert grade.Outcome(hidden, 2, "").passed
    assert not grade.Outcome(hidden, 1, "").passed and not grade.Outcome(hidden, 0, "").passed


def test_a_partly_earned_test_is_crossed_in_the_feedback_with_its_points():
    hidden = plan.tests_for("mean")[-1]
    text = grade.feedback_text(grade.Grade("mean", [grade.Outcome(hidden, 1, "Half.")]))
    assert text.splitlines() == ["mean: 1 of 2 points", "✗ Hidden test, the full check (1/2): Half."]


def test_the_feedback_is_headed_by_the_answers_name_not_the_step():
    text = grade.feedback_text(grade.zero("module", "Nothing."))
    assert text.splitlines()[0] == f"MyLayerNorm: 0 of {plan.total_points('module')} points"
