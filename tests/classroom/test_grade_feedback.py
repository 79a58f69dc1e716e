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


def test_the_gradebook_keeps_each_score_as_graded_and_adds_them_up(tmp_path):
    """classroom/grading/cycle.py's per-exercise gradebook: one row per student, each exercise's score as nbgrader
    gave it (whole points without ".0", a half point kept), empty where not submitted, then the total and the max."""
    import csv

    from classroom.grading import assignment, cycle

    mean, variance = assignment.name_of("mean"), assignment.name_of("variance")
    raw = tmp_path / "nbgrader-grades.csv"
    raw.write_text(
        f"assignment,student_id,score\n{mean},ann,3.0\n{variance},ann,2.5\n{mean},bob,1.0\n",
        encoding="utf-8",
    )
    rows = list(csv.reader(cycle.per_exercise(raw, tmp_path / "grades.csv").open(encoding="utf-8")))
    names = [assignment.name_of(step) for step in plan.STEPS]
    assert rows[0] == ["student", *names, "total", "max"]
    ann, bob = (dict(zip(rows[0], row)) for row in rows[1:])
    assert (ann["student"], ann[mean], ann[variance], ann["total"]) == ("ann", "3", "2.5", "5.5")
    assert (bob["student"], bob[mean], bob[variance], bob["total"]) == ("bob", "1", "", "1")
    assert ann["max"] == bob["max"] == str(sum(plan.total_points(step) for step in plan.STEPS))


def test_a_compound_verdict_loses_both_its_tests_and_earns_every_other():
    verdict = judge.Verdict(judged=True, passed=False, mistake="n-1+no-eps", diagnosis="n − 1 and no ε.")
    outcomes = grade.outcomes_of("std", verdict)
    assert {o.test.key for o in outcomes if not o.passed} == {"n-1", "no-eps", None}
    assert all(o.sentence == "n − 1 and no ε." for o in outcomes if not o.passed)
    assert all(o.sentence == "Not made." for o in outcomes if o.passed)


def test_nothing_judged_loses_every_test_with_the_reason_not_a_diagnosis():
    verdict = judge.Verdict(judged=False, diagnosis="stale", problem="Your code did not finish within 60 s.")
    outcomes = grade.outcomes_of("mean", verdict)
    assert [o.test for o in outcomes] == plan.tests_for("mean")
    assert all(o.earned == 0 and o.sentence == "Your code did not finish within 60 s." for o in outcomes)


def test_a_module_stopped_at_a_build_mistake_earns_nothing_it_did_not_judge():
    why = "Looks like a known mistake: no super().__init__()."
    verdict = judge.Verdict(judged=True, passed=False, mistake="no-super-init", diagnosis=why)
    sentences = {o.test.key: (o.earned, o.sentence) for o in grade.outcomes_of("module", verdict)}
    assert sentences["no-super-init"] == sentences[None] == (0, why)
    assert {key: s for key, s in sentences.items() if key not in ("no-super-init", None)} == {
        key: (0, f"Not judged: the check stopped at an earlier problem. {why}")
        for key, _ in plan.mistakes_for("module")
        if key != "no-super-init"
    }


def test_a_module_with_a_formula_mistake_earns_the_tests_its_check_reached():
    verdict = judge.Verdict(judged=True, passed=False, mistake="n-1", diagnosis="n − 1.")
    earned = {o.test.key: o.earned for o in grade.outcomes_of("module", verdict)}
    assert earned["n-1"] == earned[None] == earned["eps-ignored"] == earned["initial-values"] == 0
    assert earned["median"] == earned["no-super-init"] == plan.MISTAKE_POINTS


def test_a_notebook_that_cannot_be_read_is_a_zero_saying_why(tmp_path):
    result = grade.grade_notebook(tmp_path / "02_mean.ipynb", "mean")
    assert result.score == 0 and result.ignored == [] and result.step == "mean"
    assert result.problem == "No notebook was submitted (02_mean.ipynb is missing)."
    assert [o.test for o in result.outcomes] == plan.tests_for("mean")
    assert all(o.sentence == result.problem for o in result.outcomes)
    (tmp_path / "02_mean.ipynb").write_text('{"cells": [], "metadata": {}}', encoding="utf-8")
    result = grade.grade_notebook(tmp_path / "02_mean.ipynb", "mean")
    assert result.score == 0 and "no answer cell answer_mean" in result.problem
