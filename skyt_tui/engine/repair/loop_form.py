"""Counted loops: `i = a` + `while i < n: …; i += 1` ↔ `for i in range(a, n): …`.

Offered only for the plain counted shape: the counter is a name that the
body never assigns and that nothing outside the loop reads (its value after
the loop differs between the forms), the step is a positive integer
constant, the bound is a constant or a name (or `len(name)`) the body never
assigns or calls a method on, there is no `else`, and no `continue` belongs
to this loop (in the `while` form it would skip the increment).
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import BlockTransformer, walk


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Nodes of a loop body, not descending into nested loops' bodies or nested functions."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.For | ast.While | ast.AsyncFor):
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.Name))  # names still count
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _assigned(nodes: list[ast.AST]) -> set[str]:
    return {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _invariant(bound: ast.expr, body: list[ast.stmt]) -> bool:
    nodes = [n for s in body for n in ast.walk(s)]
    changed = _assigned(nodes) | {
        n.func.value.id
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
    }
    if isinstance(bound, ast.Constant):
        return isinstance(bound.value, int) and not isinstance(bound.value, bool)
    if isinstance(bound, ast.Name):
        return bound.id not in changed
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Add | ast.Sub):
        return _invariant(bound.left, body) and _invariant(bound.right, body)
    if (
        isinstance(bound, ast.Call)
        and isinstance(bound.func, ast.Name)
        and bound.func.id == "len"
        and len(bound.args) == 1
    ):
        return isinstance(bound.args[0], ast.Name) and bound.args[0].id not in changed
    return False


def _positive_int(node: ast.AST) -> int | None:
    """The value of a positive int constant, else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value > 0:
        return node.value
    return None


class LoopForm(BlockTransformer):
    name = "loop_form"
    summary = "`i = a; while i < n: …; i += 1` ↔ `for i in range(a, n): …` (plain counted loops)"

    def prepare(self, tree: ast.Module) -> None:
        analysis = self.analysis(tree)
        self.range_is_builtin = "range" not in analysis.bound_names()
        self.loads: dict[int, dict[str, int]] = {}
        for function in [
            n for n in analysis.nodes() if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]:
            counts: dict[str, int] = {}
            for node in walk(function):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    counts[node.id] = counts.get(node.id, 0) + 1
            self.loads[id(function)] = counts

    def _counter_private(self, name: str, loop: ast.AST) -> bool:
        """Every read of `name` in the function is inside `loop`."""
        if self.function is None:
            return False
        inside = sum(
            1
            for n in walk(loop)
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        )
        return self.loads[id(self.function)].get(name, 0) == inside

    def _while_shape(
        self, init: ast.stmt, loop: ast.stmt
    ) -> tuple[str, ast.expr, ast.expr, int, bool] | None:
        if not (
            isinstance(init, ast.Assign)
            and len(init.targets) == 1
            and isinstance(init.targets[0], ast.Name)
        ):
            return None
        name = init.targets[0].id
        if not isinstance(loop, ast.While) or loop.orelse or not loop.body:
            return None
        test, step = loop.test, loop.body[-1]
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Lt | ast.LtE)
        ):
            return None
        if not (isinstance(test.left, ast.Name) and test.left.id == name):
            return None
        if not (
            isinstance(step, ast.AugAssign)
            and isinstance(step.op, ast.Add)
            and isinstance(step.target, ast.Name)
            and step.target.id == name
        ):
            return None
        increment = _positive_int(step.value)
        if increment is None:
            return None
        rest = loop.body[:-1]
        own = _own_nodes(rest)
        if name in _assigned([n for s in rest for n in ast.walk(s)]) or any(
            isinstance(n, ast.Continue) for n in own
        ):
            return None
        if (
            not rest
            or not _invariant(test.comparators[0], rest)
            or not self._counter_private(name, loop)
        ):
            return None
        return (
            name,
            init.value,
            test.comparators[0],
            increment,
            isinstance(test.ops[0], ast.LtE),
        )

    def _for_shape(self, loop: ast.stmt) -> tuple[str, ast.expr, ast.expr, int] | None:
        if not (
            isinstance(loop, ast.For) and not loop.orelse and isinstance(loop.target, ast.Name)
        ):
            return None
        call = loop.iter
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "range"
            and not call.keywords
        ):
            return None
        args = call.args
        if not 1 <= len(args) <= 3 or any(isinstance(a, ast.Starred) for a in args):
            return None
        step = _positive_int(args[2]) if len(args) == 3 else 1
        if step is None:
            return None
        start = args[0] if len(args) > 1 else ast.Constant(0)
        stop = args[1] if len(args) > 1 else args[0]
        name = loop.target.id
        own = _own_nodes(loop.body)
        if name in _assigned([n for s in loop.body for n in ast.walk(s)]) or any(
            isinstance(n, ast.Continue) for n in own
        ):
            return None
        if not _invariant(stop, loop.body) or not self._counter_private(name, loop):
            return None
        return name, start, stop, step

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        index = 0
        while index < len(statements):
            statement = statements[index]
            following = statements[index + 1] if index + 1 < len(statements) else None
            to_for = (
                self._while_shape(statement, following)
                if following is not None and self.range_is_builtin
                else None
            )
            to_while = self._for_shape(statement) if self.range_is_builtin else None
            choice = self.offer() if to_for or to_while else None
            if choice is not None and to_for and following is not None:
                name, start, stop, step, inclusive = to_for
                loop = self.visit(following)
                if inclusive:
                    stop = ast.BinOp(left=stop, op=ast.Add(), right=ast.Constant(1))
                is_zero = (
                    isinstance(start, ast.Constant)
                    and type(start.value) is int
                    and start.value == 0
                )
                args = (
                    [stop]
                    if is_zero and step == 1
                    else [start, stop] + ([ast.Constant(step)] if step != 1 else [])
                )
                call = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=args, keywords=[])
                out.append(
                    ast.For(
                        target=ast.Name(id=name, ctx=ast.Store()),
                        iter=call,
                        body=loop.body[:-1],
                        orelse=[],
                    )
                )
                index += 2
                continue
            statement = self.visit(statement)
            if choice is not None and to_while is not None:
                name, start, stop, step = to_while
                increment = ast.AugAssign(
                    target=ast.Name(id=name, ctx=ast.Store()),
                    op=ast.Add(),
                    value=ast.Constant(step),
                )
                test = ast.Compare(
                    left=ast.Name(id=name, ctx=ast.Load()), ops=[ast.Lt()], comparators=[stop]
                )
                out.append(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=start))
                out.append(ast.While(test=test, body=[*statement.body, increment], orelse=[]))
            else:
                out.append(statement)
            index += 1
        return out
