"""helpers.plots' before/after bars and matrix heatmaps, as a learner reads them: the words and numbers drawn,
where each bar, point and label sits, what lies inside the frame, and the text twins exactly.

Expected numbers are computed here with numpy (and the lesson's tables from tests/conftest.py), never read
back from the code under test. Uses matplotlib's Agg backend (no display).
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # headless for this test process only (see test_plots.py)

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import helpers  # noqa: E402
from helpers import plots  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from conftest import PUBLISHED_OUTPUT, numpy_layer_norm  # noqa: E402

pytestmark = pytest.mark.draws  # each renders a figure: `run.py test --fast` leaves them out

BLUE, ORANGE = "#0072b2", "#e69f00"  # Okabe–Ito: before, after


def bars(ax, gid):
    return [a for a in ax.get_children() if isinstance(a, Rectangle) and a.get_gid() == gid]


def line(ax, gid):
    (found,) = [a for a in ax.lines if a.get_gid() == gid]
    return found


def layer_norm_eps(x, eps):
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    mean = x.mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)


def spread_line(before, after, sigma_words):
    return (
        f"mean {np.mean(before):.4f} → {abs(np.mean(after)):.4f}, {sigma_words} "
        f"{np.std(before):.4f} → {np.std(after):.4f}"
    )


def visible_texts(figure):
    """Every text drawn in the figure that a learner sees, with its box on screen in pixels."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    found = []
    for ax in (ax for ax in figure.axes if ax.get_visible()):
        low, high = sorted(ax.get_xlim())
        bottom, top = sorted(ax.get_ylim())
        ticks = [t for t, x in zip(ax.get_xticklabels(), ax.get_xticks()) if low <= x <= high]
        ticks += [t for t, y in zip(ax.get_yticklabels(), ax.get_yticks()) if bottom <= y <= top]
        for text in [*ax.texts, ax.title, ax.xaxis.label, ax.yaxis.label, *ticks]:
            if text.get_text() and text.get_visible():
                found.append((text.get_text(), text.get_window_extent(renderer)))
    if figure.get_suptitle():
        found.append((figure.get_suptitle(), figure._suptitle.get_window_extent(renderer)))
    return found


def assert_inside_and_apart(figure, apart):
    """Every text inside the figure; those named by ``apart(name)`` cover no other text."""
    texts = visible_texts(figure)
    frame = figure.bbox
    for name, box in texts:
        assert frame.x0 - 0.5 <= box.x0 and box.x1 <= frame.x1 + 0.5, f"{name!r} cut by the figure's side"
        assert frame.y0 - 0.5 <= box.y0 and box.y1 <= frame.y1 + 0.5, f"{name!r} cut by the figure's top or foot"
    for k, (name, box) in enumerate(texts):
        for other, other_box in texts[k + 1 :]:
            if apart(name) or apart(other):
                assert not box.overlaps(other_box), f"{name!r} covers {other!r}"


# ---------------------------------------------------------------------------------------------
# before_after_text: the numbers as text


def test_before_after_text_of_a_record_reads_line_by_line():
    record = helpers.layer_norm_steps(X[0])
    y = numpy_layer_norm(X[0])
    root = np.sqrt(np.var(X[0]) + 1e-5)
    expected = [
        spread_line(X[0], y, "σ (spread without ε)"),
        f"LayerNorm divided by √(σ² + ε) = {root:.4f}",
        "feature  before x  after y",
    ] + [f"{f'f{j + 1}':<7}  {X[0][j]:>8.4f}  {y[j]:>7.4f}" for j in range(3)]
    assert plots.before_after_text(record) == "\n".join(expected)


def test_before_after_text_of_a_plain_row_has_no_divided_by_line():
    y = numpy_layer_norm(X[1])
    expected = [spread_line(X[1], y, "σ (spread without ε)"), "feature  before x  after y"]
    expected += [f"{f'f{j + 1}':<7}  {X[1][j]:>8.4f}  {y[j]:>7.4f}" for j in range(3)]
    assert plots.before_after_text(X[1]) == "\n".join(expected)


def test_before_after_text_of_a_matrix_has_one_block_per_row_a_blank_line_apart():
    y = numpy_layer_norm(X[:2])
    blocks = [
        "\n".join(
            [f"row {i + 1}", spread_line(X[i], y[i], "σ (spread without ε)"), "feature  before x  after y"]
            + [f"{f'f{j + 1}':<7}  {X[i][j]:>8.4f}  {y[i][j]:>7.4f}" for j in range(3)]
        )
        for i in range(2)
    ]
    assert plots.before_after_text(X[:2]) == "\n\n".join(blocks)


