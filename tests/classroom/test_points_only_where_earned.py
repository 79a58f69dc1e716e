"""Points per test from the checker's verdict (classroom/grading/grade.py), from its docstring: a mistake's test
passes when the function is right, or when the checker named another mistake; it fails, with the checker's own
sentence, when the function is wrong in a way the checker cannot name, or names a key the catalogue does not
know: a ✓ is given only where the verdict earns it."""

from __future__ import annotations

import pytest

from classroom.grading import grade, judge, plan

SENTENCE = "Not quite: the values differ from the right ones at feature 2."


@pytest.mark.parametrize("mistake", [None, "a-key-nobody-listed", "n-1+a-key-nobody-listed"])
def test_a_wrong_function_the_checker_cannot_name_earns_no_mistake_test(mistake):
    verdict = judge.Verdict(judged=True, passed=False, mistake=mistake, diagnosis=SENTENCE)
    outcomes = grade.outcomes_of("variance", verdict)
    assert [o.test for o in outcomes] == plan.tests_for("variance")
    assert all(o.earned == 0 and o.sentence == SENTENCE for o in outcomes)


def test_a_named_mistake_earns_every_other_mistakes_test():
    key = plan.tests_for("variance")[0].key
    verdict = judge.Verdict(judged=True, passed=False, mistake=key, diagnosis=SENTENCE)
    earned = {o.test.key: o.earned for o in grade.outcomes_of("variance", verdict)}
    assert earned[key] == 0 and earned[None] == 0
    assert all(points == 1 for other, points in earned.items() if other not in (key, None))


def test_the_scores_add_up_to_the_points_of_the_tests_passed():
    key = plan.tests_for("std")[0].key
    verdict = judge.Verdict(judged=True, passed=False, mistake=key, diagnosis=SENTENCE)
    result = grade.Grade("std", grade.outcomes_of("std", verdict))
    assert result.max_score == plan.total_points("std") == len(plan.tests_for("std")) - 1 + plan.HIDDEN_POINTS
    assert result.score == result.max_score - 1 - plan.HIDDEN_POINTS
