"""helpers: the maths, data and displays behind "LayerNorm, Step by Step".

    import helpers
    x = helpers.load_residual()              # the lesson's 5×3 matrix
    helpers.layer_norm_steps(x[0])           # every intermediate of row 1
    helpers.layer_norm_steps(x[0], decimals=3)  # the same, rounded by hand as on paper
    helpers.show_matrix(helpers.layer_norm(x))  # the whole output

This file is the learner's API; the package is in layers, each importing only the ones below it
(``tests/maintenance/test_architecture.py`` fails on an upward import or a cycle):

    core/       numpy only: the formula, one record per row, validation, data, a table's pencil checks
    display/    every table as text and HTML on one model (registers the records' views)
    plots/      matplotlib figures
    checking/   the mistake catalogue, the code and answer checkers, the sandbox
    widgets/    ipywidgets, built on all of the above
    lessons/    what one notebook uses: numerics (09), norm_family (10), backward (11), speed (12)
    forensics/  notebook 13's fingerprints
    reference.py (PyTorch), cli.py (``python -m helpers``)

``reference`` (PyTorch), ``widgets`` and ``plots`` are imported only when used, so ``import helpers``
stays fast and never imports torch. The module names the notebooks used before the layers
(``helpers.formula``, ``helpers.exercises``, ``helpers.numerics``, ...) still import, as the very
same modules: a student's own copy of an old notebook keeps working (``MOVED`` below).
"""

import importlib
import importlib.abc
import importlib.util
import sys

from helpers.core.data import load_matrix, load_published_output, load_residual, parse_number, parse_row
from helpers.core.layernorm import (
    DEFAULT_EPS,
    STAGES,
    LayerNormSteps,
    layer_norm,
    layer_norm_steps,
    round_half_away_from_zero,
    round_half_up,
)
from helpers.display import format_number, show_matrix

__all__ = [
    "DEFAULT_EPS",
    "STAGES",
    "LayerNormSteps",
    "format_number",
    "layer_norm",
    "layer_norm_steps",
    "load_matrix",
    "load_published_output",
    "load_residual",
    "parse_number",
    "parse_row",
    "round_half_away_from_zero",
    "round_half_up",
    "show_matrix",
]

# Old module name -> where it lives now. Only names that notebooks, the lecture or a learner's code use.
MOVED = {
    "answer_check": "helpers.checking.answers",
    "backward": "helpers.lessons.backward.gradients",
    "backward_precision": "helpers.lessons.backward.precision",
    "data": "helpers.core.data",
    "exercises": "helpers.checking.exercises",
    "forensics_gallery": "helpers.forensics.gallery",
    "forensics_orientations": "helpers.forensics.orientations",
    "forensics_table": "helpers.forensics.table",
    "formula": "helpers.core.formula",
    "layernorm": "helpers.core.layernorm",
    "norm_family": "helpers.lessons.norm_family",
    "numerics": "helpers.lessons.numerics.moments",
    "numerics_errors": "helpers.lessons.numerics.errors",
    "numerics_history": "helpers.lessons.numerics.history",
    "numerics_lowprec": "helpers.lessons.numerics.lowprec",
    "numerics_words": "helpers.lessons.numerics.words",
    "precision": "helpers.lessons.numerics.precision",
    "published_check": "helpers.core.published_table",
    "speed": "helpers.lessons.speed.timing",
    "speed_checks": "helpers.lessons.speed.checks",
}


class _MovedModule(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import helpers.formula`` gives the module ``helpers.core.formula`` itself (one object, two names)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package == __name__ and name in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name.rpartition(".")[2]])
        self._own_spec = module.__spec__  # the import system puts the alias's spec on the module next
        return module

    def exec_module(self, module):
        module.__spec__ = self._own_spec  # already executed under its own name; keep its own spec


if not any(isinstance(finder, _MovedModule) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModule())


def __getattr__(name: str):
    """``helpers.data``, ``helpers.formula``, ... without importing them first, as before the layers."""
    if name in MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
