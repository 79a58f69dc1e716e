"""A posted verdict's "mistake" (classroom/service/results.py): one of the checker's mistake keys, or null; a
failed check may carry either, a passed one only null. Whatever else is sent there (a number, a list of keys,
an object, a key in capitals) is refused with the field's one sentence, never a crash; and a body that names a
student is refused for that, before anything else it holds is looked at.
"""

from __future__ import annotations

import json
import uuid

import pytest

from classroom.service import results
from classroom.service.catalogue import MISTAKES

RULE = 'The "mistake" must be one of the checker\'s mistake keys, or null.'


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps(verdict).encode()


def refusal(raw: bytes) -> str:
    with pytest.raises(results.Refused) as refused:
        results.parse(raw)
    return str(refused.value)


@pytest.mark.parametrize("mistake", [["n-1"], {"n-1": 1}, 1, True, "N-1", " n-1", "", "unnamed"])
def test_what_is_not_a_mistake_key_is_refused_with_the_fields_sentence(mistake):
    assert refusal(body(mistake=mistake)) == RULE


@pytest.mark.parametrize("mistake", sorted(MISTAKES)[:3] + sorted(MISTAKES)[-3:])
def test_a_failed_check_may_carry_any_key_of_the_catalogue(mistake):
    result = results.parse(body(mistake=mistake))
    assert (result.passed, result.mistake) == (False, mistake)


def test_a_failed_check_may_carry_no_mistake_and_a_passed_one_must_not():
    assert results.parse(body(mistake=None)).mistake is None
    passed = results.parse(body(passed=True, mistake=None))
    assert (passed.notebook, passed.step, passed.passed, passed.mistake) == ("03", "variance", True, None)
    assert refusal(body(passed=True, mistake="n-1")) == 'A passed check has no mistake: send "mistake": null.'


def test_a_body_that_names_a_student_is_refused_for_that_before_its_other_faults():
    assert refusal(body(student="ann", colour="red", notebook="99")) == (
        "A result is recorded for the owner of the token that sends it; the body must not name a student."
    )


def test_the_fields_are_checked_in_the_order_a_client_would_mend_them():
    assert refusal(body(colour="red", notebook="99")).startswith("Unknown field(s) colour;")
    assert refusal(body(notebook="99", step="varience")) == 'The "notebook" must be one of "00" to "13".'
    assert refusal(body(step="varience", passed="no")).startswith('The "step" must be one of ')
    assert refusal(body(passed="no", mistake="made-up")) == 'The "passed" field must be true or false.'
    assert refusal(body(mistake="made-up", id="7")) == RULE
