"""Python's scoping of a program's names, as a walk over its syntax tree: which namespace (module,
function, lambda, comprehension, class body) binds, imports or declares each name, and which
binding a name means where it is used (LEGB, class bodies skipped).

Two rooms must agree on it: normalization's `alpha` level renames the names a program binds
(`normalize.rename_locals`), and repair renames without capture (`repair.scopes` resolves every
occurrence). Both build on `ScopeWalk` and `ScopeCollector` here. Analysis only: nothing here
executes the code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any


class Scope:
    """One namespace: module, function, lambda, comprehension or class body."""

    def __init__(self, node: ast.AST, kind: str, parent: Scope | None) -> None:
        self.node = node
        self.kind = kind
        self.parent = parent
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.imported: set[str] = set()
        self.functions: dict[str, ast.AST] = {}
        self.params: list[str] = []


def all_args(args: ast.arguments) -> list[ast.arg]:
    """Every parameter of a signature: positional-only, plain, `*args`, keyword-only, `**kwargs`."""
    return [
        a
        for a in [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
        if a is not None
    ]


Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
"""The expressions that open a scope of their own (their first iterable is outside it)."""

_LEAVES = tuple(
    value
    for value in vars(ast).values()
    if isinstance(value, type)
    and issubclass(value, ast.expr_context | ast.boolop | ast.operator | ast.unaryop | ast.cmpop)
) + (ast.Constant,)
"""Node classes with no node below them (contexts, operators; a constant's value is no node)."""
_CONSTANT_VISITORS = (
    "visit_Num",
    "visit_Str",
    "visit_Bytes",
    "visit_NameConstant",
    "visit_Ellipsis",
)
_leaves_of: dict[type, frozenset[type]] = {}


def _unvisited_leaves(cls: type) -> frozenset[type]:
    """The leaf classes a walk class has no visitor of its own for: visiting one does nothing."""
    found = _leaves_of.get(cls)
    if found is None:
        found = _leaves_of[cls] = frozenset(
            leaf
            for leaf in _LEAVES
            if getattr(cls, "visit_" + leaf.__name__, None)
            is getattr(ast.NodeVisitor, "visit_" + leaf.__name__, None)
            and not (
                leaf is ast.Constant and any(hasattr(cls, name) for name in _CONSTANT_VISITORS)
            )
        )
    return found


class ScopeWalk(ast.NodeVisitor):
    """Python's scoping as a walk, shared by the passes that must agree on it (`ScopeCollector` here,
    `repair.scopes` resolution): decorators, defaults, annotations, return annotations, class bases and a
    comprehension's first iterable are visited in the enclosing scope; parameters and bodies in the new one.
    Subclasses say what entering a scope (`_enter`, popped from `_stack` on leaving), defining a function or
    class name (`_define`) and binding parameters (`_parameters`) mean; names, imports and declarations are
    theirs to visit."""

    _stack: list[Scope]

    def visit(self, node: ast.AST) -> Any:
        """`NodeVisitor.visit`, the method looked up once per node class (this walk runs on every
        candidate of the repair search)."""
        visitors: dict[type, Callable[[ast.AST], Any]] | None = self.__dict__.get("_visitors")
        if visitors is None:
            visitors = self.__dict__["_visitors"] = {}
        visitor = visitors.get(node.__class__)
        if visitor is None:
            visitor = visitors[node.__class__] = getattr(
                self, "visit_" + node.__class__.__name__, self.generic_visit
            )
        return visitor(node)

    def generic_visit(self, node: ast.AST) -> None:
        """`NodeVisitor.generic_visit`, in the same order, reading `_fields` directly and not
        descending into leaves this walk has no visitor for (contexts, operators, constants)."""
        skip = _unvisited_leaves(self.__class__)
        visit = self.visit
        node_type = ast.AST
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type) and item.__class__ not in skip:
                        visit(item)
            elif isinstance(value, node_type) and value.__class__ not in skip:
                visit(value)

    def _enter(self, node: ast.AST, kind: str) -> None:
        raise NotImplementedError

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        raise NotImplementedError

    def _parameters(self, args: ast.arguments) -> None:
        raise NotImplementedError

    def visit_Module(self, node: ast.Module) -> None:
        self._enter(node, "module")
        self.generic_visit(node)
        self._stack.pop()

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._define(node)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._visit_defaults(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self._enter(node, "function")
        self._parameters(node.args)
        for statement in node.body:
            self.visit(statement)
        self._stack.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_defaults(node.args)
        self._enter(node, "function")
        self._parameters(node.args)
        self.visit(node.body)
        self._stack.pop()

    def _visit_defaults(self, args: ast.arguments) -> None:
        for default in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.visit(default)
        for arg in all_args(args):
            if arg.annotation is not None:
                self.visit(arg.annotation)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._define(node)
        for item in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(item)
        self._enter(node, "class")
        for statement in node.body:
            self.visit(statement)
        self._stack.pop()

    def _visit_comprehension(self, node: Comprehension) -> None:
        # The first iterable is evaluated in the enclosing scope.
        self.visit(node.generators[0].iter)
        self._enter(node, "comprehension")
        for index, generator in enumerate(node.generators):
            self.visit(generator.target)
            if index:
                self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self._stack.pop()

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension
    visit_DictComp = _visit_comprehension


class ScopeCollector(ScopeWalk):
    """First pass: which names each scope binds, imports or declares global/nonlocal."""

    def __init__(self) -> None:
        self.scopes: dict[int, Scope] = {}
        self._module: Scope | None = None
        self._stack: list[Scope] = []

    def _enter(self, node: ast.AST, kind: str) -> None:
        scope = Scope(node, kind, self._stack[-1] if self._stack else None)
        self.scopes[id(node)] = scope
        self._stack.append(scope)
        if kind == "module":
            self._module = scope

    @property
    def module(self) -> Scope:
        """The module scope: the collector visits a whole `ast.Module` before anyone asks."""
        if self._module is None:
            raise RuntimeError("scope collector has not visited a module")
        return self._module

    @property
    def current(self) -> Scope:
        return self._stack[-1]

    def owner(self, name: str, scope: Scope) -> Scope | None:
        """The scope whose binding `name` means inside `scope` (Python's LEGB, class bodies skipped);
        None for builtin, imported or unbound names."""
        if name in scope.declared_global:
            module = self.module
            return module if name in module.bound and name not in module.imported else None
        if name not in scope.declared_nonlocal:
            if name in scope.imported:
                return None
            if name in scope.bound:
                return scope
        candidate = scope.parent
        while candidate is not None:
            if candidate.kind != "class":  # class bodies are not visible to nested scopes
                if name in candidate.imported:
                    return None
                if name in candidate.bound:
                    return candidate
            candidate = candidate.parent
        return None

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.current.bound.add(node.name)
        if not isinstance(node, ast.ClassDef):
            self.current.functions[node.name] = node

    def _parameters(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.current.bound.add(arg.arg)
                self.current.params.append(arg.arg)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.current.bound.add(node.id)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        # A walrus in a comprehension binds in the nearest enclosing non-comprehension scope.
        scope = self.current
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        scope.bound.add(node.target.id)
        self.visit(node.value)

    def visit_Global(self, node: ast.Global) -> None:
        self.current.declared_global.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.current.declared_nonlocal.update(node.names)

    def _visit_import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            if name != "*":
                self.current.imported.add(name)

    visit_Import = _visit_import
    visit_ImportFrom = _visit_import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.current.bound.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.current.bound.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.current.bound.add(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.current.bound.add(node.rest)
        self.generic_visit(node)
