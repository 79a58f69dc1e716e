"""Numbers as text: fixed places, never ``-0.000``, long rows elided, widths on screen; the shared styles."""

from __future__ import annotations

import html
import math
import unicodedata

import numpy as np

DEFAULT_PLACES = 4
ELIDE_OVER = 10  # show every value up to this many, else the first and last EDGE_ITEMS
EDGE_ITEMS = 3
ELLIPSIS = "…"

# Each stage of a row: a short name a learner reads, its formula as text, and as HTML.
STAGE_LABELS = {
    "input": ("input", "x", "x"),
    "mean": ("mean", "μ = (x₁ + … + xₙ) / n", "&mu; = (x<sub>1</sub> + &hellip; + x<sub>n</sub>) / n"),
    "differences": ("differences", "x − μ", "x &minus; &mu;"),
    "squared_differences": ("squares", "(x − μ)²", "(x &minus; &mu;)<sup>2</sup>"),
    "variance": ("variance", "σ² = Σ(x − μ)² / n", "&sigma;<sup>2</sup> = &Sigma;(x &minus; &mu;)<sup>2</sup> / n"),
    "eps": ("epsilon", "ε", "&epsilon;"),
    "variance_plus_eps": ("variance + ε", "σ² + ε", "&sigma;<sup>2</sup> + &epsilon;"),
    "std": ("std", "√(σ² + ε)", "&radic;(&sigma;<sup>2</sup> + &epsilon;)"),
    "normalised": (
        "normalised",
        "x̂ = (x − μ) / √(σ² + ε)",
        "x&#770; = (x &minus; &mu;) / &radic;(&sigma;<sup>2</sup> + &epsilon;)",
    ),
    "gamma": ("gamma", "γ (scale, per feature)", "&gamma; (scale, per feature)"),
    "beta": ("beta", "β (shift, per feature)", "&beta; (shift, per feature)"),
    "output": ("output", "y = γ · x̂ + β", "y = &gamma; &middot; x&#770; + &beta;"),
}

TABLE_CSS = "border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px"
CELL_CSS = "padding:2px 10px;border-bottom:1px solid #ddd"
NUMBER_CELL_CSS = CELL_CSS + ";text-align:right"
FLAG_STYLE = "background:#fdf0d5"  # pale orange, paired with a text marker for colour-blind readers
HIGHLIGHT_STYLE = "background:#dbe9f6"


def scroll_box(inner: str, name: str, hint: str = "") -> str:
    """``inner`` (a table) in a box that scrolls sideways when it is wider than its cell: a laptop with
    JupyterLab's file browser open leaves about 590 px, and nothing is cut off or wrapped.

    A box that scrolls must be reachable without a mouse (axe-core's rule scrollable-region-focusable):
    ``tabindex="0"`` lets Tab reach it and the arrow keys scroll it, and a screen reader announces it as a
    region called ``name`` ("… table, scrolls sideways"), so the extra Tab stop says what it is.
    ``data-lm-suppress-shortcuts`` keeps JupyterLab from taking the arrow keys (to move between cells)
    while the box has the focus.
    """
    label = html.escape(f"{name or 'table'}, scrolls sideways")
    return scroll_hint_html(hint) + (
        f'<div class="layernorm-scroll" role="region" tabindex="0" aria-label="{label}" '
        f'data-lm-suppress-shortcuts="true" style="overflow-x:auto;max-width:100%">{inner}</div>'
    )


# A table wider than this may be cut by the right edge of a notebook's output: JupyterLab at 1024×768 with the
# file browser open gives an output 572 px wide. The box then scrolls, and a scrollbar alone (hidden until used
# on many laptops) does not tell a learner that a result is out of sight: a line above the table says it.
NARROWEST_OUTPUT_PX = 570
CHARACTER_PX = 7.9  # one character of the tables' 13 px monospace font (DejaVu Sans Mono, Menlo: 7.8 px)


def scroll_hint_html(hint: str) -> str:
    """The visible line above a table that may scroll sideways ("" for none)."""
    if not hint:
        return ""
    return (
        f'<div class="layernorm-scroll-hint" style="font-size:12px;color:#444;margin:2px 0">{html.escape(hint)}</div>'
    )


