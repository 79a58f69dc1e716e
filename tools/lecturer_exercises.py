"""Collect every notebook's check-yourself questions, with their answers, for the lecturer only.

    python tools/lecturer_exercises.py            # (re)writes lecturer/exercises.md
    python tools/lecturer_exercises.py --check    # changes nothing; exit 1 if it is out of date

Each question is the widget a notebook builds with ``widgets.answer_checker(...)``,
``widgets.multiple_choice(...)`` or ``widgets.number_question(...)``. The script finds those cells, runs just the earlier cells that
define what the call needs (usually the set-up cell and ``x = helpers.load_residual()``), builds the
widget as the notebook does, and writes its question with the answer computed by helpers: the exact
value, the value rounded by hand to 3 places at every step, and the wrong answers the checker
recognises with what each one means. The student notebooks never show these answers.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
OUTPUT = ROOT / "lecturer" / "exercises.md"
QUESTION_MAKERS = ("answer_checker", "multiple_choice", "number_question")
PLACES = 5  # the exact answers, to this many places
HAND_PLACES = 3  # the by-hand answers, rounded at every step as on paper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import series  # noqa: E402  (tools/series.py: the notebooks' titles)


# --------------------------------------------------------------------------------------------
# Finding the questions and what they need


def _python(source: str) -> str:
    """A cell's source as plain Python (IPython magics turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names a piece of code defines, names it reads)."""
    defined, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
    return defined, used - set(dir(builtins))


def _makes_question(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in QUESTION_MAKERS:
                return True
    return False


def question_cells(nb) -> list[tuple[int, list[str]]]:
    """For each cell that makes a question: (its index, the sources to run, in order, ending with it).

    The sources are the question's own cell and, before it, only the earlier cells that define a
    name it needs (followed back through what those cells need in turn).
    """
    code = [(index, _python(cell.source)) for index, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    trees = {index: ast.parse(source) for index, source in code}
    found = []
    for position, (index, source) in enumerate(code):
        if not _makes_question(trees[index]):
            continue
        defined, needed = _names(trees[index])
        needed -= defined
        chosen = [source]
        for earlier_index, earlier_source in reversed(code[:position]):
            defines, uses = _names(trees[earlier_index])
            if defines & needed:
                chosen.insert(0, earlier_source)
                needed = (needed - defines) | (uses - defines)
        found.append((index, chosen))
    return found


def build_question(sources: list[str]):
    """Run ``sources`` in a fresh namespace, from notebooks/, and return the question widget the last one shows."""
    namespace = {"__name__": "__lecturer__"}
    *before, last = sources
    tree = ast.parse(last)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise ValueError(f"the question cell must end with the question itself:\n{last}")
    setup = ast.Module(body=tree.body[:-1], type_ignores=[])
    with _in_folder(NOTEBOOKS_DIR):
        for source in before:
            exec(compile(source, "<notebook cell>", "exec"), namespace)  # noqa: S102 - the project's own notebooks
        exec(compile(setup, "<question cell>", "exec"), namespace)  # noqa: S102
        return eval(compile(ast.Expression(tree.body[-1].value), "<question>", "eval"), namespace)  # noqa: S307


@contextlib.contextmanager
def _in_folder(folder: Path):
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


# --------------------------------------------------------------------------------------------
# Writing the answers


def _answer_lines(widget) -> list[str]:
    from helpers import answer_check
    from helpers.display import format_number

    if hasattr(widget, "options"):  # multiple choice
        lines = [f"**Check yourself.** {widget.question}", "",
                 "- Options: " + " · ".join(widget.options),
                 f"- **Answer: {widget.answer}.** {widget.explanation}".rstrip()]
        if widget.hint:
            lines.append(f"- After a wrong choice the learner reads: {widget.hint}")
        return lines

    if hasattr(widget, "tolerance"):  # a question whose answer is one number
        lines = [f"**Check yourself.** {widget.question}", "",
                 f"- **Answer: {format_number(widget.answer, PLACES)}** (counted right within "
                 f"± {widget.tolerance:g}). {widget.explanation}".rstrip()]
        if widget.hint:
            lines.append(f"- After a wrong answer the learner reads: {widget.hint}")
        return lines

    question = {"row": widget.row, "quantity": widget.quantity, "index": widget.index, "eps": widget.eps}
    expected = answer_check.expected_value(**question)
    by_hand = answer_check.expected_value(**question, decimals=HAND_PLACES)
    typed = places_for_three_digits(expected)
    lines = [f"**Check your answer.** {widget.question}", "",
             f"- **Answer: {format_number(expected, PLACES)}** (exact, to {PLACES} places); typed to {typed} places: "
             f"{format_number(expected, typed)}; worked by hand, rounding every step to {HAND_PLACES} places: "
             f"{format_number(by_hand, HAND_PLACES)}.",
             "- Counted right: the exact value rounded to the places typed; one unit off in the last place "
             "counts as right up to rounding."]
    wrong, seen = [], set()
    # Every mistake the checker knows, typed to the same places, and what the checker then says.
    for _, candidate, _ in answer_check.known_mistakes(**question):
        shown = format_number(candidate, typed)
        if shown in seen:
            continue
        seen.add(shown)
        verdict = answer_check.diagnose(widget.row, widget.quantity, shown, index=widget.index, eps=widget.eps)
        if not verdict.is_right:
            wrong.append(f"  | {shown} | {verdict.hint} |")
    if wrong:
        lines += [f"- Wrong answers (typed to {typed} places) the checker recognises, and what it tells the learner:",
                  "", "  | answer | the checker says |", "  |---|---|", *wrong]
    return lines


def places_for_three_digits(value: float) -> int:
    """How many places a learner types for three significant digits (at least 3)."""
    if value == 0:
        return HAND_PLACES
    return max(HAND_PLACES, 2 - math.floor(math.log10(abs(value))))


def _title(file: str) -> str:
    try:
        entry = series.notebook(file)
    except ValueError:
        return Path(file).stem
    return f"{entry.number} {entry.title}"


def exercises_markdown(paths: list[Path] | None = None) -> str:
    import nbformat

    lines = ["# The check-yourself questions, with answers (for the lecturer)", "",
             "Every check-your-answer question in the notebooks, with its answer computed by `helpers`. "
             "Generated by `python tools/lecturer_exercises.py` from the notebooks' `answer_checker`, "
             "`multiple_choice` and `number_question` cells; do not edit by hand (`tests/test_lecture.py` fails when this file is "
             "out of date). The student notebooks never show these answers.", ""]
    for path in paths if paths is not None else sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        questions = question_cells(nb)
        if not questions:
            continue
        lines += [f"## {_title(path.name)}", ""]
        for index, sources in questions:
            lines += [f"`notebooks/{path.name}`, cell {index}:", "", *_answer_lines(build_question(sources)), ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = exercises_markdown()
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
    if args.check:
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date; run: python tools/lecturer_exercises.py")
            return 1
        return 0
    if current != text:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