@pytest.mark.parametrize("n", [11, 12, 40])
def test_before_after_text_of_a_long_row_names_the_three_features_at_either_end(n):
    """Past 10 features the text keeps f1, f2, f3, …, and the last three, each beside its own values."""
    row = np.linspace(-2.0, 3.0, n) ** 2
    y = numpy_layer_norm(row)
    lines = plots.before_after_text(row).splitlines()[2:]
    shown = [0, 1, 2, None, n - 3, n - 2, n - 1]
    assert len(lines) == len(shown)
    for text, j in zip(lines, shown):
        if j is None:
            assert text.split() == ["…", "…", "…"]
        else:
            assert text.split() == [f"f{j + 1}", f"{row[j]:.4f}", f"{y[j]:.4f}"]


def test_before_after_text_and_bars_show_the_output_given_and_the_eps_given():
    """``y`` is shown as given (here the lesson's published row 1); without it, LayerNorm with the ``eps``
    given (a large one, so that it shows in the 4th place)."""
    row, published = X[0], PUBLISHED_OUTPUT[0]
    ax = plots.before_after(row, published).axes[0]
    np.testing.assert_allclose([b.get_height() for b in bars(ax, "after")], published)
    text = plots.before_after_text(row, published)
    assert [line.split()[2] for line in text.splitlines()[2:]] == [f"{v:.4f}" for v in published]
    eps = 0.5
    expected = layer_norm_eps(row, eps)[0]
    ax = plots.before_after(row, eps=eps).axes[0]
    np.testing.assert_allclose([b.get_height() for b in bars(ax, "after")], expected, atol=1e-12)
    text = plots.before_after_text(row, eps=eps)
    assert [line.split()[2] for line in text.splitlines()[2:]] == [f"{v:.4f}" for v in expected]
    assert f"σ (spread without ε) {np.std(row):.4f} → {np.std(expected):.4f}" in text


def test_before_after_refuses_an_output_of_another_shape():
    for draw in (plots.before_after, plots.before_after_text):
        with pytest.raises(ValueError, match=r"same shape \(rows × features\); got \(1, 3\) and \(1, 2\)"):
            draw(X[0], [1.0, -1.0])


# ---------------------------------------------------------------------------------------------
# before_after: the picture


def test_before_after_titles_give_each_rows_spread_and_the_picture_its_name():
    record = helpers.layer_norm_steps(X[4])
    y = numpy_layer_norm(X[4])
    figure = plots.before_after(record)
    root = np.sqrt(np.var(X[4]) + 1e-5)
    assert figure.axes[0].get_title() == (
        spread_line(X[4], y, "σ (no ε)") + f"\nLayerNorm divided by √(σ² + ε) = {root:.4f}"
    )
    assert figure.get_suptitle() == "Before and after LayerNorm, feature by feature"
    figure = plots.before_after(X[4])  # a plain row: nothing divided, no second line
    assert figure.axes[0].get_title() == spread_line(X[4], y, "σ (no ε)")
    assert figure.get_suptitle() == "Before and after LayerNorm, feature by feature"
    y = numpy_layer_norm(X[:2])
    figure = plots.before_after(X[:2])
    assert [ax.get_title() for ax in figure.axes if ax.get_visible()] == [
        f"row {i + 1}\n" + spread_line(X[i], y[i], "σ (no ε)") for i in range(2)
    ]
    assert figure.get_suptitle() == "Before and after LayerNorm, feature by feature (σ: spread without ε)"


def test_before_after_into_a_given_axes_leaves_the_figures_own_title_alone():
    figure, ax = plt.subplots()
    figure.suptitle("my own figure")
    plots.before_after(helpers.layer_norm_steps(X[0]), ax=ax)
    assert figure.get_suptitle() == "my own figure"


def test_before_after_of_two_rows_refuses_one_axes():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="One axes shows one row; this has 2 rows"):
        plots.before_after(X[:2], ax=ax)


@pytest.mark.parametrize("n", [3, 12, 20])
def test_before_after_bars_stand_side_by_side_at_their_features_tick(n):
    """Feature j's two bars stand at the tick "fj": before (blue) left of it, after (orange, hatched, so that
    colour is not the only difference) right of it, neither reaching into the next feature's place."""
    row = np.linspace(-1.0, 2.0, n) ** 3
    ax = plots.before_after(row).axes[0]
    ticks = list(ax.get_xticks())
    assert ticks == list(range(1, n + 1))
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"f{j}" for j in range(1, n + 1)]
    before, after = bars(ax, "before"), bars(ax, "after")
    np.testing.assert_allclose([b.get_height() for b in before], row)
    np.testing.assert_allclose([b.get_height() for b in after], numpy_layer_norm(row), atol=1e-12)
    for j, left, right in zip(ticks, before, after):
        assert j - 0.5 < left.get_x() < left.get_x() + left.get_width() <= j + 1e-9
        assert j - 1e-9 <= right.get_x() < right.get_x() + right.get_width() < j + 0.5
        assert to_hex(left.get_facecolor()) == BLUE and to_hex(right.get_facecolor()) == ORANGE
        assert right.get_hatch() and not left.get_hatch()
    assert ax.get_xlabel() == "feature" and ax.get_ylabel() == "value"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["before: x", "after: y = LayerNorm(x)"]
    (zero,) = [ln for ln in ax.lines if to_hex(ln.get_color()) == "#000000"]
    assert list(zero.get_ydata()) == [0, 0]


