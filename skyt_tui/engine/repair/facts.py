"""Cheap, name-based evidence about what a variable holds, for the type-sensitive transformers.

The evidence is a heuristic (a name counts as a list when some assignment
gives it a list display or it has `.append` called on it); the oracle check
after every step is what guarantees correctness.
"""

from __future__ import annotations

import ast

LIST_CALLS = ("list", "sorted")
SEQUENCE_CALLS = ("list", "sorted", "tuple", "str", "dict", "set", "frozenset")
LIST_METHODS = ("append", "pop", "extend", "insert", "remove")
NUMERIC_OPERATORS = (ast.Sub, ast.Mod, ast.FloorDiv, ast.Div, ast.Pow)


def _assignments(tree: ast.AST) -> list[tuple[str, ast.expr]]:
    pairs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    pairs.append((target.id, node.value))
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
                    pairs.extend((t.id, v) for t, v in zip(target.elts, node.value.elts) if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            pairs.append((node.target.id, node.value))
    return pairs


def _call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _contradicted(tree: ast.AST) -> set[str]:
    """Names some assignment gives a non-container constant (None, a number, a bool)."""
    return {
        name for name, value in _assignments(tree)
        if isinstance(value, ast.Constant) and not isinstance(value.value, str | bytes)
    }


def list_names(tree: ast.AST) -> set[str]:
    names = {name for name, value in _assignments(tree) if isinstance(value, ast.List | ast.ListComp) or _call_to(value, LIST_CALLS)}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LIST_METHODS
            and isinstance(node.func.value, ast.Name)
        ):
            names.add(node.func.value.id)
    return names - _contradicted(tree)


def sequence_names(tree: ast.AST) -> set[str]:
    """Names with evidence of holding a sized container (list, str, tuple, dict, set)."""
    names = list_names(tree)
    for name, value in _assignments(tree):
        if isinstance(value, ast.Tuple | ast.Dict | ast.Set | ast.DictComp | ast.SetComp | ast.JoinedStr) or _call_to(value, SEQUENCE_CALLS):
            names.add(name)
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            names.add(name)
    for node in ast.walk(tree):
        if _call_to(node, ("len",)) and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            names.add(node.args[0].id)
    return names - _contradicted(tree)


def dict_names(tree: ast.AST) -> set[str]:
    """Names every assignment of which is a dict display, comprehension or `dict(...)` call."""
    verdict: dict[str, bool] = {}
    for name, value in _assignments(tree):
        is_dict = isinstance(value, ast.Dict | ast.DictComp) or _call_to(value, ("dict",))
        verdict[name] = verdict.get(name, True) and is_dict
    return {name for name, ok in verdict.items() if ok}


def numeric_names(tree: ast.AST) -> set[str]:
    """Names with evidence of holding a number: arithmetic operands, numeric constants, `len(...)` results."""
    names: set[str] = set()
    for name, value in _assignments(tree):
        if isinstance(value, ast.Constant) and type(value.value) in (int, float):
            names.add(name)
        elif isinstance(value, ast.BinOp) and isinstance(value.op, NUMERIC_OPERATORS) and not isinstance(value.left, ast.Constant | ast.JoinedStr):
            names.add(name)
        elif _call_to(value, ("len", "int", "abs", "round")):
            names.add(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, NUMERIC_OPERATORS):
            operands = [node.right] if isinstance(node.op, ast.Mod) else [node.left, node.right]
            names.update(operand.id for operand in operands if isinstance(operand, ast.Name))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Lt | ast.Gt | ast.LtE | ast.GtE):
            sides = [node.left, node.comparators[0]]
            if any(isinstance(s, ast.Constant) and type(s.value) in (int, float) for s in sides):
                names.update(s.id for s in sides if isinstance(s, ast.Name))
    return names
