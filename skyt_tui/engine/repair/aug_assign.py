"""`x = x + e` ↔ `x += e` for a plain variable `x`.

Only when `x` holds a number (numeric evidence) or `e` is a number or string
constant: on lists `+=` extends in place while `x = x + e` rebinds, which
aliasing can tell apart.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Decline, Transformer

CONTAINERS = (
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
OPERATORS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.LShift,
    ast.RShift,
    ast.BitOr,
    ast.BitAnd,
    ast.BitXor,
    ast.MatMult,
)


def _plain(value: ast.AST) -> bool:
    return not any(isinstance(node, CONTAINERS) for node in ast.walk(value))


def _scalar_constant(value: ast.AST) -> bool:
    return isinstance(value, ast.Constant) and type(value.value) in (int, float, complex, str)


class AugAssign(Transformer):
    name = "aug_assign"
    summary = "`x = x + e` ↔ `x += e`"

    def prepare(self, tree: ast.Module) -> None:
        facts = self.analysis(tree).facts()
        self.numbers = facts.numbers - facts.sequences

    def _safe(self, name: str, operand: ast.AST) -> bool:
        return _plain(operand) and (name in self.numbers or _scalar_constant(operand))

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        target = node.targets[0] if len(node.targets) == 1 else None
        value = node.value
        eligible = (
            isinstance(target, ast.Name)
            and isinstance(value, ast.BinOp)
            and isinstance(value.op, OPERATORS)
            and isinstance(value.left, ast.Name)
            and value.left.id == target.id
            and self._safe(target.id, value.right)
        )
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is None:
            return node
        target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Name) and isinstance(value, ast.BinOp)):
            raise Decline("no longer `x = x <op> e`")  # offered only for that shape
        return ast.AugAssign(target=target, op=value.op, value=value.right)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        eligible = isinstance(node.target, ast.Name) and self._safe(node.target.id, node.value)
        choice = self.offer() if eligible else None
        self.generic_visit(node)
        if choice is None:
            return node
        if not isinstance(node.target, ast.Name):
            raise Decline("no longer `x <op>= e`")  # offered only for a plain name
        name = node.target.id
        return ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())],
            value=ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op, right=node.value),
        )
