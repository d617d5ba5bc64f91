"""Runs against a real local OpenAI-compatible server with injected faults: nothing is lost or dropped."""

import json
import random
import threading

import pytest

from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Response
from skyt_tui.engine.generation.providers.openai_compat import OpenAICompatProvider
from skyt_tui.engine.generation.runner import (
    CANCEL_GRACE_S,
    RetryPolicy,
    RunSettings,
    execute,
    sample_once,
    start_run,
)
from skyt_tui.engine.runs import analyses, run_store
from tests.llm_server import FakeLLMServer
from tests.run_helpers import CONTRACT_ID, install_contract, only_run_id, run_cli, sample_lines

SECRET = "sk-test-SECRET0123456789"
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05, max_total_s=30)


@pytest.fixture
def contract(isolated_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    install_contract(isolated_home)
    return get_contract(CONTRACT_ID)


def start(contract, server, n, *, timeout_s=5.0, **settings):
    provider = OpenAICompatProvider(base_url=server.url + "/v1", timeout_s=timeout_s)
    meta, _ = start_run(
        contract,
        RunSettings(provider="openai", model="m1", temperature=0.7, n=n, **settings),
        provider,
    )
    return meta, provider


def test_every_fault_is_retried_and_every_sample_accounted_for(contract):
    faults = [
        ("429", 0),
        ("500",),
        ("timeout", 1.2),
        ("malformed",),
        ("length", "```python\ndef f(x):\n    return (x"),
        ("empty",),
    ]
    with FakeLLMServer(faults) as server:
        meta, provider = start(contract, server, 8, timeout_s=0.5, seed=7)
        seen = []
        outcome = execute(
            meta.id, provider, contract, concurrency=3, policy=FAST, on_sample=seen.append
        )
    run = run_store.load_run(meta.id)
    assert (
        outcome.complete
        and outcome.finished == 8
        and outcome.failed == 0
        and outcome.new_samples == 8
    )
    assert [s.index for s in run.samples] == list(range(8)) and sorted(
        r.index for r in seen
    ) == list(range(8))
    assert all(s.status == "ok" for s in run.samples)
    # one request per sample plus one retry for each retryable fault (429, 500, timeout, malformed, empty)
    assert len(server.requests) == 8 + 5 and sum(s.attempts for s in run.samples) == 13
    truncated = [s for s in run.samples if s.truncated]
    assert (
        len(truncated) == 1
        and truncated[0].finish_reason == "length"
        and truncated[0].code == "def f(x):\n    return (x"
    )
    ok = [s for s in run.samples if not s.truncated]
    assert all(
        s.model == "served-m1" and s.seed == 7 and s.usage["total_tokens"] == 18
        for s in run.samples
    )
    assert all(
        s.code in ("def f(x):\n    return x + 0", "def f(x):\n    return x + 1")
        and s.extraction == "fenced"
        for s in ok
    )
    assert all(s.response.startswith("```python") and s.latency_s >= 0 for s in run.samples)
    assert all(r["body"]["seed"] == 7 and r["body"]["temperature"] == 0.7 for r in server.requests)
    assert run.meta.status == run_store.COMPLETE
    analysis = analyses.analyze_stored_run(run)
    assert analysis["metrics"]["n"] == 8 and analysis["metrics"]["n_failed"] == 0


def test_retry_after_is_honoured(contract):
    with FakeLLMServer([("429", 0.4)]) as server:
        meta, provider = start(contract, server, 1)
        execute(meta.id, provider, contract, concurrency=1, policy=FAST)
    first, second = server.requests
    assert second["time"] - first["time"] >= 0.4
    assert run_store.load_run(meta.id).samples[0].attempts == 2


def test_a_sample_that_keeps_failing_is_recorded_not_dropped(contract):
    def default(number):
        return ("500",) if number < 3 else ("ok", "def f(x):\n    return x + 1")

    with FakeLLMServer(default=default) as server:
        meta, provider = start(contract, server, 3)
        outcome = execute(
            meta.id,
            provider,
            contract,
            concurrency=1,
            policy=RetryPolicy(max_attempts=3, base_delay_s=0.01),
        )
    run = run_store.load_run(meta.id)
    assert outcome.complete and outcome.failed == 1 and len(run.samples) == 3
    failed = run.samples[0]
    assert (failed.status, failed.attempts, failed.code) == ("failed", 3, None)
    assert failed.error == "HTTP 500: internal error (gave up after 3 attempts)"
    analysis = analyses.analyze_stored_run(run)
    assert analysis["metrics"]["n"] == 2 and analysis["metrics"]["n_failed"] == 1


def test_an_empty_answer_that_persists_fails_with_the_answer_kept(contract):
    with FakeLLMServer(default=lambda number: ("empty",)) as server:
        meta, provider = start(contract, server, 1)
        execute(meta.id, provider, contract, policy=RetryPolicy(max_attempts=2, base_delay_s=0.0))
    sample = run_store.load_run(meta.id).samples[0]
    assert sample.status == "failed" and sample.error == "empty answer (gave up after 2 attempts)"
    assert sample.response == "" and sample.finish_reason == "stop" and sample.model == "served-m1"


def test_the_retry_budget_bounds_a_sample(contract):
    with FakeLLMServer(default=lambda number: ("429", 5)) as server:
        meta, provider = start(contract, server, 1)
        execute(meta.id, provider, contract, policy=RetryPolicy(max_attempts=10, max_total_s=1.0))
    sample = run_store.load_run(meta.id).samples[0]
    assert (
        sample.attempts == 1
        and sample.error == "HTTP 429: rate limited (retry budget of 1s used up)"
    )


def test_a_bad_key_stops_the_run_and_never_reaches_the_store(contract, isolated_home):
    with FakeLLMServer(default=lambda number: ("401",)) as server:
        meta, provider = start(contract, server, 5)
        outcome = execute(meta.id, provider, contract, concurrency=1, policy=FAST)
    run = run_store.load_run(meta.id)
    assert len(server.requests) == 1
    # refused before the server ever answered: the run never started (issue 27.2)
    assert run.samples == () and run.missing_indexes == [0, 1, 2, 3, 4]
    assert outcome.abort_reason.startswith("HTTP 401: invalid api key")
    assert outcome.never_started.startswith(f"{server.url}/v1 refused the key in OPENAI_API_KEY")
    stored = b"".join(p.read_bytes() for p in isolated_home.rglob("*") if p.is_file())
    assert SECRET.encode() not in stored and b"SECRET" not in stored


def test_cancel_leaves_a_resumable_run(contract):
    cancel = threading.Event()

    def stop_after_two(record):
        if len(run_store.load_run(record_run[0]).samples) >= 2:
            cancel.set()

    with FakeLLMServer(
        default=lambda number: ("slow", 0.1, "def f(x):\n    return x + 1")
    ) as server:
        meta, provider = start(contract, server, 6)
        record_run = [meta.id]
        outcome = execute(
            meta.id,
            provider,
            contract,
            concurrency=1,
            policy=FAST,
            cancel=cancel,
            on_sample=stop_after_two,
        )
        assert outcome.status == run_store.INTERRUPTED and outcome.finished == 2
        assert run_store.run_state(run_store.load_meta(meta.id)) == run_store.INTERRUPTED
        before = (run_store.run_path(meta.id) / "samples.jsonl").read_bytes()
        outcome = execute(meta.id, provider, contract, concurrency=2, policy=FAST)
    assert outcome.complete and outcome.new_samples == 4 and len(server.requests) == 6
    assert (run_store.run_path(meta.id) / "samples.jsonl").read_bytes().startswith(before)


def test_cancel_does_not_wait_for_a_hanging_request(contract):
    """Issue 14.7: with a server that never answers, cancel used to wait out the request timeout."""
    import time

    release = threading.Event()
    cancel = threading.Event()
    with FakeLLMServer(
        default=lambda number: ("hold", release, "def f(x):\n    return x")
    ) as server:
        meta, provider = start(contract, server, 4, timeout_s=60.0)
        threading.Timer(0.5, cancel.set).start()
        began = time.monotonic()
        outcome = execute(meta.id, provider, contract, concurrency=2, policy=FAST, cancel=cancel)
        took = time.monotonic() - began
        release.set()
    # the grace for requests in flight, plus slack for a loaded machine: far below the 60 s
    # request timeout that a cancel waiting on the held request would take
    assert took < 0.5 + CANCEL_GRACE_S + 9.0 < 60.0, f"cancel took {took:.1f} s"
    assert outcome.status == run_store.INTERRUPTED and outcome.finished == 0
    assert run_store.run_state(run_store.load_meta(meta.id)) == run_store.INTERRUPTED
    assert run_store.load_run(meta.id).samples == (), "an answer after the cancel is not recorded"


class FlakyProvider:
    name, sends_seed, deterministic = "flaky", False, False

    def __init__(self, failures):
        self.failures = failures

    def complete(self, request):
        if self.failures:
            self.failures -= 1
            raise ProviderError("HTTP 503", retryable=True)
        return Response(text="def f(x):\n    return x + 1")

    def describe(self):
        return {}


def test_backoff_jitter_is_reproducible(contract):
    meta = run_store.RunMeta(
        id="r-fixed",
        contract_id=CONTRACT_ID,
        provider="flaky",
        model="m",
        temperature=0.0,
        n=3,
        created="",
    )
    policy = RetryPolicy(max_attempts=5, base_delay_s=1.0, max_delay_s=8.0)

    def delays(index):
        events = []
        record = sample_once(
            FlakyProvider(3),
            contract,
            meta,
            index,
            policy=policy,
            cancel=threading.Event(),
            on_retry=events.append,
            sleep=lambda seconds: False,
        )
        assert record.status == "ok" and record.attempts == 4
        return [e.delay_s for e in events]

    first = delays(1)
    assert first == delays(1) and first != delays(2)
    # equal jitter on a doubling delay: retry k waits within [2^(k-1)/2, 2^(k-1)] seconds
    assert all(2**k / 2 <= d <= 2**k for k, d in enumerate(first))
    rng = random.Random("r-fixed/1")
    assert first[0] == 0.5 + rng.uniform(0.0, 0.5)


def test_cli_run_with_faults_sweep_and_report(isolated_home):
    install_contract(isolated_home)
    with FakeLLMServer([("500",), ("429", 0)]) as server:
        result = run_cli(
            isolated_home,
            "run",
            CONTRACT_ID,
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
            "--model",
            "m1",
            "-n",
            "3",
            "--sweep",
            "0,1",
            "--concurrency",
            "2",
            "--retry-delay",
            "0.01",
            "--seed",
            "3",
            "--json",
            OPENAI_API_KEY=SECRET,
        )
        assert result.returncode == 0, result.stderr
        outcome = json.loads(result.stdout)
        assert [r["status"] for r in outcome["runs"]] == ["complete", "complete"] and outcome[
            "sweep"
        ].startswith("sweep-")
        assert sorted(r["body"]["temperature"] for r in server.requests) == [0, 0, 0, 0, 0, 1, 1, 1]
    ids = [r["run_id"] for r in outcome["runs"]]
    assert "-t0-" in ids[0] and "-t1-" in ids[1]
    metas = [run_store.load_meta(i) for i in ids]
    assert {m.sweep for m in metas} == {outcome["sweep"]} and [m.temperature for m in metas] == [
        0.0,
        1.0,
    ]
    assert metas[0].provider_settings == {"base_url": server.url + "/v1", "timeout_s": 120.0}
    report = run_cli(isolated_home, "report", ids[0], "--json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert [row["index"] for row in data["samples"]] == [0, 1, 2] and data["counts"]["ok"] == 3
    assert all(
        {"d_pre", "d_post", "passed", "latency_s", "truncated"} <= set(row)
        for row in data["samples"]
    )
    listing = run_cli(isolated_home, "runs", "list")
    assert ids[0] in listing.stdout and ids[1] in listing.stdout
    stored = b"".join(p.read_bytes() for p in isolated_home.rglob("*") if p.is_file())
    assert SECRET.encode() not in stored


def test_cli_run_exit_1_and_failures_shown_when_samples_fail(isolated_home):
    install_contract(isolated_home)
    with FakeLLMServer(default=lambda number: ("500",)) as server:
        result = run_cli(
            isolated_home,
            "run",
            CONTRACT_ID,
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
            "--model",
            "m1",
            "-n",
            "2",
            "--max-attempts",
            "2",
            "--retry-delay",
            "0",
        )
    assert result.returncode == 1
    assert "0 ok, 2 failed of 2" in result.stdout
    assert (
        "sample 0 failed after 2 attempts: HTTP 500: internal error (gave up after 2 attempts)"
        in result.stdout
    )
    report = run_cli(isolated_home, "report", only_run_id(isolated_home))
    assert report.returncode == 0 and "sample 1 failed after 2 attempts" in report.stdout
    assert len(sample_lines(isolated_home, only_run_id(isolated_home))) == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--provider", "openai", "--model", "m"],
            "OPENAI_API_KEY is not set (needed by --provider openai",
        ),
        (["--provider", "openai"], "--model: required with openai"),
        (
            [
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://x/v1",
                "--sweep",
                "0,hot",
            ],
            "--sweep: 'hot' is not a number",
        ),
        (
            ["--provider", "openai", "--model", "m", "--base-url", "http://x/v1", "--sweep", "0,3"],
            "--sweep: 3 is outside [0, 2]",
        ),
        (["--provider", "command"], "--command: required: the program that answers"),
        (["--provider", "replay"], "--replay: required: the file or folder of recorded answers"),
        (
            [
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://x/v1",
                "--concurrency",
                "0",
            ],
            "--concurrency: must be between 1 and 64",
        ),
        (
            ["--provider", "openai", "--model", "m", "--base-url", "http://x/v1", "-n", "0"],
            "-n: must be between 1 and 1000",
        ),
    ],
)
def test_cli_bad_input_is_one_line_exit_2_and_stores_nothing(isolated_home, args, message):
    install_contract(isolated_home)
    result = run_cli(isolated_home, "run", CONTRACT_ID, *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not (isolated_home / "runs").exists() or not any((isolated_home / "runs").iterdir())


def test_cli_unknown_contract_and_run(isolated_home):
    result = run_cli(
        isolated_home, "run", "no_such_contract", "--provider", "openai", "--model", "m"
    )
    assert result.returncode == 2 and "contract 'no_such_contract': not found" in result.stderr
    for command in (["resume", "nope"], ["report", "nope"], ["gate", "nope", "--min-r-raw", "0.5"]):
        result = run_cli(isolated_home, *command)
        assert (
            result.returncode == 2
            and result.stderr.strip()
            == "skyt-tui: error: run 'nope': not found (see `skyt-tui runs list`)"
        )


def test_resume_retry_failed_appends_a_superseding_record(contract, isolated_home):
    with FakeLLMServer(
        default=lambda number: ("500",) if number < 2 else ("ok", "def f(x):\n    return x + 1")
    ) as server:
        meta, provider = start(contract, server, 2)
        execute(meta.id, provider, contract, concurrency=1, policy=RetryPolicy(max_attempts=1))
        assert run_store.load_run(meta.id).n_failed == 2
        result = run_cli(
            isolated_home,
            "resume",
            meta.id,
            "--retry-failed",
            "--concurrency",
            "1",
            "--json",
            OPENAI_API_KEY=SECRET,
        )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["runs"][0]["new_samples"] == 2
    run = run_store.load_run(meta.id)
    assert run.n_failed == 0 and run.n_ok == 2
    assert [(line["index"], line["status"]) for line in sample_lines(isolated_home, meta.id)] == [
        (0, "failed"),
        (1, "failed"),
        (0, "ok"),
        (1, "ok"),
    ]
    nothing = run_cli(isolated_home, "resume", meta.id)
    assert nothing.returncode == 0 and "nothing to resume (2 of 2 samples stored)" in nothing.stdout


def test_run_sweep_in_the_engine_with_replay(contract, tmp_path):
    from skyt_tui.engine.generation.providers.replay import ReplayProvider
    from skyt_tui.engine.generation.runner import run_sweep

    for i, text in enumerate(
        ["def f(x):\n    return x + 1\n", "```python\ndef f(x):\n    return 1 + x\n```"], start=1
    ):
        (tmp_path / f"{i:02}.py").write_text(text)
    provider = ReplayProvider.from_path(tmp_path, contract)
    events = []
    outcomes = run_sweep(
        contract,
        RunSettings(
            provider="replay",
            model=None,
            temperature=None,
            n=2,
            provider_settings={"source": str(tmp_path)},
        ),
        [0.0, 0.5],
        provider=provider,
        on_run_start=lambda m: events.append(("start", m.temperature)),
        on_run_end=lambda o: events.append(("end", o.status)),
    )
    assert events == [("start", 0.0), ("end", "complete"), ("start", 0.5), ("end", "complete")]
    assert len({o.sweep for o in outcomes}) == 1 and outcomes[0].sweep.startswith("sweep-")
    codes = [s.code for s in run_store.load_run(outcomes[1].run_id).samples]
    assert codes == ["def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x"]
    with pytest.raises(InputError, match="has 2 recorded answers; ask for -n 2 or fewer"):
        start_run(
            contract, RunSettings(provider="replay", model=None, temperature=None, n=3), provider
        )


def test_sweep_then_analyse_is_one_workflow_with_one_batch(contract, tmp_path):
    """`run --sweep`, `resume` and the app's run dialog share `workflow`: every run that produced
    code is analysed in one batch after the sweep (one analysis process for the app), none after
    a cancel, and a resumed run like a new one."""
    import threading

    from skyt_tui.engine.generation.workflow import resume_and_analyse, sweep_and_analyse

    (tmp_path / "01.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "02.py").write_text("def f(x):\n    return 1 + x\n")
    settings = RunSettings(
        provider="replay",
        model=None,
        temperature=None,
        n=2,
        provider_settings={"source": str(tmp_path)},
    )
    batches = []

    def analyse(run_ids):
        batches.append(list(run_ids))
        return [{"run": run_id} for run_id in run_ids]

    generated = sweep_and_analyse(contract, settings, [0.0, 0.5], analyse=analyse)
    ids = [outcome.run_id for outcome in generated.outcomes]
    assert batches == [ids] and generated.analyses == {run_id: {"run": run_id} for run_id in ids}

    cancel = threading.Event()
    cancel.set()
    stopped = sweep_and_analyse(contract, settings, [0.0], analyse=analyse, cancel=cancel)
    assert stopped.outcomes == () and stopped.analyses == {} and len(batches) == 1

    interrupted = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=contract,
        provider="replay",
        model=None,
        temperature=0.0,
        n=2,
        provider_settings={"source": str(tmp_path)},
    )
    ended = []
    resumed = resume_and_analyse(
        run_store.load_run(interrupted.id),
        analyse=analyse,
        on_run_end=lambda o: ended.append(o.status),
    )
    assert ended == ["complete"] and batches[-1] == [interrupted.id]
    assert resumed.analyses == {interrupted.id: {"run": interrupted.id}}
    analysed_here = sweep_and_analyse(contract, settings, [0.0])
    [analysis] = analysed_here.analyses.values()
    assert analysis["metrics"]["n"] == 2 and analysis["metrics"]["pass_rate"] == 1.0


def test_a_cancelled_runs_command_programs_are_killed_not_left_running(contract, tmp_path):
    """The command provider runs each request in a session of its own and killed it only on its
    timeout: a cancelled run left a hanging model program running for the whole timeout (300 s
    by default), and after the app quit, for ever."""
    import os
    import shlex
    import sys
    import time

    from skyt_tui.engine.generation.providers.command import CommandProvider

    started = tmp_path / "started"
    started.mkdir()

    hang = "import os, sys, time; open(os.path.join(sys.argv[1], str(os.getpid())), 'w'); time.sleep(60)"
    provider = CommandProvider(
        command=f"{shlex.quote(sys.executable)} -c {shlex.quote(hang)} {shlex.quote(str(started))}",
        timeout_s=60.0,
    )
    meta, _ = start_run(
        contract, RunSettings(provider="command", model="m1", temperature=0.7, n=2), provider
    )
    cancel = threading.Event()

    def cancel_once_started() -> None:
        deadline = time.monotonic() + 30
        while len(os.listdir(started)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        cancel.set()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    outcome = execute(meta.id, provider, contract, concurrency=2, policy=FAST, cancel=cancel)
    assert outcome.status == run_store.INTERRUPTED
    pids = [int(name) for name in os.listdir(started)]
    assert len(pids) == 2

    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                return handle.read().split(") ")[-1][0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids)
    assert run_store.load_run(meta.id).samples == (), "a killed request is not recorded"
