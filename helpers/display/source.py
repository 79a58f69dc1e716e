"""A function's source as a notebook shows it: lines kept whole, in a box that scrolls sideways.

``print(inspect.getsource(f))`` puts the code in JupyterLab's plain-text output, which wraps a long line
anywhere, even inside a word or a name ("divi|de"), on a laptop's narrow output. :func:`show_source` keeps
every line whole (``white-space:pre``) in the scrolling box every wide table uses, with the line above it
that says so when the code is wider than a laptop's output. Its text form is the source itself.
"""

from __future__ import annotations

import html
import inspect

from helpers.display.formatting import CHARACTER_PX, NARROWEST_OUTPUT_PX, scroll_box, text_width

# Inline, so it wins over JupyterLab's "pre { white-space: pre-wrap; word-break: break-all; overflow-x: auto }"
# for outputs: the lines stay whole and the box around scrolls (it takes the focus), not the pre.
CODE_CSS = (
    "white-space:pre;word-break:normal;overflow:visible;margin:0;padding:4px 0;"
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px"
)


class SourceView:
    """Source code shown whole: ``str`` is the code, ``_repr_html_`` the code in a sideways-scrolling box."""

    def __init__(self, code: str, name: str = "code"):
        self.code, self.name = code.rstrip("\n"), name

    def __repr__(self) -> str:
        return self.code

    __str__ = __repr__

    def _repr_html_(self) -> str:
        widest = max((text_width(line) for line in self.code.splitlines()), default=0)
        hint = "⇆ On a narrow screen this code scrolls sideways." if widest * CHARACTER_PX > NARROWEST_OUTPUT_PX else ""
        return scroll_box(f'<pre style="{CODE_CSS}">{html.escape(self.code)}</pre>', self.name, hint)


def show_source(obj) -> SourceView:
    """The source of a function or class, every line whole (a long one scrolls sideways instead of breaking
    inside a word). Introduced in notebook 04."""
    return SourceView(inspect.getsource(obj), f"the source of {getattr(obj, '__qualname__', 'the code')}")
