"""The class record's plain rules (helpers/checking/class_record.py), without a service: which notebook a
kernel's session belongs to (the series runs from 00 to 13), and which answers of the service are final.
A refusal (the body itself is wrong: 400, or too large: 413) cannot be helped by sending it again, so the
verdict is dropped; anything else (the service down, busy, a gateway's error) is kept and sent later."""

from __future__ import annotations

import io
import urllib.error

import pytest

from helpers.checking import class_record

from service_answer import Answer


@pytest.mark.parametrize(
    ("session", "notebook"),
    [
        ("/home/ann/layernorm-step-by-step/notebooks/00_contents.ipynb", "00"),
        ("/home/ann/layernorm-step-by-step/notebooks/03_variance.ipynb", "03"),
        ("/home/ann/layernorm-step-by-step/notebooks/13_is_this_layernorm.ipynb", "13"),  # the last of the series
        ("/home/ann/notebooks/14_my_own.ipynb", None),  # one past it: not one of the series
        ("/home/ann/notebooks/99_scratch.ipynb", None),
        ("/home/ann/notebooks/3_variance.ipynb", None),  # one digit: not the series' naming
        ("/home/ann/scratch.ipynb", None),
        ("", None),
    ],
)
def test_the_notebook_of_a_session_is_one_of_00_to_13(session, notebook):
    assert class_record.notebook_of(session) == notebook


def answered(monkeypatch, status):
    def urlopen(request, timeout):
        if status < 300:
            return Answer(status)
        raise urllib.error.HTTPError(request.full_url, status, "answer", {}, io.BytesIO(b""))

    monkeypatch.setattr(class_record.urllib.request, "urlopen", urlopen)
    verdict = {"id": "x", "notebook": "02", "step": "mean", "passed": True, "mistake": None}
    return class_record._send("http://127.0.0.1:1/services/class/", "a-token", verdict)


@pytest.mark.parametrize(("status", "outcome"), [(200, "sent"), (201, "sent"), (400, "refused"), (413, "refused"),
                                                 (401, "retry"), (500, "retry"), (502, "retry"), (503, "retry")])  # fmt: skip
def test_only_a_refusal_of_the_body_is_final(monkeypatch, status, outcome):
    assert answered(monkeypatch, status) == outcome


def test_an_answer_right_up_to_rounding_is_recorded_as_passed(monkeypatch):
    """The answer box shows "right up to rounding" as right, so the lecturer's page counts it as passed."""
    from helpers.checking import answers

    sent = []
    monkeypatch.setattr(
        class_record, "record", lambda notebook, step, passed, mistake=None: sent.append((step, passed))
    )
    for kind, mistake in ((answers.RIGHT, None), (answers.ROUNDING, "last-place"), (answers.WRONG, "n-1")):
        class_record.record_answer(answers.Verdict(kind, "a hint", "variance", 0.5, 0.5, 2, mistake))
    assert sent == [("answer-variance", True), ("answer-variance", True), ("answer-variance", False)]


def _first_asked_in_the_notebooks() -> dict[str, str]:
    """Each check's key (``exercises.check("std")``: "std"; ``answer_checker(row, "std")``: "answer-std") and
    the number of the first notebook of the series whose code asks it, read from the notebooks' cells."""
    import ast
    from pathlib import Path

    import nbformat

    first: dict[str, str] = {}
    for path in sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", None))
                texts = [
                    a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
                ]
                if name == "check" and texts and texts[0]:
                    first.setdefault(texts[0], path.name[:2])
                elif name == "answer_checker" and len(texts) > 1 and texts[1]:
                    first.setdefault(f"answer-{texts[1]}", path.name[:2])
    return first


def test_each_check_belongs_to_the_first_notebook_that_asks_it():
    """STEP_NOTEBOOKS: "where each exercise is introduced", for a check made outside the series' notebooks."""
    from helpers.checking.answers import QUANTITIES
    from helpers.checking.cases import STEPS

    asked = _first_asked_in_the_notebooks()
    assert set(asked) == set(STEPS) | {f"answer-{quantity}" for quantity in QUANTITIES}, "a check no notebook asks"
    assert class_record.STEP_NOTEBOOKS == asked
