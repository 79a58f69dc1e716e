"""Fresh mutations (issue 24: bugs nobody planted before) in the checking area, each closed by a behaviour test.

Same fields as tools/mutations.py's ``Mutation``; ``AREAS`` adds the test files that catch them.
"""

from __future__ import annotations

AREAS: dict[str, list[str]] = {}
# (name, path, old, new, area, learner_visible): tuples, made into Mutation by tools/mutations.py
MUTATIONS: list[tuple] = []
