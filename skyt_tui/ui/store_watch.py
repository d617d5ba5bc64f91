"""What the app watches of the store to stay true while it changes (its own runs, the CLI, another
app): whether it holds anything, and cheap fingerprints of the runs' files and the canons."""

from __future__ import annotations

from dataclasses import dataclass

from skyt_tui import locations
from skyt_tui.engine.runs import run_store


def store_has_runs() -> bool:
    """True when any `runs/<run-id>/run.json` exists, whether or not it can be read."""
    return bool(run_store.run_ids())


def store_is_empty() -> bool:
    """No runs and no benchmarks: the app opens on the welcome page."""
    if store_has_runs():
        return False
    directory = locations.benchmarks_dir()
    if not directory.is_dir() or not any(directory.iterdir()):
        return True
    from skyt_tui.engine import benchmark

    return not benchmark.list_benchmarks()


def store_signature() -> tuple[tuple[str, int, int], ...]:
    """A cheap fingerprint of the stored runs and canons (names, sizes, mtimes): changed means reload."""
    entries = []
    for directory, patterns in (
        (locations.runs_dir(), ("*/run.json", "*/samples.jsonl")),
        (locations.canon_dir(), ("*",)),
    ):
        if not directory.is_dir():
            continue
        for pattern in patterns:
            for path in directory.glob(pattern):
                try:
                    stat = path.stat()
                except OSError:
                    continue
                entries.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


@dataclass(frozen=True)
class StoreSnapshot:
    """What the app watches to stay true while the store changes (its own runs, the CLI, another app):
    each run's files and the canons, as names, sizes and mtimes (a few stat calls per run)."""

    runs: dict[str, tuple[tuple[int, int], ...]]
    canons: tuple[tuple[str, int, int], ...]

    def changed_runs(self, before: StoreSnapshot | None) -> set[str]:
        """Runs added, removed or written since `before` (every run when the canons changed)."""
        if before is None or before.canons != self.canons:
            return set(self.runs) | set(before.runs if before else ())
        return {
            run_id
            for run_id in set(self.runs) | set(before.runs)
            if self.runs.get(run_id) != before.runs.get(run_id)
        }


RUN_WATCHED_FILES = ("run.json", "samples.jsonl")


def _run_files(run_id: str) -> tuple[tuple[int, int], ...]:
    stats = []
    for name in RUN_WATCHED_FILES:
        try:
            stat = (locations.run_dir(run_id) / name).stat()
        except OSError:
            stats.append((-1, 0))
        else:
            stats.append((stat.st_size, stat.st_mtime_ns))
    return tuple(stats)


def _canon_files() -> tuple[tuple[str, int, int], ...]:
    canons = []
    directory = locations.canon_dir()
    if directory.is_dir():
        for path in directory.iterdir():
            try:
                stat = path.stat()
            except OSError:
                continue
            canons.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(canons))


def store_snapshot() -> StoreSnapshot:
    return StoreSnapshot(
        {run_id: _run_files(run_id) for run_id in run_store.run_ids()}, _canon_files()
    )


def run_snapshot(run_id: str) -> tuple[object, ...]:
    """What an open run's view depends on: its files and the canons."""
    return (_run_files(run_id), _canon_files())
