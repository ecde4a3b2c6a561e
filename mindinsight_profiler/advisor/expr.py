"""Rule conditions: a small, safe expression language over facts and parameters.

A condition is Python expression syntax restricted to comparisons, `and`/`or`/`not`,
arithmetic, numbers, strings, `True`/`False`, dotted names (`step.data_wait_share`; a bare
name is a rule parameter) and the functions `min`, `max`, `abs` and `len`. Nothing else
parses, so a rule file can never run code; names are checked against the fact registry
when the rule is loaded.

A rule file is untrusted data, so the language is also bounded in size: an expression has
at most `MAX_CHARS` characters, `MAX_NODES` syntax nodes nested at most `MAX_DEPTH` deep,
and its constants are small (`MAX_INT`, `MAX_STRING`). Concatenating or repeating strings
and lists (`'a' * 10000000000`) may not make one longer than `MAX_SEQUENCE`: checked when
the rule is loaded for the parts made of constants and parameters (`check_constants`), and
while evaluating for the parts that read facts. There is no `**`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

#: Longest expression, in characters (the built-in rules' longest is under 100).
MAX_CHARS = 1000
#: Most syntax nodes in one expression, and how deep they may nest.
MAX_NODES = 256
MAX_DEPTH = 32
#: Largest integer constant (exact as a float), and longest string constant.
MAX_INT = 2**53
MAX_STRING = 200
#: Longest string or list that `+` or `*` may make while evaluating.
MAX_SEQUENCE = 10_000


class ExpressionError(ValueError):
    """An expression uses syntax or a function that rules may not use, or is too big."""


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else None


def _add(a: Any, b: Any) -> Any:
    la, lb = _length(a), _length(b)
    if la is not None and lb is not None and la + lb > MAX_SEQUENCE:
        raise ExpressionError(f"joining makes {la + lb} items, more than {MAX_SEQUENCE}")
    return a + b


def _mul(a: Any, b: Any) -> Any:
    for seq, count in ((a, b), (b, a)):
        size = _length(seq)
        if size is not None and isinstance(count, int) and size * max(count, 0) > MAX_SEQUENCE:
            raise ExpressionError(
                f"repeating {size} item(s) {count} times makes more than {MAX_SEQUENCE}"
            )
    return a * b


_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs, "len": len}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: _add,
    ast.Sub: operator.sub,
    ast.Mult: _mul,
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
_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.BinOp, ast.UnaryOp,
            ast.Not, ast.USub, ast.Constant, ast.Tuple, ast.List, ast.Load,
            *_BINOPS, *_CMPOPS)  # fmt: skip


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _constant(value: Any) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise ExpressionError(f"integer constants are limited to +-2**53 ({MAX_INT})")
        return
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise ExpressionError(f"a string constant of {len(value)} characters "
                                  f"(at most {MAX_STRING})")  # fmt: skip
        return
    raise ExpressionError(f"{type(value).__name__} constants are not allowed")


def _check(tree: ast.AST, names: set[str]) -> None:
    """Reject every node outside the language or past the size limits; collect the names.

    Iterative, so a deeply nested expression cannot exhaust the stack while it is checked.
    """
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise ExpressionError(f"more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise ExpressionError(f"nested more than {MAX_DEPTH} deep")
        if isinstance(node, (ast.Attribute, ast.Name)):
            name = _dotted(node)
            if name is None:
                raise ExpressionError("attribute access is only allowed on names")
            if any(part.startswith("_") for part in name.split(".")):
                raise ExpressionError(f"{name}: names may not start with an underscore")
            if name not in ("True", "False", "None"):
                names.add(name)
            continue
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS) or node.keywords:
                raise ExpressionError(f"only {', '.join(_FUNCS)} may be called")
            stack.extend((arg, depth + 1) for arg in node.args)
            continue
        if not isinstance(node, _ALLOWED):
            raise ExpressionError(f"{type(node).__name__} is not allowed in rule expressions")
        if isinstance(node, ast.Constant):
            _constant(node.value)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


@lru_cache(maxsize=1024)
def parse(text: str) -> tuple[ast.Expression, frozenset[str]]:
    """The parsed expression and the dotted names it reads."""
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"{len(text)} characters long (at most {MAX_CHARS})")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {_quote(text)}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; the parser's limits
        raise ExpressionError(f"cannot parse {_quote(text)}: {type(exc).__name__}") from None
    names: set[str] = set()
    _check(tree, names)
    return tree, frozenset(names)


def _quote(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:77]) + "..."


def check_constants(text: str, params: Mapping[str, Any]) -> None:
    """Evaluate now every part of `text` that reads only constants and `params`.

    What a rule's own constants make is known when it is loaded: `len('a' * 10000000000)`
    or `s * n` with a huge parameter `n` is refused there, naming the file, rather than
    failing on every input. A part that always fails (`1 / 0`) is refused too.
    """
    tree, _ = parse(text)
    pending: list[ast.AST] = [tree.body]
    while pending:  # depth is bounded by parse: the recursion in _known is shallow
        node = pending.pop()
        if not isinstance(node, ast.expr):  # operators and contexts: nothing to evaluate
            continue
        if _known(node, params):
            try:
                _eval(node, params)
            except ExpressionError:
                raise
            except (ArithmeticError, TypeError, ValueError) as exc:
                raise ExpressionError(
                    f"{_quote(ast.unparse(node))} always fails: {type(exc).__name__}: {exc}"
                ) from None
        else:
            pending.extend(ast.iter_child_nodes(node))


def _known(node: ast.AST, params: Mapping[str, Any]) -> bool:
    """Whether `node` reads nothing but constants and parameters."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _dotted(node) in params
    if isinstance(node, ast.Call):
        return all(_known(a, params) for a in node.args)
    return all(_known(c, params) for c in ast.iter_child_nodes(node))


def evaluate(text: str, values: Mapping[str, Any]) -> Any:
    """Evaluate `text` with `values` for its names (all must be present).

    Raises ExpressionError when a string or list would grow past `MAX_SEQUENCE`.
    """
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
