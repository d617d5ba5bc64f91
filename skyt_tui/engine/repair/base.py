"""What every repair transformer shares: the context it sees and how it offers rewrite sites.

A transformer is one semantics-preserving idea (flip a comparison, drop a
redundant `else` …). It walks a *copy* of the sample's AST and, at each place
where its idea applies, calls `offer(n)` with the number of alternative
rewrites there. The search first runs it with no selection to count the sites,
then with chosen `{site: option}` selections to build candidates; a site is
rewritten only when selected. Site numbering must depend only on the input
tree, so transformers decide whether a node is a site *before* rewriting its
children.

The canon (`Context.canon`) may only be read to choose between equivalent
forms (which name a variable plays the role of, which order a dict literal is
written in); a transformer never inserts canon statements into a sample.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


class Decline(Exception):
    """Raised by a transformer when the selected rewrite turns out unsafe; the candidate is dropped."""


@dataclass(frozen=True)
class Context:
    canon: ast.Module
    """The canon's AST, parsed once; read-only."""
    kept_names: frozenset[str]
    """Entry point and the contract's fixed names: never renamed."""
    derived: dict[type, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)
    """What transformers derive from the canon alone, computed once per repair call (keyed by the deriving class)."""


class Transformer(ast.NodeTransformer):
    name: ClassVar[str]
    summary: ClassVar[str]
    reads_canon: ClassVar[bool] = False
    """True when the rewrite depends on `context.canon`: the search caches rewrites per canon only then."""

    def __init__(self, context: Context, selection: Mapping[int, int] | None = None) -> None:
        self.context = context
        self.selection = selection
        self.options: list[int] = []
        self._visitors: dict[type, Callable[[ast.AST], Any]] = {}

    def visit(self, node: ast.AST) -> Any:
        """`NodeVisitor.visit`, the method looked up once per node type: the search visits millions of nodes."""
        visitor = self._visitors.get(node.__class__)
        if visitor is None:
            found: Callable[[ast.AST], Any] = getattr(
                self, "visit_" + node.__class__.__name__, self.generic_visit
            )
            self._visitors[node.__class__] = visitor = found
        return visitor(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        """`NodeTransformer.generic_visit`, reading `_fields` directly rather than through `iter_fields`."""
        for name in node._fields:
            try:
                old_value = getattr(node, name)
            except AttributeError:
                continue
            if isinstance(old_value, list):
                new_values = []
                for value in old_value:
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old_value[:] = new_values
            elif isinstance(old_value, ast.AST):
                new_node = self.visit(old_value)
                if new_node is None:
                    delattr(node, name)
                else:
                    setattr(node, name, new_node)
        return node

    def offer(self, options: int = 1) -> int | None:
        """Register a site with `options` alternatives; return the chosen option, or None to leave it."""
        self.options.append(options)
        if self.selection is None:
            return None
        return self.selection.get(len(self.options) - 1)

    def prepare(self, tree: ast.Module) -> None:
        """Analysis of the whole tree before the walk (scopes, types …); optional."""

    def run(self, tree: ast.Module) -> ast.Module:
        self.prepare(tree)
        result: ast.Module = self.visit(tree)
        # unparse needs locations on new statements; the counting pass changes nothing
        if self.selection:
            locate_statements(result)
        return result


BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def locate_statements(node: ast.AST, lineno: int = 1) -> None:
    """Give every statement without a `lineno` its enclosing statement's.

    `ast.unparse` reads `lineno` of statements only (to look up type comments),
    so this is all `ast.fix_missing_locations` would do for it, without
    visiting every expression node of the tree.
    """
    for name in BLOCKS:
        block = getattr(node, name, None)
        if not isinstance(block, list):
            continue
        for child in block:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, ast.stmt | ast.excepthandler):  # the block items with a `lineno`
                if not hasattr(child, "lineno"):
                    child.lineno = lineno
                locate_statements(child, child.lineno)
            else:
                locate_statements(child, lineno)


