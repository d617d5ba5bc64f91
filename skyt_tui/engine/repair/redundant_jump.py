"""Drop statements that do nothing: a `continue` ending a loop body, `else: continue`
on the last `if` of a loop body, `pass` next to other statements, and a bare
`return` ending a function.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer


class RedundantJump(BlockTransformer):
    name = "redundant_jump"
    summary = "remove a trailing `continue`/`else: continue` in a loop, a redundant `pass`, a final bare `return`"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        in_loop = self.loop_body
        function_body = self.function is not None and statements is self.function.body
        out: list[ast.stmt] = []
        last = len(statements) - 1
        for index, statement in enumerate(statements):
            drop = (
                (isinstance(statement, ast.Pass) and len(statements) > 1)
                or (in_loop and index == last and index > 0 and isinstance(statement, ast.Continue))
                or (function_body and index == last and index > 0 and isinstance(statement, ast.Return) and statement.value is None)
            )
            trim_else = (
                in_loop and index == last and isinstance(statement, ast.If)
                and len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.Continue)
            )
            choice = self.offer() if drop or trim_else else None
            if choice is not None and drop:
                continue
            statement = self.visit(statement)
            if choice is not None:
                statement.orelse = []
            out.append(statement)
        return out
