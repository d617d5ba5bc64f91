"""Coding-standard rules (MISRA C:2012, NASA/JPL Power of 10) read on a Python syntax tree.

One function per rule id of `contracts.coding_rules.CODING_RULES`, each taking a
`Program` and returning a `Finding` (the first place the rule is broken and a short
account of every place) or None. The sample is hostile until proven otherwise: every
walk is iterative, each node is visited a bounded number of times, and nothing here
runs the program. docs/contracts.md says what each rule means and how it differs from
SKYT's text check.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from skyt_tui.engine.oracle.constraints import _dotted, _import_aliases
from skyt_tui.engine.printable import printable

FUNCTION_MAX_LINES = 60
"""P10-4: "no more than about 60 lines of code per function"."""

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SHOWN_PLACES = 3

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Finding:
    line: int | None
    message: str


def _finding(places: list[tuple[int, str]]) -> Finding | None:
    """The first place (by line) and an account of up to three, with how many more there are."""
    if not places:
        return None
    places = sorted(places, key=lambda place: place[0])
    shown = "; ".join(message for _, message in places[:_SHOWN_PLACES])
    if len(places) > _SHOWN_PLACES:
        shown += f"; and {len(places) - _SHOWN_PLACES} more"
    return Finding(places[0][0], shown)


def _name(text: str) -> str:
    """A name from the sample, safe to show and short."""
    text = printable(text)
    return text if len(text) <= 40 else text[:39] + "…"


def own_nodes(root: ast.AST, stop: tuple[type, ...] = _SCOPES) -> Iterator[ast.AST]:
    """`root` and the nodes under it in source order, not entering a nested `stop` node
    (which is itself yielded: its name binds here, its body runs elsewhere)."""
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        yield node
        if node is root or not isinstance(node, stop):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _block_nodes(statements: list[ast.stmt], stop: tuple[type, ...] = _SCOPES) -> Iterator[ast.AST]:
    """The nodes of a block, not entering a `stop` node (a statement of the block included)."""
    for statement in statements:
        if isinstance(statement, stop):
            yield statement
        else:
            yield from own_nodes(statement, stop)


@dataclass
class Program:
    """One parsed sample and what several rules read from it, computed once when first asked."""

    code: str
    tree: ast.Module
    _scopes: _Scopes | None = field(default=None, init=False)
    _tokens: _Tokens | None = field(default=None, init=False)

    @property
    def scopes(self) -> _Scopes:
        if self._scopes is None:
            self._scopes = _Scopes(self.tree)
        return self._scopes

    @property
    def tokens(self) -> _Tokens:
        if self._tokens is None:
            self._tokens = _Tokens(self.code)
        return self._tokens


class _Scopes:
    """The program's functions, where each is defined, and which of them each call reaches.

    A call `f(...)` reaches the function `f` defined in the nearest enclosing function,
    else at module level; `self.m(...)` / `cls.m(...)` in a method reaches method `m` of
    its class. Calls through other objects are not followed.
    """

    def __init__(self, tree: ast.Module) -> None:
        self.functions: list[Function] = []
        self.chain: dict[int, tuple[ast.AST, ...]] = {}
        calls: list[tuple[ast.Call, tuple[ast.AST, ...]]] = []
        stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]
        while stack:
            node, chain = stack.pop()
            if isinstance(node, ast.Call):
                calls.append((node, chain))
            inner = chain
            if isinstance(node, _FUNCTIONS):
                self.functions.append(node)
                self.chain[id(node)] = chain
                inner = (*chain, node)
            elif isinstance(node, ast.ClassDef):
                inner = (*chain, node)
            for name, value in ast.iter_fields(node):
                scope = inner if name == "body" else chain
                children = value if isinstance(value, list) else [value]
                stack.extend(
                    (child, scope) for child in reversed(children) if isinstance(child, ast.AST)
                )
        self.functions.sort(key=lambda f: (f.lineno, f.col_offset))
        self._defined: dict[int, dict[str, Function]] = {}
        """id(scope node) (0 for the module) → name → the function defined there last."""
        for function in self.functions:
            chain = self.chain[id(function)]
            owner = id(chain[-1]) if chain else 0
            self._defined.setdefault(owner, {})[function.name] = function
        self.calls: list[tuple[ast.Call, Function | None, Function]] = []
        """(call, the function it is made in or None at module level, the function it reaches)."""
        for call, chain in calls:
            callee = self._resolve(call, chain)
            if callee is not None:
                caller = next((s for s in reversed(chain) if isinstance(s, _FUNCTIONS)), None)
                self.calls.append((call, caller, callee))
        self.calls.sort(key=lambda item: (item[0].lineno, item[0].col_offset))

    def _resolve(self, call: ast.Call, chain: tuple[ast.AST, ...]) -> Function | None:
        func = call.func
        if isinstance(func, ast.Name):
            for scope in reversed(chain):
                if isinstance(scope, _FUNCTIONS):
                    found = self._defined.get(id(scope), {}).get(func.id)
                    if found is not None:
                        return found
            return self._defined.get(0, {}).get(func.id)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            for position in range(len(chain) - 1, 0, -1):
                if isinstance(chain[position], _FUNCTIONS) and isinstance(
                    chain[position - 1], ast.ClassDef
                ):
                    return self._defined.get(id(chain[position - 1]), {}).get(func.attr)
        return None

    def is_method(self, function: Function) -> bool:
        chain = self.chain[id(function)]
        return bool(chain) and isinstance(chain[-1], ast.ClassDef)

    def cycle(self) -> list[tuple[Function, ast.Call]] | None:
        """A call cycle among the program's functions, as (function, its call of the next) pairs;
        the first one depth-first search finds from the functions in source order."""
        index = {id(f): i for i, f in enumerate(self.functions)}
        edges: list[list[tuple[int, ast.Call]]] = [[] for _ in self.functions]
        for call, caller, callee in self.calls:
            if caller is not None:
                edges[index[id(caller)]].append((index[id(callee)], call))
        state = [0] * len(self.functions)  # 0 new, 1 on the path, 2 done
        for start in range(len(self.functions)):
            if state[start]:
                continue
            path: list[tuple[int, int]] = [(start, 0)]  # (function, next edge to follow)
            state[start] = 1
            while path:
                node, edge = path[-1]
                if edge == len(edges[node]):
                    state[node] = 2
                    path.pop()
                    continue
                path[-1] = (node, edge + 1)
                target, _ = edges[node][edge]
                if state[target] == 1:
                    on_path = [n for n, _ in path]
                    members = path[on_path.index(target) :]
                    return [(self.functions[n], edges[n][e - 1][1]) for n, e in members]
                if state[target] == 0:
                    state[target] = 1
                    path.append((target, 0))
        return None


class _Tokens:
    """The program's tokens by position, to see whether an expression is in parentheses
    (the syntax tree does not keep them)."""

    def __init__(self, code: str) -> None:
        self.lines = code.splitlines(keepends=True)
        self.starts: dict[tuple[int, int], int] = {}
        self.ends: dict[tuple[int, int], int] = {}
        self.texts: list[str] = []
        self.complete = True
        skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
        try:
            for token in tokenize.generate_tokens(io.StringIO(code).readline):
                if token.type in skip or token.type == tokenize.ENDMARKER:
                    continue
                self.starts[token.start] = len(self.texts)
                self.ends[token.end] = len(self.texts)
                self.texts.append(token.string)
        except (tokenize.TokenError, SyntaxError):
            self.complete = False
        self._offsets: dict[int, list[int]] = {}

    def _column(self, line: int, byte_offset: int) -> int:
        """The character column of a UTF-8 byte offset on `line` (the tree counts bytes)."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_offset
        offsets = self._offsets.get(line)
        if offsets is None:
            offsets = [0]
            for char in text:
                offsets.append(offsets[-1] + len(char.encode("utf-8")))
            self._offsets[line] = offsets
        return bisect.bisect_left(offsets, byte_offset)

    def parenthesised(self, node: ast.expr) -> bool:
        if node.end_lineno is None or node.end_col_offset is None:
            return False
        first = self.starts.get((node.lineno, self._column(node.lineno, node.col_offset)))
        last = self.ends.get((node.end_lineno, self._column(node.end_lineno, node.end_col_offset)))
        if first is None or last is None or first == 0 or last + 1 >= len(self.texts):
            return False
        return self.texts[first - 1] == "(" and self.texts[last + 1] == ")"

    def segment(self, node: ast.expr) -> str | None:
        """The expression's text when it is on one line and short, for messages."""
        if node.end_lineno != node.lineno or node.end_col_offset is None:
            return None
        line = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
        start = self._column(node.lineno, node.col_offset)
        end = self._column(node.lineno, node.end_col_offset)
        text = line[start:end]
        return printable(text) if 0 < len(text) <= 60 else None


