"""What a fingerprint found: the raw measurements, and the verdict put together from them.

Plain records (no probing, no display): :mod:`helpers.forensics.judge` and
:mod:`helpers.forensics.fingerprints` fill them, :mod:`helpers.forensics.display` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from helpers.core import views
from helpers.core.tolerance import EPS_MATCH
from helpers.forensics.precision import MATCH_TOLERANCE


@dataclass(frozen=True)
class Measurements:
    """The raw numbers behind a fingerprint (shown as its evidence)."""

    features: int = 0
    rows_changed: tuple = ()  # output rows (from 1) that moved when token 1 was edited
    columns_changed: tuple = ()  # output columns (from 1) that moved when feature 1 was edited
    centring_offset: float = 3.0  # what the centring probe adds to a row (3; more on a wide row)
    # the centring probe, each relative to the row's largest output: how far the output moved when the offset was
    centring_change: float | None = None  # added; how far that move departs from a LayerNorm's (its input
    centring_departure: float | None = None  # rounded as it was), how far an RMSNorm's (which keeps the mean)
    uncentred_change: float | None = None  # departs from a LayerNorm's, and the most rounding allows the first
    centring_bound: float | None = None
    divisor: float | None = None  # k measured from the big row
    eps_rows: int = 0  # ladder rows where ε shows
    spread_inside: float | None = None  # how much 1/s² − v varies over those rows
    spread_added: float | None = None  # how much 1/s − √v varies
    offset_change: dict = field(default_factory=dict)  # input type -> (type computed in, offset, change or problem)
    constant_row: str = ""  # what a row of equal values gave: "zeros", "NaN or infinity" or the problem
    gamma_kind: str = "none"  # "per feature", "scalar" or "none"
    affine_undone: bool = False  # γ or β were not 1 or 0 and were divided out before measuring
    torch_difference: float | None = None  # largest relative difference from F.layer_norm(ε = 1e-5)
    output_dtypes: tuple = ()
    computes_in: str = "float64"  # the precision its arithmetic was judged in
    why_that_type: str = ""  # "its output is float32", "it rounds its input to float32", "its residuals …" or ""
    shape_misfit: float | None = None  # worst row: how far the output is from a stretched centred row
    row_shift: float | None = None  # worst row: how far its output's mean is from 0 (centring norms)
    scale_change: float | None = None  # how far the output moved when a row was made 1000 times wider
    prediction_misfit: float | None = None  # how far the conventions found are from its output on the matrix
    zero_row: str = ""  # what a row of zeros gave
    smallest_variance: float | None = None  # the smallest variance on the ε ladder
    match_tolerance: float = MATCH_TOLERANCE
    eps_tolerance: float = EPS_MATCH  # relative: how close ε must be to a known default to be called it
    # the determinism and state probes (helpers.forensics.behaviour)
    noise_floor: float = 0.0  # largest change between two calls on the same matrix, relative (0: identical)
    reorder_change: float | None = None  # the same rows in reverse order: how far from the reversed output
    repeat_change: float | None = None  # the first matrix again, after another call: how far it moved
    end_change: float | None = None  # the first matrix once more, after every probe
    # the ±row probe (helpers.forensics.affine)
    gamma_source: str = "none"  # "parameters" (read and confirmed), "measured" or "none"
    gamma_measured: tuple = ()  # γ per feature as the ±row probe sees it (up to one overall scale)
    beta_measured: tuple = ()  # β per feature, measured
    zero_gamma_columns: tuple = ()  # features (from 1) whose γ is 0: their output is β alone
    shift: float | None = None  # the same β on every feature, not a parameter: a constant shift
    scale_known: bool = True  # γ's overall size is known (read from it, or the same on every feature)
    parameters_ignored: bool = False  # it has γ or β attributes that its output does not follow
    precisions_tried: tuple = ()
    precision_known: bool = True  # its residuals fit the precision shown (not hidden by noise, not unclear)
    eps_readings: tuple = ()
    eps_bounds: tuple = ()
    spread_noise: float = 0.0  # below this the ε-ladder's spreads are the noise of a β or of its output  # no ε shows: it is under these (inside the root, added to the std)  # (divisor words, ε) when the output's overall size hides the divisor  # every precision it was judged in, finest first


@dataclass(frozen=True, repr=False)
class Fingerprint:
    """Which LayerNorm ``fn`` computes, measured by :func:`helpers.forensics.fingerprints.fingerprint`.
    ``None`` means not measurable (cannot tell)."""

    name: str
    centres: bool | None
    variance: str | None  # "biased" (÷ n), "unbiased" (÷ n − 1), "unclear" or "cannot tell"
    eps_placement: str | None  # "inside sqrt", "added to std", "none" or "unclear"
    eps: float | None  # 0.0 when none; None when it cannot be told
    axis: str | None  # "rows", "columns" or "neither"
    one_pass: bool | None
    matches_torch: bool | None  # None: cannot tell (a convention it depends on could not be measured)
    differences: list
    gamma: str = "none"  # "per feature", "scalar" or "none"
    problem: str | None = None  # why fn could not be fingerprinted (an exception, NaN, wrong shape, time)
    measured: Measurements = Measurements()
    is_layer_norm: bool | None = None  # False: no γ·LayerNorm + β at any precision fits; None: cannot tell
    not_layer_norm_because: str = (
        ""  # "shape", "shift", "scale", "prediction"; "state", "between" or "centring" (cannot tell)
    )
    factor: float = 1.0  # a constant its output is multiplied by (2 · LayerNorm: 2), not a parameter
    machine_eps: bool = False  # ε is the machine ε of the input type (nn.RMSNorm with eps=None)

    def __str__(self) -> str:
        return views.text(self)  # registered by helpers.forensics.display

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)
