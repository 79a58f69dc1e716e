"""Fresh mutations (issue 24: bugs nobody planted before) in the widgets area, each closed by a behaviour test.

Same fields as tools/mutation/curated.py's ``Mutation``; ``AREAS`` adds the test files that catch them.
"""

from __future__ import annotations

BEHAVIOUR = "tests/widgets/test_buttons_and_announcements.py"
AREAS: dict[str, list[str]] = {
    "widgets-behaviour": [BEHAVIOUR, "tests/widgets/test_widgets.py"],
    "access-behaviour": [BEHAVIOUR, "tests/browser/test_accessibility.py", "tests/widgets/test_widgets.py"],
}

WE, WM, WR = "helpers/widgets/explorer.py", "helpers/widgets/matrix.py", "helpers/widgets/row.py"
A, V = "helpers/widgets/accessibility.py", "helpers/core/validation.py"
NEXT_DISABLED = "self.next_button.disabled = self._position == len(EXPLORER_STAGES) - 1"
PLACES = "places = 4 if record.decimals is None else record.decimals"

# (name, path, old, new, area, learner_visible): tuples, made into Mutation by tools/mutation/curated.py
MUTATIONS: list[tuple] = [
    # the three survivors of the audit
    (
        "fresh widgets: explorer Next disabled one stage early",
        WE,
        NEXT_DISABLED,
        "self.next_button.disabled = self._position >= len(EXPLORER_STAGES) - 2",
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: a single-row matrix becomes a column",
        V,
        "array = array[np.newaxis, :]",
        "array = array[:, np.newaxis]",
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: announcement ignores the by-hand places",
        A,
        PLACES,
        "places = 4",
        "access-behaviour",
        True,
    ),
    # more of the same kind, looked for afterwards
    (
        "fresh widgets: explorer Previous disabled one stage late",
        WE,
        "self.previous_button.disabled = self._position == 0",
        "self.previous_button.disabled = self._position <= 1",
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: explorer Next not enabled again after the last stage",
        WE,
        NEXT_DISABLED,
        "self.next_button.disabled = self.next_button.disabled or self._position == len(EXPLORER_STAGES) - 1",
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: explorer label names the current stage as next",
        WE,
        'step += f" (next: {STAGE_LABELS[EXPLORER_STAGES[self._position + 1]][0]})"',
        'step += f" (next: {STAGE_LABELS[EXPLORER_STAGES[self._position]][0]})"',
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: matrix editor row pick drops the bad-cell message",
        WM,
        'self._problems = {key: text for key, text in self._problems.items() if key != "row"}',
        "self._problems = {}",
        "widgets-behaviour",
        True,
    ),
    (
        "fresh widgets: announcement at 0 places read as exact",
        A,
        PLACES,
        "places = record.decimals or 4",
        "access-behaviour",
        True,
    ),
    (
        "fresh widgets: announcement by hand without its note at 0 places",
        A,
        "if record.decimals is not None:",
        "if record.decimals:",
        "access-behaviour",
        True,
    ),
    (
        "fresh widgets: row editor error drawn twice (beside its field and in the status line)",
        WR,
        '"⚠ The numbers shown are the last good ones: see the message above."',
        'f"⚠ {problem} The numbers shown are the last good ones: see the message above."',
        "access-behaviour",
        True,
    ),
    (
        "fresh widgets: row editor by hand uses one place fewer",
        WR,
        "decimals = int(self.places.value) if self.by_hand.value else None",
        "decimals = int(self.places.value) - 1 if self.by_hand.value else None",
        "widgets-behaviour",
        True,
    ),
]
