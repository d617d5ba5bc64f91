"""Issue 27.2: a provider that cannot be used at all — nothing listening at its URL, a refused key —
is one line naming the URL or the key variable, exit code 2, at once, and no stored run; after the
provider has answered once, the same errors are ordinary failures of a sample."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response
from skyt_tui.engine.generation.runner import (
    ProviderUnavailable,
    RetryPolicy,
    RunSettings,
    execute,
    run_sweep,
    start_run,
)
from skyt_tui.engine.runs import run_store
from tests.llm_server import FakeLLMServer
from tests.run_helpers import install_contract, run_cli

SECRET = "sk-test-SECRET0123456789"
FAST = ("--retry-delay", "0.01", "--max-attempts", "6")


def dead_url() -> str:
    """A local URL nothing listens at (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def stored_runs(home) -> list[str]:
    directory = home / "runs"
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


def test_a_run_against_a_dead_server_is_one_line_at_once_and_stores_nothing(isolated_home):
    url = dead_url()
    began = time.monotonic()
    done = run_cli(
        isolated_home,
        "run",
        "fibonacci_iterative",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        url,
        "-n",
        "12",
        *FAST,
    )
    took = time.monotonic() - began
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(lines) == 1 and done.stdout == "", done.stdout + done.stderr
    assert lines[0].startswith(f"skyt-tui: error: cannot connect to {url} (")
    assert "--base-url (or OPENAI_BASE_URL" in lines[0] and "no run was stored" in lines[0]
    assert stored_runs(isolated_home) == []
    assert took < 30, f"{took:.1f} s"


def test_a_refused_key_is_one_line_naming_the_variable_and_stores_nothing(isolated_home):
    with FakeLLMServer(default=lambda number: ("401",)) as server:
        done = run_cli(
            isolated_home,
            "run",
            "fibonacci_iterative",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            server.url + "/v1",
            "-n",
            "12",
            *FAST,
            OPENAI_API_KEY=SECRET,
        )
        requests = len(server.requests)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and done.stdout == "", done.stderr
    assert f"{server.url}/v1 refused the key in OPENAI_API_KEY (HTTP 401" in lines[0]
    assert "set OPENAI_API_KEY to a valid key" in lines[0] and SECRET not in done.stderr
    assert requests <= 4, "stopped at once (the first requests in flight only)"
    assert stored_runs(isolated_home) == []


def test_resuming_against_a_dead_server_leaves_the_run_as_it_was(isolated_home):
    install_contract(isolated_home)
    contract = get_contract("add_one")
    meta = run_store.create_run(
        contract_id=contract.id,
        contract=contract,
        provider="openai",
        model="m",
        temperature=0.7,
        n=3,
        provider_settings={"base_url": dead_url()},
        status=run_store.INTERRUPTED,
        samples=[run_store.SampleRecord(index=0, status=run_store.OK, response="x", code="x = 1")],
    )
    before = {p.name: p.read_bytes() for p in (isolated_home / "runs" / meta.id).iterdir()}
    done = run_cli(isolated_home, "resume", meta.id, *FAST, OPENAI_API_KEY=SECRET)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and done.stdout == "", done.stderr
    assert "cannot connect to" in lines[0] and f"run {meta.id} is as it was" in lines[0]
    after = {p.name: p.read_bytes() for p in (isolated_home / "runs" / meta.id).iterdir()}
    assert {k: v for k, v in after.items() if k != ".lock"} == {
        k: v for k, v in before.items() if k != ".lock"
    }


class Flaky:
    """Answers its first `good` requests, then nothing listens any more."""

    name = "openai"
    sends_seed = False
    deterministic = False

    def __init__(self, good: int) -> None:
        self.good = good
        self.calls = 0
        self.lock = threading.Lock()

    def describe(self):
        return {}

    def complete(self, request: Request) -> Response:
        with self.lock:
            self.calls += 1
            if self.calls <= self.good:
                return Response(text="def f(x):\n    return x + 1\n")
        raise ProviderError(
            "connection failed: refused", retryable=True, before_contact="cannot connect"
        )


def test_once_the_provider_answered_a_refusal_is_a_failed_sample_not_a_never_started_run(
    isolated_home,
):
    install_contract(isolated_home)
    contract = get_contract("add_one")
    settings = RunSettings(provider="openai", model="m", temperature=0.7, n=3)
    policy = RetryPolicy(max_attempts=2, base_delay_s=0.0, max_delay_s=0.0)
    outcomes = run_sweep(contract, settings, [0.7], provider=Flaky(1), concurrency=1, policy=policy)
    [outcome] = outcomes
    run = run_store.load_run(outcome.run_id)
    assert outcome.never_started is None
    assert [s.status for s in run.samples] == [run_store.OK, run_store.FAILED, run_store.FAILED]
    assert run.samples[1].error.startswith("connection failed: refused (gave up after 2")


def test_a_sweep_against_a_dead_provider_raises_and_removes_its_run(isolated_home):
    install_contract(isolated_home)
    contract = get_contract("add_one")
    settings = RunSettings(provider="openai", model="m", temperature=None, n=4)
    with pytest.raises(ProviderUnavailable, match="cannot connect; no run was stored"):
        run_sweep(contract, settings, [0.0, 0.7], provider=Flaky(0), concurrency=2)
    assert run_store.run_ids() == []


def test_execute_reports_a_never_started_run_and_keeps_its_status(isolated_home):
    install_contract(isolated_home)
    contract = get_contract("add_one")
    meta, provider = start_run(
        contract, RunSettings(provider="openai", model="m", temperature=0.7, n=2), Flaky(0)
    )
    outcome = execute(meta.id, provider, contract)
    assert outcome.never_started == "cannot connect" and outcome.new_samples == 0
    assert run_store.load_meta(meta.id).status == run_store.RUNNING == meta.status
    assert run_store.load_run(meta.id).samples == ()
