"""Fresh mutations, set 6 (issue 35): of the 50 bugs planted by someone who had not read the tests, the ones
the suite missed, and the ones only another package's folder caught; each now caught by a behaviour test in
its own package's folder.

Same fields as tools/mutation/curated.py's ``Mutation``; ``AREAS`` names the test files that catch them. The
50 bugs, what each breaks and which test caught it: tools/mutation/bugsets/set6.md, with each bug's patch in
tools/mutation/bugsets/set6/ (made against commit f5eddaa).
"""

from __future__ import annotations

AREAS: dict[str, list[str]] = {
    "set6-core": ["tests/core/test_rounding_edges.py"],
    "set6-checking": ["tests/checking/test_class_record_rules.py"],
    "set6-forensics": ["tests/forensics/test_orientations.py"],
    "set6-views": ["tests/widgets/test_reveal.py", "tests/display/test_plots.py"],
}

# (name, path, old, new, area, learner_visible): tuples, made into Mutation by tools/mutation/curated.py
MUTATIONS: list[tuple] = [
    (
        "set6: rounding by hand moves a stage only past 10 % of its size, not 1 %",
        "helpers/core/tolerance.py",
        "HAND_DRIFT = 0.01  #",
        "HAND_DRIFT = 0.1  #",
        "set6-core",
        True,
    ),
    (
        "set6: the std's answer box counted in notebook 05, not 04",
        "helpers/checking/class_record.py",
        '"answer-std": "04",',
        '"answer-std": "05",',
        "set6-checking",
        True,
    ),
    (
        "set6: the tokens-as-columns drawing advises x.mean(axis=1)",
        "helpers/forensics/orientations.py",
        '"here the features are axis 0: x.mean(axis=0), or',
        '"here the features are axis 0: x.mean(axis=1), or',
        "set6-forensics",
        True,
    ),
    (
        "set6: reveal.js shows a middle stage one click late",
        "helpers/widgets/reveal.py",
        'return f"{STAGE_CLASS} fragment fade-in-then-out", position - 1',
        'return f"{STAGE_CLASS} fragment fade-in-then-out", position',
        "set6-views",
        True,
    ),
    (
        "set6: a room picture's em taken from its largest text",
        "helpers/plots/room.py",
        "    return min(sizes)",
        "    return max(sizes)",
        "set6-views",
        True,
    ),
]
