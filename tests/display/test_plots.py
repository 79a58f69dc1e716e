"""helpers.plots: each picture has the expected artists at the expected places, and its numbers as text.

Expected positions are computed with plain numpy (here and in tests/conftest.py). Uses matplotlib's
Agg backend (no display).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
# Headless, for this test process only: setting MPLBACKEND instead would leak into the notebook
# kernels that nbval starts later in the same run, and their figures would silently vanish.
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Circle, Rectangle  # noqa: E402

import helpers  # noqa: E402
from helpers import plots  # noqa: E402

from conftest import (
    EPS,  # noqa: E402
    numpy_layer_norm,  # noqa: E402
)
from conftest import LESSON_X as X  # noqa: E402

pytestmark = pytest.mark.draws  # most render a figure: `run.py test --fast` leaves them out

OKABE_ITO = {"#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#000000"}


def bars_by_gid(ax, gid):
    return [a for a in ax.get_children() if isinstance(a, Rectangle) and a.get_gid() == gid]


def artist_by_gid(ax, gid):
    found = [a for a in ax.get_children() if a.get_gid() == gid]
    assert found, f"no artist with gid {gid!r}"
    return found[0]


def assert_labelled(ax):
    assert ax.get_title() or ax.figure.get_suptitle()
    assert ax.get_xlabel() and ax.get_ylabel()


@pytest.mark.parametrize("row", range(5))
def test_number_line_marks_the_mean_and_one_std_either_side(row):
    x = X[row]
    record = helpers.layer_norm_steps(x)
    figure = plots.number_line(record)
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    mean, std = x.mean(), np.sqrt(x.var() + EPS)
    mean_line = artist_by_gid(ax, "mean")
    np.testing.assert_allclose(mean_line.get_xdata(), [mean, mean], atol=1e-12)
    assert mean_line.get_label() == "mean μ" and f"{mean:.4f}" in ax.get_title()
    (band,) = [p for p in ax.patches if p.get_label().startswith("mean ± 1 std")]
    edges = [band.get_x(), band.get_x() + band.get_width()] if isinstance(band, Rectangle) else band.get_xy()[:, 0]
    np.testing.assert_allclose([min(edges), max(edges)], [mean - std, mean + std], atol=1e-12)
    dashed = sorted(float(line.get_xdata()[0]) for line in ax.lines if line.get_linestyle() == "--")
    np.testing.assert_allclose(dashed, [mean - std, mean + std], atol=1e-12)
    values = artist_by_gid(ax, "values")
    np.testing.assert_allclose(values.get_xdata(), x)
    annotations = sorted(t.get_text() for t in ax.texts)
    assert annotations == sorted(f"x{j + 1} = {x[j]:.3f}" for j in range(3))
    assert f"{std:.4f}" in ax.get_title()
    assert_labelled(ax)
    text = plots.number_line_text(record)
    assert f"{mean:.4f}" in text and f"{std:.4f}" in text and f"{mean + std:.4f}" in text


def label_boxes_and_leader_lines(ax):
    """Each value label's box on screen, and each leader line from a value up to its label, in pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection

    canvas = FigureCanvasAgg(ax.figure)  # a Figure made outside pyplot has no canvas of its own
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [text.get_window_extent(renderer) for text in ax.texts]
    leaders = [
        ax.transData.transform(segment)
        for collection in ax.collections
        if isinstance(collection, LineCollection)
        for segment in collection.get_segments()
    ]
    return boxes, leaders


@pytest.mark.parametrize("row", range(5))
def test_number_line_labels_cross_no_line_and_no_other_label(row):
    """The matplotlib figure; the row editor's SVG is tested in tests/display/test_number_line_svg.py."""
    record = helpers.layer_norm_steps(X[row])
    ax = plots.number_line(record).axes[0]
    mean, std = X[row].mean(), np.sqrt(X[row].var() + EPS)
    boxes, leaders = label_boxes_and_leader_lines(ax)
    assert len(boxes) == len(leaders) == 3
    vertical_lines = [ax.transData.transform((x, 0))[0] for x in (mean - std, mean, mean + std)]
    for k, box in enumerate(boxes):
        assert ax.bbox.x0 <= box.x0 and box.x1 <= ax.bbox.x1, "a label sticks out of the plot"
        assert not any(box.x0 < x < box.x1 for x in vertical_lines), f"{ax.texts[k].get_text()} crosses a line"
        assert not any(box.overlaps(other) for other in boxes[k + 1 :]), "two labels overlap"
        for (x, bottom), (_, top) in leaders:
            assert not (box.x0 < x < box.x1 and bottom < box.y1 and box.y0 < top), "a leader line crosses a label"


