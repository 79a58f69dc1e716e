"""A posted verdict the class service refuses (classroom/service/results.py) gets one sentence that names
the field in its JSON spelling and what it may be, so that whoever wrote the client can mend it; and the
store (classroom/service/store.py) makes its SQLite file, and the folders to it, when they are missing.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.service import results  # noqa: E402
from classroom.service.catalogue import ALL_STEPS  # noqa: E402
from classroom.service.store import Store  # noqa: E402


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps({k: v for k, v in verdict.items() if v is not ...}).encode()


def refusal(raw: bytes) -> str:
    with pytest.raises(results.Refused) as refused:
        results.parse(raw)
    return str(refused.value)


def test_an_unknown_field_is_named_with_the_fields_a_result_has():
    assert refusal(body(colour="red", extra=1)) == (
        "Unknown field(s) colour, extra; a result has id, mistake, notebook, passed, step."
    )


def test_a_wrong_notebook_names_the_field_and_the_range():
    assert refusal(body(notebook="14")) == 'The "notebook" must be one of "00" to "13".'


def test_a_wrong_step_lists_every_step_a_result_may_have():
    message = refusal(body(step="varience"))
    assert message.startswith('The "step" must be one of ') and message.endswith(".")
    listed = message.removeprefix('The "step" must be one of ').removesuffix(".").split(", ")
    assert listed == list(ALL_STEPS) and "variance" in listed


@pytest.mark.parametrize(("fields", "field"), [({"passed": "yes"}, '"passed"'), ({"mistake": "made-up"}, '"mistake"')])
def test_a_wrong_passed_or_mistake_names_its_field(fields, field):
    message = refusal(body(**fields))
    assert message.startswith(f"The {field} ") and ("true or false" in message or "null" in message), message


@pytest.mark.parametrize("field", sorted(results.NAMING_FIELDS))
def test_a_body_that_names_a_student_is_told_that_the_token_decides(field):
    assert refusal(body(**{field: "someone-else"})) == (
        "A result is recorded for the owner of the token that sends it; the body must not name a student."
    )


def test_a_body_of_4096_bytes_is_read_and_one_byte_more_is_refused():
    compact = body()
    exact = compact[:-1] + b" " * (results.MAX_BODY - len(compact)) + b"}"  # JSON allows the spaces
    assert len(exact) == 4096 and results.parse(exact).step == "variance"
    over = compact[:-1] + b" " * (results.MAX_BODY + 1 - len(compact)) + b"}"
    assert refusal(over) == "The body is 4097 bytes; a result is at most 4096."


def test_a_pass_with_a_mistake_and_a_bad_id_say_what_to_send():
    assert refusal(body(passed=True)) == 'A passed check has no mistake: send "mistake": null.'
    assert refusal(body(id="7")) == (
        'The "id" must be a UUID, made once per check, so that a resend is not counted twice.'
    )


def test_the_store_makes_its_file_and_the_folders_to_it(tmp_path):
    where = tmp_path / "new" / "deeper" / "class.sqlite"
    store = Store(where)
    try:
        assert store.add("alice", results.parse(body()))
        assert where.is_file()
    finally:
        store.close()
