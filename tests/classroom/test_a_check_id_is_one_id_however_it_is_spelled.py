"""A check's id is a UUID, "made once per check, so that a resend is not counted twice" (classroom/service/
results.py): the service reads it as a UUID, so the same UUID spelled in capitals, in braces or as a URN is the
same check, kept in its one canonical spelling (lower case, with hyphens), and the store's key (student, id)
ignores its resend (classroom/service/store.py).
"""

from __future__ import annotations

import json

import pytest

from classroom.service import results
from classroom.service.store import Store

CANONICAL = "6f1c2f4e-8a3b-4c5d-9e7f-0123456789ab"
SPELLINGS = [
    CANONICAL,
    CANONICAL.upper(),
    "{" + CANONICAL + "}",
    "urn:uuid:" + CANONICAL,
    CANONICAL.replace("-", ""),
]


def body(ident: str, **fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": ident}
    verdict.update(fields)
    return json.dumps(verdict).encode()


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_a_uuid_is_read_as_its_canonical_form(spelling):
    assert results.parse(body(spelling)).id == CANONICAL


def test_a_resend_in_another_spelling_is_not_stored_twice(tmp_path):
    store = Store(tmp_path / "class.sqlite")
    try:
        stored = [store.add("ann", results.parse(body(spelling))) for spelling in SPELLINGS]
        assert stored == [True, False, False, False, False]
        assert store.count() == 1
        [exercise] = store.summary()
        assert (exercise["tried"], exercise["attempts"]) == (1, 1)
    finally:
        store.close()


@pytest.mark.parametrize("ident", [7, None, ["x"], CANONICAL[:-1], CANONICAL + "0", ""])
def test_what_is_not_a_uuid_string_is_refused_with_the_ids_sentence(ident):
    with pytest.raises(results.Refused) as refused:
        results.parse(body(ident))
    assert str(refused.value) == (
        'The "id" must be a UUID, made once per check, so that a resend is not counted twice.'
    )