def test_number_line_draws_into_a_given_axes():
    figure, ax = plt.subplots()
    returned = plots.number_line(helpers.layer_norm_steps(X[0]), ax=ax)
    assert returned is figure and ax.get_title()


def test_number_line_of_a_long_row_has_no_value_labels():
    row = np.random.default_rng(1).normal(size=768)
    figure = plots.number_line(helpers.layer_norm_steps(row))
    ax = figure.axes[0]
    assert not ax.texts
    np.testing.assert_allclose(artist_by_gid(ax, "mean").get_xdata()[0], row.mean())


def test_before_after_bars_are_the_input_and_the_output():
    record = helpers.layer_norm_steps(X[0])
    figure = plots.before_after(record)
    ax = figure.axes[0]
    before = [bar.get_height() for bar in bars_by_gid(ax, "before")]
    after = [bar.get_height() for bar in bars_by_gid(ax, "after")]
    np.testing.assert_allclose(before, X[0])
    np.testing.assert_allclose(after, numpy_layer_norm(X[0]), atol=1e-12)
    labels = [t.get_text() for t in ax.texts]
    assert "1.133" in labels and f"{numpy_layer_norm(X[0])[1]:.3f}" in labels
    assert f"{X[0].mean():.4f}" in ax.get_title()
    assert_labelled(ax)
    text = plots.before_after_text(record)
    assert all(f"{v:.4f}" in text for v in numpy_layer_norm(X[0]))


def test_before_after_names_sigma_and_the_root_with_eps_apart():
    """Issue 10: the title must not call σ (no ε) "std" while the text uses √(σ² + ε) (row 5: 0.0585 vs 0.0586)."""
    record = helpers.layer_norm_steps(X[4])
    figure = plots.before_after(record)
    title = figure.axes[0].get_title()
    sigma, root = float(np.std(X[4])), math.sqrt(float(np.var(X[4])) + EPS)
    assert f"{sigma:.4f}" != f"{root:.4f}"  # the two really differ at the places shown
    assert "std" not in title and f"σ (no ε) {sigma:.4f}" in title and f"√(σ² + ε) = {root:.4f}" in title
    text = plots.before_after_text(record)
    assert f"σ (spread without ε) {sigma:.4f}" in text and f"√(σ² + ε) = {root:.4f}" in text


def test_before_after_of_the_matrix_has_one_panel_per_row():
    figure = plots.before_after(X, numpy_layer_norm(X))
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert len(panels) == 5
    for i, ax in enumerate(panels):
        np.testing.assert_allclose(
            [b.get_height() for b in bars_by_gid(ax, "after")], numpy_layer_norm(X[i]), atol=1e-12
        )
        assert ax.get_title().startswith(f"row {i + 1}")
    assert "row 5" in plots.before_after_text(X)
    # the second argument may still be an axes, as in before_after(record, ax)
    _, ax = plt.subplots()
    assert plots.before_after(helpers.layer_norm_steps(X[1]), ax) is ax.figure
    with pytest.raises(ValueError, match="One axes shows one row"):
        plots.before_after(X, ax=ax)


@pytest.mark.parametrize("row", [[0.01, 0.02, 0.03], [100.0, 300.0, -50.0], [-1.0, -1.0, 2.0]])
def test_before_after_keeps_every_bar_of_either_side_inside_its_panel(row):
    """The bars before and after share one scale, which must hold both: a row of small values is normalised
    to about ±1.2, bars much taller than the input's."""
    for figure in (plots.before_after(helpers.layer_norm_steps(row)), plots.before_after([row, row[::-1]])):
        for ax in (ax for ax in figure.axes if ax.get_visible() and bars_by_gid(ax, "before")):
            low, high = ax.get_ylim()
            heights = [bar.get_height() for gid in ("before", "after") for bar in bars_by_gid(ax, gid)]
            assert all(low < height < high for height in heights), (row, (low, high), heights)
        plt.close(figure)


