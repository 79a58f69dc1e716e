"""A posted verdict's "passed" is JSON true or false, nothing that merely compares equal to them.

classroom/service/results.py refuses a body "with one plain sentence"; its rule for the field: 'The
"passed" field must be true or false.' JSON's 1, 0, 1.0 and 0.0 are numbers, not booleans, though Python
finds 1 == True: a client that sends them is told so, and nothing is stored.
"""

from __future__ import annotations

import json
import uuid

import pytest

from classroom.service import results


def body(passed) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": passed, "mistake": None, "id": str(uuid.uuid4())}
    return json.dumps(verdict).encode()


@pytest.mark.parametrize("passed", [1, 0, 1.0, 0.0, "true", None])
def test_a_passed_that_is_not_a_json_boolean_is_refused(passed):
    with pytest.raises(results.Refused) as refused:
        results.parse(body(passed))
    assert str(refused.value) == 'The "passed" field must be true or false.'


@pytest.mark.parametrize("passed", [True, False])
def test_true_and_false_are_read_as_booleans(passed):
    result = results.parse(body(passed))
    assert result.passed is passed
