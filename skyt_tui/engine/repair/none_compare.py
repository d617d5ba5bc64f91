"""Compare with None by identity: `x == None` → `x is None`, `x != None` → `x is not None`.

One way only. `==` dispatches to the operand's `__eq__`, `is` cannot be
overridden: for built-in types the two agree, and turning `is None` into
`== None` could hand the decision to a custom `__eq__`, so that direction is
never offered. (The oracle check after the step still guards the forward one.)
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer

IDENTITY = {ast.Eq: ast.Is, ast.NotEq: ast.IsNot}


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class NoneCompare(Transformer):
    name = "none_compare"
    summary = "`x == None` → `x is None`, `x != None` → `x is not None`"

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        eligible = (
            len(node.ops) == 1
            and type(node.ops[0]) in IDENTITY
            and (_is_none(node.left) or _is_none(node.comparators[0]))
        )
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is not None:
            node.ops = [IDENTITY[type(node.ops[0])]()]
        return node