def test_a_heatmap_writes_its_values_white_on_the_dark_cells_of_either_sign():
    """A cell is dark at either end of the diverging colour scale: white text wherever |value| is over 0.6 of
    the panel's largest |value|, black elsewhere, for negative values as for positive ones."""
    x = np.array([[-3.0, 0.5, 2.5], [-2.0, -1.0, 3.0]])
    figure = plots.matrix_heatmaps(x)
    panels = [ax for ax in figure.axes if ax.images]
    assert len(panels) == 2
    for ax, values in zip(panels, (x, numpy_layer_norm(x))):
        limit = np.max(np.abs(values))
        assert len(ax.texts) == values.size
        for text in ax.texts:
            column, row = (round(v) for v in text.get_position())
            value = values[row, column]
            expected = "white" if abs(value) > 0.6 * limit else "black"
            assert text.get_color() == expected, (ax.get_title(), row, column, value, text.get_color())
    assert any(t.get_color() == "white" and float(t.get_text()) < 0 for t in panels[0].texts)  # the case at issue
    plt.close(figure)


def test_matrix_heatmaps_show_the_matrix_in_and_out_with_every_value_written():
    figure = plots.matrix_heatmaps(X)
    images = [ax for ax in figure.axes if ax.images]
    assert len(images) == 2
    np.testing.assert_allclose(images[0].images[0].get_array(), X)
    np.testing.assert_allclose(images[1].images[0].get_array(), numpy_layer_norm(X), atol=1e-12)
    for ax, values in zip(images, (X, numpy_layer_norm(X))):
        assert sorted(t.get_text() for t in ax.texts) == sorted(f"{v:.3f}" for v in values.ravel())
        assert_labelled(ax)
        assert ax.images[0].get_cmap().name == plots.HEATMAP_COLOURS
    text = plots.matrix_heatmaps_text(X)
    assert all(f"{v:.4f}" in text for v in numpy_layer_norm(X).ravel())


def test_matrix_heatmaps_name_rows_and_features_as_their_text_twin_does():
    """Each heatmap's ticks name its rows and features the way the text tables beside it do (row 1 is the first
    token, as everywhere in the series), one tick at the centre of each row and column of cells."""
    figure = plots.matrix_heatmaps(X)
    text = plots.matrix_heatmaps_text(X)
    twin_rows = [line.split()[0] + " " + line.split()[1] for line in text.splitlines() if line.startswith("row ")]
    twin_features = text.splitlines()[1].split()[: X.shape[1]]
    for ax in (ax for ax in figure.axes if ax.images):
        rows = [label.get_text() for label in ax.get_yticklabels()]
        assert rows == twin_rows == [f"row {i}" for i in range(1, X.shape[0] + 1)]
        assert [label.get_text() for label in ax.get_xticklabels()] == twin_features
        assert list(ax.get_yticks()) == list(range(X.shape[0])) and list(ax.get_xticks()) == list(range(X.shape[1]))


def test_matrix_heatmaps_compare_another_table():
    published = helpers.load_published_output()
    figure = plots.matrix_heatmaps(X, published, titles=("X", "published"))
    assert figure.axes[1].get_title() == "published" or any(ax.get_title() == "published" for ax in figure.axes)
    np.testing.assert_allclose([ax for ax in figure.axes if ax.images][1].images[0].get_array(), published)


def test_normalised_circle_for_three_features():
    figure = plots.normalised_circle(X)
    ax = figure.axes[0]
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    assert len(circles) == 1
    assert circles[0].get_radius() == pytest.approx(math.sqrt(3)) and circles[0].center == (0, 0)
    y = numpy_layer_norm(X)
    u = np.array([1, -1, 0]) / math.sqrt(2)
    v = np.array([1, 1, -2]) / math.sqrt(6)
    for i in range(5):
        point = artist_by_gid(ax, f"row {i + 1}")
        np.testing.assert_allclose([point.get_xdata()[0], point.get_ydata()[0]], [y[i] @ u, y[i] @ v], atol=1e-12)
        # on the circle of radius √(3·var/(var+eps)): slightly inside √3, most visibly for row 5
        variance = X[i].var()
        assert math.hypot(point.get_xdata()[0], point.get_ydata()[0]) == pytest.approx(
            math.sqrt(3 * variance / (variance + EPS)), abs=1e-12
        )
    assert sorted(t.get_text() for t in ax.texts if t.get_text().startswith("row")) == [f"row {i}" for i in range(1, 6)]
    assert ax.get_aspect() == 1.0
    assert "√3" in ax.get_title()
    assert_labelled(ax)
    text = plots.normalised_circle_text(X)
    assert f"{math.sqrt(3 * X[4].var() / (X[4].var() + EPS)):.4f}" in text  # row 5: 1.7295
    with pytest.raises(ValueError, match="exactly 3 features"):
        plots.normalised_circle(np.ones((2, 4)))


