"""Program text from outside (samples, contract code), parsed within bounds (docs/oracle.md).

A sample is untrusted text, and two of its dimensions cost the app's own process:

- size: parsing costs memory in proportion to a program's length, and
  normalization, the repair search and the structural distance walk and rewrite
  its tree, so `MAX_PROGRAM_CHARS` is the largest program the app's process
  parses (real LLM samples: under 2,000). A longer one is still a sample of its
  run: the sandbox judges it (up to `MAX_JUDGED_CHARS`), and the analysis
  measures its text without parsing it (docs/metrics.md);
- nesting: Python's parser, `ast.unparse`, `ast.NodeVisitor` and `copy.deepcopy`
  recurse once or more per level of a syntax tree, and a few kilobytes (an
  `elif` chain, `a+a+…`, `x.a.a…`) nest thousands of levels deep. Past the
  interpreter's recursion limit they raise `RecursionError` wherever they are
  called, and how deep they get first depends on the stack they start from.
  `parse` measures the depth iteratively and refuses a tree deeper than
  `MAX_DEPTH` (real samples: at most 30), so every recursive walk of a parsed
  tree has the same stack to spare on every path (CLI, app thread, worker
  process), and a program too deep is that program's parse error, never a
  crashed batch.

Every failure of Python's own parser (`SyntaxError`, a null byte's `ValueError`,
`RecursionError`, `MemoryError`, `OverflowError`) comes out of `parse` as one
`SyntaxError`, so a caller needs one `except`.

Threads: CPython 3.11 keeps the recursion depth of its AST conversion in state every thread
shares, so a parse whose conversion runs Python code midway (a finalizer the garbage collector
calls) lets another thread's parse reset it, and the first raises `SystemError: AST constructor
recursion depth mismatch` (python/cpython#106905). The app parses on several threads at once (the
repair search's threads, the oracle's calls for them), so every parse in skyt_tui goes through
`parse_ast` (and `literal_eval`), which hold `AST_LOCK`.
"""

from __future__ import annotations

import ast
import contextlib
import threading
from typing import Any, Literal, overload

MAX_PROGRAM_CHARS = 50_000
"""The largest program (in characters) the app's process parses: a longer sample is judged in the
sandbox and counted in every rate, but never normalized, repaired or read for constraints and
coding rules, and the analysis says so for that sample (`too_large`)."""
MAX_JUDGED_CHARS = 1 << 24
"""The largest program (in characters) sent to the sandbox (16 MiB, the bound of what a sample
may send back): a longer one is the oracle's `too_large` verdict without running, a failure
counted like any other."""
MAX_DEPTH = 100
"""The deepest syntax tree (Module = 1) a sample may have to be normalized, measured by tree
distance or repaired."""


AST_LOCK = threading.RLock()
"""Held while Python builds a syntax tree (module docstring: one conversion at a time)."""


@overload
def parse_ast(
    source: str, filename: str = "<unknown>", mode: Literal["exec"] = "exec"
) -> ast.Module: ...
@overload
def parse_ast(
    source: str, filename: str = "<unknown>", *, mode: Literal["eval"]
) -> ast.Expression: ...
def parse_ast(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """`ast.parse(source, filename, mode)`, one thread at a time (module docstring)."""
    with AST_LOCK:
        return ast.parse(source, filename=filename, mode=mode)


def literal_eval(text: str) -> Any:
    """`ast.literal_eval(text)`, its parse one thread at a time (module docstring)."""
    return ast.literal_eval(parse_ast(text.lstrip(" \t"), mode="eval"))


class TooDeep(SyntaxError):
    """A program whose syntax tree is nested deeper than the bound."""


class TooLarge(SyntaxError):
    """A program longer than the app's process parses (`MAX_PROGRAM_CHARS`)."""


def too_large(code: str, limit: int = MAX_PROGRAM_CHARS) -> str | None:
    """Why the app's process does not parse `code` (it is longer than `limit`), or None."""
    if len(code) <= limit:
        return None
    return f"the program has {len(code):,} characters (skyt-tui parses at most {limit:,})"


def depth(tree: ast.AST, limit: int | None = None) -> int:
    """The number of nodes on the longest path from `tree` down to a leaf, without recursion.

    With `limit`, the walk stops as soon as a path is longer and returns that length.
    One level at a time, reading each node's fields directly: this runs on every program the
    product parses (repair parses each candidate), and `ast.iter_child_nodes` per node cost
    several times as much.
    """
    level: list[ast.AST] = [tree]
    found = 0
    node_type = ast.AST
    while level:
        found += 1
        if limit is not None and found > limit:
            return found
        below: list[ast.AST] = []
        for node in level:
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, list):
                    below.extend(item for item in value if isinstance(item, node_type))
                elif isinstance(value, node_type):
                    below.append(value)
        level = below
    return found


