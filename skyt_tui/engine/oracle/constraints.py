"""Contract constraints checked on a sample's syntax tree, in the parent: forbidden calls, imports
and constructs, and recursion."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from skyt_tui.engine.contracts.contract import (
    Entry,
)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _import_aliases(tree: ast.AST) -> dict[str, str]:
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def forbidden_calls_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    """A dotted name (math.factorial) matches the resolved call exactly, through import aliases;
    a bare name (sorted, sort) matches a call of that name or any method of that name."""
    aliases = _import_aliases(tree)
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        dotted = _dotted(node.func, aliases)
        if dotted is None:
            continue
        for name in forbidden:
            if dotted == name or ("." not in name and dotted.rsplit(".", 1)[-1] == name):
                found.add(name)
    return sorted(found)


def forbidden_imports_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    def matches(module: str, name: str) -> bool:
        return module == name or module.startswith(name + ".")

    found: set[str] = set()
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and _dotted(node.func, {}) in ("__import__", "importlib.import_module", "import_module")
        ):
            modules = [node.args[0].value]
        for module in modules:
            found.update(name for name in forbidden if matches(module, name))
    return sorted(found)


def forbidden_nodes_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    present = {type(node).__name__ for node in ast.walk(tree)}
    return sorted(set(forbidden) & present)


def is_recursive(tree: ast.AST, entry: Entry) -> bool:
    """Does a call cycle among the program's own functions start from the entry point?

    Functions are keyed by name; `f(...)` calls f, `self.m(...)`/`cls.m(...)`
    calls method m. Direct and mutual recursion both count.
    """
    calls: dict[str, set[str]] = {}
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == entry.name:
            roots.update(
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        callees = calls.setdefault(node.name, set())
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                if isinstance(inner.func, ast.Name):
                    callees.add(inner.func.id)
                elif (
                    isinstance(inner.func, ast.Attribute)
                    and isinstance(inner.func.value, ast.Name)
                    and inner.func.value.id in ("self", "cls")
                ):
                    callees.add(inner.func.attr)
    if entry.kind == "function":
        roots.add(entry.name)
    return _reaches_cycle(calls, sorted(roots))


def _reaches_cycle(calls: dict[str, set[str]], roots: list[str]) -> bool:
    """Depth-first search with an explicit stack: a call chain as long as the program has
    functions (a sample may define thousands) costs no interpreter stack."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished without a cycle
    for root in roots:
        if root not in calls or root in state:
            continue
        state[root] = 1
        path = [(root, iter(sorted(calls[root])))]
        while path:
            name, callees = path[-1]
            for callee in callees:
                if callee not in calls:
                    continue
                if state.get(callee) == 1:
                    return True
                if callee not in state:
                    state[callee] = 1
                    path.append((callee, iter(sorted(calls[callee]))))
                    break
            else:
                state[name] = 2
                path.pop()
    return False


# ---- plans: what to send, how to judge ------------------------------------------------------
