"""The grader's words and points without running a student's code (classroom/grading/grade.py, judge.py,
plan.py): what the student reads, a zero with its reason, the points a verdict earns on each test, and
the sentences for what was refused or undone. Fast: no grading process is started here.
"""

from __future__ import annotations

from classroom.grading import grade, judge, plan


def test_feedback_is_the_points_then_one_line_per_test_then_each_note():
    tests = plan.tests_for("mean")
    mistake, hidden = tests[0], tests[-1]
    outcomes = [grade.Outcome(t, t.points if t is mistake else 0, f"sentence {n}") for n, t in enumerate(tests)]
    result = grade.Grade("mean", outcomes, ["first note.", "second note."])
    lines = grade.feedback_text(result).split("\n")
    earned, most = mistake.points, sum(t.points for t in tests)
    assert lines[0] == f"mean: {earned} of {most} points"
    assert lines[1] == f"✓ Mistake: {mistake.name} ({mistake.points}/{mistake.points}): sentence 0"
    assert lines[len(tests)] == f"✗ Hidden test, the full check (0/{hidden.points}): sentence {len(tests) - 1}"
    assert all(line.startswith("✗ Mistake: ") for line in lines[2 : len(tests)])
    assert lines[len(tests) + 1 :] == ["Note: first note.", "Note: second note."]


def test_a_zero_gives_no_point_on_any_test_and_says_why_on_each():
    result = grade.zero("variance", "The answer cell is empty: nothing was submitted.")
    assert result.step == "variance" and result.score == 0 and result.ignored == []
    assert result.problem == "The answer cell is empty: nothing was submitted."
    assert [o.test for o in result.outcomes] == plan.tests_for("variance")
    assert all(o.earned == 0 and o.sentence == result.problem for o in result.outcomes)


def test_a_right_function_earns_every_point_and_reads_right_on_every_unseen_case():
    outcomes = grade.outcomes_of("std", judge.Verdict(judged=True, passed=True, diagnosis="all good"))
    assert all(o.passed for o in outcomes)
    assert [o.sentence for o in outcomes] == ["Not made."] * (len(outcomes) - 1) + ["Right on every unseen case."]


def test_a_named_mistake_loses_its_test_and_the_hidden_one_with_the_checkers_sentence():
    key = plan.tests_for("variance")[0].key
    verdict = judge.Verdict(judged=True, passed=False, mistake=key, diagnosis="You divided by n − 1.")
    outcomes = grade.outcomes_of("variance", verdict)
    lost = [o for o in outcomes if not o.passed]
    assert [o.test.key for o in lost] == [key, None]
    assert all(o.sentence == "You divided by n − 1." and o.earned == 0 for o in lost)


def test_each_step_belongs_to_the_notebook_that_introduces_it():
    assert [plan.notebook_of(s) for s in ("mean", "variance", "std", "normalise", "scale_shift", "layer_norm")] == [
        "02", "03", "04", "05", "06", "07",
    ]  # fmt: skip


def test_what_was_refused_or_undone_is_listed_with_semicolons_in_one_sentence():
    assert judge._refused(["wrote a file", "started a process"]) == (
        "Your code tried to do what grading does not allow (wrote a file; started a process): that was refused "
        "and ignored, and your function was graded on its own."
    )
    assert judge._patched(["replaced numpy.mean", "patched helpers"]) == (
        "Your code replaced numpy.mean; patched helpers: that was undone and ignored, and your function was "
        "graded by the original checker."
    )
