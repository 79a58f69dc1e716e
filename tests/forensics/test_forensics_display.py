"""helpers.forensics.display: notebook 13's tables come from helpers.display.model, and the records
show themselves through helpers.core.views, never by importing display."""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import helpers
from helpers.core import views
from helpers.display import model
from helpers.forensics.fingerprints import Fingerprint, fingerprint
from helpers.forensics.gallery import gallery
from helpers.forensics.orientations import Orientations, orientations
from helpers.forensics.table import GalleryComparison, TableFingerprint, compare_gallery, fingerprint_table

FORENSICS = pathlib.Path(helpers.__file__).parent / "forensics"


def _layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)


def _views():
    x = helpers.load_residual()
    return {
        "fingerprint": fingerprint(_layer_norm, "numpy LayerNorm"),
        "published table": fingerprint_table(x, helpers.load_published_output()),
        "gallery": compare_gallery(x, gallery()[:3]),
        "orientations": orientations(x),
    }


@pytest.fixture(scope="module")
def records():
    return _views()


@pytest.mark.parametrize("name", ["fingerprint", "published table", "gallery", "orientations"])
def test_forensics_html_is_drawn_by_the_one_table_model(records, name, monkeypatch):
    """Swap the model's table style for a marker: every forensics <table> must carry it, so none is
    built by a second renderer with its own copy of the CSS."""
    monkeypatch.setattr(model, "TABLE_CSS", "MODEL-TABLE-STYLE")
    page = records[name]._repr_html_()
    tables = re.findall(r"<table[^>]*>", page)
    assert tables and all(t == '<table style="MODEL-TABLE-STYLE">' for t in tables), tables
    assert "<style" not in page  # inline styles only, as every other table of the lesson


def test_forensics_text_is_the_models_text(records):
    from helpers.forensics import display

    f, t, g = records["fingerprint"], records["published table"], records["gallery"]
    assert str(f) == model.render_text(display.fingerprint_view(f))
    assert str(t) == model.render_text(display.table_fingerprint_view(t))
    assert str(g) == model.render_text(display.gallery_view(g))


def test_a_row_that_differs_from_pytorch_is_flagged_and_says_so(records):
    page = records["gallery"]._repr_html_()
    page = page[page.index("<table") :]  # after the line that says the box scrolls
    flagged = re.findall(r'<tr style="background:#fdf0d5">(.*?)</tr>', page)
    assert len(flagged) == 1 and "Annotated Transformer" in flagged[0] and "✗ no" in flagged[0]
    assert page.count("✓ yes") == 2  # the two that match are not shaded


def _bare_records():
    """One of each record, built without measuring anything."""
    found = Fingerprint("f", None, None, None, None, None, None, False, [])
    return [
        found,
        TableFingerprint(places=2, checks={}, explanations=()),
        GalleryComparison(np.zeros((1, 3)), ()),
        Orientations(np.zeros((2, 3))),
    ]


@pytest.mark.parametrize("record", _bare_records(), ids=lambda r: type(r).__name__)
def test_a_record_with_no_registered_view_still_prints(record, monkeypatch):
    monkeypatch.delitem(views._VIEWS, type(record), raising=False)  # registration: the test below
    assert (
        str(record)
        == repr(record)
        == f"<{type(record).__name__}: no text view is registered for it (the layer that draws it was not imported)>"
    )
    assert record._repr_html_() is None  # Jupyter then shows the text


@pytest.mark.parametrize("record", _bare_records(), ids=lambda r: type(r).__name__)
def test_importing_any_forensics_module_registers_the_views(record):
    code = (
        f"import {type(record).__module__} as m; from helpers.core import views; "
        f"print(views.registered(m.{type(record).__name__}))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "True"


def _imports(path: pathlib.Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function, ``from a import b`` as a and a.b."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize(
    "module",
    [
        "fingerprints",
        "table",
        "orientations",
        "gallery",
        "probes",
        "words",
        "isolate",
        "record",
        "behaviour",
        "affine",
        "judge",
    ],
)
def test_no_record_imports_display_or_the_package_that_imports_it(module):
    imported = _imports(FORENSICS / f"{module}.py")
    assert "helpers.forensics.display" not in imported
    assert "helpers.forensics" not in imported  # the package's __init__ imports display


def test_the_gallerys_verdict_columns_come_first(records):
    """At 1024 px the gallery's box scrolls sideways (issue 33): the columns that matter are right after the name,
    in the text and in the HTML, so they are never the ones out of sight."""
    from helpers.forensics import display

    header = display.gallery_view(records["gallery"]).header
    assert header[:3] == ("implementation", "= PyTorch?", "departs from PyTorch in")
    page = records["gallery"]._repr_html_()
    page = page[page.index("<table") :]  # after the line that says the box scrolls
    assert page.index("= PyTorch?") < page.index("mean?") < page.index("on x + 100, float32")
    first_row = str(records["gallery"]).splitlines()[2]
    assert first_row.split()[2:5] == ["✓", "yes", "nothing"]  # PyTorch nn.LayerNorm: its verdict in sight
