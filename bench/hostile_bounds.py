"""Each defence of issue 26 measured at its bound: the largest, deepest or most repetitive input
the bound lets through (or the smallest it refuses), the time it takes, and the load average.

    python3 bench/hostile_bounds.py [--repeat 3] [--json]

No sandbox is started: these are the parent's own parsers, walks and measures, and the
store's and the command line's refusals. The oracle's side (a forged frame or a deep program
among real samples, in both isolation modes) is in tests/test_hostile.py; the checker's cost
per job is `bench/oracle_throughput.py --compare-with OLD_TREE`. Figures are medians of
`--repeat` runs, each in this process.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skyt_tui.engine import store, syntax  # noqa: E402
from skyt_tui.engine.contracts.contract import Entry  # noqa: E402
from skyt_tui.engine.errors import SkytError  # noqa: E402
from skyt_tui.engine.measure.distance import distance  # noqa: E402
from skyt_tui.engine.measure.literature import longest_common_block  # noqa: E402
from skyt_tui.engine.measure.normalize import _normalize_cached, normalize  # noqa: E402
from skyt_tui.engine.measure.tree_distance import MAX_TREE_NODES, tree_distance, tree_of  # noqa: E402
from skyt_tui.engine.oracle.constraints import is_recursive  # noqa: E402
from skyt_tui.engine.sandbox import wire  # noqa: E402
from skyt_tui.engine.sources import extract  # noqa: E402


def timed(work: Callable[[], object], repeat: int) -> float:
    """Median seconds of `work` over `repeat` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def refused(work: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        try:
            work()
        except (SkytError, SyntaxError):
            return True
        raise AssertionError("not refused")

    return run


def fresh(function: Callable[..., object], *texts: str) -> Callable[[], object]:
    """`function(*texts)` with the measure caches emptied first (normalization and trees are
    cached by text: a repeat would measure the cache)."""

    def run() -> object:
        _normalize_cached.cache_clear()
        tree_of.cache_clear()
        return function(*texts)

    return run


def _chain(links: int) -> str:
    """`links` functions each calling the next, the last returning."""
    return "".join(f"def f{k}(n):\n    return f{k + 1}(n)\n" for k in range(links)) + (
        f"def f{links}(n):\n    return n\n"
    )


def helpers(count: int, tag: str) -> str:
    return "".join(f"def {tag}{i}(x):\n    y = x + {i}\n    return y * 2\n" for i in range(count))


def cases(tmp: Path) -> list[tuple[str, str, Callable[[], object]]]:
    """(class, what is measured, the work)."""
    frame = b'"' + b'\\",' * ((wire.PRECISE_COUNT_BYTES - 1) // 3)
    deep_json = "[" * 100_000 + "]" * 100_000
    (tmp / "deep.json").write_text(deep_json)
    deep_toml = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    (tmp / "deep.toml").write_text(deep_toml)
    elif_chain = "def f(x):\n    if x == 0:\n        return 0\n" + "".join(
        f"    elif x == {i}:\n        return {i}\n" for i in range(1, 1200)
    )
    at_depth = "def f(x):\n    return " + " + ".join(["x"] * (syntax.MAX_DEPTH - 4)) + "\n"
    links = 1
    while len(_chain(links + 100)) <= syntax.MAX_PROGRAM_CHARS:
        links += 100
    chain_tree = ast.parse(_chain(links))
    at_size = (helpers(10_000, "a") + "#")[: syntax.MAX_PROGRAM_CHARS]
    other_at_size = (helpers(10_000, "b") + "#")[: syntax.MAX_PROGRAM_CHARS]
    functions = 1
    while (
        tree := tree_of(helpers(functions + 1, "a"))
    ) is not None and tree.size <= MAX_TREE_NODES:
        functions += 1  # as many as the bound measures
    tree_a, tree_b = helpers(functions, "a"), helpers(functions, "b")
    assert tree_of(tree_a) is not None and tree_of(tree_b) is not None
    tokens_a, tokens_b = ["x"] * 25_000, ["x", "y"] * 12_500
    fence = "```" + " " * 1_000_000 + "`"
    return [
        (
            "1",
            "value count of a forged 1 MiB frame (escaped quotes)",
            lambda: wire.count_values(frame, 10),
        ),
        ("1", "fence line of 1,000,000 spaces in an answer", lambda: extract.extract_code(fence)),
        (
            "2",
            "normalize a 1,200-level elif chain (parse error)",
            fresh(normalize, elif_chain),
        ),
        (
            "2",
            f"normalize a program {syntax.MAX_DEPTH} levels deep",
            fresh(normalize, at_depth),
        ),
        (
            "2",
            f"recursion rule over a {links:,}-function call chain ({syntax.MAX_PROGRAM_CHARS:,} characters)",
            lambda: is_recursive(chain_tree, Entry("function", "f0")),
        ),
        (
            "4",
            f"Levenshtein of two {syntax.MAX_PROGRAM_CHARS:,}-character programs",
            lambda: distance(at_size, other_at_size),
        ),
        (
            "4",
            f"normalize a {syntax.MAX_PROGRAM_CHARS:,}-character program",
            fresh(normalize, at_size),
        ),
        (
            "4",
            f"tree distance of two {tree_of(tree_a).size:,}-node trees (bound {MAX_TREE_NODES:,})",  # type: ignore[union-attr]
            fresh(tree_distance, tree_a, tree_b),
        ),
        (
            "4",
            "token LCS of 25,000 repetitive tokens",
            lambda: longest_common_block(tokens_a, tokens_b),
        ),
        (
            "8",
            "JSON nested 100,000 deep, refused",
            refused(lambda: store.read_json_file(tmp / "deep.json")),
        ),
        (
            "8",
            "TOML nested 3,000 deep, refused",
            refused(lambda: store.parse_toml(deep_toml, "deep.toml")),
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for kind, what, work in cases(Path(folder)):
            seconds = timed(work, args.repeat)
            rows.append(
                {
                    "class": kind,
                    "what": what,
                    "ms": round(seconds * 1000, 1),
                    "load": os.getloadavg()[0],
                }
            )
            if not args.json:
                print(
                    f"26.{kind}  {seconds * 1000:10.1f} ms  {what}  (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