def test_before_after_of_a_long_row_draws_points_at_each_feature():
    """A long row (40 features) as points instead of bars: before as blue circles, after as orange triangles (two
    shapes, not only two colours), each at its feature's number and value, not joined by a line."""
    row = np.random.default_rng(3).normal(2.0, 3.0, size=40)
    ax = plots.before_after(row).axes[0]
    features = np.arange(1, 41)
    before, after = line(ax, "before"), line(ax, "after")
    np.testing.assert_allclose(before.get_xydata(), np.column_stack([features, row]))
    np.testing.assert_allclose(after.get_xydata(), np.column_stack([features, numpy_layer_norm(row)]), atol=1e-12)
    for points, colour in ((before, BLUE), (after, ORANGE)):
        assert points.get_linestyle() == "None", "values of separate features joined by a line"
        assert points.get_marker() not in (None, "None", "none", "", " ")
        assert to_hex(points.get_color()) == colour
    assert before.get_marker() != after.get_marker()
    assert not bars(ax, "before") and not ax.texts
    assert ax.get_xlabel() == "feature" and ax.get_ylabel() == "value"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["before: x", "after: y = LayerNorm(x)"]


@pytest.mark.parametrize(
    "row, y",
    [
        (X[0], None),
        ([0.01, 0.02, 0.03], None),
        ([100.0, 300.0, -50.0], None),
        ([0.01, 0.02, 0.03], [0.002, -0.001, -0.001]),  # a small output given
    ],
)
def test_before_after_centres_zero_and_fills_the_panel_with_the_tallest_bar(row, y):
    """0 in the middle of the panel, so that a value and its negative reach equally far; the tallest bar
    takes most of its half, and every value label stays inside the frame."""
    ax = plots.before_after(row, y).axes[0]
    low, high = ax.get_ylim()
    tallest = max(abs(b.get_height()) for gid in ("before", "after") for b in bars(ax, gid))
    assert low == pytest.approx(-high) and 0.6 * high < tallest < high
    ax.figure.canvas.draw()
    for text in ax.texts:
        box = text.get_window_extent(ax.figure.canvas.get_renderer())
        assert ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1, f"{text.get_text()} cut by the frame"


@pytest.mark.parametrize("data", ["record", "row", "two rows", "five rows"])
def test_before_after_texts_stay_inside_the_figure_and_titles_cover_nothing(data):
    made = {
        "record": lambda: plots.before_after(helpers.layer_norm_steps(X[3])),
        "row": lambda: plots.before_after(X[3]),
        "two rows": lambda: plots.before_after(X[:2]),
        "five rows": lambda: plots.before_after(X),
    }
    figure = made[data]()
    assert_inside_and_apart(figure, lambda name: name.startswith(("mean", "row ", "Before")))


# ---------------------------------------------------------------------------------------------
# matrix_heatmaps and matrix_heatmaps_text


def heatmaps(figure):
    return [ax for ax in figure.axes if ax.images]


def test_heatmaps_colour_zero_in_the_middle_of_a_scale_as_long_either_way():
    """A diverging scale: 0 the neutral middle colour, ±(largest |value|) its two ends, in each panel."""
    x = np.array([[-3.0, 0.5, 2.5], [-2.0, -1.0, 1.0]])
    figure = plots.matrix_heatmaps(x)
    for ax, values in zip(heatmaps(figure), (x, numpy_layer_norm(x))):
        limit = np.max(np.abs(values))
        norm = ax.images[0].norm
        assert (norm.vmin, norm.vmax) == pytest.approx((-limit, limit))


def test_heatmaps_are_two_panels_side_by_side_each_with_a_value_colour_bar():
    figure = plots.matrix_heatmaps(X)
    left, right = heatmaps(figure)
    bars_ = [ax for ax in figure.axes if not ax.images]
    assert len(figure.axes) == 4 and len(bars_) == 2
    assert [ax.get_ylabel() for ax in bars_] == ["value", "value"]
    assert left.get_position().x1 <= right.get_position().x0, "the output stands right of the input"
    for ax in (left, right):
        assert ax.get_xlabel() == "feature" and ax.get_ylabel() == "row (token)"
    assert [left.get_title(), right.get_title()] == ["input X", "LayerNorm(X)"]


