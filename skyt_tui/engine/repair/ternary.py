"""`x = a if c else b` ↔ `if c: x = a` / `else: x = b`, and the same for `return`."""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer


def _target(statement: ast.stmt) -> str | None:
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id
    return None


def _foldable(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.If) or len(statement.body) != 1 or len(statement.orelse) != 1:
        return False
    yes, no = statement.body[0], statement.orelse[0]
    if isinstance(yes, ast.Return) and isinstance(no, ast.Return):
        return yes.value is not None and no.value is not None
    return _target(yes) is not None and _target(yes) == _target(no)


def _unfoldable(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Return):
        return isinstance(statement.value, ast.IfExp)
    return (
        isinstance(statement, ast.Assign)
        and _target(statement) is not None
        and isinstance(statement.value, ast.IfExp)
    )


class Ternary(BlockTransformer):
    name = "ternary"
    summary = "`x = a if c else b` ↔ `if c: x = a else: x = b` (also for return)"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            fold, unfold = _foldable(statement), _unfoldable(statement)
            choice = self.offer() if fold or unfold else None
            statement = self.visit(statement)
            if choice is None:
                out.append(statement)
            elif fold:
                yes, no = statement.body[0], statement.orelse[0]
                value = ast.IfExp(test=statement.test, body=yes.value, orelse=no.value)
                out.append(
                    ast.Return(value=value)
                    if isinstance(yes, ast.Return)
                    else ast.Assign(targets=yes.targets, value=value)
                )
            else:
                expr = statement.value
                branches: tuple[ast.stmt, ast.stmt]
                if isinstance(statement, ast.Return):
                    branches = ast.Return(value=expr.body), ast.Return(value=expr.orelse)
                else:
                    name = statement.targets[0].id
                    branches = (
                        ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=expr.body),
                        ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=expr.orelse),
                    )
                out.append(ast.If(test=expr.test, body=[branches[0]], orelse=[branches[1]]))
        return out
