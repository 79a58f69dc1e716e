"""The fast loop's temporary folders live in memory where there is a memory folder with room."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.run import tests as run_tests  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="a Unix rule: one folder per user")


def test_a_memory_folder_with_room_holds_a_folder_of_ones_own_per_checkout(tmp_path):
    option, where = run_tests.ram_basetemp([], folder=tmp_path, need=0)
    assert option == "--basetemp"
    mine = tmp_path / f"layernorm-fast-{os.getuid()}"
    assert Path(where).parent == mine and (mine.stat().st_mode & 0o777) == 0o700
    assert Path(where).name != run_tests.ROOT.name  # by checkout, not by a folder name two clones can share
    assert run_tests.ram_basetemp([], folder=tmp_path, need=0) == [option, where]  # the same folder each run


def test_the_callers_basetemp_no_folder_or_no_room_leave_pytests_default(tmp_path):
    assert run_tests.ram_basetemp(["--basetemp=/somewhere"], folder=tmp_path, need=0) == []
    assert run_tests.ram_basetemp([], folder=tmp_path / "absent", need=0) == []
    assert run_tests.ram_basetemp([], folder=tmp_path, need=1 << 60) == []


def test_a_folder_planted_by_someone_else_is_not_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / f"layernorm-fast-{os.getuid()}").symlink_to(elsewhere)
    assert run_tests.ram_basetemp([], folder=tmp_path, need=0) == []
