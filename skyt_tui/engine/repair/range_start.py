"""`range(0, n)` ↔ `range(n)` (the builtin `range` only, never a step argument)."""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


class RangeStart(Transformer):
    name = "range_start"
    summary = "`range(0, n)` ↔ `range(n)`"

    def prepare(self, tree: ast.Module) -> None:
        self.shadowed = "range" in self.analysis(tree).bound_names()

    def visit_Call(self, node: ast.Call) -> ast.AST:
        is_range = (
            isinstance(node.func, ast.Name)
            and node.func.id == "range"
            and not node.keywords
            and not self.shadowed
        )
        plain = is_range and not any(isinstance(a, ast.Starred) for a in node.args)
        eligible = plain and (len(node.args) == 1 or (len(node.args) == 2 and _zero(node.args[0])))
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is None:
            return node
        if len(node.args) == 2:
            node.args = [node.args[1]]
        else:
            node.args = [ast.Constant(0), node.args[0]]
        return node
