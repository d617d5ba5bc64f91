"""Remove module-level demo code: `if __name__ == "__main__":` blocks and `print(...)` statements.

An LLM often adds `print(f(3))` or a main guard after the function; it is
not part of the contract. Other module-level calls (`sys.setrecursionlimit`
…) may matter and are left alone; the oracle check after the step confirms
the contract's behaviour did not depend on what was removed.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, docstring_offset


def _main_guard(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Compare):
        return False
    parts = [statement.test.left, *statement.test.comparators]
    has_name = any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts)
    has_main = any(isinstance(p, ast.Constant) and p.value == "__main__" for p in parts)
    return has_name and has_main


def _print(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("print", "pprint")
    )


class DemoCode(Transformer):
    name = "demo_code"
    summary = (
        "remove module-level `print(...)`-style statements and `if __name__ == '__main__':` blocks"
    )

    def visit_Module(self, node: ast.Module) -> ast.AST:
        keep: list[ast.stmt] = []
        skip = docstring_offset(node.body)
        for index, statement in enumerate(node.body):
            demo = index >= skip and (_print(statement) or _main_guard(statement))
            if demo and self.offer() is not None:
                continue
            keep.append(statement)
        node.body = keep
        return node
