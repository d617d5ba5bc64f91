"""`a = b = 0` ↔ `a, b = 0, 0` ↔ `a = 0` + `b = 0`, for an immutable constant only.

With a mutable value (`a = b = []`) the chained form aliases one object, the
others make two, so only constants (numbers, strings, None, bools) qualify.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer, Decline


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bytes | type(...))


def _names(targets: list[ast.expr]) -> list[str] | None:
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names if len(names) == len(targets) and len(set(names)) == len(names) >= 2 else None


class ChainedAssign(BlockTransformer):
    name = "chained_assign"
    summary = "`a = b = 0` ↔ `a, b = 0, 0` ↔ one assignment each (constants only)"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            if not isinstance(statement, ast.Assign):
                out.append(self.visit(statement))
                continue
            chained = _names(statement.targets) is not None and _constant(statement.value)
            tupled = (
                len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Tuple)
                and _names(statement.targets[0].elts) is not None
                and isinstance(statement.value, ast.Tuple)
                and len(statement.value.elts) == len(statement.targets[0].elts)
                and all(_constant(v) for v in statement.value.elts)
                and len(
                    {
                        repr(v.value) + type(v.value).__name__
                        for v in statement.value.elts
                        if isinstance(v, ast.Constant)  # all are
                    }
                )
                == 1
            )
            choice = self.offer(2) if chained else self.offer(1) if tupled else None
            if choice is None:
                out.append(statement)
            elif chained:
                names, value = _names(statement.targets), statement.value
                if names is None or not isinstance(value, ast.Constant):
                    raise Decline("not a chained constant assignment")  # `chained` says it is
                if choice == 0:
                    out.append(
                        ast.Assign(
                            targets=[
                                ast.Tuple(
                                    elts=[ast.Name(id=n, ctx=ast.Store()) for n in names],
                                    ctx=ast.Store(),
                                )
                            ],
                            value=ast.Tuple(
                                elts=[ast.Constant(value.value) for _ in names], ctx=ast.Load()
                            ),
                        )
                    )
                else:
                    out.extend(
                        ast.Assign(
                            targets=[ast.Name(id=n, ctx=ast.Store())],
                            value=ast.Constant(value.value),
                        )
                        for n in names
                    )
            else:
                target, values = statement.targets[0], statement.value
                if not (isinstance(target, ast.Tuple) and isinstance(values, ast.Tuple)):
                    raise Decline("not a tuple assignment")  # `tupled` says it is
                out.append(ast.Assign(targets=list(target.elts), value=values.elts[0]))
        return out
