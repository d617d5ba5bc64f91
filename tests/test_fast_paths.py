"""The fast paths change nothing: each gives exactly what the plain computation gives."""

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.measure.normalize import LEVELS, normalize, normalize_text
from skyt_tui.engine.repair import TRANSFORMERS, Context, Decline, RewriteCache, repair
from skyt_tui.engine.repair.base import locate_statements, walk
from skyt_tui.engine.repair.facts import Facts
from skyt_tui.engine.repair.parallel import (
    RepairTask,
    RepairWorkerError,
    repair_in_processes,
    work_units,
)

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
    shared = [
        repair(s, c, kept_names=KEPT, verify=verify, rewrites=cache)
        for s in SAMPLES
        for c in CANONS
    ]
    again = [
        repair(s, c, kept_names=KEPT, verify=verify, rewrites=cache)
        for s in SAMPLES
        for c in CANONS
    ]
    assert shared == alone == again
    assert any(result.steps for result in alone)
    assert cache.hits > 0


def test_a_full_cache_is_emptied_and_results_stay_the_same():
    cache = RewriteCache(max_entries=3)
    results = [
        repair(s, c, kept_names=KEPT, verify=accept_all, rewrites=cache)
        for s in SAMPLES
        for c in CANONS
    ]
    assert results == [
        repair(s, c, kept_names=KEPT, verify=accept_all) for s in SAMPLES for c in CANONS
    ]
    assert len(cache._rewrites) <= 3


class _Untouchable:
    """A canon no transformer that claims not to read it may touch."""

    def __getattr__(self, name):
        raise AssertionError(f"read context.canon.{name}")


@pytest.mark.parametrize(
    "name", sorted(name for name, cls in TRANSFORMERS.items() if not cls.reads_canon)
)
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


NORMALIZE_CASES = [
    "def f(x):\n    '''Doc.'''\n    return x  # comment\n",
    "class A:\n    '''Doc.'''\n\n    def m(self):\n        '''More.'''\n        pass\n",
    "'''Module doc.'''\nimport os\nx = 1\n",
    "def f(:\n    return 1\n",
    "x = 'not a docstring'\n",
    "",
    "def f(a, b):\n    c = a + b\n    return c\n",
    "if x:\n    def g():\n        'doc'\n        return 1\n",
    "try:\n    pass\nexcept E:\n    class C:\n        'doc'\nfinally:\n    pass\n",
    "match v:\n    case 1:\n        def h():\n            'doc'\n",
    "for i in x:\n    pass\nelse:\n    async def k():\n        'doc'\n",
]


