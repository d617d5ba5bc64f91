"""Remove type annotations: a function's parameter and return hints, and `x: T = v` in function bodies.

Only removal: annotations in the canon are never copied into a sample.
A bare `x: T` (no value) is left alone, since it makes `x` local.
"""

from __future__ import annotations

import ast
from typing import Any

from skyt_tui.engine.measure.scoping import all_args
from skyt_tui.engine.repair.base import Transformer, walk


class TypeHints(Transformer):
    name = "type_hints"
    summary = "remove parameter/return annotations and annotated assignments in functions"

    def _function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> ast.FunctionDef | ast.AsyncFunctionDef:
        annotated = node.returns is not None or any(
            a.annotation is not None for a in all_args(node.args)
        )
        choice = self.offer() if annotated else None
        self.generic_visit(node)
        if choice is not None:
            node.returns = None
            for arg in all_args(node.args):
                arg.annotation = None
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        eligible = (
            node.value is not None
            and node.simple
            and isinstance(node.target, ast.Name)
            and self._in_function
        )
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is None or node.value is None:
            return node
        return ast.Assign(targets=[node.target], value=node.value)

    def prepare(self, tree: ast.Module) -> None:
        self.function_nodes: set[int] = set()
        for node in self.analysis(tree).nodes():
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.function_nodes.update(id(sub) for sub in walk(node) if sub is not node)
        self._in_function = False

    def visit(self, node: ast.AST) -> Any:
        self._in_function = id(node) in self.function_nodes
        return super().visit(node)
