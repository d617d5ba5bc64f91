"""The repair search's fast paths change nothing (issue 34): each rewrite, each analysis and each
text is exactly what the plain computation gives — a fresh parse per rewrite, every node
visited, each transformer deriving its own analyses, `ast.unparse`."""

import ast
import sys
from pathlib import Path

import pytest

from skyt_tui.engine import syntax
from skyt_tui.engine.measure import scoping
from skyt_tui.engine.repair import TRANSFORMERS, Context, Decline, base, pipeline
from skyt_tui.engine.repair.base import copy_tree, truth_tested, walk
from skyt_tui.engine.repair.facts import Facts
from skyt_tui.engine.repair.scopes import bound_names, resolve
from skyt_tui.engine.repair.shared import Analysis

CANON = """
import math
from collections import Counter

def helper(xs):
    return [x * 2 for x in xs if x]

def solve(values, target=0):
    '''Doc.'''
    counts = {"a": 1, "b": 2}
    seen = []
    lo, hi = 0, len(values) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if values[mid] == target:
            return mid
        elif values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    for i in range(0, len(values)):
        if not seen:
            seen.append(values[i])
    total = 0
    for k in counts.keys():
        total = total + counts[k]
    result = math.floor(total) if total != 0 else None
    return result
"""

PROGRAMS = [
    CANON,
    """
def solve(values, target=0):
    d = {"b": 2, "a": 1}
    s = []
    a = b = 0
    left = 0
    right = len(values) - 1
    while left <= right:
        m = left + (right - left) // 2
        if target == values[m]:
            return m
        if values[m] < target:
            left = m + 1
        else:
            right = m - 1
    i = 0
    while i < len(values):
        if len(s) == 0:
            s.append(values[i])
        i += 1
    t = 0
    for k in d:
        t += d[k]
    if t == 0:
        return None
    else:
        return t
""",
    """
import math

def solve(values: list, target: int = 0) -> int:
    def inner(x):
        nonlocal target
        return x is not None and not x == target
    out = [inner(v) for v in values]
    f = lambda z: (y := z + 1) > 0
    try:
        n = math.floor(sum(out))
    except ValueError as error:
        raise error
    finally:
        pass
    if n > 0:
        if n < 10:
            return True
    return False

if __name__ == "__main__":
    print(solve([1, 2, 3]))
""",
    """
class Box:
    size: int = 0
    def grow(self, by):
        self.size = self.size + by
        return self.size

async def main(items):
    async for item in items:
        match item:
            case {"k": v, **rest}:
                print(f"{v!r:>{3}}", rest)
            case [first, *others]:
                print(first, others)
            case _:
                pass
    return not items == []
""",
    """
def solve(values, target=0):
    def double(x):
        return x * 2
    table = {"b": 2, "a": 1}
    if values == None:
        return table["a"]
    if target < 0:
        return None
    if target > 99:
        return None
    if target:
        if values:
            return double(target)
    return [double(v) for v in values]
""",
]


def plain_apply(cls, code, context, selection):
    """The rewrite as the search made it before its fast paths: a fresh parse, every node
    visited, the transformer's own analyses, `ast.unparse`."""
    transformer = cls(context, selection)
    transformer._skip = frozenset()
    try:
        result = transformer.run(syntax.parse(code))
        text = ast.unparse(result) if selection is not None else None
    except (Decline, SyntaxError, RecursionError, ValueError, TypeError, AttributeError):
        return None, transformer.options
    return text, transformer.options


def plain_scope_walk(monkeypatch):
    monkeypatch.setattr(scoping.ScopeWalk, "visit", ast.NodeVisitor.visit)
    monkeypatch.setattr(scoping.ScopeWalk, "generic_visit", ast.NodeVisitor.generic_visit)


def rewrites(name, code, fast):
    """Every rewrite the search can ask of `name` on `code`: the count, all sites, each option of each site."""
    cls = TRANSFORMERS[name]
    context = Context(canon=syntax.parse(CANON), kept_names=frozenset({"solve"}))
    parsed = pipeline._Parsed(code)
    run = (
        (lambda s: pipeline._apply(cls, code, context, s, parsed))
        if fast
        else (lambda s: plain_apply(cls, code, context, s))
    )
    found = [run(None)]
    options = found[0][1]
    found.append(run({site: 0 for site in range(len(options))}))
    for site, count in enumerate(options):
        for option in range(count):
            found.append(run({site: option}))
            found.append(run({s: 0 for s in range(site)} | {site: option}))
    return [(code, list(options)) for code, options in found]


@pytest.mark.parametrize("name", list(TRANSFORMERS))
def test_every_rewrite_is_what_the_plain_search_made(name, monkeypatch):
    fast = [rewrites(name, code, fast=True) for code in PROGRAMS]
    fast_again = [rewrites(name, code, fast=True) for code in PROGRAMS]  # the text memos answer
    plain_scope_walk(monkeypatch)
    plain = [rewrites(name, code, fast=False) for code in PROGRAMS]
    assert fast == plain
    assert fast_again == plain
    assert any(options for found in plain for _, options in found)


