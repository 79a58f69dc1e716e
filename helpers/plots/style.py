"""What every picture here shares: the Okabe–Ito colours, each row's colour and marker, a new Figure."""

from __future__ import annotations

# Okabe & Ito (2008), "Color Universal Design": distinguishable with any common colour vision.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
ROW_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
ROW_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
HEATMAP_COLOURS = "PuOr_r"  # purple–orange, diverging around 0, safe for colour-blind readers


def figure_and_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=figsize, layout="constrained")
    return figure, ax
