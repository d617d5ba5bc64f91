"""`a, b = e1, e2` ↔ `a = e1` + `b = e2`, when no right-hand side reads a target.

Split: a tuple assignment of distinct plain names from a tuple of the same
length. Join: a run of consecutive single-name assignments where no value
reads a name assigned earlier in the run (the tuple form evaluates every value
before assigning any). Each run offers joining its first 2, 3, … statements.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer
from skyt_tui.engine.repair.scopes import loaded_names


def _simple(statement: ast.stmt) -> str | None:
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        if not isinstance(statement.value, ast.Starred):
            return statement.targets[0].id
    return None


def _splittable(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    target, value = statement.targets[0], statement.value
    if not (
        isinstance(target, ast.Tuple)
        and isinstance(value, ast.Tuple)
        and len(target.elts) == len(value.elts) >= 2
    ):
        return False
    names = [element.id for element in target.elts if isinstance(element, ast.Name)]
    if len(names) != len(target.elts) or len(set(names)) != len(names):
        return False
    if any(isinstance(element, ast.Starred) for element in value.elts):
        return False
    return not (loaded_names(value) & set(names))


def _run_length(statements: list[ast.stmt], start: int) -> int:
    names: list[str] = []
    for statement in statements[start:]:
        name = _simple(statement)
        if (
            name is None
            or not isinstance(statement, ast.Assign)  # `_simple` says it is
            or name in names
            or loaded_names(statement.value) & set(names)
        ):
            break
        names.append(name)
    return len(names)


class TupleAssign(BlockTransformer):
    name = "tuple_assign"
    summary = "`a, b = e1, e2` ↔ `a = e1` + `b = e2` when no value reads a target"

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        runs: dict[int, int] = {}
        index = 0
        while index < len(statements):
            length = _run_length(statements, index)
            if length >= 2:
                runs[index] = length
            index += max(length, 1)
        out: list[ast.stmt] = []
        index = 0
        while index < len(statements):
            statement = statements[index]
            if _splittable(statement):
                choice = self.offer()
                statement = self.visit(statement)
                if choice is None:
                    out.append(statement)
                else:
                    out.extend(
                        ast.Assign(targets=[target], value=value)
                        for target, value in zip(statement.targets[0].elts, statement.value.elts)
                    )
                index += 1
                continue
            choice = self.offer(runs[index] - 1) if index in runs else None
            if choice is None:
                out.append(self.visit(statement))
                index += 1
                continue
            joined = [self.visit(s) for s in statements[index : index + choice + 2]]
            out.append(
                ast.Assign(
                    targets=[ast.Tuple(elts=[s.targets[0] for s in joined], ctx=ast.Store())],
                    value=ast.Tuple(elts=[s.value for s in joined], ctx=ast.Load()),
                )
            )
            index += choice + 2
        return out
