"""Compare with None by identity: `x == None` → `x is None`, `x != None` → `x is not None`, and back.

`==` can be overridden, `is` cannot; for every built-in type the two agree,
and the oracle check after the step guards the rest.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer

SWAP = {ast.Eq: ast.Is, ast.NotEq: ast.IsNot, ast.Is: ast.Eq, ast.IsNot: ast.NotEq}


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class NoneCompare(Transformer):
    name = "none_compare"
    summary = "`x == None` ↔ `x is None`, `x != None` ↔ `x is not None`"

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        eligible = (
            len(node.ops) == 1
            and type(node.ops[0]) in SWAP
            and (_is_none(node.left) or _is_none(node.comparators[0]))
        )
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is not None:
            node.ops = [SWAP[type(node.ops[0])]()]
        return node