def test_normalised_circle_can_add_other_points_such_as_the_published_table():
    published = helpers.load_published_output()
    figure = plots.normalised_circle(X, extra_points=published, extra_label="published")
    ax = figure.axes[0]
    u = np.array([1, -1, 0]) / math.sqrt(2)
    v = np.array([1, 1, -2]) / math.sqrt(6)
    for i, row in enumerate(published):  # drawn as they are, not normalised
        cross = artist_by_gid(ax, f"published {i + 1}")
        np.testing.assert_allclose([cross.get_xdata()[0], cross.get_ydata()[0]], [row @ u, row @ v], atol=1e-12)
        assert cross.get_marker() == "X" and to_hex(cross.get_markeredgecolor()) == plots.ROW_COLOURS[i].lower()
    assert sorted(t.get_text() for t in ax.texts if t.get_text().startswith("published")) == [
        f"published {i}" for i in range(1, 6)
    ]
    assert "published rows" in [text.get_text() for text in ax.get_legend().get_texts()]
    text = plots.normalised_circle_text(X, extra_points=published, extra_label="published")
    assert "published 1" in text and f"{np.linalg.norm(published[0]):.4f}" in text  # 2.0700: outside the circle
    with pytest.raises(ValueError, match="exactly 3 features"):
        plots.normalised_circle(X, extra_points=np.ones((2, 4)))


def test_plane_coordinates_keep_lengths_of_points_in_the_plane():
    y = numpy_layer_norm(X)
    np.testing.assert_allclose(np.linalg.norm(plots.plane_coordinates(y), axis=1), np.linalg.norm(y, axis=1))


def test_colours_are_okabe_ito():
    greys = {"#999999", "#bbbbbb", "#777777"}  # axis guides, not data
    figures = [
        plots.number_line(helpers.layer_norm_steps(X[0])),
        plots.before_after(helpers.layer_norm_steps(X[0])),
        plots.normalised_circle(X),
    ]
    for figure in figures:
        ax = figure.axes[0]
        colours = {to_hex(line.get_color()) for line in ax.lines}
        colours |= {to_hex(patch.get_facecolor()) for patch in ax.patches if patch.get_fill()}
        colours |= {to_hex(patch.get_edgecolor()) for patch in ax.patches if isinstance(patch, Circle)}
        assert colours - greys <= OKABE_ITO, colours - greys - OKABE_ITO
        assert len(colours - greys) >= 2


def test_plot_functions_never_call_matplotlib_use():
    import inspect

    assert "matplotlib.use" not in inspect.getsource(plots)


def test_heatmap_of_a_two_place_table_shows_two_places():
    """Issue 10: the published table has 2 places; its heatmap and text twin must not print 1.400."""
    from conftest import PUBLISHED_OUTPUT

    figure = plots.matrix_heatmaps(numpy_layer_norm(X), PUBLISHED_OUTPUT)
    true_panel, published_panel = [ax for ax in figure.axes if ax.images]
    assert sorted(t.get_text() for t in published_panel.texts) == sorted(f"{v:.2f}" for v in PUBLISHED_OUTPUT.flat)
    assert sorted(t.get_text() for t in true_panel.texts) == sorted(f"{v:.3f}" for v in numpy_layer_norm(X).flat)
    text = plots.matrix_heatmaps_text(numpy_layer_norm(X), PUBLISHED_OUTPUT)
    assert "1.40" in text and "1.400" not in text and "-1.52 " in text.replace("\n", " ") + " "
    assert plots.places_in([1.5, 2.25]) == 2 and plots.places_in([1 / 3]) == 4 and plots.places_in([2.0]) == 1


