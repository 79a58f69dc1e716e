"""The one-token mutants of the lecturer's solutions (see tools/mutation/solution_mutants.py): the
reference solutions, read from ``lecturer/solutions.py``, and every mutant made from them with ``ast``."""

from __future__ import annotations

import ast
import copy
import functools
import importlib.util
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


SOLUTIONS_PATH = ROOT / "lecturer" / "solutions.py"
STEPS = ("mean", "variance", "std", "normalise", "scale_shift", "layer_norm")
ROW_STEPS = ("mean", "variance", "std", "normalise")
SCALAR_STEPS = ("mean", "variance", "std")
WITH_EPS = ("std", "normalise", "layer_norm")

# ---------------------------------------------------------------------------------------------
# The reference solutions


@functools.cache
def solutions_module():
    """``lecturer/solutions.py`` as a module (it is not a package)."""
    spec = importlib.util.spec_from_file_location("lecturer_solutions_for_mutants", SOLUTIONS_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference(step: str):
    return solutions_module().SOLUTIONS[step]


def _function_defs() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(SOLUTIONS_PATH.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in STEPS}


# ---------------------------------------------------------------------------------------------
# Mutants


@dataclass(frozen=True)
class Mutant:
    """One mutant: ``id`` (e.g. "variance-017"), the ``step``, its ``kind`` (operator, constant, …),
    a one-line ``description`` and the mutated function's ``source``."""

    id: str
    step: str
    kind: str
    description: str
    source: str

    def compile(self):
        """The mutant as a function, defined next to numpy and the unmutated solutions (so that a
        mutant of ``std`` still calls the lecturer's ``variance``)."""
        namespace = {"np": np, "__name__": "solution_mutant"}
        namespace.update({name: fn for name, fn in solutions_module().SOLUTIONS.items() if name != self.step})
        exec(compile(self.source, f"<mutant {self.id}>", "exec"), namespace)  # noqa: S102 — our own generated code
        return namespace[self.step]


BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv)
IN_PLACE = {ast.Add: "__iadd__", ast.Sub: "__isub__", ast.Mult: "__imul__", ast.Div: "__itruediv__"}
BUILTIN_REDUCERS = ("sum", "max", "min")
NP_REDUCERS = ("mean", "sum", "median", "var", "std", "max", "min")
METHOD_REDUCERS = ("mean", "sum", "var", "std", "max", "min")
SOLUTION_CALLS = ("mean", "variance")  # solutions another solution may call
SQRT_SIBLINGS = ("abs", "square")
LESSON_WIDTH = 3


def _np(attr: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _call(func, *args, keywords=()) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=list(keywords))


def _f32(node) -> ast.Call:
    return _call(_np("float32"), node)


def _astype_f32(node) -> ast.Call:
    return _call(ast.Attribute(value=node, attr="astype", ctx=ast.Load()), _np("float32"))


def _is_np_call(node, names=None) -> bool:
    func = getattr(node, "func", None)
    return (
        isinstance(node, ast.Call)
        and isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "np"
        and (names is None or func.attr in names)
    )


def _is_name(node, ident=None) -> bool:
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (ident is None or node.id == ident)


def _constant_changes(value):
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return {0: [1], 1: [0, 2], 2: [1, 3]}.get(value, [value - 1, value + 1])
    if isinstance(value, float):
        return [0.0, 1.0, value * 2, value / 2]
    return []


class _Spot:
    """A node of the original function, with where it sits (its parent and the parent's field)."""

    def __init__(self, node, parent, field_name, params):
        self.node, self.parent, self.field, self.params = node, parent, field_name, params

    @property
    def is_call_func(self) -> bool:
        return isinstance(self.parent, ast.Call) and self.field == "func"

    @property
    def is_value(self) -> bool:
        """An expression whose value is a number or an array (something a minus sign can go in front of)."""
        node, parent = self.node, self.parent
        if self.is_call_func or isinstance(parent, (ast.UnaryOp, ast.keyword, ast.comprehension)):
            return False
        if isinstance(parent, ast.Attribute):  # np.x, row.mean: the object whose attribute is taken
            return False
        if isinstance(node, ast.Name):
            return isinstance(node.ctx, ast.Load) and node.id != "np"
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return isinstance(node, (ast.BinOp, ast.Call, ast.Subscript))


