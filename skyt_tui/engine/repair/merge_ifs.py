"""`if a: return False` + `if b: return False` ↔ `if a or b: return False`.

Two consecutive `if`s without `else` whose bodies are the same single
leaving statement (return/raise/continue/break) test `a`, then `b`, exactly
as `a or b` does. Splitting duplicates the sample's own statement.
"""

from __future__ import annotations

import ast
import copy

from skyt_tui.engine.repair.base import BlockTransformer, Decline

LEAVING = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _exit_only(statement: ast.stmt) -> str | None:
    """The dumped body of an else-less `if` whose body is one leaving statement."""
    if (
        isinstance(statement, ast.If)
        and not statement.orelse
        and len(statement.body) == 1
        and isinstance(statement.body[0], LEAVING)
    ):
        return ast.dump(statement.body[0])
    return None


class MergeIfs(BlockTransformer):
    name = "merge_ifs"
    summary = "`if a: return x` + `if b: return x` ↔ `if a or b: return x`"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        kinds = [self._kind(statements, i) for i in range(len(statements))]
        out: list[ast.stmt] = []
        index = 0
        while index < len(statements):
            statement, kind = statements[index], kinds[index]
            choice = self.offer() if kind else None
            if choice is not None and kind == "merge":
                following = statements[index + 1]
                if not (isinstance(statement, ast.If) and isinstance(following, ast.If)):
                    raise Decline("not two ifs")  # `merge` says they are
                if kinds[index + 1]:
                    self.offer()  # the absorbed statement's own site keeps its number, unused
                test = ast.BoolOp(
                    op=ast.Or(), values=[*_or_values(statement.test), *_or_values(following.test)]
                )
                out.append(ast.If(test=test, body=statement.body, orelse=[]))
                index += 2
                continue
            if choice is not None and kind == "split":
                if not (isinstance(statement, ast.If) and isinstance(statement.test, ast.BoolOp)):
                    raise Decline("not an `if a or b`")  # `split` says it is
                first, *others = statement.test.values
                rest = others[0] if len(others) == 1 else ast.BoolOp(op=ast.Or(), values=others)
                out.append(ast.If(test=first, body=statement.body, orelse=[]))
                out.append(ast.If(test=rest, body=copy.deepcopy(statement.body), orelse=[]))
            else:
                out.append(self.visit(statement))
            index += 1
        return out

    @staticmethod
    def _kind(statements: list[ast.stmt], index: int) -> str | None:
        statement = statements[index]
        body = _exit_only(statement)
        if body is None or not isinstance(statement, ast.If):  # the latter implied by the former
            return None
        following = statements[index + 1] if index + 1 < len(statements) else None
        if following is not None and _exit_only(following) == body:
            return "merge"
        if isinstance(statement.test, ast.BoolOp) and isinstance(statement.test.op, ast.Or):
            return "split"
        return None


def _or_values(test: ast.expr) -> list[ast.expr]:
    return (
        list(test.values)
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)
        else [test]
    )
