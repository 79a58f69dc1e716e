"""Collect every notebook's check-yourself questions, with their answers, for the lecturer only.

    python tools/build/lecturer_exercises.py            # (re)writes lecturer/exercises.md
    python tools/build/lecturer_exercises.py --check    # changes nothing; exit 1 if it is out of date

Each question is cited by the heading it sits under. Each question is the widget a notebook builds with ``widgets.answer_checker(...)``,
``widgets.multiple_choice(...)`` or ``widgets.number_question(...)``. The script finds those cells, runs just the earlier cells that
define what the call needs (usually the set-up cell and ``x = helpers.load_residual()``), builds the
widget as the notebook does, and writes its question with the answer computed by helpers: the exact
value, the value rounded by hand to 3 places at every step, and the wrong answers the checker
recognises with what each one means. The student notebooks never show these answers.
Then the "Your turn" code exercises: each ``helpers.exercises.check(step, fn)`` cell, with a solution
from ``lecturer/solutions.py`` and every mistake the checker names for that step.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import math
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = ROOT / "notebooks"
OUTPUT = ROOT / "lecturer" / "exercises.md"
QUESTION_MAKERS = ("answer_checker", "multiple_choice", "number_question")
PLACES = 5  # the exact answers, to this many places
HAND_PLACES = 3  # the by-hand answers, rounded at every step as on paper

sys.path.insert(0, str(ROOT))  # run as a script: tools/ is a package under ROOT
from tools.build import series  # noqa: E402  (the notebooks' titles)

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
    from helpers.checking import answers as answer_check
    from helpers.display import format_number

    if hasattr(widget, "options"):  # multiple choice
        lines = [
            f"**Check yourself.** {widget.question}",
            "",
            "- Options: " + " · ".join(widget.options),
            f"- **Answer: {widget.answer}.** {widget.explanation}".rstrip(),
        ]
        if widget.hint:
            lines.append(f"- After a wrong choice the learner reads: {widget.hint}")
        return lines

    if hasattr(widget, "tolerance"):  # a question whose answer is one number
        lines = [
            f"**Check yourself.** {widget.question}",
            "",
            f"- **Answer: {format_number(widget.answer, PLACES)}** (counted right within "
            f"± {widget.tolerance:g}). {widget.explanation}".rstrip(),
        ]
        if widget.hint:
            lines.append(f"- After a wrong answer the learner reads: {widget.hint}")
        return lines

    question = {
        "row": widget.row,
        "quantity": widget.quantity,
        "index": widget.index,
        "eps": widget.eps,
        "gamma": getattr(widget, "gamma", None),
        "beta": getattr(widget, "beta", None),
    }
    asked = getattr(widget, "places", None)
    expected = answer_check.expected_value(**question)
    typed = max(places_for_three_digits(expected), asked or 0)
    hand_places = max(HAND_PLACES, asked or 0)  # a by-hand answer with fewer places than asked is refused
    by_hand = answer_check.expected_value(**question, decimals=hand_places)

    def says(shown: str) -> str:
        """What the box itself answers to ``shown``: the same rules, so this file cannot promise otherwise."""
        verdict = answer_check.diagnose(**{**question, "answer": shown}, places=asked)
        return f"{MARKS[verdict.kind]} {verdict.hint}"

    exact_text, hand_text = format_number(expected, typed), format_number(by_hand, hand_places)
    lines = [
        f"**Check your answer.** {answer_check.question_text(**question)}",
        "",
        f"- **Answer: {format_number(expected, PLACES)}** (exact, to {PLACES} places). "
        f"Typed to {typed} places, {exact_text}: {says(exact_text)}",
        f"- Worked by hand, rounding every step to {hand_places} places, {hand_text}: {says(hand_text)}",
        (f"- The question asks for at least {asked} decimal places. " if asked is not None else "- ")
        + "Counted right: any answer that rounds correctly at the places it gives"
        + (" (and one with more places that is right at the places asked)" if asked is not None else "")
        + "; right up to rounding: one worked by hand with every step at the places typed or one or two more "
        "within 1 % or 2 units (the rule above), or one off by a unit in the last place; further off, the box names the mistake "
        "(steps rounded to fewer places, a sign slip, or a known mistake).",
    ]
    wrong, seen = [], {exact_text, hand_text}
    # Every mistake the checker knows, typed to the same places, and what the checker then says.
    for _, candidate, _ in answer_check.known_mistakes(**question):
        shown = format_number(candidate, typed)
        if shown in seen:
            continue
        seen.add(shown)
        wrong.append(f"  | {shown} | {says(shown)} |")
    if wrong:
        lines += [
            f"- Answers from the mistakes the checker knows (typed to {typed} places), and what it tells the learner:",
            "",
            "  | answer | the checker says |",
            "  |---|---|",
            *wrong,
        ]
    return lines


MARKS = {"right": "✓ Right:", "right up to rounding": "≈ Right up to rounding:", "wrong": "✗ Not yet:"}


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

    lines = [
        "# The check-yourself questions, with answers (for the lecturer)",
        "",
        "Every check-your-answer question in the notebooks, with its answer computed by `helpers`. "
        "Generated by `python tools/build/lecturer_exercises.py` from the notebooks' `answer_checker`, "
        "`multiple_choice` and `number_question` cells; do not edit by hand (`tests/browser/test_lecture.py` fails when this file is "
        "out of date). The student notebooks never show these answers.",
        "",
        "**One rule for answers rounded along the way, the same in every notebook.** An answer worked by "
        "hand with every step rounded to the places it is typed with, or to one or two more, is ≈ right up "
        "to rounding when it is within 1 % of the exact value or 2 units of its last place, whichever is "
        "larger: the box says "
        "so and gives the exact value. Further off, rounding has changed the answer, and steps rounded to "
        'fewer places than the answer shows change it too: both are named as "rounding along the way" '
        "(✗). An answer with fewer places than the question asks for is ✗ "
        '("give at least k decimal places"). When a known mistake gives the very same digits, the box '
        "names the mistake and says that rounding by hand gives them too. An answer of the right size with "
        "the wrong sign is named as a sign slip.",
        "",
    ]
    for path in paths if paths is not None else sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        questions = question_cells(nb)
        if not questions:
            continue
        lines += [f"## {_title(path.name)}", ""]
        for index, sources in questions:
            lines += [f"### {_heading(nb, index)}", "", *_answer_lines(build_question(sources)), ""]
    lines += code_exercises_markdown(paths)
    return "\n".join(lines).rstrip() + "\n"


def _heading(nb, index: int) -> str:
    """The notebook heading a cell sits under ("Check yourself"), by which the lecturer finds it."""
    for cell in reversed(nb.cells[:index]):
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## "):
                    return line[3:].strip()
    return "(before the first heading)"


CHECK_CALL = re.compile(r"""exercises\.check\(\s*["'](?P<step>\w+)["']\s*,\s*(?P<name>\w+)\s*\)""")
ALWAYS_NAMED = (
    "not written yet (the stub's NotImplementedError)",
    "an exception, with its message",
    "an endless loop (stopped after a few seconds)",
    "returning nothing, or not a number (text, booleans, a ragged list, another object)",
    "the wrong length or shape",
    "NaN",
    "mutating the input array",
    "a defining cell that did not run (a syntax error): named with its cell and line, and nothing judged",
)
MODULE_MISTAKES = (
    "it hard-codes the width (built for 3 features, fails at 5 or 128)",
    "no learnable parameters, or only one of γ and β (the other a buffer or a plain tensor, named)",
    "γ and β single numbers (shape ()), not one per feature; shape (1, n) is accepted and said so",
    "not differentiable (detach, numpy or no_grad inside forward)",
    "gradients that do not flow through the mean or the variance (compared with torch's own layer_norm)",
    "a forward that changes its input tensor in place",
    "a forward that calls PyTorch's own layer norm (nn.LayerNorm, F.layer_norm)",
    "γ and β swapped",
    "γ and β not starting at ones and zeros",
)


def code_exercises_markdown(paths=None) -> list[str]:
    """The "Your turn" code exercises: where they are, a solution, and every mistake the checker names."""
    import inspect

    import nbformat

    from helpers.checking.cases import mistakes

    sys.path.insert(0, str(ROOT / "lecturer"))
    import solutions

    lines = [
        '## The code exercises ("Your turn")',
        "",
        "Each check cell calls `helpers.exercises.check(step, function)`, which runs the learner's function on "
        "inputs the notebook never shows and names the mistake it matches. The solutions below are in "
        "`lecturer/solutions.py`; `tests/checking/test_exercises.py` runs each through the check.",
        "",
    ]
    for path in paths if paths is not None else sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            found = CHECK_CALL.search(cell.source) if cell.cell_type == "code" else None
            if not found:
                continue
            step = found["step"]
            solution = solutions.make_module if step == "module" else solutions.SOLUTIONS[step]
            named = [] if step == "module" else list(dict.fromkeys(m.name for m in mistakes(step)))
            if step == "module":
                named = list(MODULE_MISTAKES) + list(dict.fromkeys(m.name for m in mistakes("layer_norm")))
            if step == "layer_norm":  # read from its code: notebook 07 asks for no loop
                named.append("a Python loop (for, while, a comprehension, map, np.apply_along_axis), with its line")
            lines += [
                f"### {_title(path.name)} › {_heading(nb, index)}",
                "",
                f'`helpers.exercises.check("{step}", {found["name"]})`. A solution:',
                "",
                "```python",
                inspect.getsource(solution).rstrip(),
                "```",
                "",
                "Mistakes the checker names: " + "; ".join(named + list(ALWAYS_NAMED)) + ".",
                "",
            ]
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = exercises_markdown()
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
    if args.check:
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date; run: python tools/build/lecturer_exercises.py")
            return 1
        return 0
    if current != text:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
