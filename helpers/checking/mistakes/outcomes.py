"""The verdicts the checkers give that are not mistakes of the formula: part of the one catalogue of keys.

The code checker (helpers.checking.exercises, results, reading, page, module_*) and the answer boxes
(helpers.checking.answers) record each ✗ under a key; the formula's mistakes are in
:mod:`helpers.checking.mistakes`, and these are the rest (a stub, a time-out, the wrong type, …), each with the
words the lecturer's live page shows. The class service (classroom/service/catalogue.py) and the class
record (helpers.checking.class_record) import them from here: no second list to keep in step.
tests/checking/test_mistake_keys.py runs the checkers on learners that reach each verdict and checks every
key they give is here. Standard library only.
"""

from __future__ import annotations

# The code checker's outcomes: key -> the words on the lecturer's page.
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
    "torch-layer-norm": "PyTorch's own layer norm called",
}

# What only a torch module can get wrong (notebook 08), with its words in the graded assignment: one test
# each there (classroom/grading/plan.py), beside the formula's mistakes. The keys are the checker's.
MODULE_MISTAKES = {
    **{
        key: OUTCOMES[key]
        for key in (
            "no-super-init",
            "no-parameters",
            "parameter-shape",
            "initial-values",
            "no-eps-argument",
            "gamma-beta",
            "not-differentiable",
            "mutates-input",
            "torch-layer-norm",
        )
    },
    "hard-coded-width": "the number of features hard-coded",
    "scalar-gamma": "one γ and one β for all the features",
    "eps-ignored": "its own eps ignored",
    "gamma-beta-swapped": "γ and β swapped",
}

# The check-your-answer boxes' verdicts that are not mistakes of the formula.
ANSWER_OUTCOMES = {
    "too-few-places": "fewer places than asked",
    "cut-off": "digits cut off, not rounded",
    "sign": "a sign slip",
}

# Not an attempt, so not recorded: nothing written yet, or a cell that did not run.
NOT_AN_ATTEMPT = ("not-written", "off-the-page")
