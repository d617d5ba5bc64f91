"""Emptiness tests on a container, in any of their spellings.

Empty: `not x` ↔ `len(x) == 0` ↔ `x == []`; non-empty (only where the value is
used for its truth): `x` ↔ `len(x) > 0` ↔ `len(x) != 0` ↔ `x != []`. Offered only
for a plain name with evidence of holding a container (the `[]` forms only
for a list), and only while `len` is the builtin.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from skyt_tui.engine.repair.base import Decline, Transformer

EMPTY = ("not", "len==0", "==[]")
NONEMPTY = ("truth", "len>0", "len!=0", "!=[]")


def _len_of(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0].id if isinstance(node.args[0], ast.Name) else None
    return None


def _is(node: ast.AST, kind: type, value: object = None) -> bool:
    return (
        isinstance(node, ast.Constant)
        and type(node.value) is kind
        and (value is None or node.value == value)
    )


def _empty_list(node: ast.AST) -> bool:
    return isinstance(node, ast.List) and not node.elts


def classify(node: ast.AST, in_boolean_context: bool) -> tuple[str, str] | None:
    """(form, name) when `node` is one of the spellings, else None."""
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.Not)
        and isinstance(node.operand, ast.Name)
    ):
        return "not", node.operand.id
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and in_boolean_context:
        return "truth", node.id
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return None
    op, left, right = node.ops[0], node.left, node.comparators[0]
    if isinstance(left, ast.Constant | ast.List) and not isinstance(right, ast.Constant | ast.List):
        mirrored = {ast.Eq: ast.Eq, ast.NotEq: ast.NotEq, ast.Lt: ast.Gt, ast.LtE: ast.GtE}.get(
            type(op)
        )
        if mirrored is None:
            return None
        # `0 == len(x)`, `[] != x`, `0 < len(x)`, `1 <= len(x)`
        op, left, right = mirrored(), right, left
    name = _len_of(left)
    if name is not None and _is(right, int, 0):
        return {ast.Eq: ("len==0", name), ast.Gt: ("len>0", name), ast.NotEq: ("len!=0", name)}.get(
            type(op)
        )
    if name is not None and _is(right, int, 1) and isinstance(op, ast.GtE):
        return "len>0", name
    if isinstance(left, ast.Name) and _empty_list(right):
        return {ast.Eq: ("==[]", left.id), ast.NotEq: ("!=[]", left.id)}.get(type(op))
    return None


def build(form: str, name: str) -> ast.expr:
    x = ast.Name(id=name, ctx=ast.Load())
    length = ast.Call(func=ast.Name(id="len", ctx=ast.Load()), args=[x], keywords=[])
    zero = ast.Constant(0)
    builders: dict[str, Callable[[], ast.expr]] = {
        "not": lambda: ast.UnaryOp(op=ast.Not(), operand=x),
        "truth": lambda: x,
        "len==0": lambda: ast.Compare(left=length, ops=[ast.Eq()], comparators=[zero]),
        "len>0": lambda: ast.Compare(left=length, ops=[ast.Gt()], comparators=[zero]),
        "len!=0": lambda: ast.Compare(left=length, ops=[ast.NotEq()], comparators=[zero]),
        "==[]": lambda: ast.Compare(
            left=x, ops=[ast.Eq()], comparators=[ast.List(elts=[], ctx=ast.Load())]
        ),
        "!=[]": lambda: ast.Compare(
            left=x, ops=[ast.NotEq()], comparators=[ast.List(elts=[], ctx=ast.Load())]
        ),
    }
    return builders[form]()


class EmptyCheck(Transformer):
    name = "empty_check"
    summary = "`not x` ↔ `len(x) == 0` ↔ `x == []` (and the non-empty forms) for containers"
    leaves_unvisited = True  # a leaf (constant, context, operator) is never one of its sites

    def prepare(self, tree: ast.Module) -> None:
        analysis = self.analysis(tree)
        self.truth_tested = analysis.truth_tested()
        facts = analysis.facts()
        self.lists = facts.lists
        self.sequences = facts.sequences | facts.lists
        self.len_is_builtin = "len" not in analysis.bound_names()

    def _alternatives(self, node: ast.AST) -> list[str]:
        in_context = id(node) in self.truth_tested
        found = classify(node, in_context)
        if found is None or not self.len_is_builtin:
            return []
        form, name = found
        if name not in self.sequences:
            return []
        family = EMPTY if form in EMPTY else NONEMPTY
        options = [f for f in family if f != form]
        if name not in self.lists:
            options = [f for f in options if "[]" not in f]
        if form in NONEMPTY and not in_context:
            options = [f for f in options if f != "truth"]
        return options

    def visit(self, node: ast.AST) -> Any:
        options = self._alternatives(node) if isinstance(node, ast.expr) else []
        choice = self.offer(len(options)) if options else None
        visited = super().visit(node)  # nested sites are offered either way, so numbering is stable
        if choice is None:
            return visited
        found = classify(node, id(node) in self.truth_tested)
        if found is None:
            raise Decline("not an emptiness check")  # offered only for one
        return build(options[choice], found[1])
