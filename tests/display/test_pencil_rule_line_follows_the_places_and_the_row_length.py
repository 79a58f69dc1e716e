"""pencil_rule_line states the pencil's rule with the table's own allowance (helpers.display.verdicts).

Its docstring: "The allowance is half a unit in the last printed place (``check.half_unit``) ... ± that much on
each value, so ± n times it on a row's sum, and each value moved that much towards 0 before squaring", with n the
row's length. The lesson's table has 2 places and 3 features; here a table of 3 places and 4 features, and one
of 1 place and 2 features, with the allowances worked out by hand.
"""

from __future__ import annotations

from helpers.core.published_table import check_published_output
from helpers.display.verdicts import pencil_rule_line


def test_three_places_and_four_features():
    check = check_published_output([[-1.342, -0.447, 0.447, 1.342]], [[1.0, 2.0, 3.0, 4.0]], places=3)
    assert pencil_rule_line(check) == (
        "Printed to 3 places, each value may be up to 0.0005 from the number it was rounded from: a row passes if "
        "it sums to 0 within ± 0.0020 and, with every value moved 0.0005 towards 0, its squares add up to at most 4."
    )


def test_one_place_and_two_features():
    check = check_published_output([[-1.0, 1.0], [1.0, -1.0]], [[1.0, 2.0], [2.0, 1.0]], places=1)
    line = pencil_rule_line(check)
    assert line == (
        "Printed to 1 place, each value may be up to 0.05 from the number it was rounded from: a row passes if "
        "it sums to 0 within ± 0.10 and, with every value moved 0.05 towards 0, its squares add up to at most 2."
    )