def scroll_hint(width_px: float, last: str = "", pinned: bool = False) -> str:
    """The words above a table about ``width_px`` wide: "" when it fits the narrowest output, else a sentence
    naming the last column (what is out of sight when the table is cut), or saying that it stays in sight
    when it is pinned to the right edge."""
    if width_px <= NARROWEST_OUTPUT_PX:
        return ""
    if pinned and last:
        return f"⇆ On a narrow screen this table scrolls sideways; its last column, “{last}”, stays in sight."
    tail = f" to its last column, “{last}”" if last else ""
    return f"⇆ On a narrow screen this table scrolls sideways{tail}."


def text_width(text: str) -> int:
    """How many columns ``text`` takes on screen (combining accents, as in x̂, take none)."""
    return sum(0 if unicodedata.combining(ch) else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` screen columns."""
    return text + " " * max(0, width - text_width(text))


# The one rule every view writes a number by (tables, status lines, equations, plot labels). Fixed places,
# unless fixed places would lie or run off the edge; then scientific notation with the places asked for (1 to
# DEFAULT_PLACES) after the point:
# - more significant digits than a float64 holds (MOST_DIGITS): 1e200 is not a 201-digit integer;
# - more places than a line can hold (MOST_PLACES): a row of 1e-300s asks places_for for 302 places.
MOST_DIGITS = 15  # a float64 holds 15 significant decimal digits reliably
MOST_PLACES = 12


def format_number(value: float, places: int = DEFAULT_PLACES) -> str:
    """A number with exactly ``places`` decimals; never ``-0.000``; ``nan``/``inf`` spelled out; scientific
    (``1.0000e+200``, ``1.0000e-300``) where fixed places would show digits a float64 does not hold or
    more places than MOST_PLACES."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and _needs_scientific(value, places):
        return scientific(value, max(1, min(places, DEFAULT_PLACES)))
    text = f"{value:.{places}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text


def _needs_scientific(value: float, places: int) -> bool:
    digits_before_point = math.floor(math.log10(abs(value))) + 1
    return digits_before_point + places > MOST_DIGITS or places > MOST_PLACES


def scientific(value: float, decimals: int = DEFAULT_PLACES) -> str:
    """``value`` as ``1.2346e+200``: ``decimals`` digits after the point, never ``-0``."""
    text = f"{float(value):.{decimals}e}"
    return text.lstrip("-") if float(text) == 0.0 else text


SIGNIFICANT_DIGITS = 3  # values much smaller than the display step show this many significant digits


def places_for(values, places: int = DEFAULT_PLACES) -> int:
    """``places``, or more when some value is non-zero but every value would show as 0.0000 (the largest is
    under half a unit in the last place): then enough places for the largest to show ``SIGNIFICANT_DIGITS`` significant digits (0.000000667); more than MOST_PLACES
    makes :func:`format_number` write them in scientific notation (1.0000e-300)."""
    flat = np.abs(np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel())
    largest = float(flat.max()) if flat.size else 0.0
    if largest == 0.0 or not math.isfinite(largest) or largest >= 0.5 * 10.0**-places:
        return places
    return SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(largest))


def and_list(items) -> str:
    """Items as a sentence lists them: "3", "3 and 5", "3, 5 and 128"."""
    items = [str(item) for item in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def counted(count: int, word: str) -> str:
    """A count and its word, singular for exactly one: "1 place", "0 places", "4 places"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def format_eps(eps: float) -> str:
    """eps as people write it: ``1e-05``, ``0.001``, ``0``."""
    return f"{float(eps):g}"


def format_values(values, places: int = DEFAULT_PLACES) -> list[str]:
    """Each value formatted; more than ``ELIDE_OVER`` values keep only both ends around ``…``."""
    flat = np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel()
    if flat.size > ELIDE_OVER:
        return (
            [format_number(v, places) for v in flat[:EDGE_ITEMS]]
            + [ELLIPSIS]
            + [format_number(v, places) for v in flat[-EDGE_ITEMS:]]
        )
    return [format_number(v, places) for v in flat]


def format_row(values, places: int = DEFAULT_PLACES, width: int | None = None) -> str:
    """A row of numbers on one line, right-aligned in columns: ``1.1330  -0.2990   0.5030``."""
    cells = format_values(values, places)
    width = width or max(len(cell) for cell in cells)
    return "  ".join(cell.rjust(width) for cell in cells)


def rjust(text: str, width: int) -> str:
    return " " * max(0, width - text_width(text)) + text
