"""`import m` + `m.f(...)` ↔ `from m import f` + `f(...)`.

To `from`: every use of `m` reads an attribute, and none of those attribute
names is used or bound anywhere else in the program. To `import`: the
imported names are never rebound and `m` is not otherwise a name in the
program. No aliases (`as`), no relative or dotted modules, no star imports.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer
from skyt_tui.engine.repair.scopes import bound_names


class ImportForm(Transformer):
    name = "import_form"
    summary = "`import m` + `m.f` ↔ `from m import f` + `f`"

    def prepare(self, tree: ast.Module) -> None:
        analysis = self.analysis(tree)
        self.parents = analysis.parents()
        self.nodes = analysis.nodes()
        self.bound = analysis.bound_names()

    def _attributes_of(self, module: str) -> list[str] | None:
        """Attributes read from `module`, in source order; None if `module` is used any other way."""
        uses: list[tuple[int, int, str]] = []
        for node in self.nodes:
            if isinstance(node, ast.Name) and node.id == module:
                parent = self.parents.get(id(node))
                if not (
                    isinstance(node.ctx, ast.Load)
                    and isinstance(parent, ast.Attribute)
                    and isinstance(parent.ctx, ast.Load)
                ):
                    return None
                uses.append((node.lineno, node.col_offset, parent.attr))
        return list(dict.fromkeys(attr for _, _, attr in sorted(uses)))

    def run(self, tree: ast.Module) -> ast.Module:
        self.prepare(tree)
        names = {n.id for n in self.nodes if isinstance(n, ast.Name)} | self.bound
        to_from: dict[str, list[str]] = {}
        to_import: dict[str, str] = {}
        rewrites: list[tuple[ast.stmt, ast.stmt]] = []
        for statement in [s for s in self.nodes if isinstance(s, ast.Import | ast.ImportFrom)]:
            if isinstance(statement, ast.Import):
                alias = statement.names[0]
                if len(statement.names) != 1 or alias.asname or "." in alias.name:
                    continue
                attrs = self._attributes_of(alias.name)
                binds = self.bound - {alias.name}
                if not attrs or alias.name in binds or any(a in names for a in attrs):
                    continue
                if self.offer() is not None:
                    to_from[alias.name] = attrs
                    rewrites.append(
                        (
                            statement,
                            ast.ImportFrom(
                                module=alias.name, names=[ast.alias(name=a) for a in attrs], level=0
                            ),
                        )
                    )
            else:
                module = statement.module
                if (
                    statement.level
                    or not module
                    or "." in module
                    or any(a.asname or a.name == "*" for a in statement.names)
                ):
                    continue
                imported = [a.name for a in statement.names]
                others = bound_names(
                    ast.Module(body=[s for s in tree.body if s is not statement], type_ignores=[])
                )
                if module in names or any(name in others for name in imported):
                    continue
                if self.offer() is not None:
                    to_import.update({name: module for name in imported})
                    rewrites.append((statement, ast.Import(names=[ast.alias(name=module)])))
        if not rewrites:
            return tree
        replaced = {id(old): new for old, new in rewrites}
        for node in ast.walk(tree):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list):
                    setattr(node, field, [replaced.get(id(s), s) for s in block])
        rewritten: ast.Module = _Rewriter(to_from, to_import).visit(tree)
        return ast.fix_missing_locations(rewritten)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, to_from: dict[str, list[str]], to_import: dict[str, str]) -> None:
        self.to_from = to_from
        self.to_import = to_import

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if (
            isinstance(node.value, ast.Name)
            and node.value.id in self.to_from
            and isinstance(node.ctx, ast.Load)
        ):
            return ast.Name(id=node.attr, ctx=ast.Load())
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.to_import and isinstance(node.ctx, ast.Load):
            return ast.Attribute(
                value=ast.Name(id=self.to_import[node.id], ctx=ast.Load()),
                attr=node.id,
                ctx=ast.Load(),
            )
        return node
