"""Redundant `else` after a branch that always leaves, both ways.

`if c: return x` + `else: rest` ↔ `if c: return x` followed by `rest` — the
same for raise/continue/break, and for `elif` (which is an `else` holding an
`if`). Flattening or wrapping changes nothing when the `if` body always exits.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer, exits


class ElseAfterExit(BlockTransformer):
    name = "else_after_exit"
    summary = "drop the `else`/`elif` after a branch that returns/raises/breaks/continues, or add it"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            if not isinstance(statement, ast.If) or not exits(statement.body):
                out.append(self.visit(statement))
                continue
            flatten = bool(statement.orelse)
            wrap = not statement.orelse and index + 1 < len(statements)
            choice = self.offer() if flatten or wrap else None
            statement = self.visit(statement)
            if choice is not None and flatten:
                rest, statement.orelse = statement.orelse, []
                out.append(statement)
                out.extend(rest)
            elif choice is not None and wrap:
                statement.orelse = self.block(statements[index + 1:])
                out.append(statement)
                return out
            else:
                out.append(statement)
        return out
