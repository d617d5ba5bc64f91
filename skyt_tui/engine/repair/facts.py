"""Cheap, name-based evidence about what a variable holds, for the type-sensitive transformers.

The evidence is a heuristic (a name counts as a list when some assignment
gives it a list display or it has `.append` called on it); the oracle check
after every step is what guarantees correctness.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from skyt_tui.engine.repair.base import walk

LIST_CALLS = ("list", "sorted")
SEQUENCE_CALLS = ("list", "sorted", "tuple", "str", "dict", "set", "frozenset")
LIST_METHODS = ("append", "pop", "extend", "insert", "remove")
NUMERIC_OPERATORS = (ast.Sub, ast.Mod, ast.FloorDiv, ast.Div, ast.Pow)


def _assignment_pairs(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """(name, value) pairs `node` assigns, when it is an assignment."""
    if isinstance(node, ast.Assign):
        pairs = []
        for target in node.targets:
            if isinstance(target, ast.Name):
                pairs.append((target.id, node.value))
            elif (
                isinstance(target, ast.Tuple)
                and isinstance(node.value, ast.Tuple)
                and len(target.elts) == len(node.value.elts)
            ):
                pairs.extend(
                    (t.id, v)
                    for t, v in zip(target.elts, node.value.elts)
                    if isinstance(t, ast.Name)
                )
        return pairs
    if (
        isinstance(node, ast.AnnAssign | ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and node.value is not None
    ):
        return [(node.target.id, node.value)]
    return []


def _call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


@dataclass(frozen=True)
class Facts:
    """All the evidence about one tree, gathered in one walk (the type-sensitive transformers need several kinds)."""

    lists: frozenset[str]
    """Names with evidence of holding a list: a list display, `list(...)`/`sorted(...)`, `.append` … on it."""
    sequences: frozenset[str]
    """Names with evidence of holding a sized container (list, str, tuple, dict, set)."""
    dicts: frozenset[str]
    """Names every assignment of which is a dict display, comprehension or `dict(...)` call."""
    numbers: frozenset[str]
    """Names with evidence of holding a number: arithmetic operands, numeric constants, `len(...)` results."""

    @classmethod
    def of(cls, tree: ast.AST) -> Facts:
        return cls.of_nodes(walk(tree))

    @classmethod
    def of_nodes(cls, nodes: list[ast.AST]) -> Facts:
        """`of` the tree whose `walk` is `nodes`."""
        lists: set[str] = set()
        sequences: set[str] = set()
        numbers: set[str] = set()
        contradicted: set[str] = set()
        all_dict: dict[str, bool] = {}
        for node in nodes:
            for name, value in _assignment_pairs(node):
                if isinstance(value, ast.Constant) and not isinstance(value.value, str | bytes):
                    contradicted.add(name)
                if isinstance(value, ast.List | ast.ListComp) or _call_to(value, LIST_CALLS):
                    lists.add(name)
                if (
                    isinstance(
                        value,
                        ast.Tuple | ast.Dict | ast.Set | ast.DictComp | ast.SetComp | ast.JoinedStr,
                    )
                    or _call_to(value, SEQUENCE_CALLS)
                    or (isinstance(value, ast.Constant) and isinstance(value.value, str))
                ):
                    sequences.add(name)
                is_dict = isinstance(value, ast.Dict | ast.DictComp) or _call_to(value, ("dict",))
                all_dict[name] = all_dict.get(name, True) and is_dict
                if isinstance(value, ast.Constant) and type(value.value) in (int, float):
                    numbers.add(name)
                elif (
                    isinstance(value, ast.BinOp)
                    and isinstance(value.op, NUMERIC_OPERATORS)
                    and not isinstance(value.left, ast.Constant | ast.JoinedStr)
                ):
                    numbers.add(name)
                elif _call_to(value, ("len", "int", "abs", "round")):
                    numbers.add(name)
            if isinstance(node, ast.Call):
                if (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in LIST_METHODS
                    and isinstance(node.func.value, ast.Name)
                ):
                    lists.add(node.func.value.id)
                if (
                    _call_to(node, ("len",))
                    and len(node.args) == 1
                    and isinstance(node.args[0], ast.Name)
                ):
                    sequences.add(node.args[0].id)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, NUMERIC_OPERATORS):
                operands = [node.right] if isinstance(node.op, ast.Mod) else [node.left, node.right]
                numbers.update(operand.id for operand in operands if isinstance(operand, ast.Name))
            elif (
                isinstance(node, ast.Compare)
                and len(node.ops) == 1
                and isinstance(node.ops[0], ast.Lt | ast.Gt | ast.LtE | ast.GtE)
            ):
                sides = [node.left, node.comparators[0]]
                if any(
                    isinstance(side, ast.Constant) and type(side.value) in (int, float)
                    for side in sides
                ):
                    numbers.update(side.id for side in sides if isinstance(side, ast.Name))
        return cls(
            lists=frozenset(lists - contradicted),
            sequences=frozenset((sequences | lists) - contradicted),
            dicts=frozenset(name for name, ok in all_dict.items() if ok),
            numbers=frozenset(numbers),
        )