def test_some_counting_passes_are_skipped_for_want_of_a_node_to_rewrite():
    tree = syntax.parse("x = 1\n")
    context = Context(canon=tree, kept_names=frozenset())
    assert base.precheck(TRANSFORMERS["dict_order"]) == frozenset({ast.Dict})
    assert base.precheck(TRANSFORMERS["return_temp"]) is None  # a block transformer: unknown
    assert pipeline._apply(TRANSFORMERS["dict_order"], "x = 1\n", context, None) == (None, [])


def test_the_skips_are_what_each_class_cannot_touch():
    world = base.EXPRESSION_WORLD
    assert base.skippable(TRANSFORMERS["return_temp"]) == world  # blocks only
    assert base.skippable(TRANSFORMERS["aug_assign"]) == world  # statements only
    compare = base.skippable(TRANSFORMERS["compare_order"])
    assert ast.Compare not in compare and ast.Name in compare and ast.Load in compare
    assert base.skippable(TRANSFORMERS["empty_check"]) == base.LEAVES  # its own visit
    assert base.skippable(TRANSFORMERS["type_hints"]) == frozenset()  # its visit keeps state

    class ByName(base.Transformer):
        name = "by_name"

        def visit_Name(self, node):
            return node

    class Deprecated(base.Transformer):
        name = "deprecated"

        def visit_Num(self, node):
            return node

    assert ast.Name not in base.skippable(ByName) and ast.Load in base.skippable(ByName)
    assert ast.Constant not in base.skippable(Deprecated)


def test_the_shared_analysis_is_what_each_transformer_derived_itself():
    for code in PROGRAMS:
        for text in (code, code, None):  # computed, then from the per-text memo, then without
            tree = syntax.parse(code)
            analysis = Analysis(tree, text)
            assert analysis.nodes() == walk(tree)
            assert analysis.facts() == Facts.of(tree)
            assert analysis.bound_names() == bound_names(tree)
            assert analysis.truth_tested() == truth_tested(tree)
            assert analysis.parents() == {
                id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)
            }
            assert [(o.field, o.name, o.index) for o in analysis.resolution().occurrences] == [
                (o.field, o.name, o.index) for o in resolve(tree).occurrences
            ]


def test_the_scope_walk_visits_what_the_plain_node_visitor_visits(monkeypatch):
    def occurrences(code):
        tree = syntax.parse(code)
        return [
            (o.field, o.name, o.index, o.owner.kind if o.owner else None, o.where.kind)
            for o in resolve(tree).occurrences
        ]

    fast = [occurrences(code) for code in PROGRAMS]
    plain_scope_walk(monkeypatch)
    assert fast == [occurrences(code) for code in PROGRAMS]


def test_a_copied_tree_is_the_parse_and_rewriting_it_leaves_the_parse_alone():
    for code in PROGRAMS:
        tree = syntax.parse(code)
        before = ast.dump(tree, include_attributes=True)
        copy = copy_tree(tree)
        assert ast.dump(copy, include_attributes=True) == before
        copies = {id(node) for node in walk(copy)}
        shared = [node for node in walk(tree) if id(node) in copies]
        assert all(not node._fields and not node._attributes for node in shared)
        for node in walk(copy):  # rewrite the copy everywhere
            if isinstance(node, ast.Name):
                node.id = "renamed"
            for name in ("body", "orelse"):
                if isinstance(getattr(node, name, None), list) and node._fields:
                    getattr(node, name).append(ast.Pass())
        assert ast.dump(tree, include_attributes=True) == before


def _standard_library_sources():
    root = Path(ast.__file__).parent
    return [root / name for name in ("ast.py", "difflib.py", "dataclasses.py", "typing.py")] + [
        root / "json" / "decoder.py",
        root / "asyncio" / "tasks.py",
    ]


@pytest.mark.parametrize("path", _standard_library_sources(), ids=lambda p: p.name)
def test_unparse_writes_what_ast_unparse_writes(path):
    tree = ast.parse(path.read_text())
    assert syntax.unparse(tree) == ast.unparse(tree)


@pytest.mark.parametrize("code", PROGRAMS + ['f"{a!r:>{w}} {b=}"', "del a[1:2, ::3], b.c"])
def test_unparse_writes_what_ast_unparse_writes_for_samples(code):
    tree = ast.parse(code)
    assert syntax.unparse(tree) == ast.unparse(tree)


def test_unparse_falls_back_to_the_standard_writer(monkeypatch):
    monkeypatch.setattr(syntax, "_FAST_UNPARSE", False)
    tree = ast.parse(CANON)
    assert syntax.unparse(tree) == ast.unparse(tree)
    assert sys.version_info >= (3, 11)
