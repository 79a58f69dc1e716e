"""What every widget here shares: the text-form base class, the never-raise wrapper, messages,
argument checks and the typed-text helpers."""

from __future__ import annotations

import functools
import html
import math
import re

import ipywidgets as widgets
import numpy as np

from helpers.core.data import NotFiniteError, parse_number
from helpers.widgets.accessibility import host_fixes_bundle, needs_host_fixes

# ipywidgets 8 gives a widget's text form through _repr_mimebundle_, 7.x through _ipython_display_.
IPYWIDGETS_8 = hasattr(widgets.Widget, "_repr_mimebundle_")

MAX_VALUE_BOXES = 12  # rows up to this long get one box per value as well as the paste field
EPS_SLIDER_EXPONENTS = (-12, -1)  # the eps slider runs from 1e-12 to 1e-1
MAX_MATRIX_CELLS = 400  # matrix_editor makes one text box per cell
# The stages the step explorer reveals, in order; "output" is the gamma/beta step.
EXPLORER_STAGES = (
    "input",
    "mean",
    "differences",
    "squared_differences",
    "variance",
    "variance_plus_eps",
    "std",
    "normalised",
    "output",
)

MESSAGE_COLOUR = "#a33c00"  # a dark vermillion (Okabe–Ito), always with a ⚠ so colour is not needed
# A field's description label as wide as its words (ipywidgets otherwise cuts it to a fixed width).
LABEL_FITS = {"style": {"description_width": "initial"}}


# ---------------------------------------------------------------------------------------------
# What every widget here shares


class LessonWidget(widgets.VBox):
    """The base of every widget here: a VBox whose plain-text form is its current numbers, not
    ``VBox(children=...)``.

    A subclass defines ``text()``. Notebooks 09 to 13 build small live tables on it (:mod:`helpers.widgets.live`).
    Problems with what was typed are kept in ``_problems`` (field name → plain words) and shown in
    ``message_html``, an HTML widget the subclass places.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._problems: dict[str, str] = {}

    def text(self) -> str:
        raise NotImplementedError

    @property
    def message(self) -> str:
        """The current problems in plain words ("" when there is none)."""
        return " ".join(self._problems.values())

    def _show_problems(self) -> None:
        self.message_html.value = "<br>".join(messages_html(text) for text in self._problems.values())

    def __repr__(self) -> str:
        try:
            return self.text()
        except Exception:  # noqa: BLE001 - still being built: a repr must never fail
            return f"{type(self).__name__}()"

    __str__ = __repr__

    # ipywidgets cuts the text form at 110 characters; publish all of it instead.
    if IPYWIDGETS_8:

        def _repr_mimebundle_(self, **kwargs):
            data = super()._repr_mimebundle_(**kwargs) or {}
            data["text/plain"] = repr(self)
            return data

        def _ipython_display_(self, **kwargs):
            """The widget, then (when it holds a slider or a drop-down) the script that names slider handles
            and keeps the arrow keys in drop-downs: see helpers.widgets.accessibility."""
            from IPython.display import display

            display(self._repr_mimebundle_(**kwargs), raw=True)
            if needs_host_fixes(self):
                display(host_fixes_bundle(), raw=True)

    else:

        def _ipython_display_(self, **kwargs):
            from IPython.display import display

            data = {
                "text/plain": repr(self),
                "application/vnd.jupyter.widget-view+json": {
                    "version_major": 2,
                    "version_minor": 0,
                    "model_id": self._model_id,
                },
            }
            display(data, raw=True)
            self._handle_displayed(**kwargs)


def never_raises(handler):
    """Wrap a widget callback: an unexpected error becomes a message, never a traceback in the notebook."""

    @functools.wraps(handler)
    def run(self, *args, **kwargs):
        try:
            return handler(self, *args, **kwargs)
        except Exception as problem:  # noqa: BLE001 - a callback must not raise into the notebook
            self._problems = {**getattr(self, "_problems", {}), "general": f"Something went wrong: {problem}"}
            try:
                self._show_problems()
            except Exception:  # noqa: BLE001 - not even showing the message may raise
                pass
            return None

    return run


def messages_html(text: str) -> str:
    return f'<span style="color:{MESSAGE_COLOUR}">⚠ {html.escape(text, quote=False)}</span>' if text else ""


def note_html(text: str) -> str:
    """A note beside a field that is not a problem (the value in use is shown): "20 places … using 12"."""
    return f'<span style="color:#333">ℹ {html.escape(text, quote=False)}</span>' if text else ""


def message_lines(problems: dict) -> list[str]:
    if not problems:
        return []
    return [f"⚠ {text}" for text in problems.values()] + ["  (showing the last good result)"]


def as_text(value) -> str:
    """What a person would have typed for ``value``: text as it is, numbers so they read back exactly."""
    if isinstance(value, str):
        return value
    if np.ndim(value) == 0:
        return number_text(value)
    return ", ".join(number_text(v) for v in np.asarray(value, dtype=object).ravel())


def number_text(value) -> str:
    """The shortest text that reads back as exactly ``value``: ``1`` (not ``1.0``), ``0.503``, ``1e-05``."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        text = repr(float(value) + 0.0)  # + 0.0 turns -0.0 into 0.0
        return text[:-2] if text.endswith(".0") else text
    return str(value)


# A decimal comma: digits, one comma, digits, and nothing else that a number has ("0,586", "-1,5"); "1,2,3" and
# "0.5,0.25" cannot be one number, so they are lists.
_DECIMAL_COMMA = re.compile(r"[-+−]?\d+,\d+")


def refuse_decimal_comma(text: str) -> str:
    """``text`` as typed, or a ValueError in one sentence when a value in it is written with a decimal comma.

    Every field of every widget reads "0,586" the same way: as a decimal comma, refused, never as two
    numbers (0 and 586) nor as "not a number". A comma that cannot be a decimal comma ("1,2,3", "0.5,0.25")
    separates values, as a comma and a space, a semicolon or spaces do."""
    for word in re.split(r"[\s;\[\](){}]+", str(text)):
        word = word.strip(",")
        if _DECIMAL_COMMA.fullmatch(word):
            raise ValueError(
                f"'{word}' is written with a decimal comma: write {word.replace(',', '.')} (a point), "
                "or put a space after the comma if these are two values."
            )
    return text


def sentence(text: str) -> str:
    """``text`` ending with one full stop (a message built as "Your answer " + problem may end with its own)."""
    return text if text.endswith(".") else f"{text}."


def number_argument(value, name: str) -> float:
    """A finite number given in code (or as text), or a ValueError naming ``name``."""
    try:
        number = parse_number(value) if isinstance(value, str) else float(value)
    except NotFiniteError:  # "inf", "nan" as text: refused as math.inf and math.nan are
        raise ValueError(f"{name} must be a finite number; got {value!r}.") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    return number