# ---- the rules ---------------------------------------------------------------------------------


def no_continue_one_break(program: Program) -> Finding | None:
    """MISRA-15.4: no continue, and at most one break per loop."""
    places: list[tuple[int, str]] = []
    for node in ast.walk(program.tree):
        if isinstance(node, ast.Continue):
            places.append((node.lineno, f"continue at line {node.lineno}"))
        elif isinstance(node, _LOOPS):
            breaks = [
                n.lineno
                for n in _block_nodes(node.body, _SCOPES + _LOOPS)
                if isinstance(n, ast.Break)
            ]
            if len(breaks) > 1:
                lines = ", ".join(str(line) for line in breaks)
                places.append(
                    (
                        breaks[1],
                        f"the loop at line {node.lineno} has {len(breaks)} breaks ({lines})",
                    )
                )
    return _finding(places)


def single_exit(program: Program) -> Finding | None:
    """MISRA-15.5: at most one return per function, and it is the function's last statement."""
    places: list[tuple[int, str]] = []
    for function in program.scopes.functions:
        returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
        name = _name(function.name)
        if len(returns) > 1:
            lines = ", ".join(str(r.lineno) for r in returns)
            places.append((returns[1].lineno, f"{name} has {len(returns)} returns ({lines})"))
        elif returns and function.body[-1] is not returns[0]:
            places.append(
                (
                    returns[0].lineno,
                    f"the return at line {returns[0].lineno} is not {name}'s last statement",
                )
            )
    return _finding(places)