def test_number_line_has_a_sentence_for_a_screen_reader():
    record = helpers.layer_norm_steps(X[4])
    mean, root = float(np.mean(X[4])), math.sqrt(float(np.var(X[4])) + EPS)
    sentence = plots.number_line_alt(record)
    assert f"mean μ {mean:.4f}" in sentence and f"√(σ² + ε) = {root:.4f}" in sentence
    assert f"from {mean - root:.4f} to {mean + root:.4f}" in sentence
    inside = int(np.sum(np.abs(X[4] - mean) <= root))
    assert f"holding {inside} of 3 values" in sentence
    long = helpers.layer_norm_steps(np.linspace(-1, 2, 768))
    assert "768 values from -1.0000 to 2.0000" in plots.number_line_alt(long)


def _text_boxes(figure):
    """Every annotation's and the legend's box on the drawn figure, in pixels, with a name."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    (ax,) = figure.axes
    from matplotlib.text import Text

    # Text's own extent: an Annotation's would include its leader line, which may pass near another label
    boxes = [(text.get_text(), Text.get_window_extent(text, renderer)) for text in ax.texts]
    return boxes + [("legend", ax.get_legend().get_window_extent(renderer))]


@pytest.mark.parametrize(("published", "size"), [(False, None), (True, None), (False, 5.4)])
def test_circle_labels_and_legend_never_cover_each_other(published, size):
    """The lesson's circle (07; also drawn 5.4 in wide, smaller) and the one with the published rows
    (07): no label sits under the legend or under another label, so every label can be read."""
    from helpers.core.data import load_published_output

    extra = load_published_output() if published else None
    ax = plt.subplots(figsize=(size, size))[1] if size else None
    figure = plots.normalised_circle(X, extra_points=extra, extra_label="published", ax=ax)
    boxes = _text_boxes(figure)
    clashes = [(a, b) for k, (a, box_a) in enumerate(boxes) for b, box_b in boxes[k + 1 :] if box_a.overlaps(box_b)]
    plt.close(figure)
    assert not clashes, f"labels on top of each other: {clashes}"


# ---------------------------------------------------------------------------------------------
# The circle drawn for the room (the lecture's slide): a vector picture sized in the page's em


def _svg_numbers(path_d: str) -> np.ndarray:
    import re

    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path_d)]).reshape(-1, 2)


@pytest.fixture(scope="module")
def room_circle():
    """The room's circle of the lesson's matrix, drawn once for the tests that read its SVG."""
    return plots.normalised_circle_for_the_room(X)


def test_room_circle_is_svg_whose_smallest_text_is_one_em_of_the_page(room_circle):
    import re

    room = room_circle
    svg = room.svg
    sizes = [float(s) for s in re.findall(r"font-size: ([0-9.]+)px !important", svg)]
    assert len(sizes) == len(re.findall(r"<text\b", svg)) >= 15, "every text is text, and keeps its size on a page"
    assert not re.search(r"font-size: [0-9.]+px(?! !important)", svg), "a text the page's style sheet could resize"
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg).groups())
    width_em = float(re.search(r"width: ([0-9.]+)em", svg).group(1))
    height_em = float(re.search(r"height: ([0-9.]+)em", svg).group(1))
    # one em of the page is min(sizes) units of the picture: its smallest text is the page's text size
    assert width / width_em == pytest.approx(min(sizes), rel=1e-3) and height / height_em == pytest.approx(
        min(sizes), rel=1e-3
    )
    assert max(sizes) == min(sizes) == plots.ROOM_TEXT
    assert width_em <= 26 and height_em <= 17, "the picture fits under a slide's heading and two lines"
    assert "<metadata>" not in svg and "<?xml" not in svg and room._repr_html_().count("<svg") == 1
    assert repr(room) == plots.normalised_circle_text(X)  # where only text is shown
    assert "row 5 at distance 1.7295 from 0" in room.description and room.description in html_unescape(svg)


def test_a_room_picture_with_texts_of_two_sizes_takes_its_em_from_the_smaller():
    import re

    from helpers.plots.room import room_svg, smallest_text

    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="225pt" height="112.5pt" viewBox="0 0 300 150">'
        '<text style="font-size: 30px">title</text><text style="font-size: 12px">tick</text>'
        '<text style="font-size: 18px">label</text></svg>'
    )
    assert smallest_text(svg) == 12.0
    sized = room_svg(svg, "three words")
    assert re.search(r"width: ([0-9.]+)em", sized)[1] == "25.0000"  # 300 units at 12 units to the em
    assert re.search(r"height: ([0-9.]+)em", sized)[1] == "12.5000"


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_room_circle_places_each_row_where_numpy_puts_it_on_a_round_circle(room_circle):
    import re

    svg = room_circle.svg
    circle = _svg_numbers(re.search(r'<g id="[^"]*-circle">\s*<path d="([^"]+)"', svg).group(1))
    (left, top), (right, bottom) = circle.min(axis=0), circle.max(axis=0)
    assert right - left == pytest.approx(bottom - top, rel=1e-6), "the circle is not round"
    centre, pixels_per_unit = np.array([(left + right) / 2, (top + bottom) / 2]), (right - left) / (2 * math.sqrt(3))
    y = numpy_layer_norm(X)
    u, v = np.array([1, -1, 0]) / math.sqrt(2), np.array([1, 1, -2]) / math.sqrt(6)
    for i in range(5):
        drawn = re.search(rf'<g id="[^"]*-row-{i + 1}">.*?<use [^>]*x="([0-9.-]+)" y="([0-9.-]+)"', svg, re.S)
        at = (np.array([float(drawn.group(1)), float(drawn.group(2))]) - centre) / pixels_per_unit
        np.testing.assert_allclose([at[0], -at[1]], [y[i] @ u, y[i] @ v], atol=1e-5)  # SVG's y points down


def test_room_circle_labels_clear_each_other_and_the_points():
    """At the room's size a label is big beside the circle: none may sit on another, on a point or on
    the circle (where every point is)."""
    from matplotlib.figure import Figure

    width, height = plots.ROOM_SIZE_EM
    figure = Figure(figsize=(width * plots.ROOM_TEXT / 72, height * plots.ROOM_TEXT / 72), layout="constrained")
    ax = figure.subplots()
    plots.normalised_circle(X, ax=ax, text_size=plots.ROOM_TEXT)
    figure.draw_without_rendering()
    renderer = figure._get_renderer()
    from matplotlib.text import Text

    boxes = [(text.get_text(), Text.get_window_extent(text, renderer)) for text in ax.texts]
    clashes = [(a, b) for k, (a, box_a) in enumerate(boxes) for b, box_b in boxes[k + 1 :] if box_a.overlaps(box_b)]
    assert not clashes, f"labels on top of each other: {clashes}"
    centre = ax.transData.transform((0, 0))
    radius = ax.transData.transform((math.sqrt(3), 0))[0] - centre[0]
    for name, box in boxes:
        nearest = math.hypot(
            max(box.x0 - centre[0], 0, centre[0] - box.x1), max(box.y0 - centre[1], 0, centre[1] - box.y1)
        )
        if name.startswith(("row", "√3")):
            assert nearest > radius * 1.05, f"{name} lies on the circle or its points"
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1), f"{name} is cut by the frame"
    assert {name for name, _ in boxes} >= {f"row {i}" for i in range(1, 6)} | {"√3 ≈ 1.732", "f1 +", "f3 +"}
    assert not ax.get_title() and {t.get_fontsize() for t in ax.texts} == {plots.ROOM_TEXT}


def test_circle_text_says_a_row_of_equal_values_lies_at_the_centre():
    """Issue 20: "every row lies on the circle" is false for a row of equal values (it normalises to 0)."""
    text = plots.normalised_circle_text(np.array([X[0], [2.0, 2.0, 2.0]]))
    assert "but for row 2 of equal values, at 0:" in text
    assert "row 2   0.0000   0.0000   0.0000  0.0000           0.0000" in text
    assert "equal values" not in plots.normalised_circle_text(X)  # notebook 07's stored text stays as it is


def _markers(ax) -> dict[str, np.ndarray]:
    """Every row's point and every extra cross, by gid, in data units."""
    return {
        line.get_gid(): np.array([line.get_xdata()[0], line.get_ydata()[0]], dtype=float)
        for line in ax.lines
        if line.get_gid() and (line.get_gid().startswith("row ") or line.get_gid().startswith("published "))
    }