def _mutations(spot: _Spot):
    """(kind, new node) for every one-token change at ``spot``."""
    node = spot.node
    if isinstance(node, ast.BinOp):
        for op in BINOPS:
            if not isinstance(node.op, op):
                yield "operator", ast.BinOp(left=node.left, op=op(), right=node.right)
        yield "operands swapped", ast.BinOp(left=node.right, op=node.op, right=node.left)
        if _is_name(node.left) and node.left.id in spot.params and type(node.op) in IN_PLACE:
            method = ast.Attribute(value=node.left, attr=IN_PLACE[type(node.op)], ctx=ast.Load())
            yield "in place", _call(method, node.right)
    if spot.is_value:
        yield "unary minus added", ast.UnaryOp(op=ast.USub(), operand=node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield "unary minus removed", node.operand
    if isinstance(node, ast.Constant):
        for value in _constant_changes(node.value):
            yield "constant", ast.Constant(value=value)
    if isinstance(node, ast.Call) and _is_name(node.func, "len"):
        yield "n", ast.BinOp(left=node, op=ast.Sub(), right=ast.Constant(1))
        yield "n", ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(1))
        yield "n", ast.Constant(LESSON_WIDTH)
    yield from _name_swaps(node)
    if isinstance(node, ast.Call):
        yield from _keyword_changes(node)
    if _is_name(node) and node.id in spot.params and not spot.is_call_func:
        yield "cast", _f32(node)
        yield "cast", _astype_f32(node)
    if isinstance(node, ast.Return) and node.value is not None:
        yield "cast", ast.Return(value=_f32(node.value))
        yield "cast", ast.Return(value=_astype_f32(node.value))
    yield from _eps_moves(node, spot)
    if isinstance(spot.parent, ast.FunctionDef) and spot.field == "body" and not isinstance(node, ast.Return):
        yield "statement deleted", ast.Pass()


def _name_swaps(node):
    if not isinstance(node, ast.Call):
        return
    func, args, keywords = node.func, node.args, node.keywords
    if isinstance(func, ast.Name) and func.id in BUILTIN_REDUCERS + SOLUTION_CALLS:
        alternatives = [ast.Name(id=name, ctx=ast.Load()) for name in BUILTIN_REDUCERS + SOLUTION_CALLS]
        alternatives += [_np(name) for name in NP_REDUCERS]
        for alternative in alternatives:
            if ast.unparse(alternative) != func.id:
                yield "name", ast.Call(func=alternative, args=args, keywords=keywords)
    elif _is_np_call(node, NP_REDUCERS):
        for name in NP_REDUCERS:
            if name != func.attr:
                yield "name", ast.Call(func=_np(name), args=args, keywords=keywords)
    elif _is_np_call(node, ("sqrt",)):
        for name in SQRT_SIBLINGS:
            yield "name", ast.Call(func=_np(name), args=args, keywords=keywords)
        if len(args) == 1 and not keywords:
            yield "name", args[0]  # the root left out
    elif _is_np_call(node, ("asarray",)) and len(args) == 1 and not keywords:
        yield "name", args[0]
    elif isinstance(func, ast.Attribute) and func.attr in METHOD_REDUCERS and not _is_name(func.value, "np"):
        for name in METHOD_REDUCERS:
            if name != func.attr:
                method = ast.Attribute(value=func.value, attr=name, ctx=ast.Load())
                yield "name", ast.Call(func=method, args=args, keywords=keywords)
        yield "name", ast.Call(func=_np("median"), args=[func.value, *args], keywords=keywords)


def _reducer_name(node) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _keyword_changes(node: ast.Call):
    others = lambda i: [k for j, k in enumerate(node.keywords) if j != i]  # noqa: E731
    for i, keyword in enumerate(node.keywords):
        if keyword.arg == "axis":
            for value in (0, None):
                changed = ast.keyword(arg="axis", value=ast.Constant(value))
                yield (
                    "keyword",
                    ast.Call(func=node.func, args=node.args, keywords=[*others(i)[:i], changed, *others(i)[i:]]),
                )
        if keyword.arg in ("axis", "keepdims", "ddof"):
            yield "keyword", ast.Call(func=node.func, args=node.args, keywords=others(i))
    name = _reducer_name(node)
    if name in ("var", "std") and not any(k.arg == "ddof" for k in node.keywords):
        ddof = ast.keyword(arg="ddof", value=ast.Constant(1))
        yield "keyword", ast.Call(func=node.func, args=node.args, keywords=[*node.keywords, ddof])


