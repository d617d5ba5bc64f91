"""Swap the operands of a comparison: `a < b` ↔ `b > a`, `x == y` ↔ `y == x`.

Only single comparisons (no chains) with an order or (in)equality/identity
operator, and only when at most one side can have side effects, so the
evaluation order cannot matter beyond which operand raises first.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, has_side_effects

MIRROR = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
    ast.Eq: ast.Eq,
    ast.NotEq: ast.NotEq,
    ast.Is: ast.Is,
    ast.IsNot: ast.IsNot,
}


class CompareOrder(Transformer):
    name = "compare_order"
    summary = "swap comparison operands (`a < b` ↔ `b > a`, `x == y` ↔ `y == x`)"

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        eligible = (
            len(node.ops) == 1
            and type(node.ops[0]) in MIRROR
            and not (has_side_effects(node.left) and has_side_effects(node.comparators[0]))
        )
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is None:
            return node
        return ast.Compare(
            left=node.comparators[0], ops=[MIRROR[type(node.ops[0])]()], comparators=[node.left]
        )
