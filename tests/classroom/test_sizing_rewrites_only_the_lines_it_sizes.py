"""classroom/sizing.py rewrites the "# sizing: <key>" lines it has a value for and leaves every other line as
it is, a tagged line of another key included (a key added to values.yaml before the code that sizes it); and
--write and --check are one action or the other, never both at once.
"""

from __future__ import annotations

import pytest

from classroom import sizing

TEXT = (
    "singleuser:\n"
    "  memory:\n"
    "    guarantee: 1G  # sizing: singleuser.memory.guarantee\n"
    "    limit: 2G  # sizing: singleuser.memory.limit (torch max x 1.5)\n"
    "  storage:\n"
    "    capacity: 1Gi  # sizing: singleuser.storage.capacity\n"
)


def test_a_tagged_line_of_a_key_not_sized_is_left_as_it_is():
    wanted = {"singleuser.memory.guarantee": "256M", "singleuser.memory.limit": "640M"}
    assert sizing.rewrite(TEXT, wanted) == (
        "singleuser:\n"
        "  memory:\n"
        "    guarantee: 256M  # sizing: singleuser.memory.guarantee\n"
        "    limit: 640M  # sizing: singleuser.memory.limit (torch max x 1.5)\n"
        "  storage:\n"
        "    capacity: 1Gi  # sizing: singleuser.storage.capacity\n"
    )


def test_the_tagged_values_are_read_by_their_keys():
    assert sizing.tagged_values(TEXT) == {
        "singleuser.memory.guarantee": "1G",
        "singleuser.memory.limit": "2G",
        "singleuser.storage.capacity": "1Gi",
    }


def test_write_and_check_at_once_is_refused(capsys):
    with pytest.raises(SystemExit) as stopped:
        sizing.main(["--write", "--check"])
    assert stopped.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