@pytest.mark.parametrize("shape", [(5, 3), (2, 6), (12, 12)])
def test_heatmap_labels_sit_centred_in_their_own_cells(shape):
    """Every cell (up to 12 × 12) has its value written at its centre and inside it."""
    x = np.round(np.random.default_rng(sum(shape)).normal(size=shape) * 3, 3)
    x[0, 0] = -10.125 if shape[1] < 12 else -3.125  # the longest label that fits 12 columns
    figure = plots.matrix_heatmaps(x)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for ax in heatmaps(figure):
        assert len(ax.texts) == x.size
        for text in ax.texts:
            column, row = text.get_position()
            (x0, y0), (x1, y1) = ax.transData.transform([(column - 0.5, row - 0.5), (column + 0.5, row + 0.5)])
            cell = sorted((x0, x1)), sorted((y0, y1))
            box = text.get_window_extent(renderer)
            assert cell[0][0] < box.x0 and box.x1 < cell[0][1], f"{text.get_text()} wider than its cell"
            assert cell[1][0] < box.y0 and box.y1 < cell[1][1], f"{text.get_text()} taller than its cell"
            centre = ax.transData.transform((column, row))
            assert (box.x0 + box.x1) / 2 == pytest.approx(centre[0], abs=1.0)
            assert (box.y0 + box.y1) / 2 == pytest.approx(centre[1], abs=2.0)
    assert_inside_and_apart(figure, lambda name: name in ("input X", "LayerNorm(X)", "feature", "row (token)"))


def test_heatmaps_and_their_text_use_the_eps_given():
    eps = 0.5
    expected = layer_norm_eps(X, eps)
    figure = plots.matrix_heatmaps(X, eps=eps)
    np.testing.assert_allclose(heatmaps(figure)[1].images[0].get_array(), expected, atol=1e-12)
    lines = plots.matrix_heatmaps_text(X, eps=eps).splitlines()
    assert [line.split()[7:] for line in lines[2:]] == [[f"{v:.4f}" for v in row] for row in expected]


def test_heatmaps_text_puts_the_input_left_with_its_own_places_and_the_output_right():
    """Each table under its own title; the input written with the places it was given (3 for the lesson's X)."""
    lines = plots.matrix_heatmaps_text(X, titles=("X in", "LN out")).splitlines()
    assert lines[0].split() == ["X", "in", "LN", "out"] and lines[0].index("LN out") > lines[1].index("f3")
    assert lines[1].split() == ["f1", "f2", "f3", "f1", "f2", "f3"]
    y = numpy_layer_norm(X)
    for i, text in enumerate(lines[2:]):
        assert text.split() == (
            ["row", f"{i + 1}", *(f"{v:.3f}" for v in X[i]), "row", f"{i + 1}", *(f"{v:.4f}" for v in y[i])]
        ), text
    assert len(lines) == 2 + len(X)
    # the output given is shown as given, with the places it was given
    lines = plots.matrix_heatmaps_text(X, PUBLISHED_OUTPUT).splitlines()
    assert [line.split()[-3:] for line in lines[2:]] == [[f"{v:.2f}" for v in row] for row in PUBLISHED_OUTPUT]


def test_a_table_of_large_values_keeps_the_places_it_was_given():
    """Values far from zero (the lesson's X shifted by 10⁵, say) given with 2 places are shown with 2, not
    rounded to 1 (100000.25 is not 100000.2) nor padded to 3."""
    x = np.array([[98765.43, 277088.84, -99999.97], [100000.25, 100001.13, 99998.51]])
    assert plots.places_in(x) == 2
    # float32 (a torch tensor's numbers, say) keeps them too: its rounding noise is not a further place
    assert plots.places_in(x.astype(np.float32)) == 2 and plots.places_in(X.astype(np.float32)) == 3
    figure = plots.matrix_heatmaps(x)
    assert sorted(t.get_text() for t in heatmaps(figure)[0].texts) == sorted(f"{v:.2f}" for v in x.ravel())
    lines = plots.matrix_heatmaps_text(x).splitlines()
    assert [line.split()[2:5] for line in lines[2:]] == [[f"{v:.2f}" for v in row] for row in x]


@pytest.mark.parametrize("row", [[1.0, 2.0, 3.0], [-1.0, -1.0, 2.0], [0.01, 0.02, 0.03], [3.0, -3.0, 3.0], X[0]])
def test_before_after_legend_covers_no_bar_and_no_value(row):
    """A row whose last value is its largest has its tallest bar, and that bar's value, in the upper right."""
    for figure in (plots.before_after(row), plots.before_after([row, row])):
        ax = figure.axes[0]
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        covered = [a for a in [*ax.patches, *ax.texts] if a.get_window_extent(renderer).overlaps(legend)]
        assert not covered, [getattr(a, "get_text", a.get_label)() for a in covered]
        plt.close(figure)
