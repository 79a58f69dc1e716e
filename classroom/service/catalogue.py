"""What may be recorded: the notebooks, the exercise steps and the checker's mistake keys.

The steps come from helpers/checking/cases.py (and the check-your-answer boxes' from
helpers/checking/answers.py); every key a verdict may carry, with the words the live page shows, comes from
the one catalogue, helpers/checking/mistakes/ (``labels()``: the formula's mistakes and the other outcomes,
helpers/checking/mistakes/outcomes.py), so a key added there is accepted here without a second list.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: `import helpers`

from helpers.checking import mistakes as catalogue  # noqa: E402
from helpers.checking.answers import QUANTITIES  # noqa: E402
from helpers.checking.cases import STEPS  # noqa: E402
from helpers.checking.mistakes.outcomes import ANSWER_OUTCOMES, OUTCOMES  # noqa: E402, F401 - read by tests

NOTEBOOKS = tuple(f"{number:02d}" for number in range(14))  # "00" .. "13"

MISTAKES = catalogue.labels()  # every key, with its words: from the one catalogue
ANSWER_STEPS = tuple(f"answer-{quantity}" for quantity in QUANTITIES)
ALL_STEPS = (*STEPS, *ANSWER_STEPS)
