"""Redundant `else` after a branch that always leaves, both ways.

`if c: return x` + `else: rest` ↔ `if c: return x` followed by `rest` — the
same for raise/continue/break, and for `elif` (which is an `else` holding an
`if`). For an `if/elif/…/else` chain whose every branch but the last leaves,
a second option drops only the final `else`, keeping the `elif`s. Flattening
or wrapping changes nothing when the branches before it always exit.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer, Decline, exits


def _chain_end(statement: ast.If) -> ast.If | None:
    """The last `if` of an elif chain (length ≥ 2) whose bodies all exit and that ends in an `else`."""
    node, length = statement, 1
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and exits(node.body):
        node, length = node.orelse[0], length + 1
    if (
        length >= 2
        and exits(node.body)
        and node.orelse
        and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If))
    ):
        return node
    return None


class ElseAfterExit(BlockTransformer):
    name = "else_after_exit"
    summary = (
        "drop the `else`/`elif` after a branch that returns/raises/breaks/continues, or add it"
    )

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            if not isinstance(statement, ast.If) or not exits(statement.body):
                out.append(self.visit(statement))
                continue
            flatten = bool(statement.orelse)
            wrap = not statement.orelse and index + 1 < len(statements)
            chain = flatten and _chain_end(statement) is not None
            choice = self.offer(2 if chain else 1) if flatten or wrap else None
            end = _chain_end(statement) if chain else None
            statement = self.visit(statement)
            if choice == 1:
                if end is None:
                    raise Decline("no elif chain")  # `chain` says there is one
                rest, end.orelse = end.orelse, []
                out.append(statement)
                out.extend(rest)
            elif choice is not None and flatten:
                rest, statement.orelse = statement.orelse, []
                out.append(statement)
                out.extend(rest)
            elif choice is not None and wrap:
                statement.orelse = self.block(statements[index + 1 :])
                out.append(statement)
                return out
            else:
                out.append(statement)
        return out
