"""``places_to_catch`` (helpers/checking/answers.py) from its docstring: the fewest places at which *every* named
mistake is caught (so, for several, the most any one of them needs), and a plain ValueError naming a mistake
that does not show in the quantity asked."""

from __future__ import annotations

import pytest

from helpers.checking.answers import places_to_catch

ROW = [1.133, -0.299, 0.503]  # row 1 of the lesson


def test_several_mistakes_need_the_places_the_hardest_of_them_needs():
    alone = {key: places_to_catch(ROW, "std", (key,)) for key in ("n-1", "no-eps")}
    assert alone["n-1"] < alone["no-eps"] == 6  # dividing by n − 1 shows at once; leaving ε out at 6 places
    assert places_to_catch(ROW, "std", ("n-1", "no-eps")) == 6
    assert places_to_catch(ROW, "std", ("no-eps", "n-1")) == 6


def test_a_mistake_that_does_not_show_in_the_quantity_is_named_in_plain_words():
    with pytest.raises(ValueError) as raised:
        places_to_catch(ROW, "mean", ("no-eps",))
    assert str(raised.value) == "There is no mistake called 'no-eps' for the mean."
    with pytest.raises(ValueError, match=r"^There is no mistake called 'n-2' for the variance\.$"):
        places_to_catch(ROW, "variance", ("n-1", "n-2"))
