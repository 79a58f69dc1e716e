"""How long a test may wait for a state before it calls the state lost: one rule for every wait in tests/.

A test waits for a state (a page shows a number, a kernel is gone, a culler has made its pass), never for
a time. The deadline only says when the state is taken to be lost, and it scales with the machine: the
time the wait needs on a quiet 2-core machine (the ``base`` written in the test) times ``patience()``.

``patience()`` is LAYERNORM_TEST_PATIENCE when it is set (say 3 on a slow laptop, or 1 to get the quiet
machine's deadlines back); otherwise the machine's load per core (the larger of the last minute's and
the last five minutes'), at least 1 and at most MAX_PATIENCE. Two busy loops beside the suite on two
cores give about 2; a machine at load 8 on two cores, 4.
"""

from __future__ import annotations

import os
import time

PATIENCE_VARIABLE = "LAYERNORM_TEST_PATIENCE"
MAX_PATIENCE = 8.0


def patience() -> float:
    """The factor every deadline is multiplied by, measured now (see the module's text)."""
    chosen = os.environ.get(PATIENCE_VARIABLE, "").strip()
    if chosen:
        try:
            factor = float(chosen)
        except ValueError:
            factor = 0.0
        if not factor > 0:
            raise ValueError(f"{PATIENCE_VARIABLE} must be a positive number (a factor such as 2), not {chosen!r}")
        return factor
    try:
        one, five, _ = os.getloadavg()
    except (AttributeError, OSError):  # no load average on this system: the quiet machine's deadlines
        return 1.0
    return min(MAX_PATIENCE, max(1.0, max(one, five) / (os.cpu_count() or 1)))


def scaled_s(base: float) -> float:
    """``base`` seconds, scaled to this machine now."""
    return base * patience()


def time_limit_s(base: float) -> float:
    """A time limit given to code a test expects to be stopped at it: ``base`` seconds scaled to this machine,
    to two places (the product prints it with ``:g``). The code under the limit must start within it (a
    forked copy starts in about 0.02 s on a quiet machine), so ``base`` is a few times that, not more: every
    such test spends its whole limit waiting."""
    return max(base, round(scaled_s(base), 2))


def scaled_ms(base_ms: float) -> int:
    """``base_ms`` milliseconds (a Playwright timeout), scaled to this machine now."""
    return round(base_ms * patience())


class Deadline:
    """The deadline of a polled wait: ``base`` seconds on a quiet machine, scaled by ``patience()`` as
    measured at each look, never less than at the start (a machine that gets busier gives more time)."""

    def __init__(self, base: float):
        self.base = base
        self.start = time.monotonic()
        self.factor = patience()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    @property
    def limit(self) -> float:
        """Seconds the wait may take, as of the last look."""
        return self.base * self.factor

    def expired(self) -> bool:
        self.factor = max(self.factor, patience())
        return self.elapsed() > self.limit

    def __str__(self) -> str:
        return f"{self.limit:.0f} s ({self.base:g} s on a quiet machine × patience {self.factor:.1f})"