def no_recursion(program: Program) -> Finding | None:
    """MISRA-17.2 and P10-1: no function reaches itself through calls."""
    cycle = program.scopes.cycle()
    if cycle is None:
        return None
    first, call = cycle[0]
    if len(cycle) == 1:
        return Finding(call.lineno, f"{_name(first.name)} calls itself at line {call.lineno}")
    names = " → ".join(_name(f.name) for f, _ in cycle[:4])
    more = " → …" if len(cycle) > 4 else ""
    return Finding(
        call.lineno, f"recursion through {names}{more} → {_name(first.name)} (line {call.lineno})"
    )


def _bound_names(node: ast.AST) -> list[str]:
    """Names `node` binds or unbinds in its own scope."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [alias.asname or alias.name.split(".")[0] for alias in node.names]
    return []


def loop_counter_kept(program: Program) -> Finding | None:
    """MISRA-14.2: a for loop's counter is not assigned in the loop's body."""
    places: list[tuple[int, str]] = []
    for loop in ast.walk(program.tree):
        if not isinstance(loop, ast.For | ast.AsyncFor):
            continue
        counters = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for node in _block_nodes(loop.body, _SCOPES + _COMPREHENSIONS):
            hit = next((name for name in _bound_names(node) if name in counters), None)
            if hit is not None:
                line = getattr(node, "lineno", loop.lineno)
                places.append(
                    (
                        line,
                        f"line {line} assigns {_name(hit)}, the counter of the loop at line {loop.lineno}",
                    )
                )
                break
    return _finding(places)


_BINARY_PRECEDENCE: dict[type, int] = {
    ast.BitOr: 7,
    ast.BitXor: 8,
    ast.BitAnd: 9,
    ast.LShift: 10,
    ast.RShift: 10,
    ast.Add: 11,
    ast.Sub: 11,
    ast.Mult: 12,
    ast.Div: 12,
    ast.FloorDiv: 12,
    ast.Mod: 12,
    ast.MatMult: 12,
    ast.Pow: 15,
}
_SYMBOLS: dict[type, str] = {
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.Or: "or",
    ast.And: "and",
}


def _precedence(node: ast.AST, *, as_operand: bool) -> int:
    """MISRA C's precedence table, with Python's operators in Python's order: conditional 2,
    or 3, and 4, not 5 (as an operator; as an operand it is a unary operator, 14),
    comparisons 6, | 7, ^ 8, & 9, shifts 10, + - 11, * / // % @ 12, other unary 14,
    ** 15, primaries 16."""
    if isinstance(node, ast.IfExp):
        return 2
    if isinstance(node, ast.BoolOp):
        return 3 if isinstance(node.op, ast.Or) else 4
    if isinstance(node, ast.UnaryOp):
        return 14 if as_operand or not isinstance(node.op, ast.Not) else 5
    if isinstance(node, ast.Compare):
        return 6
    if isinstance(node, ast.BinOp):
        return _BINARY_PRECEDENCE[type(node.op)]
    if isinstance(node, ast.Lambda | ast.NamedExpr):
        return 1
    return 16


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.IfExp):
        return [node.test, node.body, node.orelse]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [node.operand]
    return []


def _operator_text(node: ast.AST) -> str:
    if isinstance(node, ast.BinOp | ast.BoolOp):
        return _SYMBOLS.get(type(node.op), "an operator")
    if isinstance(node, ast.Compare):
        return "a comparison"
    if isinstance(node, ast.IfExp):
        return "a conditional expression"
    return "not"


def explicit_precedence(program: Program) -> Finding | None:
    """MISRA-12.1: an operand of an operator (precedence 2-12) that is itself an operation
    of higher precedence below 13 is in parentheses (`a + (b * c)`, `(n % i) == 0`)."""
    tokens = program.tokens
    if not tokens.complete:
        return Finding(None, "the program's tokens could not be read, so parentheses are unknown")
    places: list[tuple[int, str]] = []
    stack: list[ast.AST] = [program.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr):
            continue  # positions inside f-strings are not reliable before Python 3.12
        stack.extend(ast.iter_child_nodes(node))
        outer = _precedence(node, as_operand=False)
        if not 2 <= outer <= 12:
            continue
        for operand in _operands(node):
            inner = _precedence(operand, as_operand=True)
            if inner < 13 and inner > outer and not tokens.parenthesised(operand):
                shown = tokens.segment(operand)
                what = f"`{shown}`" if shown else "an operation"
                places.append(
                    (
                        operand.lineno,
                        f"line {operand.lineno}: {what} as an operand of {_operator_text(node)} "
                        "needs parentheses",
                    )
                )
    return _finding(places)


_ENDLESS = {"itertools.count", "itertools.cycle"}


def bounded_loops(program: Program) -> Finding | None:
    """P10-2: no while loop whose condition is constant or can never change, no for loop
    over an endless iterator (itertools.count, cycle, repeat without times, iter(f, stop))."""
    aliases = _import_aliases(program.tree)
    places: list[tuple[int, str]] = []
    for loop in ast.walk(program.tree):
        if isinstance(loop, ast.While):
            why = _unbounded_while(loop)
            if why:
                places.append((loop.lineno, f"the while loop at line {loop.lineno} {why}"))
        elif isinstance(loop, ast.For | ast.AsyncFor) and isinstance(loop.iter, ast.Call):
            call = loop.iter
            name = _dotted(call.func, aliases)
            given = len(call.args) + len(call.keywords)
            if (
                name in _ENDLESS
                or (name == "itertools.repeat" and given < 2)
                or (name == "iter" and len(call.args) == 2)
            ):
                places.append(
                    (
                        loop.lineno,
                        f"the for loop at line {loop.lineno} runs over {name}(...), which never ends",
                    )
                )
    return _finding(places)


_OPAQUE = (
    ast.Call,
    ast.Attribute,
    ast.Subscript,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.NamedExpr,
    ast.Lambda,
)


def _unbounded_while(loop: ast.While) -> str | None:
    names: set[str] = set()
    for node in ast.walk(loop.test):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, _OPAQUE):
            return None  # the condition reads state the loop may change through it
    if not names:
        return "has a constant condition"
    changed: set[str] = set()
    for node in _block_nodes(loop.body):
        if isinstance(node, ast.Call | ast.Await | ast.Yield | ast.YieldFrom):
            return None  # a call (or a resumption) may change what the condition reads
        changed.update(_bound_names(node))
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.value, ast.Name):
            changed.add(node.value.id)
        if isinstance(node, ast.Global | ast.Nonlocal):
            changed.update(node.names)
    if names & changed:
        return None
    return (
        f"has a condition ({', '.join(_name(n) for n in sorted(names)[:3])}) the loop never changes"
    )


def no_collections(program: Program) -> Finding | None:
    """MISRA-21.3 and P10-3 as SKYT reads them: no import of collections."""
    places: list[tuple[int, str]] = []
    for node in ast.walk(program.tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "__import__"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            modules = [node.args[0].value]
        if any(m == "collections" or m.startswith("collections.") for m in modules):
            line = getattr(node, "lineno", 0)
            places.append((line, f"line {line} imports collections"))
    return _finding(places)


def _statement_lines(function: Function) -> int:
    """The function's length as skyt-tui formats it without docstrings: one line per
    statement, decorator and clause header (else, elif, except, finally, case)."""
    count = 0
    stack: list[ast.stmt] = [function]
    while stack:
        node = stack.pop()
        count += 1 + len(getattr(node, "decorator_list", ()))
        blocks: list[list[ast.stmt]] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and _is_docstring(body[0]):
                body = body[1:]
            count += 0 if body else 1  # an emptied body is written `pass`
            blocks.append(body)
        elif isinstance(node, ast.If):
            blocks.append(node.body)
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                blocks.append(node.orelse)  # elif: its own header line
            elif node.orelse:
                count += 1
                blocks.append(node.orelse)
        elif isinstance(node, ast.Try | ast.TryStar):
            blocks.append(node.body)
            for handler in node.handlers:
                count += 1
                blocks.append(handler.body)
            for extra in (node.orelse, node.finalbody):
                if extra:
                    count += 1
                    blocks.append(extra)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                count += 1
                blocks.append(case.body)
        else:
            blocks.append(getattr(node, "body", None) or [])
            orelse = getattr(node, "orelse", None)
            if orelse:
                count += 1
                blocks.append(orelse)
        for block in blocks:
            stack.extend(block)
    return count


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def short_functions(program: Program) -> Finding | None:
    """P10-4: every function is at most 60 lines long (one line per statement and clause)."""
    places: list[tuple[int, str]] = []
    for function in program.scopes.functions:
        lines = _statement_lines(function)
        if lines > FUNCTION_MAX_LINES:
            places.append(
                (
                    function.lineno,
                    f"{_name(function.name)} (line {function.lineno}) is {lines} lines long "
                    f"(limit {FUNCTION_MAX_LINES})",
                )
            )
    return _finding(places)


def _parameters(function: Function | ast.Lambda) -> list[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return [a.arg for a in every]


def _binds_here(statement: ast.stmt) -> set[str]:
    """Names a statement binds whenever it completes (not those bound only in its blocks)."""
    if isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
        if isinstance(statement, ast.AnnAssign) and statement.value is None:
            return set()
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.ClassDef) or isinstance(
        statement, _FUNCTIONS
    ):
        return set(_bound_names(statement))
    if isinstance(statement, ast.With | ast.AsyncWith):
        return _with_names(statement)
    return set()


def _with_names(statement: ast.With | ast.AsyncWith) -> set[str]:
    return {
        n.id
        for item in statement.items
        if item.optional_vars is not None
        for n in ast.walk(item.optional_vars)
        if isinstance(n, ast.Name)
    }


def _inner_blocks(statement: ast.stmt) -> list[tuple[list[ast.stmt], set[str]]]:
    """The statement's blocks, each with the names bound on entering it (loop targets,
    `with ... as`, `except ... as`)."""
    if isinstance(statement, _SCOPES):
        return []  # its own scope
    if isinstance(statement, ast.For | ast.AsyncFor):
        target = {n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name)}
        return [(statement.body, target), (statement.orelse, set())]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [(statement.body, _with_names(statement))]
    if isinstance(statement, ast.Try | ast.TryStar):
        blocks: list[tuple[list[ast.stmt], set[str]]] = [
            (statement.body, set()),
            (statement.orelse, set()),
            (statement.finalbody, set()),
        ]
        blocks += [(h.body, {h.name} if h.name else set()) for h in statement.handlers]
        return blocks
    if isinstance(statement, ast.Match):
        return [
            (case.body, {n for p in ast.walk(case.pattern) for n in _bound_names(p)})
            for case in statement.cases
        ]
    return [
        (block, set())
        for block in (getattr(statement, "body", None), getattr(statement, "orelse", None))
        if isinstance(block, list)
    ]


def _unsettled_returns(function: Function) -> Iterator[tuple[ast.Return, str]]:
    """Returns of a local name not bound earlier on the return's own path (its block and the
    blocks around it, before it), so the name may be unbound or stale there."""
    local = {
        name for node in own_nodes(function) if node is not function for name in _bound_names(node)
    }
    stack: list[tuple[list[ast.stmt], frozenset[str]]] = [
        (function.body, frozenset(_parameters(function)))
    ]
    while stack:
        block, before = stack.pop()
        bound = set(before)
        for statement in block:
            if (
                isinstance(statement, ast.Return)
                and isinstance(statement.value, ast.Name)
                and statement.value.id in local
                and statement.value.id not in bound
            ):
                yield statement, statement.value.id
            for inner, entering in _inner_blocks(statement):
                stack.append((inner, frozenset(bound | entering)))
            bound |= _binds_here(statement)


def smallest_scope(program: Program) -> Finding | None:
    """P10-6: no global or nonlocal; a name a function returns is bound on the return's own
    path before it (in its block or the blocks around it), not only in another block."""
    places: list[tuple[int, str]] = []
    for node in ast.walk(program.tree):
        if isinstance(node, ast.Global | ast.Nonlocal):
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            places.append(
                (node.lineno, f"line {node.lineno} declares {kind} {_name(node.names[0])}")
            )
    for function in program.scopes.functions:
        for statement, name in _unsettled_returns(function):
            places.append(
                (
                    statement.lineno,
                    f"{_name(function.name)} returns {_name(name)} at line {statement.lineno}, "
                    "bound only in another block",
                )
            )
    return _finding(places)


def _tests(function: Function) -> Iterator[ast.expr]:
    for node in own_nodes(function, _FUNCTIONS + (ast.ClassDef,)):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif isinstance(node, ast.Match):
            yield node.subject


def _returns_value(function: Function) -> bool:
    return any(
        isinstance(node, ast.Return)
        and node.value is not None
        and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        for node in own_nodes(function)
    )


def checked_parameters_and_results(program: Program) -> Finding | None:
    """P10-7: every function tests at least one of its parameters (self and cls aside), and no
    statement discards the value of a program function that returns one."""
    scopes = program.scopes
    places: list[tuple[int, str]] = []
    for function in scopes.functions:
        parameters = _parameters(function)
        is_static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list
        )
        if scopes.is_method(function) and not is_static and parameters:
            parameters = parameters[1:]
        if not parameters:
            continue
        wanted = set(parameters)
        tested = any(
            isinstance(n, ast.Name) and n.id in wanted
            for test in _tests(function)
            for n in ast.walk(test)
        )
        if not tested:
            shown = ", ".join(_name(p) for p in parameters[:3])
            places.append(
                (
                    function.lineno,
                    f"{_name(function.name)} (line {function.lineno}) tests none of its parameters ({shown})",
                )
            )
    discarded = {id(node.value) for node in ast.walk(program.tree) if isinstance(node, ast.Expr)}
    returning: dict[int, bool] = {}
    for call, _, callee in scopes.calls:
        if id(call) not in discarded:
            continue
        if id(callee) not in returning:
            returning[id(callee)] = _returns_value(callee)
        if returning[id(callee)]:
            places.append(
                (call.lineno, f"line {call.lineno} discards what {_name(callee.name)} returns")
            )
    return _finding(places)


RULE_CHECKS: dict[str, Callable[[Program], Finding | None]] = {
    "MISRA-12.1": explicit_precedence,
    "MISRA-14.2": loop_counter_kept,
    "MISRA-15.4": no_continue_one_break,
    "MISRA-15.5": single_exit,
    "MISRA-17.2": no_recursion,
    "MISRA-21.3": no_collections,
    "P10-1": no_recursion,
    "P10-2": bounded_loops,
    "P10-3": no_collections,
    "P10-4": short_functions,
    "P10-6": smallest_scope,
    "P10-7": checked_parameters_and_results,
}
"""Rule id → its check; the ids are `contracts.coding_rules.CODING_RULES`'s (a test keeps them equal)."""
