"""`x = e` + `return x` ↔ `return e`, for a local `x` nothing else can see afterwards.

`x` must be a local of the enclosing function (not global/nonlocal) that no
nested function or lambda reads, and the pair must not sit inside a `try`
(a `finally` could read `x`). Extracting picks the temporary among the
function's own locals that `e` reads, so no name is invented or copied in.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.measure.scoping import Scope
from skyt_tui.engine.repair.base import BlockTransformer, walk


class ReturnTemp(BlockTransformer):
    name = "return_temp"
    summary = "`x = e; return x` ↔ `return e` (local, uncaptured `x`)"

    def prepare(self, tree: ast.Module) -> None:
        analysis = self.analysis(tree)
        resolution = analysis.resolution()
        self.private: dict[int, set[str]] = {}
        captured: dict[int, set[str]] = {}
        for occurrence in resolution.occurrences:
            owner = occurrence.owner
            if owner is None or owner.kind != "function":
                continue
            where: Scope | None = occurrence.where
            while where is not None and where.kind == "comprehension":
                where = where.parent
            if where is not owner:
                captured.setdefault(id(owner.node), set()).add(occurrence.name)
        for scope in resolution.collector.scopes.values():
            if isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef):
                hidden = (
                    scope.declared_global
                    | scope.declared_nonlocal
                    | captured.get(id(scope.node), set())
                )
                self.private[id(scope.node)] = set(scope.bound) - hidden
        self.in_try = set()
        for node in analysis.nodes():
            if isinstance(node, ast.Try | ast.TryStar):
                for sub in walk(node):
                    self.in_try.add(id(sub))

    def _local(self, name: str) -> bool:
        return self.function is not None and name in self.private.get(id(self.function), set())

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        index = 0
        while index < len(statements):
            statement = statements[index]
            following = statements[index + 1] if index + 1 < len(statements) else None
            if self._inlinable(statement, following):
                choice = self.offer()
                statement = self.visit(statement)
                if choice is None:
                    out.append(statement)
                    index += 1
                    continue
                out.append(ast.Return(value=statement.value))
                index += 2
                continue
            names = self._temporaries(statement)
            choice = self.offer(len(names)) if names else None
            statement = self.visit(statement)
            if choice is None:
                out.append(statement)
            else:
                name = names[choice]
                out.append(
                    ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=statement.value)
                )
                out.append(ast.Return(value=ast.Name(id=name, ctx=ast.Load())))
            index += 1
        return out

    def _inlinable(self, statement: ast.stmt, following: ast.stmt | None) -> bool:
        return (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(following, ast.Return)
            and isinstance(following.value, ast.Name)
            and following.value.id == statement.targets[0].id
            and self._local(following.value.id)
            and id(statement) not in self.in_try
        )

    def _temporaries(self, statement: ast.stmt) -> list[str]:
        if (
            not isinstance(statement, ast.Return)
            or statement.value is None
            or isinstance(statement.value, ast.Name)
        ):
            return []
        if id(statement) in self.in_try:
            return []
        names: list[str] = []
        for node in ast.walk(statement.value):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and self._local(node.id)
                and node.id not in names
            ):
                names.append(node.id)
        return names
