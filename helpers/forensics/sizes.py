"""Relative sizes said in words a student reads: "2.5 millionths of the row's size", "about 3,200 times".

Used by the fingerprint's words and its table (never "3.2e+03"). Pure Python.
"""

from __future__ import annotations

import math

from helpers.core.tolerance import PROBE_NOISE

NOISE = PROBE_NOISE  # below this, a measured change is rounding noise
_SMALL = ((1e-12, "trillionth"), (1e-9, "billionth"), (1e-6, "millionth"), (1e-3, "thousandth"))
_PARTS = {
    1e-12: "a trillionth",
    1e-11: "a hundred-billionth",
    1e-10: "a ten-billionth",
    1e-9: "a billionth",
    1e-8: "a hundred-millionth",
    1e-7: "a ten-millionth",
    1e-6: "a millionth",
    1e-5: "a hundred-thousandth",
    1e-4: "a ten-thousandth",
    1e-3: "a thousandth",
    1e-2: "a hundredth",
    1e-1: "a tenth",
}
_LARGE = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def size_words(value, noise: float = NOISE, whole: str = "the row's size") -> str:
    """A relative size in words: 'nothing beyond rounding', '2.5 millionths of …', '0.26 of …', 'about 3,200 times …'."""
    if value is None:
        return "—"
    if math.isnan(value) or math.isinf(value):
        return "NaN or infinity"
    if value < noise:
        under = _PARTS.get(noise, f"{noise:g}")
        return f"nothing beyond rounding (under {under} of {whole})"
    if 0.95 <= value < 1.05:
        return f"about as much as {whole}"
    if value >= 1:
        for k, (unit, word) in enumerate(_LARGE):
            if value >= unit:
                shown = float(f"{value / unit:.2g}")
                if shown >= 1000 and k > 0:  # 999.6 million is about 1 billion, not 1e+03 million
                    (unit, word), shown = _LARGE[k - 1], float(f"{value / _LARGE[k - 1][0]:.2g}")
                amount = f"{shown:,.0f}" if shown >= 10 else f"{shown:g}"  # 3,300 trillion, never 3.3e+03
                return f"about {amount} {word} times {whole}"
        return (
            f"about {float(f'{value:.2g}'):,.0f} times {whole}" if value >= 10 else f"about {value:.2g} times {whole}"
        )
    if value >= 0.01:
        return f"{value:.2g} of {whole}"
    for unit, word in _SMALL:
        shown = float(f"{value / unit:.2g}")  # 2 significant digits: 999.6 billionths is 1000 of them
        if shown < 1000:  # else the next unit says it (1 millionth, not 1000 billionths)
            amount = f"{shown:g}"  # never 5e+02
            if 0 < shown < 1e-4:  # under a ten-thousandth of a trillionth: 0.00005, never 5e-05
                amount = f"{shown:.{1 - math.floor(math.log10(shown))}f}".rstrip("0")
            return f"{amount} {word}{'' if amount == '1' else 's'} of {whole}"
    return f"{value:.2g} of {whole}"


def factor_text(factor: float) -> str:
    """A constant factor with the digits that show how far it is from 1: 2, −1, 1.000002."""
    digits = 4 if abs(abs(factor) - 1) >= 1e-3 else 8
    return f"{factor:.{digits}g}".replace("-", "−")
