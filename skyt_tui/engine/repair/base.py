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
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from skyt_tui.engine.repair.shared import Analysis


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


def _node_classes() -> dict[str, type[ast.AST]]:
    return {
        name: value
        for name, value in vars(ast).items()
        if isinstance(value, type) and issubclass(value, ast.AST)
    }


_NODE_CLASSES = _node_classes()
_EXPRESSION_PARTS = (ast.expr, ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
EXPRESSION_WORLD = frozenset(
    cls
    for cls in _NODE_CLASSES.values()
    if issubclass(cls, _EXPRESSION_PARTS)
    or cls in (ast.comprehension, ast.arguments, ast.arg, ast.keyword)
)
"""The node classes of expressions and of their parts: every node below one of them is one of
them (an expression holds no statement)."""
_CONTEXTS = frozenset(cls for cls in EXPRESSION_WORLD if issubclass(cls, ast.expr_context))
_OPERATORS = frozenset(
    cls
    for cls in EXPRESSION_WORLD
    if issubclass(cls, ast.boolop | ast.operator | ast.unaryop | ast.cmpop)
)
LEAVES = _CONTEXTS | _OPERATORS | {ast.Constant}
"""Node classes with no node below them (a constant's value is no node)."""
_CONSTANT_VISITORS = ("Constant", "Num", "Str", "Bytes", "NameConstant", "Ellipsis")
"""`NodeVisitor.visit_Constant` hands a constant to these deprecated visitors when a class has one."""


def handled_node_classes(cls: type) -> frozenset[type[ast.AST]]:
    """The node classes a transformer class has its own `visit_<class>` for (ast's own
    `visit_Constant`, which only forwards to deprecated visitors, does not count unless one exists)."""
    names = {
        attribute[len("visit_") :]
        for attribute in dir(cls)
        if attribute.startswith("visit_")
        and getattr(cls, attribute) is not getattr(ast.NodeVisitor, attribute, None)
    }
    if names & set(_CONSTANT_VISITORS):
        names.add("Constant")
    return frozenset(_NODE_CLASSES[name] for name in names if name in _NODE_CLASSES)


_skippable: dict[type, frozenset[type[ast.AST]]] = {}


_prechecks: dict[type, frozenset[type[ast.AST]] | None] = {}


def precheck(cls: type[Transformer]) -> frozenset[type[ast.AST]] | None:
    """Node classes one of which a tree must hold for `cls` to find a site in it, or None when
    that is not known (the class has its own `run`, `visit` or `block`).

    A transformer with only `visit_<class>` methods offers sites in them alone, so on a tree
    without any of those classes its counting pass finds nothing (the search skips it).
    """
    if cls not in _prechecks:
        known = (
            cls.run is Transformer.run
            and cls.visit is Transformer.visit
            and cls.generic_visit is Transformer.generic_visit
        )
        _prechecks[cls] = handled_node_classes(cls) if known else None
    return _prechecks[cls]


def skippable(cls: type[Transformer]) -> frozenset[type[ast.AST]]:
    """Node classes whose visit by `cls` is certainly a no-op (the node back, unchanged, nothing
    offered, no state changed), so its `generic_visit` need not descend into them.

    Only for the shared `visit` and `generic_visit`: a node no `visit_<class>` handles is
    walked through and returned. A class that handles nothing in expressions skips them all
    (they hold no statement, so no `block` either); otherwise only the leaves it does not
    handle (names, constants, contexts, operators) are skipped.
    """
    found = _skippable.get(cls)
    if found is None:
        if cls.generic_visit not in (Transformer.generic_visit, BlockTransformer.generic_visit):
            found = frozenset()
        elif cls.visit is not Transformer.visit:
            found = LEAVES if cls.leaves_unvisited else frozenset()
        else:
            handled = handled_node_classes(cls)
            if not handled & EXPRESSION_WORLD:
                found = EXPRESSION_WORLD
            else:
                leaves = set(LEAVES - handled)
                if ast.Name not in handled and _CONTEXTS <= leaves:
                    leaves.add(ast.Name)
                found = frozenset(leaves)
        _skippable[cls] = found
    return found


class Transformer(ast.NodeTransformer):
    name: ClassVar[str]
    summary: ClassVar[str]
    reads_canon: ClassVar[bool] = False
    """True when the rewrite depends on `context.canon`: the search caches rewrites per canon only then."""
    leaves_unvisited: ClassVar[bool] = False
    """For a class with its own `visit`: True when that visit of a leaf (`LEAVES`) offers nothing,
    changes nothing and returns the leaf, so walks need not call it."""

    def __init__(
        self,
        context: Context,
        selection: Mapping[int, int] | None = None,
        shared: Analysis | None = None,
    ) -> None:
        self.context = context
        self.selection = selection
        self.shared = shared
        """The analyses of the tree this transformer runs on, shared with other transformers."""
        self.options: list[int] = []
        self._visitors: dict[type, Callable[[ast.AST], Any]] = {}
        self._skip = skippable(type(self))

    def analysis(self, tree: ast.Module) -> Analysis:
        """What is derived from `tree` as parsed (`repair.shared`): read before rewriting it."""
        shared = self.shared
        if shared is None or shared.tree is not tree:
            from skyt_tui.engine.repair.shared import Analysis

            shared = self.shared = Analysis(tree)
        return shared

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
        """`NodeTransformer.generic_visit`, reading `_fields` directly rather than through `iter_fields`.

        A list is rebuilt, and a field set, only once a child's visit returns something other
        than the child itself: the counting passes, and most of a rewrite's, change nothing.
        """
        visit = self.visit
        skip = self._skip
        node_type = ast.AST
        for name in node._fields:
            try:
                old_value = getattr(node, name)
            except AttributeError:
                continue
            if old_value.__class__ in skip:
                continue
            if isinstance(old_value, list):
                new_values: list[Any] | None = None
                for index, value in enumerate(old_value):
                    if value.__class__ in skip:
                        if new_values is not None:
                            new_values.append(value)
                        continue
                    if isinstance(value, node_type):
                        new_value = visit(value)
                        if new_value is value and new_values is None:
                            continue
                        if new_values is None:
                            new_values = old_value[:index]
                        if new_value is None:
                            continue
                        if not isinstance(new_value, node_type):
                            new_values.extend(new_value)
                            continue
                        value = new_value
                    elif new_values is None:
                        continue
                    new_values.append(value)
                if new_values is not None:
                    old_value[:] = new_values
            elif isinstance(old_value, node_type):
                new_node = visit(old_value)
                if new_node is None:
                    delattr(node, name)
                elif new_node is not old_value:
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
    append = nodes.append
    node_type = ast.AST
    for node in nodes:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
            elif isinstance(value, node_type):
                append(value)
    return nodes


def copy_tree(tree: ast.Module) -> ast.Module:
    """A copy of a parsed tree to rewrite, without recursion: every node new, with the same
    fields and locations, but contexts and operators (no fields, no locations), which the parser
    itself shares between all trees. Two to three times as fast as parsing the text again."""
    node_type = ast.AST
    cls: Any = tree.__class__
    root: ast.Module = cls.__new__(cls)
    root.__dict__.update(tree.__dict__)
    stack: list[Any] = [root]
    push, pop = stack.append, stack.pop
    while stack:
        made = pop()
        values = made.__dict__
        for name in made._fields:
            value = values.get(name)
            if isinstance(value, list):
                items: list[Any] = []
                add = items.append
                for item in value:
                    if isinstance(item, node_type) and (item._fields or item._attributes):
                        cls = item.__class__
                        new = cls.__new__(cls)
                        new.__dict__.update(item.__dict__)
                        push(new)
                        add(new)
                    else:
                        add(item)
                values[name] = items
            elif isinstance(value, node_type) and (value._fields or value._attributes):
                cls = value.__class__
                new = values[name] = cls.__new__(cls)
                new.__dict__.update(value.__dict__)
                push(new)
    return root


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
    return boolean_context_of(walk(tree))


def boolean_context_of(nodes: list[ast.AST]) -> set[int]:
    """`boolean_context` of the tree whose `walk` is `nodes`."""
    found: set[int] = set()

    def mark(expr: ast.expr) -> None:
        found.add(id(expr))
        if isinstance(expr, ast.BoolOp):
            for value in expr.values:
                mark(value)

    for node in nodes:
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
    return truth_tested_of(walk(tree))


def truth_tested_of(nodes: list[ast.AST]) -> set[int]:
    """`truth_tested` of the tree whose `walk` is `nodes`."""
    negated = {
        id(node.operand)
        for node in nodes
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    }
    return boolean_context_of(nodes) - negated


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

    def __init__(
        self,
        context: Context,
        selection: Mapping[int, int] | None = None,
        shared: Analysis | None = None,
    ) -> None:
        super().__init__(context, selection, shared)
        self.loop_body = False
        self.function: ast.FunctionDef | ast.AsyncFunctionDef | None = None

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        return [self.visit(statement) for statement in statements]

    def generic_visit(self, node: ast.AST) -> ast.AST:
        saved = (self.loop_body, self.function)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function = node
        skip = self._skip
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if value.__class__ in skip:
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
                    [
                        self.visit(item)
                        if isinstance(item, ast.AST) and item.__class__ not in skip
                        else item
                        for item in value
                    ],
                )
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        self.loop_body, self.function = saved
        return node
