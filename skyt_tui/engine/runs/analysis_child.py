"""Analyses of stored runs in a child process, streamed back as JSON lines.

The terminal app analyses stored runs in the background. Much of an analysis
is CPU-bound Python in the analysing process (normalization, distances,
metrics, the parent side of the oracle and of repair); in a thread of the app
it would hold the interpreter lock the app's event loop needs, and with
10,000 uncached samples a cursor move on the Runs screen took a quarter of a
second. Here the app reads the cached analyses itself (quick) and starts one
`python -m skyt_tui.engine.runs.analysis_child` for the rest; the app's
interpreter then only reads lines.

Protocol: the child gets `--level L --tau T [--executor ray [--ray-address A]] RUN_ID...`
(the executor of settings.toml, chosen by the app), analyses them in that order in
batches that grow (`CHUNKS`), so the first results come within seconds however many runs
there are, and writes one JSON object per line to stdout:

    {"event": "progress", "stage": "oracle", "done": 3, "total": 9}
    {"event": "result", "run": "RUN_ID", "analysis": {...}}
    {"event": "error", "message": "one line"}        (an engine error; exit 1)
    {"event": "done"}

It runs at a lower CPU priority (nice 10, inherited by its sandbox and repair
workers), and exits when its stdin reaches end of file, so it never outlives
the app; its workers die with it. Results are the same as
`runs.analyze_stored_runs` in-process: JSON round-trips floats exactly, and
the child writes the same analysis cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from typing import Any

from skyt_tui import locations
from skyt_tui.engine.errors import SkytError

POLL_S = 0.1
NICENESS = 10


class AnalysisCancelled(SkytError):
    """The caller cancelled the analysis; the child was stopped."""


def analyze_stored_runs_in_child(
    run_ids: Sequence[str],
    *,
    level: str,
    tau: float,
    on_result: Callable[[str, dict[str, Any]], None] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Analyses by run id: cached ones read here (each reported to `on_result` at once), the others
    computed by a child process and reported as they arrive. Raises SkytError with the child's one-line
    reason when it fails, AnalysisCancelled when `cancelled()` turns true (the child is killed).

    `executor` ("local" or "ray", at `ray_address`) is where the child runs the analysis."""
    from skyt_tui.engine.runs import analyses, run_store

    results: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for run_id in run_ids:
        try:  # the cache's key needs the run's metadata and files, not its parsed samples
            meta = run_store.load_meta(run_id)
        except SkytError:
            missing.append(run_id)  # the child says what is wrong with it
            continue
        run = run_store.StoredRun(meta=meta, samples=(), directory=run_store.run_path(run_id))
        cached = analyses.cached_analysis(run, level=level, tau=tau)
        if cached is None:
            missing.append(run_id)
            continue
        results[run_id] = cached
        if on_result is not None:
            on_result(run_id, cached)
    if not missing:
        return results

    def handle(event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "progress" and progress is not None:
            progress(event["stage"], event["done"], event["total"])
        elif kind == "result":
            results[event["run"]] = event["analysis"]
            if on_result is not None:
                on_result(event["run"], event["analysis"])
        elif kind == "error":
            raise SkytError(event["message"])

    where = ["--executor", executor] + (["--ray-address", ray_address] if ray_address else [])
    _run_child(["--level", level, "--tau", repr(tau), *where, "--", *missing], handle, cancelled)
    return results


def _run_child(
    args: list[str], handle: Callable[[dict[str, Any]], None], cancelled: Callable[[], bool] | None
) -> None:
    package_root = str(locations.package_dir().parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
    }
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "skyt_tui.engine.runs.analysis_child", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None  # both are pipes
        finished = False
        try:
            buffer = b""
            fd = process.stdout.fileno()
            while True:
                if cancelled is not None and cancelled():
                    raise AnalysisCancelled("analysis cancelled")
                ready, _, _ = select.select([fd], [], [], POLL_S)
                if not ready:
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    event = json.loads(line)
                    if event.get("event") == "done":
                        finished = True
                    handle(event)
            code = process.wait()
            if not finished or code != 0:
                stderr.seek(0)
                tail = stderr.read().decode("utf-8", "replace").strip().splitlines()
                raise SkytError(
                    f"the analysis process exited with code {code}"
                    + (f": {tail[-1]}" if tail else "")
                )
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            with contextlib.suppress(OSError):
                process.stdin.close()
            process.stdout.close()


CHUNKS = (4, 16, 64)
"""Sizes of the child's batches, the last repeated: the runs asked for first (the newest, at the top
of the list) get their metrics within seconds, and later batches are large enough that the oracle
still sees most repeated programs once per batch."""


def chunks(run_ids: Sequence[str]) -> list[list[str]]:
    """`run_ids` in order, cut into batches of `CHUNKS` sizes."""
    out: list[list[str]] = []
    start = 0
    for number in range(len(run_ids)):
        if start >= len(run_ids):
            break
        size = CHUNKS[min(number, len(CHUNKS) - 1)]
        out.append(list(run_ids[start : start + size]))
        start += size
    return out


def _exit_when_parent_goes() -> None:
    """Stdin reaches end of file when the parent closes it or dies: stop the whole session then."""
    with contextlib.suppress(
        OSError
    ):  # the raw descriptor: a buffered read would hold a lock at shutdown
        while os.read(0, 4096):
            pass
    os.killpg(os.getpgrp(), signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from skyt_tui.engine.executor.choice import EXECUTORS, choose_executor
    from skyt_tui.engine.runs import analyses

    parser = argparse.ArgumentParser(prog="python -m skyt_tui.engine.runs.analysis_child")
    parser.add_argument("--level", required=True)
    parser.add_argument("--tau", type=float, required=True)
    parser.add_argument("--executor", choices=EXECUTORS, default="local")
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args(argv)
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    with contextlib.suppress(OSError):
        # background work: the app's own process keeps the CPU it needs to answer keys
        os.nice(NICENESS)
    out = sys.stdout
    lock = threading.Lock()

    def emit(event: dict[str, Any]) -> None:
        line = json.dumps(event, allow_nan=True, separators=(",", ":"))
        with lock:
            out.write(line + "\n")
            out.flush()

    try:
        choose_executor(args.executor, args.ray_address)
        for chunk in chunks(args.runs):
            analyses.analyze_stored_runs(
                chunk,
                level=args.level,
                tau=args.tau,
                progress=lambda stage, done, total: emit(
                    {"event": "progress", "stage": stage, "done": done, "total": total}
                ),
                on_result=lambda run_id, analysis: emit(
                    {"event": "result", "run": run_id, "analysis": analysis}
                ),
            )
    except SkytError as exc:
        emit({"event": "error", "message": str(exc)})
        return 1
    emit({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