def _eps_moves(node, spot: _Spot):
    if _is_name(node, "eps") and "eps" in spot.params:
        yield "eps", ast.Constant(1e-5)  # the eps argument ignored
    if not (_is_np_call(node, ("sqrt",)) and len(node.args) == 1 and isinstance(node.args[0], ast.BinOp)):
        return
    inside = node.args[0]
    if not isinstance(inside.op, ast.Add):
        return
    if _is_name(inside.right, "eps"):
        rest, eps = inside.left, inside.right
    elif _is_name(inside.left, "eps"):
        rest, eps = inside.right, inside.left
    else:
        return
    root = lambda value: _call(_np("sqrt"), value)  # noqa: E731
    add = lambda a, b: ast.BinOp(left=a, op=ast.Add(), right=b)  # noqa: E731
    yield "eps", add(root(rest), eps)  # outside the root
    yield "eps", root(rest)  # removed
    yield "eps", root(add(rest, ast.BinOp(left=ast.Constant(2), op=ast.Mult(), right=eps)))  # doubled
    yield "eps", root(add(rest, root(eps)))  # √ε
    yield "eps", add(root(add(rest, eps)), eps)  # added inside and outside


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(id=self.mapping[node.id], ctx=node.ctx), node)
        return node


def _replaced(func: ast.FunctionDef, index: int, new) -> ast.FunctionDef:
    """A copy of ``func`` with its ``index``-th node (in ast.walk order) replaced by ``new``."""
    tree = copy.deepcopy(func)
    target = list(ast.walk(tree))[index]
    new = copy.deepcopy(new)
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, new)
                return tree
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is target:
                        value[i] = new
                        return tree
    raise LookupError("node not found")  # pragma: no cover


def _describe(kind: str, old, new, parent=None) -> str:
    old_text = ast.unparse(old) if not isinstance(old, ast.stmt) else ast.unparse(old).splitlines()[0]
    new_text = ast.unparse(new) if not isinstance(new, ast.stmt) else ast.unparse(new).splitlines()[0]
    where = ""
    if isinstance(old, (ast.Name, ast.Constant, ast.UnaryOp)) and isinstance(parent, (ast.expr, ast.keyword)):
        where = f" in `{ast.unparse(parent)}`"
    return f"line {old.lineno}, {kind}: `{old_text}` → `{new_text}`{where}"


def _raw_mutants(step: str, func: ast.FunctionDef):
    """(kind, description, source) for every mutant of ``func``, duplicates included."""
    params = [a.arg for a in func.args.args]
    nodes = list(ast.walk(func))
    parents = {}
    for parent in nodes:
        for name, value in ast.iter_fields(parent):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    parents[id(child)] = (parent, name)
    for index, node in enumerate(nodes):
        if node is func or isinstance(node, (ast.arguments, ast.arg, ast.expr_context, ast.operator, ast.unaryop)):
            continue
        parent, field_name = parents.get(id(node), (None, None))
        for kind, new in _mutations(_Spot(node, parent, field_name, params)):
            tree = _replaced(func, index, new)
            yield kind, _describe(kind, node, new, parent), ast.unparse(ast.fix_missing_locations(tree))
    for first, second in itertools.combinations(params, 2):
        tree = _Renamer({first: second, second: first}).visit(copy.deepcopy(func))
        tree.args = func.args  # the signature stays; only the body's uses swap
        yield "arguments swapped", f"arguments swapped: `{first}` ↔ `{second}` in the body", ast.unparse(tree)


@dataclass
class Generated:
    """The mutants of one step: how many were made before removing duplicates, and the unique ones."""

    step: str
    raw: int
    mutants: list[Mutant] = field(default_factory=list)


@functools.cache
def generate_all() -> dict[str, Generated]:
    found = {}
    for step, func in _function_defs().items():
        original = ast.unparse(func)
        seen = {original}
        generated = Generated(step, 0)
        for kind, description, source in _raw_mutants(step, func):
            generated.raw += 1
            if source in seen:
                continue
            seen.add(source)
            try:
                compile(source, "<mutant>", "exec")
            except SyntaxError:  # pragma: no cover — ast.unparse gives valid code
                continue
            generated.mutants.append(
                Mutant(f"{step}-{len(generated.mutants) + 1:03d}", step, kind, description, source)
            )
        found[step] = generated
    return found


def mutants(step: str | None = None) -> list[Mutant]:
    """Every unique mutant (of one step, or of all), in a fixed order."""
    steps = STEPS if step is None else (step,)
    return [m for s in steps for m in generate_all()[s].mutants]