@pytest.mark.parametrize("code", NORMALIZE_CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_normalize_text_is_one_level_of_normalize(code, level):
    full = normalize(code, KEPT)
    assert normalize_text(code, level, KEPT) == (full.texts[level], full.parse_error)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdef():=+'\"\n #", max_size=60), st.sampled_from(LEVELS))
def test_normalize_text_matches_normalize_on_arbitrary_text(code, level):
    full = normalize(code)
    assert normalize_text(code, level) == (full.texts[level], full.parse_error)


def test_facts_gathered_in_one_walk():
    tree = ast.parse(
        "def f(items, text):\n"
        "    seen = []\n"
        "    table = {}\n"
        "    table = dict(a=1)\n"
        "    mixed = {}\n"
        "    mixed = None\n"
        "    count = len(items)\n"
        "    name = 'x'\n"
        "    pair = (1, 2)\n"
        "    out.append(1)\n"
        "    if count > 2 or n < 0.5:\n"
        "        total = count % width\n"
        "    return seen, table, mixed, name, pair, total\n"
    )
    facts = Facts.of(tree)
    assert facts.lists == {"seen", "out"}
    assert facts.sequences == {"seen", "out", "table", "name", "pair", "items"}
    assert facts.dicts == {"table"}
    assert facts.numbers == {"count", "n", "width", "total"}
    assert "mixed" not in facts.sequences  # a None assignment contradicts the dict display


def _tasks():
    return [
        RepairTask(code=s, canon_code=c, kept_names=KEPT, group="mean_of")
        for s in SAMPLES
        for c in CANONS
    ] * 3


def test_repair_in_processes_gives_what_repair_gives_in_this_process():
    tasks = _tasks()
    asked = []

    def verify(index, programs):
        asked.append(index)
        return reject_rename(programs)

    results = repair_in_processes(tasks, verify, workers=2)
    assert results == [task.run(reject_rename, None) for task in tasks]
    assert asked  # the verdicts came from the parent


def test_progress_counts_every_task_from_the_calling_thread():
    import threading

    seen = []
    repair_in_processes(
        _tasks(),
        lambda index, programs: accept_all(programs),
        workers=2,
        progress=lambda done: seen.append(
            (done, threading.current_thread() is threading.main_thread())
        ),
    )
    assert seen == [(done, True) for done in range(1, len(_tasks()) + 1)]


def test_a_failing_task_raises_with_the_worker_traceback():
    bad = RepairTask(code=SAMPLES[0], canon_code=CANONS[0], kept_names=KEPT, level="no-such-level")
    with pytest.raises(RepairWorkerError, match="unknown level"):
        repair_in_processes(
            [*_tasks()[:2], bad], lambda index, programs: accept_all(programs), workers=2
        )


def test_a_failing_verifier_stops_the_workers_and_raises():
    def verify(index, programs):
        raise RuntimeError("oracle gone")

    with pytest.raises(RuntimeError, match="oracle gone"):
        repair_in_processes(_tasks(), verify, workers=2)


@pytest.mark.corpus
def test_analysis_is_the_same_with_repair_in_worker_processes_or_in_this_one(monkeypatch):
    from skyt_tui.engine.analysis import pipeline as analysis
    from skyt_tui.engine.analysis import repairs
    from skyt_tui.engine.sources.recorded import load_sources
    from tests.corpus import require

    files = sorted(require("skyt-msr2026", "outputs").glob("balanced_brackets_temp0.7_*.json"))[:3]
    runs = load_sources(files)
    monkeypatch.setattr(repairs, "PROCESS_REPAIR_MIN_TASKS", 1)
    in_processes = analysis.analyze_runs(runs, repair_workers=2)
    here = analysis.analyze_runs(runs, repair_workers=1)
    assert [a.to_dict() for a in in_processes] == [a.to_dict() for a in here]
    assert any(d.repair is not None and d.repair.steps for a in here for d in a.details)


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_a_counting_pass_leaves_the_tree_as_it_was(name):
    """A round's counting passes share one parse of the current code."""
    for sample in [*SAMPLES, *CANONS]:
        tree = ast.parse(sample)
        before = ast.dump(tree, include_attributes=True)
        TRANSFORMERS[name](Context(canon=ast.parse(CANONS[0]), kept_names=KEPT), None).run(tree)
        assert ast.dump(tree, include_attributes=True) == before


def test_work_units_hand_out_whole_groups_largest_first_and_cut_only_oversized_ones():
    tasks = [
        RepairTask(code="", canon_code="", kept_names=KEPT, group=group) for group in "aabbbbbbbc"
    ]
    assert work_units(tasks, 2) == [[2, 3, 4, 5, 6], [0, 1], [7, 8], [9]]
    assert work_units(tasks, 1) == [[2, 3, 4, 5, 6, 7, 8], [0, 1], [9]]


def test_locate_statements_gives_new_statements_a_line_so_unparse_works():
    tree = ast.parse("def f(x):\n    if x:\n        return 1\n    return 2\n")
    function = tree.body[0]
    function.body[0].body.append(
        ast.Assign(targets=[ast.Name("y", ast.Store())], value=ast.Constant(3))
    )
    function.body.insert(
        0,
        ast.For(
            target=ast.Name("i", ast.Store()),
            iter=ast.Name("x", ast.Load()),
            body=[ast.Pass()],
            orelse=[],
        ),
    )
    locate_statements(tree)
    assert function.body[0].lineno == 1 and function.body[0].body[0].lineno == 1
    assert function.body[1].body[-1].lineno == 2
    assert ast.unparse(tree) == ast.unparse(ast.fix_missing_locations(tree))


@pytest.mark.parametrize(
    "code", [*SAMPLES, *CANONS, "x = [i for i in range(3) if i]\nlambda a, *b, c=1: (a, b, c)\n"]
)
def test_walk_lists_what_ast_walk_yields_in_the_same_order(code):
    tree = ast.parse(code)
    assert walk(tree) == list(ast.walk(tree))


def test_a_worker_sends_the_requests_of_several_searches_in_one_call():
    import time

    sizes = []

    def verify_many(requests):
        if not sizes:
            time.sleep(0.3)  # the first request is out: the other searches file theirs meanwhile
        sizes.append(len(requests))
        return [accept_all(programs) for _, programs in requests]

    tasks = _tasks()
    results = repair_in_processes(
        tasks, lambda index, programs: accept_all(programs), workers=1, verify_many=verify_many
    )
    assert results == [task.run(accept_all, None) for task in tasks]
    assert max(sizes) > 1
