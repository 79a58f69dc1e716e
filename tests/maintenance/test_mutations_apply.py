"""tools/mutation/curated.py stays in step with the code: each curated mutation's text occurs exactly once in
its file, so `tools/mutation/run.py` plants every one (a stale one would be reported as not applied)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from tools.mutation.curated import AREA_TESTS, MUTATIONS  # noqa: E402


def test_every_curated_mutation_still_applies_once_and_names_tests_that_exist():
    stale = [m.name for m in MUTATIONS if (ROOT / m.path).read_text(encoding="utf-8").count(m.old) != 1]
    assert not stale, f"mutations whose text is not in their file exactly once: {stale}"
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS), "two mutations share a name"
    missing = [test for tests in AREA_TESTS.values() for test in tests if not (ROOT / test).is_file()]
    assert not missing and all(m.area in AREA_TESTS for m in MUTATIONS), missing
