"""Figures for the room: a matplotlib Figure as a vector picture whose text is the page's text size
wherever it is shown, at every screen size.

A PNG has its text baked in at one size: the lecture's √3 circle came out with 11-14 px text on a page
whose every other text is at least 24 px (and grows with the screen), and 8 px in the offline slides.
:func:`for_the_room` writes the figure as SVG with its text kept as text, and sizes the picture in
``em`` of the page it sits on, so that its smallest text is exactly one ``em``: the page's own text
size, in Voilà at 1280 × 720 or 1920 × 1080, in the reveal.js handout at any zoom, in JupyterLab.
The page's style sheets may set every element's font size (the lecture's and the handout's do, to
keep all text at the room's size); inside the picture that would be a size in the picture's own
units, so each text's size is marked ``!important`` in its own ``style`` attribute, which wins.

:func:`place_labels` moves text labels until none covers another, a point, or a line it is told of:
at the room's size a label is large beside the picture, and fixed offsets no longer clear each other.
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import math
import re

SVG_TEXT_SIZE = re.compile(r"font-size: ?([0-9.]+)px")


class RoomFigure:
    """A figure drawn for the room: shown as inline SVG (text at the page's text size), and as its text
    twin wherever only text is shown (a terminal, a screen reader, nbval)."""

    def __init__(self, svg: str, text: str, description: str):
        self.svg, self.text, self.description = svg, text, description

    def _repr_html_(self) -> str:
        return f'<div class="layernorm-room-figure">{self.svg}</div>'

    def __repr__(self) -> str:
        return self.text


def svg_of(figure) -> str:
    """The figure as SVG, text kept as <text> (so the browser draws it at a size the page can set),
    with no date and fixed ids, so that the same figure always gives the same bytes."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "layernorm"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.04)
    return buffer.getvalue()


def smallest_text(svg: str) -> float:
    """The smallest text size in the SVG, in its own units."""
    sizes = [float(size) for size in SVG_TEXT_SIZE.findall(svg)]
    if not sizes:
        raise ValueError("the figure has no text to size the picture by")
    return min(sizes)


def room_svg(svg: str, description: str) -> str:
    """``svg`` for a page: sized in em so that its smallest text is 1 em of the page (its user units
    scale with the page's text), every text's size kept against the page's style sheets, ids made
    unique to this picture, and the description given to a screen reader."""
    unit = smallest_text(svg)
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg).groups())
    body = svg[svg.index("<svg") :]
    body = re.sub(r"\s*<metadata>.*?</metadata>", "", body, count=1, flags=re.S)
    body = re.sub(r"(font-size: ?[0-9.]+px)(?! !important)", r"\1 !important", body)
    prefix = "f" + hashlib.sha1(body.encode()).hexdigest()[:8] + "-"  # two pictures on a page never share an id
    body = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{_id(m[1])}"', body)
    body = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{_id(m[1])})", body)
    body = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{_id(m[1])}"', body)
    body = body.replace(
        '<style type="text/css">*{', f'<style type="text/css">#{prefix}picture *{{', 1
    )  # not the page's
    width_em, height_em = (math.ceil(length / unit * 1e4) / 1e4 for length in (width, height))  # never a hair under
    size = (
        f'id="{prefix}picture" style="width: {width_em:.4f}em; height: {height_em:.4f}em; max-width: none; '
        'display: block; overflow: visible" role="img" '
        f'aria-label="{html.escape(description, quote=True)}" data-text-unit="{unit:g}"'
    )
    body = re.sub(r'\swidth="[0-9.]+pt" height="[0-9.]+pt"', " " + size, body, count=1)
    return body.strip()


def _id(name: str) -> str:
    """An SVG id without spaces (matplotlib writes a gid such as "row 1" as it is)."""
    return name.replace(" ", "-")


def for_the_room(figure, text: str, description: str | None = None) -> RoomFigure:
    """``figure`` drawn for the room (see the module's docstring); ``text`` is its text twin, and the
    first line of ``text`` (or ``description``) is what a screen reader says for the picture."""
    description = description or " ".join(text.split())
    return RoomFigure(room_svg(svg_of(figure), description), text, description)


# ---------------------------------------------------------------------------------------------
# Labels that clear each other at the room's size