NOT_PARSED = "judged and counted; not normalized, never canon, not repaired"
"""What the analysis does with a program it does not parse (`too_large`)."""


def not_parsed_line(run_id: str, index: object, reason: object) -> str:
    """The one line that says a sample of a run is not parsed, and what that means for it."""
    return f"run {run_id}: sample {index}: {reason}: {NOT_PARSED}"


def parse(
    code: str,
    *,
    max_depth: int | None = MAX_DEPTH,
    max_chars: int | None = MAX_PROGRAM_CHARS,
    filename: str = "<sample>",
) -> ast.Module:
    """`ast.parse(code)`, bounded: any failure is a `SyntaxError`, a tree deeper than `max_depth`
    a `TooDeep` one, a program longer than `max_chars` a `TooLarge` one, unparsed (None: no
    bound; a contract's own code)."""
    if max_chars is not None:
        reason = too_large(code, max_chars)
        if reason is not None:
            raise TooLarge(reason)
    try:
        tree = parse_ast(code, filename=filename)
    except SyntaxError:
        raise
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        reason = (
            "nested too deeply for Python's parser"
            if isinstance(exc, RecursionError | MemoryError)
            else str(exc) or type(exc).__name__
        )
        raise SyntaxError(reason) from None
    if max_depth is not None and (code, max_depth) not in _shallow:
        if depth(tree, max_depth) > max_depth:
            raise TooDeep(f"the syntax tree is nested deeper than {max_depth} levels")
        if len(code) <= SHALLOW_MEMO_CHARS:
            if len(_shallow) >= SHALLOW_MEMO:
                _shallow.clear()
            _shallow.add((code, max_depth))
    return tree


SHALLOW_MEMO = 4096
SHALLOW_MEMO_CHARS = 4096
"""Texts up to this long are remembered (at most 16 MiB in all)."""
_shallow: set[tuple[str, int]] = set()
"""Texts already parsed within a depth bound: the same text parses to the same tree, so its
depth is measured once (repair parses each program once per candidate it derives from it)."""


class _Delimit:
    """`_Unparser.delimit` without a generator: `start` on entering, `end` on leaving normally."""

    __slots__ = ("end", "start", "unparser")

    def __init__(self, unparser: Any, start: str, end: str) -> None:
        self.unparser, self.start, self.end = unparser, start, end

    def __enter__(self) -> None:
        self.unparser.write(self.start)

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            self.unparser.write(self.end)


class _Block:
    """`_Unparser.block` without a generator: ':' (and `extra`) and one level in, one out."""

    __slots__ = ("extra", "unparser")

    def __init__(self, unparser: Any, extra: str | None) -> None:
        self.unparser, self.extra = unparser, extra

    def __enter__(self) -> None:
        unparser = self.unparser
        unparser.write(":")
        if self.extra:
            unparser.write(self.extra)
        unparser._indent += 1

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            self.unparser._indent -= 1


_NO_DELIMITER = contextlib.nullcontext()

_StdUnparser: Any = getattr(ast, "_Unparser", object)
"""The standard library's writer behind `ast.unparse` (a private class: see `_FAST_UNPARSE`)."""


class _Unparser(_StdUnparser):  # type: ignore[misc]
    """`ast.unparse`'s own writer, every method the same but the plumbing: the visitor of
    a node class looked up once, and plain objects for its context managers (`delimit`,
    `block`) instead of generators. Same text, in about two thirds of the time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._visitors: dict[type, Any] = {}

    def traverse(self, node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                self.traverse(item)
            return
        visitor: Any = self._visitors.get(node.__class__)
        if visitor is None:
            visitor = self._visitors[node.__class__] = getattr(
                self, "visit_" + node.__class__.__name__, self.generic_visit
            )
        visitor(node)

    def delimit(self, start: str, end: str) -> _Delimit:
        return _Delimit(self, start, end)

    def delimit_if(self, start: str, end: str, condition: bool) -> Any:
        return _Delimit(self, start, end) if condition else _NO_DELIMITER

    def block(self, *, extra: str | None = None) -> _Block:
        return _Block(self, extra)


def unparse(tree: ast.AST) -> str:
    """`ast.unparse(tree)`, the same text (tests/test_repair_fast_paths.py compares them), faster."""
    if _FAST_UNPARSE:
        return str(_Unparser().visit(tree))
    return ast.unparse(tree)


_FAST_UNPARSE = all(
    name in vars(_StdUnparser) for name in ("traverse", "delimit", "delimit_if", "block", "visit")
)
"""The standard writer has the methods the faster one replaces (Python 3.9 to 3.13 do)."""
