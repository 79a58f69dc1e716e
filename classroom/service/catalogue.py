"""What may be recorded: the notebooks, the exercise steps and the checker's mistake keys.

(And the check-your-answer boxes: ANSWER_STEPS, ANSWER_OUTCOMES below.)

The steps and the named mistakes come from the one catalogue, helpers/checking/mistakes/ (through
helpers/checking/cases.py for the code checker), so a mistake added there is accepted here
without a second list to keep in step. The other keys are the
outcomes helpers/checking/results.py, exercises.py, page.py and module_*.py name in place (a stub, a time-out,
the wrong type, ...); tests/classroom/test_class_service_units.py checks this list against
those files.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: `import helpers`

from helpers.checking import mistakes as catalogue  # noqa: E402
from helpers.checking.answers import QUANTITIES  # noqa: E402
from helpers.checking.cases import STEPS, mistakes  # noqa: E402

NOTEBOOKS = tuple(f"{number:02d}" for number in range(14))  # "00" .. "13"

# Outcomes the checker names without a Mistake entry: key -> the words on the lecturer's page.
OUTCOMES = {
    "not-written": "not written yet",
    "timeout": "did not finish (endless loop)",
    "exception": "raised an error",
    "mutates-input": "changed its input",
    "text": "returned text",
    "list-not-number": "returned a list, not a number",
    "wrong-length": "the wrong length",
    "no-return": "returned nothing",
    "wrong-type": "the wrong type",
    "nan": "returned NaN",
    "float32-precision": "right only to float32's precision",
    "boolean": "returned True/False",
    "ragged": "returned a ragged list",
    "python-loop": "a Python loop over the rows",
    "off-the-page": "the defining cell did not run",
    "per-row": "γ and β applied per row",
    # torch.nn.Module checks (notebook 08)
    "not-a-module": "not a torch module",
    "no-super-init": "no super().__init__()",
    "no-parameters": "γ and β not parameters",
    "parameter-shape": "γ and β of the wrong shape",
    "initial-values": "γ and β not 1 and 0 at the start",
    "no-eps-argument": "no eps argument",
    "not-differentiable": "gradients cannot flow",
    "gamma-beta": "γ and β not applied as γ · x̂ + β",
}


# The check-your-answer boxes (helpers/checking/answers.py): their steps, and the verdicts they give that
# are not mistakes of the catalogue (those come from helpers/checking/mistakes.py, with the code checker's).
ANSWER_STEPS = tuple(f"answer-{quantity}" for quantity in QUANTITIES)
ANSWER_OUTCOMES = {
    "too-few-places": "fewer places than asked",
    "cut-off": "digits cut off, not rounded",
    "sign": "a sign slip",
}


def _named() -> dict[str, str]:
    """Every key of the one mistake catalogue (two at once included) with its name."""
    names = {}
    for step in STEPS:
        if step == "module":
            continue
        for mistake in mistakes(step):
            names.setdefault(mistake.key, catalogue.name_of(mistake.key))
    for quantity in QUANTITIES:
        for mistake in catalogue.for_quantity(quantity):
            names.setdefault(mistake.key, catalogue.name_of(mistake.key))
    names.setdefault(catalogue.ROUNDING.key, catalogue.ROUNDING.name)
    return names


MISTAKES = {**OUTCOMES, **ANSWER_OUTCOMES, **_named()}  # the catalogue's own words win where keys are shared
ALL_STEPS = (*STEPS, *ANSWER_STEPS)