def place_labels(ax, labels, anchors, keep_out_radius: float, obstacles=(), gap: float = 0.8) -> None:
    """Move each annotation in ``labels`` (pointing at ``anchors``, data coordinates) to the place
    nearest its point, outwards along the point's direction or turned a little from it, where its box
    is clear of the circle of ``keep_out_radius`` about (0, 0) (where the points are), of every label
    placed before it and of the texts and boxes in ``obstacles`` by ``gap`` of its own height (so two
    labels never read as one), inside the axes, with its leader line crossing no other label and no
    other leader line (which would swap two labels' points to the eye)."""

    figure = ax.figure
    figure.draw_without_rendering()  # the equal aspect and the layout move the axes when drawn
    renderer = figure._get_renderer()
    to_data = ax.transData.inverted()
    taken = [_data_box(to_data, _box(item, renderer)) for item in obstacles]
    leaders = []
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    for label, (u, v) in zip(labels, anchors):
        box = _data_box(to_data, _box(label, renderer))
        half_w, half_h, margin = box.width / 2, box.height / 2, gap * box.height

        clear = functools.partial(
            _clear,
            anchor=(u, v),
            half=(half_w, half_h),
            margin=margin,
            keep_out_radius=keep_out_radius,
            limits=(x0, x1, y0, y1),
            taken=taken,
            leaders=leaders,
        )
        best = _outwards(u, v, keep_out_radius, clear) or _anywhere(u, v, (x0, x1, y0, y1), clear)
        if best is not None:
            (cx, cy), candidate = best
            label.set_position((cx, cy))
            label.set_horizontalalignment("center")
            label.set_verticalalignment("center")
            taken.append(candidate)
            leaders.append(((u, v), (cx, cy)))


def _clear(cx, cy, *, anchor, half, margin, keep_out_radius, limits, taken, leaders):
    """The label's box centred at (cx, cy) when that place is clear (see place_labels), else None."""
    from matplotlib.transforms import Bbox

    candidate = Bbox.from_extents(cx - half[0], cy - half[1], cx + half[0], cy + half[1])
    x0, x1, y0, y1 = limits
    if _nearest_distance(candidate) < keep_out_radius:
        return None
    if candidate.x0 < x0 or candidate.x1 > x1 or candidate.y0 < y0 or candidate.y1 > y1:
        return None
    padded = candidate.padded(margin)
    if any(padded.overlaps(other) or _crosses(anchor, (cx, cy), other) for other in taken):
        return None
    if any(_segments_cross(anchor, (cx, cy), *leader) for leader in leaders):
        return None
    if _closest_to_origin(anchor, (cx, cy)) < min(keep_out_radius, math.hypot(*anchor)) - 0.05:
        return None  # its leader line would cut across the circle
    return candidate


def _closest_to_origin(start, end) -> float:
    """Distance from (0, 0) to the nearest point of the segment from ``start`` to ``end``."""
    (ax_, ay), (bx, by) = start, end
    length = (bx - ax_) ** 2 + (by - ay) ** 2
    t = 0.0 if length == 0 else max(0.0, min(1.0, -(ax_ * (bx - ax_) + ay * (by - ay)) / length))
    return math.hypot(ax_ + t * (bx - ax_), ay + t * (by - ay))


def _outwards(u, v, keep_out_radius, clear):
    """The nearest clear place outwards from (u, v), along its direction or turned up to 70° from it."""
    angle, best = math.atan2(v, u), None
    for turn in [0.0] + [sign * k * 0.07 for k in range(1, 18) for sign in (1, -1)]:
        for reach in (keep_out_radius + 0.05 * k for k in range(40)):
            cx, cy = reach * math.cos(angle + turn), reach * math.sin(angle + turn)
            candidate = clear(cx, cy)
            if candidate is not None:
                cost = (reach - keep_out_radius) + abs(turn) * keep_out_radius
                if best is None or cost < best[0]:
                    best = (cost, (cx, cy), candidate)
                break
    return best and best[1:]


def _anywhere(u, v, limits, clear, step: float = 0.1):
    """Else the clear place in the axes nearest (u, v), on a grid (slower, so only when needed)."""
    x0, x1, y0, y1 = limits
    places = [
        (x0 + i * step, y0 + j * step) for i in range(int((x1 - x0) / step)) for j in range(int((y1 - y0) / step))
    ]
    for cx, cy in sorted(places, key=lambda place: math.hypot(place[0] - u, place[1] - v)):
        candidate = clear(cx, cy)
        if candidate is not None:
            return (cx, cy), candidate
    return None


def _crosses(start, end, box, samples: int = 24) -> bool:
    """Whether the segment from ``start`` to ``end`` passes through ``box``."""
    return any(
        box.contains(start[0] + (end[0] - start[0]) * t / samples, start[1] + (end[1] - start[1]) * t / samples)
        for t in range(samples + 1)
    )


def _segments_cross(a, b, c, d) -> bool:
    """Whether the segments a–b and c–d cross (each point an (x, y) pair)."""

    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _box(item, renderer):
    from matplotlib.text import Text

    if isinstance(item, Text):  # its own box: an annotation's would include its leader line
        return Text.get_window_extent(item, renderer)
    return item.get_window_extent(renderer)


def _data_box(to_data, box):
    from matplotlib.transforms import Bbox

    return Bbox(to_data.transform(box.get_points()))


def _nearest_distance(box) -> float:
    """Distance from (0, 0) to the nearest point of ``box``."""
    dx = max(box.x0, 0.0, -box.x1)
    dy = max(box.y0, 0.0, -box.y1)
    return math.hypot(dx, dy)
