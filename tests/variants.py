"""Hypothesis-generated variants of a canon, for the repair property tests.

A variant is the canon after a few transformer rewrites at drawn sites, then
with some locals renamed to fresh names without changing which name refers to
what: the kind of drift real samples show, made from programs whose behaviour
is known.
"""

from __future__ import annotations

import ast
import copy

from hypothesis import assume
from hypothesis import strategies as st

from skyt_tui.engine.repair import TRANSFORMERS, Context
from skyt_tui.engine.repair.scopes import resolve, same_binding_structure

FRESH = ["tmp", "value", "acc", "idx", "item", "x", "y", "k", "res", "cur"]


def draw_variant(draw, canon: str, kept: frozenset[str], max_rewrites: int) -> str:
    """Inside an `st.composite`: up to `max_rewrites` rewrites of `canon`, then drawn renames of its locals."""
    tree = ast.parse(canon)
    context = Context(canon=ast.parse(canon), kept_names=kept)
    for _ in range(draw(st.integers(1, max_rewrites))):
        applicable = []
        for name in sorted(TRANSFORMERS):
            counter = TRANSFORMERS[name](context, None)
            counter.run(copy.deepcopy(tree))
            if counter.options:
                applicable.append((name, counter.options))
        if not applicable:
            break
        name, options = draw(st.sampled_from(applicable))
        selection = {
            site: draw(st.integers(0, count - 1))
            for site, count in enumerate(options)
            if draw(st.booleans())
        }
        try:
            tree = ast.parse(
                ast.unparse(TRANSFORMERS[name](context, selection).run(copy.deepcopy(tree)))
            )
        except Exception:
            continue
    resolution = resolve(tree)
    for scope, old in [
        b for b in resolution.bindings() if b[1] not in kept and b[0].kind != "class"
    ]:
        if draw(st.booleans()):
            new = draw(st.sampled_from(FRESH))
            for occurrence in resolution.occurrences_of(scope, old):
                occurrence.set(new)
    assume(same_binding_structure(resolution, resolve(tree)))
    return ast.unparse(tree)
