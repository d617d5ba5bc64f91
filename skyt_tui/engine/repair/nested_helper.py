"""Move a helper function between module level and the body of the one function that uses it.

Hoist: a function defined directly in a module-level function's body, that
reads none of that function's locals (its own name aside), becomes a
module-level function right after (or before) it. Nest: a module-level
helper used only inside one other module-level function moves into that
function's body, anywhere before its first use, provided none of the names it
reads would then be captured by the outer function's locals.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, docstring_offset, walk
from skyt_tui.engine.repair.scopes import Resolution

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _inside(node: ast.AST) -> set[int]:
    return {id(sub) for sub in walk(node)}


class NestedHelper(Transformer):
    name = "nested_helper"
    summary = "hoist a nested helper function to module level, or nest a module-level helper in its only user"

    def run(self, tree: ast.Module) -> ast.Module:
        resolution = self.analysis(tree).resolution()
        outers = [s for s in tree.body if isinstance(s, FUNCTION_TYPES)]
        hoists: list[tuple[_Function, _Function, int]] = []
        nests: list[tuple[_Function, _Function, int]] = []
        for outer in outers:
            for helper in outer.body:
                if isinstance(helper, FUNCTION_TYPES) and self._hoistable(
                    tree, resolution, outer, helper
                ):
                    choice = self.offer(2)
                    if choice is not None:
                        hoists.append((outer, helper, choice))
        for helper in outers:
            found = self._nest_target(tree, resolution, helper, outers)
            if found is not None:
                outer, first_use = found
                start = docstring_offset(outer.body)
                choice = self.offer(first_use - start + 1)
                if choice is not None:
                    nests.append((outer, helper, start + choice))
        if hoists and nests:
            return tree  # one direction per candidate keeps positions simple
        for outer, helper, choice in hoists:
            outer.body = [s for s in outer.body if s is not helper] or [ast.Pass()]
            position = tree.body.index(outer) + (1 if choice == 0 else 0)
            tree.body.insert(position, helper)
        for outer, helper, position in nests:
            tree.body = [s for s in tree.body if s is not helper]
            outer.body.insert(position, helper)
        return tree

    def _hoistable(
        self, tree: ast.Module, resolution: Resolution, outer: _Function, helper: _Function
    ) -> bool:
        if helper.decorator_list or helper.name in self.context.kept_names:
            return False
        outer_scope = resolution.scope_of(outer)
        if (
            helper.name in outer_scope.declared_global | outer_scope.declared_nonlocal
            or helper.name in resolution.module.bound
        ):
            return False
        inside = _inside(helper)
        for occurrence in resolution.occurrences:
            if occurrence.owner is outer_scope and occurrence.name == helper.name:
                if occurrence.node is not helper and not (
                    isinstance(occurrence.node, ast.Name)
                    and isinstance(occurrence.node.ctx, ast.Load)
                ):
                    return False  # the helper's name is rebound in the outer function
            elif occurrence.owner is outer_scope and id(occurrence.node) in inside:
                return False  # the helper reads a local of the outer function
        return not any(isinstance(n, ast.Nonlocal) for n in ast.walk(helper))

    def _nest_target(
        self, tree: ast.Module, resolution: Resolution, helper: _Function, outers: list[_Function]
    ) -> tuple[_Function, int] | None:
        if helper.decorator_list or helper.name in self.context.kept_names:
            return None
        module = resolution.module
        uses = [
            o
            for o in resolution.occurrences
            if o.owner is module and o.name == helper.name and o.node is not helper
        ]
        if not uses or any(
            not (isinstance(o.node, ast.Name) and isinstance(o.node.ctx, ast.Load)) for o in uses
        ):
            return None
        users = [
            f for f in outers if f is not helper and any(id(o.node) in _inside(f) for o in uses)
        ]
        if len(users) != 1:
            return None
        outer = users[0]
        body_nodes = set().union(*(_inside(s) for s in outer.body))
        if not all(id(o.node) in body_nodes for o in uses):
            return None  # used in a default or decorator, evaluated at module level
        outer_scope = resolution.scope_of(outer)
        if helper.name in outer_scope.bound:
            return None
        inside = _inside(helper)
        for occurrence in resolution.occurrences:
            if (
                id(occurrence.node) in inside
                and occurrence.owner in (module, None)
                and occurrence.node is not helper
            ):
                if (
                    occurrence.name in outer_scope.bound
                    or occurrence.name in outer_scope.declared_global
                ):
                    return None  # would be captured by the outer function's local
        if any(isinstance(n, ast.Global) for n in ast.walk(helper)):
            return None
        first_use = next(
            i for i, s in enumerate(outer.body) if any(id(o.node) in _inside(s) for o in uses)
        )
        return outer, first_use
