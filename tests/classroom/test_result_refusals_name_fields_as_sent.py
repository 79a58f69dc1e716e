"""A refused verdict's sentence names the fields as the client spelled them (classroom/service/results.py):
the body is read as UTF-8 JSON, so a field named in any script is named back as it was sent; unknown fields
are listed in alphabetical order, however many; and every field that would name a student (student, user,
username, name, owner) is refused for that, whatever the name in it.
"""

from __future__ import annotations

import json
import uuid

import pytest

from classroom.service import results

HAS = "a result has id, mistake, notebook, passed, step."


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps(verdict, ensure_ascii=False).encode("utf-8")


def refusal(raw: bytes) -> str:
    with pytest.raises(results.Refused) as refused:
        results.parse(raw)
    return str(refused.value)


def test_a_field_spelled_beyond_ascii_is_named_as_it_was_sent():
    assert refusal(body(**{"naïve": 1})) == f"Unknown field(s) naïve; {HAS}"
    assert refusal(body(**{"ステップ": "variance"})) == f"Unknown field(s) ステップ; {HAS}"


def test_the_same_field_escaped_in_json_is_named_the_same():
    raw = body()[:-1] + b', "na\\u00efve": 1}'
    assert refusal(raw) == f"Unknown field(s) naïve; {HAS}"


def test_many_unknown_fields_are_listed_in_alphabetical_order():
    extra = {name: 1 for name in ("zeta", "colour", "time", "kernel", "attempt", "extra")}
    assert refusal(body(**extra)) == f"Unknown field(s) attempt, colour, extra, kernel, time, zeta; {HAS}"


@pytest.mark.parametrize("field", ["student", "user", "username", "name", "owner"])
def test_each_field_that_would_name_a_student_is_refused(field):
    assert refusal(body(**{field: "ann"})) == (
        "A result is recorded for the owner of the token that sends it; the body must not name a student."
    )


def test_a_body_that_is_not_utf8_is_not_json():
    assert refusal(body()[:-1] + b', "x": "\xff"}') == "The body is not JSON."
