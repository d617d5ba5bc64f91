"""Write a constant dict literal's entries in the order the canon writes the same entries.

Offered only when the canon has a dict literal with exactly the same
(constant key, constant value) pairs, and the order cannot be observed: the
literal is only subscripted, tested with `in`, read with `.get`, or assigned
to a name that is only used those ways (`in d.values()` included). The
entries are the sample's own; the canon only decides their order.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, walk


def _items(node: ast.Dict) -> tuple[tuple[str, str], ...] | None:
    pairs: list[tuple[str, str]] = []
    for k, v in zip(node.keys, node.values):
        if not (isinstance(k, ast.Constant) and isinstance(v, ast.Constant)):
            return None
        pairs.append((repr(k.value), repr(v.value)))
    items = tuple(pairs)
    return items if len({k for k, _ in items}) == len(items) else None


def _order_free_use(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Is this use of a dict (the literal, or a name holding it) blind to its order?"""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return True
    if isinstance(parent, ast.Compare) and node in parent.comparators:
        return isinstance(parent.ops[parent.comparators.index(node)], ast.In | ast.NotIn)
    if isinstance(parent, ast.Attribute) and parent.attr in ("get", "keys", "values"):
        call = parents.get(id(parent))
        if isinstance(call, ast.Call) and call.func is parent:
            return parent.attr == "get" or _order_free_use(call, parents)
    return False


class DictOrder(Transformer):
    name = "dict_order"
    summary = "order a constant dict literal's entries as the canon orders the same entries"
    reads_canon = True

    def prepare(self, tree: ast.Module) -> None:
        self.canon_orders: dict[frozenset[tuple[str, str]], tuple[tuple[str, str], ...]] = {}
        for node in walk(self.context.canon):
            if isinstance(node, ast.Dict) and (items := _items(node)) is not None:
                self.canon_orders.setdefault(frozenset(items), items)
        analysis = self.analysis(tree)
        parents = analysis.parents()
        nodes = analysis.nodes()
        self.safe: set[int] = set()
        for node in nodes:
            if not isinstance(node, ast.Dict) or _items(node) is None:
                continue
            parent = parents.get(id(node))
            if _order_free_use(node, parents):
                self.safe.add(id(node))
            elif (
                isinstance(parent, ast.Assign)
                and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)
            ):
                name = parent.targets[0].id
                uses = [n for n in nodes if isinstance(n, ast.Name) and n.id == name]
                stores = [n for n in uses if not isinstance(n.ctx, ast.Load)]
                if len(stores) == 1 and all(
                    _order_free_use(n, parents) for n in uses if isinstance(n.ctx, ast.Load)
                ):
                    self.safe.add(id(node))

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        items = _items(node) if id(node) in self.safe else None
        target = self.canon_orders.get(frozenset(items)) if items else None
        choice = self.offer() if target is not None and target != items else None
        self.generic_visit(node)
        if choice is not None and items is not None and target is not None:
            position = {item: index for index, item in enumerate(items)}
            order = [position[item] for item in target]
            node.keys = [node.keys[i] for i in order]
            node.values = [node.values[i] for i in order]
        return node
