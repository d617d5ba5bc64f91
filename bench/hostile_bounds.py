"""Each defence of issue 26 measured at its bound: the largest, deepest or most repetitive input
the bound lets through (or the smallest it refuses), the time it takes, and the load average.

    python3 bench/hostile_bounds.py [--repeat 3] [--json]

No sandbox is started: these are the parent's own parsers, walks and measures, the store's
refusals (a planted link, a file over the size bound, an id that is a path), the escaping of
text from files (CLI and the app's line filter) and the names' full matches. A refusal's
figure is the time to refuse, and the row says what was checked (the link's target unchanged). The oracle's side (a forged frame or a deep program
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
from functools import partial
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
from skyt_tui.engine.studies.study import STUDY_NAME, ids_from_file  # noqa: E402


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


def planted_lock(tmp: Path) -> Callable[[], object]:
    """A store whose `.lock` is a link to a file outside it: taking the lock is refused and the
    file keeps its bytes (checked on every run)."""
    os.environ["SKYT_HOME"] = str(tmp / "home")
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    outside = tmp / "precious.txt"
    outside.write_text("precious\n")
    lock = home / ".lock"
    if not lock.is_symlink():
        lock.symlink_to(outside)

    def run() -> object:
        try:
            with store.store_lock(timeout_s=0):
                pass
        except SkytError:
            assert outside.read_text() == "precious\n", "written through the link"
            return True
        raise AssertionError("not refused")

    return run


def store_write(tmp: Path) -> Callable[[], object]:
    """One 1 MiB file written the store's way (folders opened from the store's root without
    following links, the file with O_NOFOLLOW, then renamed into place)."""
    target = tmp / "home" / "runs" / "r" / "samples.json"
    data = b"x" * (1 << 20)

    def run() -> object:
        store.atomic_write_bytes(target, data)
        return None

    return run


def over_read_bound(tmp: Path) -> Path:
    """A sparse file one byte over the reader's size bound (nothing is written to disk)."""
    path = tmp / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(store.MAX_READ_BYTES + 1)
    return path


def escape_rows() -> tuple[str, str]:
    """A 1 MiB name of terminal escapes (OSC 52, CSI, C1, bidi) and one screen line of them."""
    escapes = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b6n\u202e"
    return (escapes * ((1 << 20) // len(escapes)), escapes * (200 // len(escapes)))


TRAVERSALS = ("../../etc/passwd", "..", "a/../../b", "/etc/passwd", "a\n", "a\x00b")


def paths_refused() -> object:
    from skyt_tui.engine.analysis.canon import canon_path
    from skyt_tui.engine.runs.run_store import run_path

    for text in TRAVERSALS:
        for make in (canon_path, run_path):
            refused(partial(make, text))()
    return True


def newline_refused() -> object:
    from skyt_tui.engine.contracts.contract import is_contract_id

    if is_contract_id("slugify\n") or STUDY_NAME.fullmatch("name\n") is not None:
        raise AssertionError("a name ending in a newline was accepted")
    return True


def cases(tmp: Path) -> list[tuple[str, str, Callable[[], object]]]:
    """(class, what is measured, the work)."""
    from rich.segment import Segment
    from textual.color import Color

    from skyt_tui.engine.printable import printable
    from skyt_tui.ui.inert import Inert

    huge_name, screen_line = escape_rows()
    line_filter = Inert()
    huge_file = over_read_bound(tmp)
    wide_field = tmp / "ids.csv"
    wide_field.write_text("run_id\n" + "r" * 200_000 + "\n")
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
        ("5", "store lock through a planted link, refused (target unchanged)", planted_lock(tmp)),
        ("5", "one 1 MiB store write, no link followed", store_write(tmp)),
        (
            "5",
            f"a file one byte over {store.MAX_READ_BYTES >> 20} MiB, refused unread",
            refused(lambda: store.read_json_file(huge_file)),
        ),
        ("6", "printable() of a 1 MiB name of terminal escapes", lambda: printable(huge_name)),
        (
            "6",
            "the app's line filter on a 200-cell line of escapes",
            lambda: line_filter.apply([Segment(screen_line)], Color(0, 0, 0)),
        ),
        ("7", f"{len(TRAVERSALS)} ids that are paths, refused (canon, run)", paths_refused),
        (
            "8",
            "a 200,000-character field in --ids-from, refused",
            refused(lambda: ids_from_file(wide_field)),
        ),
        ("9", "names ending in a newline, refused (contract id, study name)", newline_refused),
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
