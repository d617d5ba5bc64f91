"""The midpoint of two bounds: `(lo + hi) // 2` ↔ `lo + (hi - lo) // 2`, toward the canon's form.

For integers the two are equal: lo + ⌊(hi − lo)/2⌋ = ⌊(2·lo + hi − lo)/2⌋ = ⌊(lo + hi)/2⌋.
(For floats they differ; as after every step, the oracle decides.) The bounds are plain
names, so neither form evaluates anything twice that could change. The rewrite goes only
toward the form the canon writes: a canon with `(lo + hi) // 2` turns `lo + (hi - lo) // 2`
into it, and the reverse; a canon with both forms, or neither, leaves the sample alone.
`(lo + hi) // 2` has two readings as the other form (either bound as `lo`): both are offered.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, walk

SUM = "sum"
"""`(lo + hi) // 2`."""
OFFSET = "offset"
"""`lo + (hi - lo) // 2`."""


def _halved(node: ast.AST) -> ast.expr | None:
    """`x` of `x // 2`."""
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.FloorDiv)
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
        and node.right.value == 2
    ):
        return node.left
    return None


def _names(left: ast.AST, right: ast.AST) -> tuple[str, str] | None:
    if isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id != right.id:
        return left.id, right.id
    return None


def midpoint_form(node: ast.AST) -> tuple[str, str, str] | None:
    """(form, lo, hi) when `node` is a midpoint of two names in either form."""
    inner = _halved(node)
    if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Add):
        names = _names(inner.left, inner.right)
        if names is not None:
            return SUM, *names
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        inner = _halved(node.right)
        if (
            isinstance(node.left, ast.Name)
            and isinstance(inner, ast.BinOp)
            and isinstance(inner.op, ast.Sub)
        ):
            names = _names(inner.left, inner.right)
            if names is not None and names[1] == node.left.id:
                return OFFSET, node.left.id, names[0]
    return None


def _name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Load())


def _sum(lo: str, hi: str) -> ast.expr:
    return ast.BinOp(
        left=ast.BinOp(left=_name(lo), op=ast.Add(), right=_name(hi)),
        op=ast.FloorDiv(),
        right=ast.Constant(2),
    )


def _offset(lo: str, hi: str) -> ast.expr:
    return ast.BinOp(
        left=_name(lo),
        op=ast.Add(),
        right=ast.BinOp(
            left=ast.BinOp(left=_name(hi), op=ast.Sub(), right=_name(lo)),
            op=ast.FloorDiv(),
            right=ast.Constant(2),
        ),
    )


class Midpoint(Transformer):
    name = "midpoint"
    summary = "`(lo + hi) // 2` ↔ `lo + (hi - lo) // 2`, toward the canon's form"
    reads_canon = True

    def prepare(self, tree: ast.Module) -> None:
        derived = self.context.derived
        if Midpoint not in derived:
            forms = set()
            for node in walk(self.context.canon):
                found = midpoint_form(node)
                if found is not None:
                    forms.add(found[0])
            derived[Midpoint] = next(iter(forms)) if len(forms) == 1 else None
        self.target: str | None = derived[Midpoint]

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        found = midpoint_form(node) if self.target is not None else None
        choice = None
        if found is not None and found[0] != self.target:
            choice = self.offer(2 if found[0] == SUM else 1)
        self.generic_visit(node)
        if choice is None or found is None:
            return node
        _, lo, hi = found
        if self.target == SUM:
            return _sum(lo, hi)
        return _offset(lo, hi) if choice == 0 else _offset(hi, lo)
