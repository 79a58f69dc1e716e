"""The ±row probe: γ and β measured column by column, so that they can be divided out before judging.

A LayerNorm (and an RMSNorm) is odd: the row −r comes out as minus the output of r, whatever its divisor,
its ε or where ε goes. So for y = γ·LayerNorm(x) + β, feature by feature,

    β = (y(r) + y(−r)) / 2        and        γ · s = (y(r) − y(−r)) / (2·r),

with s the row's one scale. A row r of ±1 and 2 (mean 0, exact in every type) gives β and γ's shape; only
γ's overall size stays unknown (it is the same as a change of the divisor and of ε). That size is
taken from the function's own γ parameter when it has one and the probe confirms it, or is 1 when γ
is the same on every feature (a constant factor then shows as the divisor, as before). A feature
whose γ is 0 gives β alone and is left out of every later check. If ``fn`` is not an affine map of a
LayerNorm, what this finds does not divide its output into one, and the later checks say so.

Used by :mod:`helpers.forensics.fingerprints`. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.tolerance import PROBE_NOISE
from helpers.forensics.call import BETA_NAMES, GAMMA_NAMES, parameter

KEEP = 0.1  # features whose |γ| is under this share of the largest are left out of the checks


@dataclass(frozen=True)
class Affine:
    """γ and β as found: what to divide out, and where they came from."""

    kind: str = "none"  # "per feature", "scalar" or "none"
    source: str = "none"  # "parameters" (read, and the probe agrees), "measured" or "none"
    gamma: np.ndarray | None = None  # per feature, to divide by (None: 1); 0 for the features left out
    beta: np.ndarray | None = None  # per feature, to subtract (None: 0)
    measured_gamma: tuple = ()  # γ · s as the probe saw it, per feature
    measured_beta: tuple = ()
    scale_known: bool = True  # γ's overall size is known
    parameters_ignored: bool = False  # it has γ or β attributes its output does not follow
    constant_output: bool = False  # every feature's γ is 0: the output does not depend on the input
    beta_error: float = 0.0  # how far off the β taken away may be (the rounding of y(r) and y(−r))

    @property
    def keep(self) -> np.ndarray | None:
        """The features whose output carries the LayerNorm well enough to judge it: γ ≠ 0, and at least a tenth
        of the largest |γ| (dividing by a tiny γ would magnify the output's rounding); None: all of them."""
        if self.gamma is None:
            return None
        size = np.abs(self.gamma)
        return size >= KEEP * size.max()

    @property
    def magnified(self) -> float:
        """How much dividing γ out magnifies rounding, at most: 1 / the smallest |γ| kept (in output units)."""
        if self.gamma is None:
            return 1.0
        kept = np.abs(self.gamma[self.keep])
        return float(1.0 / kept.min()) if kept.size and kept.min() > 0 else 1.0

    @property
    def zero_columns(self) -> tuple:
        return () if self.gamma is None else tuple(int(j) + 1 for j in np.flatnonzero(self.gamma == 0))

    @property
    def shift(self) -> float | None:
        """β the same on every feature and not read from a parameter: a constant shift of the output."""
        if self.source == "parameters" or self.beta is None or not np.all(self.beta == self.beta[0]):
            return None
        return float(self.beta[0])

    @property
    def undone(self) -> bool:
        return self.gamma is not None or self.beta is not None

    def divide_out(self, y: np.ndarray) -> np.ndarray:
        """(y − β) / γ, feature by feature; NaN in the features left out (γ = 0)."""
        z = y if self.beta is None else y - self.beta
        if self.gamma is None:
            return z
        with np.errstate(all="ignore"):
            return np.where(self.gamma != 0, z / np.where(self.gamma != 0, self.gamma, 1.0), np.nan)


def odd_row(n: int) -> np.ndarray:
    """A row of mean 0 with no zero, of ±1 and 2 (exact in every type): 1, −1, 1, −1 … or 2, −1, −1, 1, −1 …"""
    if n % 2 == 0:
        return np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    row = np.where(np.arange(n) % 2 == 0, -1.0, 1.0)
    if n >= 3:
        row[:3] = (2.0, -1.0, -1.0)
    return row


def _spread(values: np.ndarray) -> float:
    middle = np.median(np.abs(values))
    return float((values.max() - values.min()) / middle) if middle > 0 else np.inf


def measure(along_raw, fn, n: int, noise: float) -> Affine:
    """γ and β of ``along_raw`` (the function seen row by row, γ and β still in), from r and −r."""
    r = odd_row(n)
    y = along_raw(np.vstack([r, -r]))
    if not np.all(np.isfinite(y)):
        return Affine()
    beta = (y[0] + y[1]) / 2
    slope = (y[0] - y[1]) / (2 * r)
    size = float(np.max(np.abs(slope)))
    tolerance = max(PROBE_NOISE, 4 * noise)  # r and −r give β exactly, but for the rounding of y
    scale = max(size, float(np.max(np.abs(y))), 1e-300)
    beta = np.where(np.abs(beta) <= tolerance * scale, 0.0, beta)
    found = dict(
        measured_gamma=tuple(float(v) for v in slope),
        measured_beta=tuple(float(v) for v in beta),
        beta_error=0.0 if np.all(beta == 0) else 4 * noise * scale,
    )
    if size == 0:
        return Affine(constant_output=True, **found)
    zero = np.abs(slope) <= max(PROBE_NOISE, 4 * noise) * size  # a γ of 0 gives β exactly
    beta_out = None if np.all(beta == 0) else beta
    read = _read_parameters(fn, n, slope, beta, zero, tolerance, scale)
    if read is not None:
        kind, gamma, beta_param = read
        ones = np.all(gamma == 1) and np.all(beta_param == 0)
        return Affine(
            kind,
            "parameters",
            None if ones else gamma,
            None if ones else beta_param,
            scale_known=True,
            **found,
        )
    ignored = parameter(fn, GAMMA_NAMES) is not None or parameter(fn, BETA_NAMES) is not None
    others = slope[~zero]
    if _spread(others) <= max(PROBE_NOISE, 8 * noise) and np.all(np.sign(others) == np.sign(others[0])):
        gamma = None if not zero.any() else np.where(zero, 0.0, 1.0)  # the same γ on every feature it uses
        kind = "per feature" if zero.any() else "none"
        return Affine(
            kind, "measured" if kind != "none" else "none", gamma, beta_out, parameters_ignored=ignored, **found
        )
    middle = float(np.sqrt(np.mean(others**2))) * (1.0 if np.median(others) >= 0 else -1.0)
    gamma = np.where(zero, 0.0, slope / middle)
    return Affine("per feature", "measured", gamma, beta_out, scale_known=False, parameters_ignored=ignored, **found)


def _read_parameters(fn, n, slope, beta, zero, tolerance, scale):
    """(kind, γ, β) from ``fn``'s own parameters when the ±row probe agrees with them; else None."""
    gamma = parameter(fn, GAMMA_NAMES)
    if gamma is None or gamma.size not in (1, n):
        return None
    kind = "scalar" if gamma.size == 1 else "per feature"
    gamma = np.broadcast_to(gamma.reshape(-1), (n,)).astype(np.float64)
    beta_param = parameter(fn, BETA_NAMES)
    beta_param = np.zeros(n) if beta_param is None or beta_param.size not in (1, n) else beta_param
    beta_param = np.broadcast_to(beta_param.reshape(-1), (n,)).astype(np.float64)
    if np.any((gamma == 0) != zero) or np.any(np.abs(beta_param - beta) > tolerance * scale):
        return None
    used = ~zero
    if used.any():
        ratio = slope[used] / gamma[used]
        if _spread(ratio) > tolerance:
            return None
    return kind, gamma, beta_param
