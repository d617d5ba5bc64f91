"""What several transformers derive from one tree before rewriting it, computed once (docs/repair.md).

Each round of the search runs every transformer's counting pass on one parse of the current
program, and each candidate rewrite of it parses it afresh. Many transformers' `prepare`
derive the same things from that tree: its nodes (`walk`), the name-based facts, the bound
names, the truth-tested expressions, the scopes, each node's parent. `Analysis` computes each
at most once per tree, for all the transformers that read it.

What depends only on the program's text (the facts, the bound names, and which expressions are
truth-tested, kept as places in `walk` order) is also memoized per text, bounded, so the
fresh parse of a program already analysed needs one walk, not the analyses again.

An `Analysis` describes its tree as parsed: transformers read it before they rewrite anything
(in `prepare`, or in `run` before the first change), never after.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass

from skyt_tui.engine.repair.base import truth_tested_of, walk
from skyt_tui.engine.repair.facts import Facts
from skyt_tui.engine.repair.scopes import Resolution, bound_names_of, resolve

MEMO_ENTRIES = 2048
MEMO_CHARS = 8192
"""Program texts up to this long are memoized, at most `MEMO_ENTRIES` of them (16 MiB of text)."""


@dataclass
class _TextFacts:
    """What the text alone decides; filled in as transformers ask (each field a pure function)."""

    facts: Facts | None = None
    bound: frozenset[str] | None = None
    truth_tested: tuple[int, ...] | None = None
    """Places in `walk` order of the expressions `truth_tested` finds."""


_memo: dict[str, _TextFacts] = {}
_memo_lock = threading.Lock()


def _text_facts(text: str | None) -> _TextFacts:
    if text is None or len(text) > MEMO_CHARS:
        return _TextFacts()
    with _memo_lock:
        found = _memo.get(text)
        if found is None:
            if len(_memo) >= MEMO_ENTRIES:
                _memo.clear()
            found = _memo[text] = _TextFacts()
        return found


class Analysis:
    """The analyses of one tree (`text`: the program it was parsed from, when known)."""

    def __init__(self, tree: ast.Module, text: str | None = None) -> None:
        self.tree = tree
        self.text = text
        self._text = _text_facts(text)
        self._nodes: list[ast.AST] | None = None
        self._truth_tested: set[int] | None = None
        self._resolution: Resolution | None = None
        self._parents: dict[int, ast.AST] | None = None
        self._classes: frozenset[type] | None = None

    def nodes(self) -> list[ast.AST]:
        """`walk(tree)`; read-only."""
        if self._nodes is None:
            self._nodes = walk(self.tree)
        return self._nodes

    def node_classes(self) -> frozenset[type]:
        """The classes of the tree's nodes."""
        if self._classes is None:
            self._classes = frozenset(node.__class__ for node in self.nodes())
        return self._classes

    def facts(self) -> Facts:
        """`Facts.of(tree)`."""
        text = self._text
        if text.facts is None:
            text.facts = Facts.of_nodes(self.nodes())
        return text.facts

    def bound_names(self) -> frozenset[str]:
        """`scopes.bound_names(tree)`."""
        text = self._text
        if text.bound is None:
            text.bound = frozenset(bound_names_of(self.nodes()))
        return text.bound

    def truth_tested(self) -> set[int]:
        """`base.truth_tested(tree)`: ids of this tree's nodes; read-only."""
        if self._truth_tested is None:
            nodes = self.nodes()
            places = self._text.truth_tested
            if places is None:
                found = truth_tested_of(nodes)
                places = tuple(i for i, node in enumerate(nodes) if id(node) in found)
                self._text.truth_tested = places
            self._truth_tested = {id(nodes[i]) for i in places}
        return self._truth_tested

    def resolution(self) -> Resolution:
        """`scopes.resolve(tree)`; read-only."""
        if self._resolution is None:
            self._resolution = resolve(self.tree)
        return self._resolution

    def parents(self) -> dict[int, ast.AST]:
        """id of each node → its parent; read-only."""
        if self._parents is None:
            self._parents = {
                id(child): parent
                for parent in self.nodes()
                for child in ast.iter_child_nodes(parent)
            }
        return self._parents