STATEMENT_LISTS = ("body", "orelse", "finalbody")


def walk(tree: ast.AST) -> list[ast.AST]:
    """Every node under `tree`, in `ast.walk`'s order (breadth first), as a list: twice as fast.

    For analysis only: it lists the nodes before the caller sees the first one,
    so a caller that rewrites the tree while iterating must use `ast.walk`.
    """
    nodes = [tree]
    for node in nodes:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                nodes.append(value)
            elif isinstance(value, list):
                nodes.extend(item for item in value if isinstance(item, ast.AST))
    return nodes


def exits(statements: list[ast.stmt]) -> bool:
    """True when a block always leaves by return/raise/continue/break at its end."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, ast.Return | ast.Raise | ast.Continue | ast.Break):
        return True
    if isinstance(last, ast.If):
        return exits(last.body) and exits(last.orelse)
    return False


def has_side_effects(node: ast.AST) -> bool:
    """Conservatively: may evaluating `node` change state or depend on evaluation order?"""
    return any(
        isinstance(sub, ast.Call | ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr)
        for sub in ast.walk(node)
    )


def boolean_context(tree: ast.AST) -> set[int]:
    """ids of expressions whose value is only used for its truth (if/while tests, `not` operands …)."""
    found: set[int] = set()

    def mark(expr: ast.expr) -> None:
        found.add(id(expr))
        if isinstance(expr, ast.BoolOp):
            for value in expr.values:
                mark(value)

    for node in walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            mark(node.test)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            mark(node.operand)
        elif isinstance(node, ast.comprehension):
            for condition in node.ifs:
                mark(condition)
    return found


def truth_tested(tree: ast.AST) -> set[int]:
    """ids of the expressions tested for their truth where they stand (`boolean_context`), less
    the operands of `not`: `not x` itself is the test there, and rewrites offer it whole."""
    negated = {
        id(node.operand)
        for node in walk(tree)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    }
    return boolean_context(tree) - negated


def is_boolean_valued(expr: ast.expr) -> bool:
    """True when `expr` certainly evaluates to a bool (comparisons, `not`, and/or of such)."""
    if isinstance(expr, ast.Compare):
        return True
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return True
    if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
        return True
    if isinstance(expr, ast.BoolOp):
        return all(is_boolean_valued(value) for value in expr.values)
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id in ("isinstance", "bool", "callable", "hasattr", "all", "any")
    ):
        return True
    return False


def name_of(expr: ast.AST) -> str | None:
    return expr.id if isinstance(expr, ast.Name) else None


def load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def store(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store())


def functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def docstring_offset(body: list[ast.stmt]) -> int:
    first = body[0] if body else None
    is_doc = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    return 1 if is_doc else 0


class BlockTransformer(Transformer):
    """A transformer that rewrites statement lists: `block` sees each body/orelse/finalbody whole.

    `self.loop_depth` and `self.function` say where the block is (inside a loop
    body? which function?), for ideas such as `continue` or local variables.
    """

    def __init__(self, context: Context, selection: Mapping[int, int] | None = None) -> None:
        super().__init__(context, selection)
        self.loop_body = False
        self.function: ast.FunctionDef | ast.AsyncFunctionDef | None = None

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        return [self.visit(statement) for statement in statements]

    def generic_visit(self, node: ast.AST) -> ast.AST:
        saved = (self.loop_body, self.function)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function = node
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if (
                name in STATEMENT_LISTS
                and isinstance(value, list)
                and value
                and isinstance(value[0], ast.stmt)
            ):
                self.loop_body = (
                    isinstance(node, ast.For | ast.AsyncFor | ast.While) and name == "body"
                )
                setattr(node, name, self.block(value) or [ast.Pass()])
            elif isinstance(value, list):
                setattr(
                    node,
                    name,
                    [self.visit(item) if isinstance(item, ast.AST) else item for item in value],
                )
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        self.loop_body, self.function = saved
        return node
