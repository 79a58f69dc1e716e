"""``a_type`` (helpers/checking/reading.py) chooses the article by sound, not by letter: a name that starts with a
"you" sound (uint…, User…, Uni…) takes "a"; one that starts with another vowel sound takes "an"."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from helpers.checking.reading import a_type

Unit = type("Unit", (), {})
Umbrella = type("Umbrella", (), {})


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (np.uint16(3), "a uint16"),
        (collections.UserList([1.0]), "a UserList"),
        (collections.UserDict(), "a UserDict"),
        (UnicodeError(), "a UnicodeError"),
        (Unit(), "a Unit"),
        (Umbrella(), "an Umbrella"),
        (np.int64(3), "an int64"),
        (Exception(), "an Exception"),
    ],
)
def test_the_article_follows_the_sound(value, said):
    assert a_type(value) == said
