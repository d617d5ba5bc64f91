"""Which binding each name occurrence refers to, so repair can rename without capture.

Built on the scope analysis that `alpha` normalization uses (`measure.scoping`). `resolve(tree)`
lists every occurrence of a name the program could bind (loads, stores,
parameters, def/class names, global/nonlocal, except/match names) with the
scope that owns it, or None for builtins, imported and undefined names.
A rename is safe exactly when every occurrence keeps its owner and no two
names of one scope end up the same (`same_binding_structure`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from skyt_tui.engine.measure.scoping import Scope, ScopeCollector, ScopeWalk, all_args
from skyt_tui.engine.repair.base import walk


@dataclass(frozen=True)
class Occurrence:
    node: ast.AST
    field: str
    """Attribute of `node` holding the name (`id`, `arg`, `name`, `rest`), or `names` for global/nonlocal."""
    index: int | None
    name: str
    owner: Scope | None
    where: Scope
    """The scope the occurrence appears in (differs from `owner` for closures and globals)."""

    def set(self, new_name: str) -> None:
        if self.index is None:
            setattr(self.node, self.field, new_name)
        else:
            getattr(self.node, self.field)[self.index] = new_name


@dataclass(frozen=True)
class Resolution:
    occurrences: tuple[Occurrence, ...]
    collector: ScopeCollector

    @property
    def module(self) -> Scope:
        return self.collector.module

    def scope_of(self, node: ast.AST) -> Scope:
        """The scope `node` opens (a module, function, lambda, comprehension or class of the resolved tree)."""
        return self.collector.scopes[id(node)]

    def bindings(self) -> list[tuple[Scope, str]]:
        """Every (owner scope, name) pair with an owner, in first-occurrence order."""
        seen: dict[tuple[int, str], tuple[Scope, str]] = {}
        for occurrence in self.occurrences:
            if occurrence.owner is not None:
                seen.setdefault(
                    (id(occurrence.owner.node), occurrence.name),
                    (occurrence.owner, occurrence.name),
                )
        return list(seen.values())

    def occurrences_of(self, scope: Scope, name: str) -> list[Occurrence]:
        return [o for o in self.occurrences if o.owner is scope and o.name == name]


class _Resolver(ScopeWalk):
    def __init__(self, collector: ScopeCollector) -> None:
        self.collector = collector
        self.found: list[Occurrence] = []
        self._stack: list[Scope] = []

    def _record(
        self,
        node: ast.AST,
        field: str,
        name: str,
        index: int | None = None,
        scope: Scope | None = None,
    ) -> None:
        where = self._stack[-1]
        scope = scope or where
        self.found.append(
            Occurrence(node, field, index, name, self.collector.owner(name, scope), where)
        )

    def _enter(self, node: ast.AST, kind: str) -> None:
        self._stack.append(self.collector.scopes[id(node)])

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if (
            self._stack[-1].kind != "class"
        ):  # methods and nested classes are attributes; never renamed
            self._record(node, "name", node.name)

    def _parameters(self, args: ast.arguments) -> None:
        for arg in all_args(args):
            self._record(arg, "arg", arg.arg)

    def visit_Name(self, node: ast.Name) -> None:
        if self._stack[-1].kind == "class":
            return  # class-body names are attributes; never renamed
        self._record(node, "id", node.id)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self._stack[-1]
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self._record(node.target, "id", node.target.id, scope=scope)

    def _visit_declaration(self, node: ast.Global | ast.Nonlocal) -> None:
        for index, name in enumerate(node.names):
            self._record(node, "names", name, index)

    visit_Global = _visit_declaration
    visit_Nonlocal = _visit_declaration

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self._record(node, "name", node.name)
        for statement in node.body:
            self.visit(statement)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name:
            self._record(node, "name", node.name)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._record(node, "name", node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        for item in [*node.keys, *node.patterns]:
            self.visit(item)
        if node.rest:
            self._record(node, "rest", node.rest)


def resolve(tree: ast.Module) -> Resolution:
    collector = ScopeCollector()
    collector.visit(tree)
    resolver = _Resolver(collector)
    resolver.visit(tree)
    return Resolution(tuple(resolver.found), collector)


def same_binding_structure(before: Resolution, after: Resolution) -> bool:
    """True when `after` (the same tree, names changed) binds exactly as `before` did.

    Every occurrence keeps its owning scope (or stays unowned under the same
    name), and within each scope distinct old names stay distinct.
    """
    if len(before.occurrences) != len(after.occurrences):
        return False
    renamed: dict[tuple[int, str], str] = {}
    taken: dict[tuple[int, str], str] = {}
    for old, new in zip(before.occurrences, after.occurrences):
        old_owner = id(old.owner.node) if old.owner is not None else None
        new_owner = id(new.owner.node) if new.owner is not None else None
        if old_owner != new_owner:
            return False
        if old_owner is None:
            if old.name != new.name:
                return False
            continue
        if renamed.setdefault((old_owner, old.name), new.name) != new.name:
            return False
        if taken.setdefault((old_owner, new.name), old.name) != old.name:
            return False
    return True


def bound_names(tree: ast.AST) -> set[str]:
    """Every name stored, deleted, defined or imported anywhere under `tree` (no scoping)."""
    return bound_names_of(walk(tree))


def bound_names_of(nodes: list[ast.AST]) -> set[str]:
    """`bound_names` of the tree whose `walk` is `nodes`."""
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def loaded_names(tree: ast.AST) -> set[str]:
    return {
        node.id
        for node in walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
