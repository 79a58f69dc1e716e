"""For mutmut's stats run only: the fingerprint runs in this process, not in a forked child.

mutmut (3.8.1) learns which tests call each function by recording calls in the test process; a call made in
a forked child (``helpers.forensics.isolate``, where every probe of a fingerprint runs) is never recorded, so
every forensics mutant would be "no tests" and never run. While mutmut runs its stats (``MUTANT_UNDER_TEST``
is ``stats``) this turns the fork off, as on Windows and macOS, except for the tests that need it (those of
the time limit, and those skipped with reason "needs fork" where there is none). Each mutant then runs its tests with the fork as usual (the child inherits the mutant's name).
Loaded by ``tools/mutation/mutmut_run.py`` for the forensics area (``pytest_args`` in pyproject.toml).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _fingerprint_in_process_while_mutmut_records(request, monkeypatch):
    needs_fork = "time_limit" in request.node.name or any(
        marker.kwargs.get("reason") == "needs fork" for marker in request.node.iter_markers("skipif")
    )
    if os.environ.get("MUTANT_UNDER_TEST") == "stats" and not needs_fork:
        import helpers.forensics.fingerprints as fingerprints

        monkeypatch.setattr(fingerprints, "ISOLATE", False)
    yield
