"""Move an import between the module top and the top of the one function that uses it.

Module → function: every use of the imported names is inside that one
module-level function, which binds none of them itself. Function → module:
the module binds none of the names otherwise. Either way the same module
object ends up under the same name wherever it is used.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, docstring_offset
from skyt_tui.engine.repair.scopes import bound_names


def _imported(statement: ast.Import | ast.ImportFrom) -> list[str]:
    return [alias.asname or alias.name.split(".")[0] for alias in statement.names]


def _uses(tree: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(tree))


def _import_block_end(body: list[ast.stmt]) -> int:
    index = docstring_offset(body)
    while index < len(body) and isinstance(body[index], ast.Import | ast.ImportFrom):
        index += 1
    return index


class ImportPlace(Transformer):
    name = "import_place"
    summary = "move an import between module top and the top of the only function using it"

    def visit_Module(self, node: ast.Module) -> ast.AST:
        functions = [s for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        moves_down: list[tuple[ast.stmt, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        moves_up: list[tuple[ast.stmt, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        for statement in node.body:
            if not isinstance(statement, ast.Import | ast.ImportFrom) or any(
                a.name == "*" for a in statement.names
            ):
                continue
            if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
                continue
            names = set(_imported(statement))
            users = [f for f in functions if _uses(f, names)]
            others = [s for s in node.body if s is not statement and not any(s is f for f in users)]
            if (
                len(users) != 1
                or any(_uses(s, names) for s in others)
                or bound_names(users[0]) & names
            ):
                continue
            header = [*users[0].decorator_list, users[0].args]
            if users[0].returns is not None:
                header.append(users[0].returns)
            if not any(_uses(part, names) for part in header):
                if self.offer() is not None:
                    moves_down.append((statement, users[0]))
        for function in functions:
            for statement in function.body:
                if not isinstance(statement, ast.Import | ast.ImportFrom) or any(
                    a.name == "*" for a in statement.names
                ):
                    continue
                names = set(_imported(statement))
                outside = [s for s in node.body if s is not function]
                rebound = bound_names(ast.Module(body=outside, type_ignores=[])) & names
                inside = (
                    bound_names(
                        ast.Module(
                            body=[s for s in function.body if s is not statement], type_ignores=[]
                        )
                    )
                    & names
                )
                if not rebound and not inside and self.offer() is not None:
                    moves_up.append((statement, function))
        for statement, function in moves_down:
            node.body = [s for s in node.body if s is not statement]
            start = docstring_offset(function.body)
            function.body.insert(start, statement)
        for statement, function in moves_up:
            function.body = [s for s in function.body if s is not statement] or [ast.Pass()]
            node.body.insert(_import_block_end(node.body), statement)
        return node
