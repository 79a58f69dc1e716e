"""Facts notebook 11's markdown may quote (see tests/prose_facts.py for how a quoted number matches)."""

from __future__ import annotations


def add(facts, x) -> None:
    """Add notebook 11's facts: one line each, ``facts.add(value, "what it is (notebook 11)")``."""
    facts.add(1e4, "the offset of the float32 backward comparison (notebook 11)")