@pytest.mark.parametrize(
    "seed", [None, 0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]
)
def test_each_extra_label_sits_nearer_its_own_cross_than_any_other_marker(seed):
    """07's √3 circle: "published 3" must read as the label of the published-3 cross (issue 33)."""
    x, published = X, helpers.load_published_output()
    if seed is not None:  # other tables: the published rows scattered at random
        published = published + np.random.default_rng(seed).normal(scale=0.3, size=published.shape)
    ax = plots.normalised_circle(x, extra_points=published, extra_label="published").axes[0]
    markers = _markers(ax)
    labels = [t for t in ax.texts if t.get_text().startswith("published ")]
    assert len(labels) == len(published)
    for label in labels:
        own = markers[label.get_text()]
        np.testing.assert_allclose(label.xy, own)  # its leader line ends at its own cross
        at = np.asarray(label.xyann, dtype=float)
        mine = float(np.linalg.norm(at - own))
        for name, point in markers.items():
            if name != label.get_text() and float(np.linalg.norm(point - own)) > 0.25:  # not on the cross itself
                assert float(np.linalg.norm(at - point)) > mine, f"{label.get_text()} sits nearer {name}"


PRINTED_WIDTH = 72  # JupyterLab at 1024×768 with the file browser open: a longer printed line breaks mid-word


