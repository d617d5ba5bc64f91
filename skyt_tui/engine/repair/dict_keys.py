"""`k in d.keys()` ↔ `k in d`, and `for k in d.keys()` → `for k in d`, for a name that holds a dict.

The same for `not in` and comprehension loops. Offered only when every
assignment of the name is a dict display, dict comprehension or `dict(...)`.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Decline, Transformer, name_of


def _keys_call(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "keys"
        and isinstance(node.func.value, ast.Name)
    ):
        return node.func.value.id
    return None


def _keys_of(name: str) -> ast.Call:
    return ast.Call(
        func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="keys", ctx=ast.Load()),
        args=[],
        keywords=[],
    )


class DictKeys(Transformer):
    name = "dict_keys"
    summary = "`k in d.keys()` ↔ `k in d`, `for k in d.keys()` → `for k in d` (d a dict)"

    def prepare(self, tree: ast.Module) -> None:
        self.dicts = self.analysis(tree).facts().dicts

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        membership = len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn)
        right = node.comparators[0]
        drop = membership and _keys_call(right) in self.dicts
        add = membership and isinstance(right, ast.Name) and right.id in self.dicts
        choice = self.offer() if drop or add else None
        self.generic_visit(node)
        if choice is not None:
            dict_name = _keys_call(right) if drop else name_of(right)
            if dict_name is None:
                raise Decline("not a dict name")  # `drop`/`add` say it is
            node.comparators = [
                ast.Name(id=dict_name, ctx=ast.Load()) if drop else _keys_of(dict_name)
            ]
        return node

    def _loop(self, node: ast.For | ast.comprehension) -> ast.For | ast.comprehension:
        drop = _keys_call(node.iter) in self.dicts
        choice = self.offer() if drop else None
        self.generic_visit(node)
        if choice is not None:
            node.iter = ast.Name(id=_keys_call(node.iter) or "", ctx=ast.Load())
        return node

    visit_For = _loop
    visit_comprehension = _loop
