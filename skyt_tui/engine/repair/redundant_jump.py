"""Statements that do nothing: drop a `continue` ending a loop body, `pass` next to
other statements, a bare `return` ending a function; drop or add `else: continue`
on the `if` that ends a loop body.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer


class RedundantJump(BlockTransformer):
    name = "redundant_jump"
    summary = "remove a trailing `continue`, a redundant `pass`, a final bare `return`; drop/add `else: continue` ending a loop"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        in_loop = self.loop_body
        function_body = self.function is not None and statements is self.function.body
        out: list[ast.stmt] = []
        last = len(statements) - 1
        for index, statement in enumerate(statements):
            drop = (
                (isinstance(statement, ast.Pass) and len(statements) > 1)
                or (in_loop and index == last and index > 0 and isinstance(statement, ast.Continue))
                or (
                    function_body
                    and index == last
                    and index > 0
                    and isinstance(statement, ast.Return)
                    and statement.value is None
                )
            )
            ending_if = (
                statement if in_loop and index == last and isinstance(statement, ast.If) else None
            )
            trim_else = (
                ending_if is not None
                and len(ending_if.orelse) == 1
                and isinstance(ending_if.orelse[0], ast.Continue)
            )
            add_else = ending_if is not None and not ending_if.orelse
            choice = self.offer() if drop or trim_else or add_else else None
            if choice is not None and drop:
                continue
            visited = self.visit(statement)
            if choice is not None:
                visited.orelse = [] if trim_else else [ast.Continue()]
            out.append(visited)
        return out
