"""Is this LayerNorm? (notebook 13): fingerprint a function or a printed table by probing it.

``fingerprints`` runs the probes and puts one Fingerprint (``record``) together: first ``behaviour``
(deterministic? keeps state?), the edit probe for the axis and ``affine`` (γ and β from r and −r), then
``judge`` in each precision worth trying; ``probes`` (the arithmetic), ``precision`` (each type's
rounding) and ``words`` (the verdicts' sentences) are below them; ``call`` calls the function with a
time limit and ``isolate`` runs the whole fingerprint in a child process where fork is safe; ``table``
explains a printed table; ``gallery`` and ``orientations`` are the notebook's cases; ``fingerprint_view``
and ``display`` show all of them as text and HTML on ``helpers.display``'s one table model (``sizes``
says relative sizes in words), registered as their views.
"""

from helpers.forensics.fingerprints import Fingerprint, Measurements, departures, fingerprint, torch_layer_norm
from helpers.forensics.words import TORCH_EPS

# isort: split
from helpers.forensics import display as _display  # noqa: F401  registers the records' views

__all__ = ["TORCH_EPS", "Fingerprint", "Measurements", "departures", "fingerprint", "torch_layer_norm"]
