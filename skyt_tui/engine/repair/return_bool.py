"""`if c: return True` / `return False` ↔ `return c`, for a condition that is already a bool.

Folding: an `if` whose branches return True and False (as `else`, or as the
next statement) becomes `return c` (`return not c` when inverted). Only
conditions that certainly evaluate to a bool (comparisons, `not`, and/or of
such, `isinstance` …) are folded or unfolded, since `return c` would
otherwise return c's own value.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer, is_boolean_valued


def _returns_bool(statements: list[ast.stmt]) -> bool | None:
    if len(statements) == 1 and isinstance(statements[0], ast.Return):
        value = statements[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            return value.value
    return None


def _return(value: bool) -> ast.Return:
    return ast.Return(value=ast.Constant(value))


class ReturnBool(BlockTransformer):
    name = "return_bool"
    summary = "`if c: return True else: return False` ↔ `return c` (bool-valued c)"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        index = 0
        while index < len(statements):
            statement = statements[index]
            following = statements[index + 1 : index + 2]
            fold = self._foldable(statement, following)
            unfold = (
                isinstance(statement, ast.Return)
                and statement.value is not None
                and not isinstance(statement.value, ast.Constant)
                and is_boolean_valued(statement.value)
            )
            choice = self.offer() if fold else self.offer(2) if unfold else None
            statement = self.visit(statement)
            if choice is None:
                out.append(statement)
                index += 1
            elif fold:
                when_true = _returns_bool(statement.body)
                test = (
                    statement.test
                    if when_true
                    else ast.UnaryOp(op=ast.Not(), operand=statement.test)
                )
                out.append(ast.Return(value=test))
                index += 1 if statement.orelse else 2
            else:
                if choice == 0:
                    out.append(
                        ast.If(test=statement.value, body=[_return(True)], orelse=[_return(False)])
                    )
                else:
                    out.extend(
                        [
                            ast.If(test=statement.value, body=[_return(True)], orelse=[]),
                            _return(False),
                        ]
                    )
                index += 1
        return out

    @staticmethod
    def _foldable(statement: ast.stmt, following: list[ast.stmt]) -> bool:
        if not isinstance(statement, ast.If):
            return False
        when_true = _returns_bool(statement.body)
        otherwise = (
            _returns_bool(statement.orelse) if statement.orelse else _returns_bool(following)
        )
        if when_true is None or otherwise is None or when_true == otherwise:
            return False
        return is_boolean_valued(statement.test) or not when_true
