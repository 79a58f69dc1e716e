"""tools/mutation/mutmut_run.py --mutant: a mutant is picked for the module it belongs to, a package's
``__init__.py`` included (mutmut names its mutants after the package, without ``__init__``)."""

from __future__ import annotations

import pytest

from tools.mutation.mutmut_run import mutant_of

INIT = "helpers/checking/mistakes/__init__.py"
FORMULA = "helpers/checking/mistakes/formula.py"


@pytest.mark.parametrize(
    "name, module, belongs",
    [
        ("helpers.checking.mistakes.x_compound__mutmut_6", INIT, True),
        ("helpers.checking.mistakes.xǁMistakeǁvalue__mutmut_1", INIT, True),  # a method
        ("helpers.checking.mistakes.x__catalogue__mutmut_*", INIT, True),  # a glob over the functions
        ("helpers.checking.mistakes.x_compound__mutmut_6", FORMULA, False),
        ("helpers.checking.mistakes.formula.x_forward__mutmut_1", FORMULA, True),
        ("helpers.checking.mistakes.formula.x_forward__mutmut_1", INIT, False),  # not the package's own
        ("helpers.checking.mistakes.formulas.x_forward__mutmut_1", FORMULA, False),
        ("helpers.core.formula.x_layer_norm_forward__mutmut_3", "helpers/core/formula.py", True),
        ("helpers.checking.*.x_forward__mutmut_1", FORMULA, True),  # a glob over the modules
    ],
)
def test_a_mutant_is_picked_for_its_own_module_a_packages_init_included(name, module, belongs):
    assert mutant_of(name, module) is belongs
