"""The repair fast paths change nothing: shared rewrites give the results repair gives alone."""

import ast

import pytest

from skyt_tui.engine.repair import TRANSFORMERS, Context, Decline, RewriteCache, repair

CANONS = [
    """
def mean_of(values):
    if not values:
        return 0
    total = 0
    for value in values:
        total += value
    return total / len(values)
""",
    """
def mean_of(values):
    if len(values) == 0:
        return 0.0
    acc = 0
    for i in range(len(values)):
        acc = acc + values[i]
    result = acc / len(values)
    return result
""",
]

SAMPLES = [
    """
def mean_of(values: list) -> float:
    '''Mean.'''
    if len(values) == 0:
        return 0
    s = 0
    for v in values:
        s = s + v
    res = s / len(values)
    return res
""",
    """
import math
def mean_of(values):
    if values == []:
        return 0
    else:
        total = 0
        for x in values:
            total += x
        return total / len(values)
""",
]

KEPT = frozenset({"mean_of", "values"})


def accept_all(programs):
    return [True] * len(programs)


def reject_rename(programs):
    return ["v =" not in program for program in programs]


@pytest.mark.parametrize("verify", [accept_all, reject_rename])
def test_one_cache_shared_by_many_repairs_gives_the_same_results(verify):
    alone = [repair(s, c, kept_names=KEPT, verify=verify) for s in SAMPLES for c in CANONS]
    cache = RewriteCache()
    shared = [repair(s, c, kept_names=KEPT, verify=verify, rewrites=cache) for s in SAMPLES for c in CANONS]
    again = [repair(s, c, kept_names=KEPT, verify=verify, rewrites=cache) for s in SAMPLES for c in CANONS]
    assert shared == alone == again
    assert any(result.steps for result in alone)
    assert cache.hits > 0


def test_a_full_cache_is_emptied_and_results_stay_the_same():
    cache = RewriteCache(max_entries=3)
    results = [repair(s, c, kept_names=KEPT, verify=accept_all, rewrites=cache) for s in SAMPLES for c in CANONS]
    assert results == [repair(s, c, kept_names=KEPT, verify=accept_all) for s in SAMPLES for c in CANONS]
    assert len(cache._rewrites) <= 3


class _Untouchable:
    """A canon no transformer that claims not to read it may touch."""

    def __getattr__(self, name):
        raise AssertionError(f"read context.canon.{name}")


@pytest.mark.parametrize("name", sorted(name for name, cls in TRANSFORMERS.items() if not cls.reads_canon))
def test_transformers_that_do_not_declare_reads_canon_never_read_it(name):
    """The rewrite cache leaves the canon out of their key, so they must not depend on it."""
    cls = TRANSFORMERS[name]
    context = Context(canon=_Untouchable(), kept_names=KEPT)
    for sample in SAMPLES:
        counting = cls(context, None)
        counting.run(ast.parse(sample))
        selected = cls(context, {site: 0 for site in range(len(counting.options))})
        try:
            selected.run(ast.parse(sample))
        except Decline:
            pass
