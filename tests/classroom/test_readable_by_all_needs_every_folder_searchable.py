"""install.readable_by_all: any user can reach and run a path when the path itself and every folder on the way
(the real one, after symbolic links) has the "others may search/execute" bit (0o001); reading alone (0o004)
does not let anyone through a folder."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from classroom.hub import install


@pytest.fixture
def tree():
    """FOLDER/outer/inner/tool, all 0o755, FOLDER in /tmp (pytest's own folders are mode 700)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="layernorm-readable-test-", dir="/tmp"))
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    tool = inner / "tool"
    tool.write_text("#!/bin/sh\n", encoding="utf-8")
    for path in (tmp_path, outer, inner, tool):
        path.chmod(0o755)
    yield tmp_path, outer, inner, tool
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_path_open_all_the_way_is_readable_by_all(tree):
    assert all(os.stat(p).st_mode & stat.S_IXOTH for p in tree)
    assert install.readable_by_all(tree[3])


@pytest.mark.parametrize("which", [0, 1, 2])  # the outermost folder, the middle one, the tool's own
def test_a_folder_others_may_read_but_not_search_closes_the_way(tree, which):
    tree[which].chmod(0o754)  # r-- for others: they can list it, not go through it
    assert not install.readable_by_all(tree[3])


def test_a_folder_others_may_search_but_not_read_is_enough(tree):
    _, outer, _, tool = tree
    outer.chmod(0o751)
    assert install.readable_by_all(tool)


def test_a_link_is_judged_by_where_it_leads(tree):
    base, outer, _, tool = tree
    open_way = base / "open"
    open_way.mkdir(mode=0o755)
    open_way.chmod(0o755)
    link = open_way / "tool"
    link.symlink_to(tool)
    outer.chmod(0o750)  # the real tool sits behind a closed folder
    assert not install.readable_by_all(link)
