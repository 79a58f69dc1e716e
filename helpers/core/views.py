"""How a record shows itself without importing the layer that draws it.

A record (``LayerNormSteps``, a published-table check, a fingerprint, ...) lives below the code that
lays it out as text and HTML, so it cannot import that code. Instead the layer above registers one
text and one HTML function per record class: ``helpers.display`` and ``helpers.forensics`` do it when
they are imported, and ``import helpers`` imports ``helpers.display`` before any record can exist.
A record whose view is missing prints as its class name and says so; it never raises.
"""

from __future__ import annotations

from collections.abc import Callable

_VIEWS: dict[type, tuple[Callable[[object], str], Callable[[object], str]]] = {}


def register(cls: type, text: Callable[[object], str], html: Callable[[object], str]) -> None:
    """Show instances of ``cls`` (and of its subclasses) with ``text`` and ``html``."""
    _VIEWS[cls] = (text, html)


def registered(cls: type) -> bool:
    return any(klass in _VIEWS for klass in cls.__mro__)


def _view(record: object):
    for klass in type(record).__mro__:
        if klass in _VIEWS:
            return _VIEWS[klass]
    return None


def text(record: object) -> str:
    """The record as aligned plain text, by the view registered for its class."""
    view = _view(record)
    if view is None:
        return (
            f"<{type(record).__name__}: no text view is registered for it (the layer that draws it was not imported)>"
        )
    return view[0](record)


def html(record: object) -> str | None:
    """The record as HTML, or None (Jupyter then shows the text) when no view is registered."""
    view = _view(record)
    return None if view is None else view[1](record)
