"""Rule conditions: a small, safe expression language over facts and parameters.

A condition is Python expression syntax restricted to comparisons, `and`/`or`/`not`,
arithmetic, numbers, strings, `True`/`False`, dotted names (`step.data_wait_share`; a bare
name is a rule parameter) and the functions `min`, `max`, `abs` and `len`. Nothing else
parses, so a rule file can never run code; names are checked against the fact registry
when the rule is loaded.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs, "len": len}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


class ExpressionError(ValueError):
    """An expression uses syntax or a function that rules may not use."""


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _check(node: ast.AST, names: set[str]) -> None:
    """Reject every node outside the language; collect the names used."""
    if isinstance(node, (ast.Attribute, ast.Name)):
        name = _dotted(node)
        if name is None:
            raise ExpressionError("attribute access is only allowed on names")
        if any(part.startswith("_") for part in name.split(".")):
            raise ExpressionError(f"{name}: names may not start with an underscore")
        if name not in ("True", "False", "None"):
            names.add(name)
        return
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS) or node.keywords:
            raise ExpressionError(f"only {', '.join(_FUNCS)} may be called")
        for arg in node.args:
            _check(arg, names)
        return
    allowed = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.BinOp, ast.UnaryOp,
               ast.Not, ast.USub, ast.Constant, ast.Tuple, ast.List, ast.Load,
               *_BINOPS, *_CMPOPS)  # fmt: skip
    if not isinstance(node, allowed):
        raise ExpressionError(f"{type(node).__name__} is not allowed in rule expressions")
    for child in ast.iter_child_nodes(node):
        _check(child, names)


@lru_cache(maxsize=1024)
def parse(text: str) -> tuple[ast.Expression, frozenset[str]]:
    """The parsed expression and the dotted names it reads."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {text!r}: {exc.msg}") from None
    names: set[str] = set()
    _check(tree, names)
    return tree, frozenset(names)


def evaluate(text: str, values: Mapping[str, Any]) -> Any:
    """Evaluate `text` with `values` for its names (all must be present)."""
    tree, _ = parse(text)
    return _eval(tree.body, values)


def _eval(node: ast.expr, values: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _dotted(node)
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        return values[name or ""]
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, values) for v in node.values)
        return any(_eval(v, values) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, values)
        return (not operand) if isinstance(node.op, ast.Not) else -operand
    if isinstance(node, ast.BinOp):
        return _BINOPS[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval(comp, values)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCS[node.func.id](*(_eval(a, values) for a in node.args))
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_eval(e, values) for e in node.elts]
    raise ExpressionError(f"{type(node).__name__} is not allowed")  # _check rejects it first
