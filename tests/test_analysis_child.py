"""Stored runs analysed in a child process (what the terminal app does): same results, errors, cancel."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.analysis_child import AnalysisCancelled, analyze_stored_runs_in_child
from skyt_tui.engine.runs.run_store import SampleRecord
from tests.run_helpers import CONTRACT_ID, ROOT, install_contract

CODES = [
    "def f(x):\n    return x + 1",
    "def f(y):\n    return y + 1",
    "def f(x):\n    return 1 + x",
    "def f(x):\n    return x",
]


def ok(index, code):
    return SampleRecord(index=index, status="ok", response=code, code=code, extraction="unfenced")


@pytest.fixture
def two_runs(isolated_home):
    install_contract(isolated_home)
    contract = get_contract(CONTRACT_ID)
    ids = []
    for temperature, codes in ((0.0, CODES[:2]), (0.7, CODES)):
        meta = run_store.create_run(
            contract_id=CONTRACT_ID,
            contract=contract,
            provider="replay",
            model="m",
            temperature=temperature,
            n=len(codes),
            samples=[ok(i, code) for i, code in enumerate(codes)],
        )
        ids.append(meta.id)
    return isolated_home, ids


def uncached(home, ids):
    for run_id in ids:
        (run_store.run_path(run_id) / run_store.ANALYSIS_FILE).unlink(missing_ok=True)
    shutil.rmtree(home / "canon", ignore_errors=True)


def test_the_child_gives_what_the_engine_gives_in_process(two_runs):
    home, ids = two_runs
    in_process = {run_id: analyses.analyze_stored_run(run_id, use_cache=False) for run_id in ids}
    uncached(home, ids)
    seen, stages = [], set()
    results = analyze_stored_runs_in_child(
        ids,
        level="nodoc",
        tau=0.1,
        on_result=lambda run_id, a: seen.append(run_id),
        progress=lambda stage, done, total: stages.add(stage),
    )
    assert json.dumps(results, sort_keys=True) == json.dumps(in_process, sort_keys=True)
    assert sorted(seen) == sorted(ids) and stages, "results and progress are streamed"
    assert results[ids[1]]["metrics"]["pass_rate"] == 0.75
    again = []
    analyze_stored_runs_in_child(
        ids,
        level="nodoc",
        tau=0.1,
        on_result=lambda run_id, a: again.append(run_id),
        cancelled=lambda: pytest.fail("cached analyses need no child"),
    )
    assert again == ids, "the child wrote the cache; the second call reads it in order"


def test_an_engine_error_in_the_child_is_one_line_and_a_crash_is_named(two_runs, monkeypatch):
    home, ids = two_runs
    uncached(home, ids)
    monkeypatch.setenv("SKYT_SANDBOX", "nonsense")  # the child's oracle refuses to start
    with pytest.raises(SkytError) as caught:
        analyze_stored_runs_in_child(ids[:1], level="nodoc", tau=0.1)
    message = str(caught.value)
    assert "SKYT_SANDBOX" in message and "\n" not in message and "exited with code" not in message
    monkeypatch.delenv("SKYT_SANDBOX")
    monkeypatch.setattr(sys, "executable", shutil.which("false"))
    with pytest.raises(SkytError, match="^the analysis process exited with code 1$"):
        analyze_stored_runs_in_child(ids[:1], level="nodoc", tau=0.1)
    assert not (run_store.run_path(ids[0]) / run_store.ANALYSIS_FILE).exists()


def test_cancelling_stops_the_child_and_its_workers(two_runs):
    home, ids = two_runs
    uncached(home, ids)
    started = time.monotonic()
    with pytest.raises(AnalysisCancelled):
        analyze_stored_runs_in_child(
            ids, level="nodoc", tau=0.1, cancelled=lambda: time.monotonic() - started > 0.3
        )
    assert time.monotonic() - started < 5
    assert not _children_running(home), "the child's whole session was killed"


def test_the_child_exits_when_its_parent_closes_stdin(two_runs):
    home, ids = two_runs
    uncached(home, ids)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skyt_tui.engine.runs.analysis_child",
            "--level",
            "nodoc",
            "--tau",
            "0.1",
            *ids,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    child.stdin.close()  # before the child could finish: it watches stdin from its first moment
    assert child.wait(timeout=10) == -signal.SIGKILL
    assert not _children_running(home)
    assert not (run_store.run_path(ids[0]) / run_store.ANALYSIS_FILE).exists(), (
        "nothing half-written"
    )


def _children_running(home) -> list[str]:
    """Processes of this test's store (SKYT_HOME) still running, after a moment to be reaped."""
    marker = f"SKYT_HOME={home}".encode()
    deadline = time.monotonic() + 5
    while True:
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    environment = handle.read().split(b"\0")
                with open(f"/proc/{entry}/stat") as handle:
                    state = handle.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker in environment and state != "Z" and str(os.getpid()) != entry:
                found.append(command)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_the_child_streams_results_batch_by_batch_newest_asked_first(isolated_home):
    """Issue 27.6: with many runs to analyse, the first results come after the first small batch,
    not after all of them; the runs are analysed in the order asked (the list's, newest first)."""
    install_contract(isolated_home)
    contract = get_contract(CONTRACT_ID)
    ids = [
        run_store.create_run(
            contract_id=CONTRACT_ID,
            contract=contract,
            provider="replay",
            model="m",
            temperature=0.7,
            n=2,
            samples=[ok(0, CODES[number % 4]), ok(1, CODES[(number + 1) % 4])],
        ).id
        for number in range(8)
    ]
    events = []
    results = analyze_stored_runs_in_child(
        ids,
        level="nodoc",
        tau=0.1,
        progress=lambda stage, done, total: events.append(("progress", stage)),
        on_result=lambda run_id, analysis: events.append(("result", run_id)),
    )
    assert set(results) == set(ids)
    order = [run_id for kind, run_id in events if kind == "result"]
    assert order == ids
    first_result = events.index(("result", ids[0]))
    assert ("progress", "oracle") in events[first_result:], (
        "a later batch is still being judged after the first results arrived"
    )
    in_process = analyses.analyze_stored_runs(ids)
    assert [results[run_id]["metrics"] for run_id in ids] == [a["metrics"] for a in in_process]
