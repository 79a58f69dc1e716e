"""Rewrite the generated cells of every notebook from tools/build/series.py and tools/build/setup_cell.py.

    python tools/build/notebook_chrome.py            # rewrite notebooks/*.ipynb and README.md where needed
    python tools/build/notebook_chrome.py --check    # change nothing; exit 1 listing stale notebooks (and README)

The cells, found by their tag:
  chrome-header    first cell: title, goal, "you are here" roadmap, Open-in-Colab badge
  chrome-setup     second cell: makes `import helpers` work (locally and in Colab), made from
                   tools/build/setup_cell.py; folded (jupyter.source_hidden, and Colab's cellView
                   "form" under its #@title line)
  chrome-footer    last cell: ← previous · contents · next →
  chrome-contents  (00_contents.ipynb only) the table of notebooks
README.md's series table (between `<!-- series-table` and `<!-- /series-table -->`) is rewritten
from the same list, with each notebook's Open-in-Colab badge.
A missing header, set-up or footer cell is added in its place; one found elsewhere is moved there.
The set-up cell keeps its outputs and execution count when its source is already right, so
rewriting never un-executes a notebook; when its source changes, they are cleared (the notebook
must then be executed again). Notebooks are written with nbformat (indent 1, trailing newline)
and only when something changed.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run as a script: tools/ is a package under ROOT
from tools.build import series, setup_cell  # noqa: E402

NOTEBOOKS_DIR = ROOT / "notebooks"
README = ROOT / "README.md"
README_TABLE = re.compile(r"(<!-- series-table\b[^>]*-->\n)(.*?)(<!-- /series-table -->)", re.S)

HEADER, SETUP, FOOTER, CONTENTS = "chrome-header", "chrome-setup", "chrome-footer", "chrome-contents"
CHROME_TAGS = (HEADER, SETUP, FOOTER, CONTENTS)


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _metadata(tag: str) -> dict:
    """A chrome cell's metadata: its tag, and for the set-up cell what folds it (setup_cell.METADATA)."""
    extra = setup_cell.METADATA if tag == SETUP else {}
    return {**copy.deepcopy(extra), "tags": [tag]}


def _new_cell(tag: str, source: str):
    make = nbformat.v4.new_code_cell if tag == SETUP else nbformat.v4.new_markdown_cell
    cell = make(source=source, metadata=_metadata(tag))
    cell["id"] = tag  # stable, readable ids keep diffs small
    return cell


def _take(cells: list, tag: str):
    """Remove and return the cell tagged ``tag`` (or None); two such cells are an error."""
    found = [cell for cell in cells if tag in tags(cell)]
    if len(found) > 1:
        raise ValueError(f"{len(found)} cells are tagged {tag!r}; there must be one.")
    if found:
        cells.remove(found[0])
        return found[0]
    return None


def _set_source(cell, tag: str, source: str):
    """Make ``cell`` the chrome cell ``tag`` with ``source``, keeping what can be kept."""
    if cell is None:
        return _new_cell(tag, source)
    wanted_type = "code" if tag == SETUP else "markdown"
    if cell.cell_type != wanted_type:
        fresh = _new_cell(tag, source)
        fresh["id"] = cell.get("id", tag)
        return fresh
    wanted = _metadata(tag)
    metadata = {key: value for key, value in cell.metadata.items() if key not in ("cellView", "jupyter")}
    metadata.update(wanted, tags=[tag, *(other for other in tags(cell) if other != tag)])
    cell.metadata = nbformat.from_dict(metadata)
    if cell.source != source:
        cell.source = source
        if wanted_type == "code":  # the stored outputs belonged to the old source
            cell.outputs = []
            cell.execution_count = None
    return cell


def rewrite(nb, file: str):
    """Put up-to-date chrome cells into the notebook ``nb`` (in place) and return it."""
    cells = list(nb.cells)
    header = _set_source(_take(cells, HEADER), HEADER, series.header_markdown(file))
    setup = _set_source(_take(cells, SETUP), SETUP, setup_cell.cell_source())
    footer = _set_source(_take(cells, FOOTER), FOOTER, series.footer_markdown(file))
    for cell in cells:
        if CONTENTS in tags(cell):
            if file != series.CONTENTS.file:
                raise ValueError(f"only {series.CONTENTS.file} may have a cell tagged {CONTENTS!r}.")
            if cell.cell_type != "markdown":
                raise ValueError(f"the cell tagged {CONTENTS!r} must be a markdown cell.")
            cell.source = series.contents_table()
    nb.cells = [header, setup, *cells, footer]
    return nb


def _text(nb) -> str:
    text = nbformat.writes(nb, version=4)  # indent 1, sorted keys: what nbformat.write saves
    return text if text.endswith("\n") else text + "\n"


def updated_text(path: Path) -> tuple[str, str]:
    """The notebook's text on disk and the text it would have with up-to-date chrome."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    try:
        rewrite(nb, path.name)
    except ValueError as problem:
        raise ValueError(f"{path.name}: {problem}") from None
    return before, _text(nb)


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def stale_notebooks(paths: list[Path] | None = None) -> list[str]:
    """The notebooks whose chrome is out of date (what ``--check`` reports), each as
    ``"NAME"``, or ``"NAME: problem"`` when its chrome cannot be made (e.g. it is not in the series)."""
    stale = []
    for path in paths if paths is not None else notebook_paths():
        try:
            before, after = updated_text(path)
        except ValueError as problem:
            stale.append(str(problem))
            continue
        if before != after:
            stale.append(path.name)
    return stale


def readme_text(before: str) -> str:
    """README.md's text with its series table regenerated (ValueError when the table's markers are missing)."""
    if not README_TABLE.search(before):
        raise ValueError("README.md has no <!-- series-table --> ... <!-- /series-table --> block")
    return README_TABLE.sub(lambda m: m.group(1) + series.readme_table() + "\n" + m.group(3), before, count=1)


def readme_is_up_to_date() -> bool:
    before = README.read_text(encoding="utf-8")
    return readme_text(before) == before


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any notebook would change")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/*.ipynb (and README.md)")
    args = parser.parse_args(argv)
    paths = args.notebooks or notebook_paths()
    do_readme = not args.notebooks
    if args.check:
        stale = stale_notebooks(paths)
        for name in stale:
            print(f"chrome out of date: {name}")
        readme_stale = do_readme and not readme_is_up_to_date()
        if readme_stale:
            print("series table out of date: README.md")
        if stale or readme_stale:
            print("(run: python tools/build/notebook_chrome.py, then execute any notebook whose set-up cell changed)")
        return 1 if stale or readme_stale else 0
    failed = False
    for path in paths:
        try:
            before, after = updated_text(path)
        except ValueError as problem:  # report it, and carry on with the other notebooks
            print(f"error: {problem}", file=sys.stderr)
            failed = True
            continue
        if before != after:
            path.write_text(after, encoding="utf-8")
            print(f"rewrote {path.name}")
    if do_readme:
        before = README.read_text(encoding="utf-8")
        try:
            after = readme_text(before)
        except ValueError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        if after != before:
            README.write_text(after, encoding="utf-8")
            print("rewrote README.md (series table)")
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
