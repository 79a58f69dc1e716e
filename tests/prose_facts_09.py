"""Facts notebook 09's markdown may quote (see tests/prose_facts.py for how a quoted number matches)."""

from __future__ import annotations


def add(facts, x) -> None:
    """Add notebook 09's facts: one line each, ``facts.add(value, "what it is (notebook 09)")``."""