@pytest.mark.parametrize(
    "printed",
    [
        lambda: plots.number_line_text(helpers.layer_norm_steps(X[0])),
        lambda: plots.number_line_text(helpers.layer_norm_steps(np.array([1e150, 2e150, 3.5e150]))),
        lambda: plots.before_after_text(helpers.layer_norm_steps(X[4])),
        lambda: plots.before_after_text(helpers.layer_norm_steps(X[0], gamma=[2.0, 1.0, 3.0], beta=[0.5, 0, -1])),
        lambda: plots.before_after_text(X),
        lambda: plots.normalised_circle_text(X, extra_points=helpers.load_published_output(), extra_label="published"),
        lambda: plots.normalised_circle_text(np.vstack([X, [[1.0, 1.0, 1.0]]])),
        lambda: plots.matrix_heatmaps_text(X),
    ],
)
def test_printed_pictures_fit_a_laptop_line_so_no_word_is_broken(printed):
    from helpers.display import text_width

    for line in printed().splitlines():
        assert text_width(line) <= PRINTED_WIDTH, line


def test_the_number_lines_ticks_follow_the_shared_number_rule():
    huge = plots.number_line(helpers.layer_norm_steps(np.array([1e150, 2e150, 3.5e150])))
    huge.canvas.draw()
    ticks = [t.get_text() for t in huge.axes[0].get_xticklabels() if t.get_text()]
    assert ticks and all(t == "0" or re.fullmatch(r"-?\d\.\de\+1(49|50)", t) for t in ticks), ticks
    assert not huge.axes[0].xaxis.get_offset_text().get_text()  # no "1e150" alone in a corner
    plain = plots.number_line(helpers.layer_norm_steps(X[0]))
    plain.canvas.draw()
    assert "0.50" in [t.get_text() for t in plain.axes[0].get_xticklabels()]


def test_before_after_writes_every_value_of_a_row_of_up_to_twelve_features():
    """Every value is written on its bar up to LABEL_AT_MOST (12) features; past that, none is."""
    for n, written in ((12, 24), (13, 0)):
        row = np.linspace(-1.5, 2.0, n) ** 3
        ax = plots.before_after(row).axes[0]
        assert len(ax.texts) == written, n
        plt.close(ax.figure)


def test_before_after_text_names_every_feature_of_a_row_of_ten():
    """Up to 10 features are all listed, each with its own value; only a longer row is cut with "…"."""
    row = np.arange(1.0, 11.0)
    lines = plots.before_after_text(row).splitlines()
    features = [line.split()[0] for line in lines if re.fullmatch(r"f\d+", line.split()[0])]
    assert features == [f"f{j}" for j in range(1, 11)]
    assert any(line.split()[:2] == ["f10", "10.0000"] for line in lines)
