"""helpers: the maths, data and displays behind "LayerNorm, Step by Step".

    import helpers
    x = helpers.load_residual()              # the lesson's 5×3 matrix
    helpers.layer_norm_steps(x[0])           # every intermediate of row 1
    helpers.layer_norm_steps(x[0], decimals=3)  # the same, rounded by hand as on paper
    helpers.show_matrix(helpers.layer_norm(x))  # the whole output

Modules, one job each: ``data`` (reading numbers), ``layernorm`` (pure maths), ``display`` (text
and HTML). ``reference`` (PyTorch), ``widgets`` and ``plots`` are imported only when used, so
``import helpers`` stays fast and never imports torch.
"""

from helpers.data import load_matrix, load_published_output, load_residual, parse_number, parse_row
from helpers.display import format_number, show_matrix
from helpers.layernorm import (
    DEFAULT_EPS,
    STAGES,
    LayerNormSteps,
    layer_norm,
    layer_norm_steps,
    round_half_away_from_zero,
    round_half_up,
)

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
