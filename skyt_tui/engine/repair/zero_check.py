"""Zero tests on a number: `x != 0` ↔ `x` and `x == 0` ↔ `not x`.

`x != 0` ↔ `x` only where the value is used for its truth; always only for a plain name with
evidence of holding a number (an arithmetic operand, a numeric assignment):
for a list, `x != 0` is always true while `x` is not.
"""

from __future__ import annotations

import ast
from typing import Any

from skyt_tui.engine.repair.base import Transformer


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


class ZeroCheck(Transformer):
    name = "zero_check"
    summary = "`x != 0` ↔ `x`, `x == 0` ↔ `not x` in tests, for numbers"
    leaves_unvisited = True  # a leaf (constant, context, operator) is never one of its sites

    def prepare(self, tree: ast.Module) -> None:
        analysis = self.analysis(tree)
        self.truth_tested = analysis.truth_tested()
        facts = analysis.facts()
        self.numbers = facts.numbers - facts.sequences

    def _rewrite(self, node: ast.AST) -> ast.expr | None:
        in_test = id(node) in self.truth_tested
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and _zero(node.comparators[0]):
            left = node.left
            if isinstance(left, ast.Name) and left.id in self.numbers:
                if isinstance(node.ops[0], ast.NotEq) and in_test:
                    return ast.Name(id=left.id, ctx=ast.Load())
                if isinstance(node.ops[0], ast.Eq):
                    return ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=left.id, ctx=ast.Load()))
            return None
        if (
            in_test
            and isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in self.numbers
        ):
            return ast.Compare(
                left=ast.Name(id=node.id, ctx=ast.Load()),
                ops=[ast.NotEq()],
                comparators=[ast.Constant(0)],
            )
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Not)
            and isinstance(node.operand, ast.Name)
            and node.operand.id in self.numbers
        ):
            return ast.Compare(
                left=ast.Name(id=node.operand.id, ctx=ast.Load()),
                ops=[ast.Eq()],
                comparators=[ast.Constant(0)],
            )
        return None

    def visit(self, node: ast.AST) -> Any:
        replacement = self._rewrite(node) if isinstance(node, ast.expr) else None
        choice = self.offer() if replacement is not None else None
        visited = super().visit(node)  # nested sites are offered either way, so numbering is stable
        return visited if choice is None else replacement
