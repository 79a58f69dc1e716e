"""The arithmetic written in prose, read back and checked at the precision it is printed with.

A sentence such as "0.687² ≈ 0.472" or "$(0.472 + 0.555 + 0.003) / 3 = 1.030 / 3 \\approx 0.343$"
makes a claim a calculator can check. ``equations(markdown)`` finds every chain of numeric sides
joined by "=" or "≈" (in plain text and in LaTeX), and ``check(chain)`` says whether each link holds:
the side on the right, if it is one printed number with d decimals, must be what the side on the
left gives, to within half a unit in the d-th place (that is what printing to d places promises);
between two expressions, to within half a unit of the finest number printed in them.

A side that holds a letter or a symbol (n − 1, σ², ε) is not arithmetic and ends the chain there,
so "n − 1 = 2" and "ε = 1e-5" are never judged; only numbers, + − × / ( ) ², √ and \\frac, \\sqrt
are read.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
TOKEN = re.compile(rf"(?P<number>{NUMBER})|(?P<op>[+\-−×*/()²√=≈])|(?P<space>\s+)|(?P<other>.)")
RELATIONS = {"=", "≈"}
SEPARATOR = "\x00"  # where a LaTeX spacing command or a comma splits two equations


@dataclass(frozen=True)
class Link:
    left: str
    relation: str
    right: str
    left_value: float
    right_value: float
    tolerance: float

    @property
    def holds(self) -> bool:
        return abs(self.left_value - self.right_value) <= self.tolerance

    def __str__(self) -> str:
        return (
            f"{self.left} {self.relation} {self.right}: the left side gives {self.left_value:.10g}, "
            f"the right {self.right_value:.10g} (allowed {self.tolerance:g})"
        )


def _latex_to_plain(math_text: str) -> str:
    """LaTeX arithmetic as plain text: \\frac{a}{b} → (a)/(b), \\sqrt{a} → √(a), x^2 → x², \\approx → ≈."""
    text = math_text
    for _ in range(5):  # nested fractions and roots, innermost first
        text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", text)
        text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", text)
    text = re.sub(r"\^\{?2\}?", "²", text)
    text = text.replace(r"\approx", "≈").replace(r"\times", "×").replace(r"\cdot", "×")
    text = re.sub(r"\\(?:qquad|quad|;|,|!|:)", SEPARATOR, text)
    text = re.sub(r"\\left|\\right", "", text)
    return re.sub(r"\\[A-Za-z]+", "σ", text)  # any other command is a symbol (\mu, \sigma, \varepsilon)


def _pieces(markdown: str) -> list[str]:
    """Plain-text stretches of a markdown cell: each math span on its own, LaTeX turned to plain text."""
    pieces = []
    position = 0
    for match in re.finditer(r"\$\$(.+?)\$\$|\$(.+?)\$", markdown, re.S):
        pieces.append(markdown[position : match.start()])
        pieces.append(_latex_to_plain(match.group(1) or match.group(2)))
        position = match.end()
    pieces.append(markdown[position:])
    return pieces


def _runs(text: str) -> list[list[tuple[str, str]]]:
    """Maximal runs of number and operator tokens; each run remembers what came just before it."""
    runs, current, before = [], [], "start"
    for match in TOKEN.finditer(text):
        kind, value = match.lastgroup, match.group()
        if kind == "space":
            continue
        if kind in ("number", "op"):
            if not current:
                current.append(("before", before))
            current.append((kind, value))
        else:
            if current:
                runs.append(current)
                current = []
            before = "letter" if value.isalpha() or value in "σεμγβ" else "punctuation"
    if current:
        runs.append(current)
    for run in runs:  # an operator left dangling belongs to the words after it (a list's next "- ")
        while run[-1][0] == "op" and run[-1][1] in "+-−×*/(√":
            run.pop()
    return runs


def _python(side: list[tuple[str, str]]) -> str | None:
    """A side's tokens as a Python expression, or None when they are not a whole expression."""
    out = []
    for index, (kind, value) in enumerate(side):
        if kind == "number":
            out.append(value.replace(",", ""))
        elif value == "√":
            following = side[index + 1][1] if index + 1 < len(side) else ""
            if following == "(":
                out.append("sqrt")
            elif side[index + 1][0] == "number" if index + 1 < len(side) else False:
                out.append("sqrt ")  # applied to the next number below
            else:
                return None
        else:
            out.append({"−": "-", "×": "*", "²": "**2"}.get(value, value))
    code = "".join(out)
    code = re.sub(r"sqrt ([\d.]+)", r"sqrt(\1)", code)
    return code or None


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def _evaluate(code: str) -> float | None:
    """The value of a small arithmetic expression (numbers, + − × / **, sqrt), or None if it is not one."""
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return None

    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = value(node.operand)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "sqrt" and len(node.args) == 1:
            return math.sqrt(value(node.args[0]))
        raise ValueError("not arithmetic")

    try:
        return value(tree)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def _places(side: list[tuple[str, str]]) -> list[int]:
    return [len(value.partition(".")[2]) for kind, value in side if kind == "number"]


def _split(run: list[tuple[str, str]]) -> tuple[list[list[tuple[str, str]]], list[str]]:
    sides, relations, current = [], [], []
    for kind, value in run[1:]:
        if kind == "op" and value in RELATIONS:
            sides.append(current)
            relations.append(value)
            current = []
        else:
            current.append((kind, value))
    sides.append(current)
    return sides, relations


def equations(markdown: str) -> list[list[Link]]:
    """Every arithmetic chain in a markdown cell, as its links (consecutive sides that are numbers)."""
    chains = []
    for piece in _pieces(markdown):
        for part in piece.split(SEPARATOR):
            for run in _runs(part):
                sides, relations = _split(run)
                if not relations:
                    continue
                # a run that starts with an operator right after a letter continues a symbolic expression
                # ("n − 1 = 2"): its first side is not all there, so it is not judged
                starts_mid = sides[0] and sides[0][0][1] in "+-−×*/" and run[0][1] == "letter"
                values = [None if (i == 0 and starts_mid) else _evaluate(_python(s) or "") for i, s in enumerate(sides)]
                links = []
                for i, relation in enumerate(relations):
                    left, right = sides[i], sides[i + 1]
                    if values[i] is None or values[i + 1] is None:
                        continue
                    if len(right) == 1 or (len(right) == 2 and right[0][1] in "-−"):
                        places = _places(right)
                    elif len(left) == 1:
                        places = _places(left)
                    else:
                        places = _places(left) + _places(right)
                    tolerance = 0.5 * 10.0 ** -max(places) * (1 + 1e-9) + 1e-12
                    text = [" ".join(v for _, v in s) for s in (left, right)]
                    links.append(Link(text[0], relation, text[1], values[i], values[i + 1], tolerance))
                if links:
                    chains.append(links)
    return chains
