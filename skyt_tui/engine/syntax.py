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
"""

from __future__ import annotations

import ast

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
    """
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, level = stack.pop()
        if level > deepest:
            deepest = level
            if limit is not None and deepest > limit:
                return deepest
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


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
        tree = ast.parse(code, filename=filename)
    except SyntaxError:
        raise
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        reason = (
            "nested too deeply for Python's parser"
            if isinstance(exc, RecursionError | MemoryError)
            else str(exc) or type(exc).__name__
        )
        raise SyntaxError(reason) from None
    if max_depth is not None and depth(tree, max_depth) > max_depth:
        raise TooDeep(f"the syntax tree is nested deeper than {max_depth} levels")
    return tree
