"""helpers.core.views: a record shows itself by the view the layer above registered for its class.

From the module's docstring: one text and one HTML function per record class, used for its subclasses too;
a record whose view is missing prints as its class name and says so, and never raises.
"""

from __future__ import annotations

import pytest

from helpers.core import views


class Record:
    pass


class Refined(Record):
    pass


@pytest.fixture
def no_views(monkeypatch):
    """An empty register, so that these made-up classes leave the project's own views alone."""
    monkeypatch.setattr(views, "_VIEWS", {})


def test_a_record_with_no_view_says_so_in_text_and_has_no_html(no_views):
    assert not views.registered(Record)
    assert views.text(Record()) == (
        "<Record: no text view is registered for it (the layer that draws it was not imported)>"
    )
    assert views.html(Record()) is None


def test_a_registered_view_draws_its_class_and_every_subclass(no_views):
    views.register(Record, lambda record: f"text of {type(record).__name__}", lambda record: "<b>html</b>")
    assert views.registered(Record) and views.registered(Refined)
    assert views.text(Refined()) == "text of Refined"
    assert views.html(Refined()) == "<b>html</b>"


def test_a_subclass_with_its_own_view_is_drawn_by_it_not_by_its_parents(no_views):
    views.register(Record, lambda record: "parent", lambda record: "<i>parent</i>")
    views.register(Refined, lambda record: "own", lambda record: "<i>own</i>")
    assert (views.text(Refined()), views.html(Refined())) == ("own", "<i>own</i>")
    assert (views.text(Record()), views.html(Record())) == ("parent", "<i>parent</i>")
