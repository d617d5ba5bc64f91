"""Fold or unfold a negation into a comparison: `not a == b` ↔ `a != b`, `not a in b` ↔ `a not in b`.

Only the operator pairs that are exact complements for every type Python
defines them on by default (==/!=, in/not in, is/is not); `not a < b` is
never turned into `a >= b` (NaN, partial orders).
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Decline, Transformer

COMPLEMENT = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
UNFOLD_FROM = (ast.NotEq, ast.NotIn, ast.IsNot)


def _single(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPLEMENT


class NegatedCompare(Transformer):
    name = "negated_compare"
    summary = "`not a == b` ↔ `a != b`, `not a in b` ↔ `a not in b`, `not a is b` ↔ `a is not b`"

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        fold = isinstance(node.op, ast.Not) and _single(node.operand)
        choice = self.offer() if fold else None
        self.generic_visit(node)
        if choice is None:
            return node
        inner = node.operand
        if not isinstance(inner, ast.Compare):
            raise Decline("operand no longer a comparison")  # offered only for `not a <op> b`
        return ast.Compare(
            left=inner.left, ops=[COMPLEMENT[type(inner.ops[0])]()], comparators=inner.comparators
        )

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        unfold = len(node.ops) == 1 and isinstance(node.ops[0], UNFOLD_FROM)
        choice = self.offer() if unfold else None
        self.generic_visit(node)
        if choice is None:
            return node
        positive = ast.Compare(
            left=node.left, ops=[COMPLEMENT[type(node.ops[0])]()], comparators=node.comparators
        )
        return ast.UnaryOp(op=ast.Not(), operand=positive)
