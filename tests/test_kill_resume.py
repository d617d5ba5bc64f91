"""A run killed with SIGKILL loses no finished sample, and `resume` completes it without repeats."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

from tests.llm_server import FakeLLMServer
from tests.run_helpers import (
    CONTRACT_ID,
    ROOT,
    cli_env,
    install_contract,
    popen_interruptible,
    run_cli,
)

N = 12


K = 6
CONCURRENCY = 2


def answers(release):
    """The first K requests are answered (slowly); the next ones, in flight at the kill, hang until released."""

    def answer(number):
        text = f"```python\ndef f(x):\n    return x + {1 + number % 3}\n```"
        if K <= number < K + CONCURRENCY:
            return ("hold", release, text)
        return ("slow", 0.05, text)

    return answer


def start_cli(home, *args, key="sk-test-kill"):
    return popen_interruptible(
        [sys.executable, "-m", "skyt_tui", *args],
        cwd=ROOT,
        env=cli_env(home, OPENAI_API_KEY=key),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def finished_lines(path):
    if not path.exists():
        return []
    data = path.read_bytes()
    return [line for line in data.split(b"\n")[:-1] if line.strip()]


def test_sigkill_mid_run_then_resume_completes_with_earlier_samples_byte_identical(isolated_home):
    install_contract(isolated_home)
    runs_dir = isolated_home / "runs"
    release = threading.Event()
    with FakeLLMServer(default=answers(release)) as server:
        process = start_cli(
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
            str(N),
            "--concurrency",
            str(CONCURRENCY),
            "--temperature",
            "0.7",
        )
        run_dir = wait_for(
            lambda: (
                next((p for p in runs_dir.iterdir() if not p.name.startswith(".")), None)
                if runs_dir.exists()
                else None
            )
        )
        samples = run_dir / "samples.jsonl"
        wait_for(
            lambda: len(finished_lines(samples)) >= K and len(server.requests) == K + CONCURRENCY
        )
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        release.set()
        before = samples.read_bytes()
        kept = finished_lines(samples)
        k = len(kept)
        assert k == K

        listing = json.loads(run_cli(isolated_home, "runs", "list", "--json").stdout)["runs"]
        assert [(r["state"], r["ok"], r["n"]) for r in listing] == [("interrupted", k, N)]

        requests_before = len(server.requests)
        resumed = run_cli(
            isolated_home,
            "resume",
            run_dir.name,
            "--retry-delay",
            "0.01",
            OPENAI_API_KEY="sk-test-kill",
        )
        assert resumed.returncode == 0, resumed.stderr
        assert f"resuming, {N - k} of {N} samples to go" in resumed.stdout
        assert len(server.requests) - requests_before == N - k, "resume repeated a finished sample"

    after = samples.read_bytes()
    assert after.startswith(before), "the finished samples were rewritten"
    lines = finished_lines(samples)
    assert lines[:k] == kept
    records = [json.loads(line) for line in lines if line.strip().endswith(b"}")]
    assert sorted(r["index"] for r in records) == list(range(N))
    assert all(r["status"] == "ok" and r["code"].startswith("def f(x):") for r in records)
    report = json.loads(run_cli(isolated_home, "report", run_dir.name, "--json").stdout)
    assert report["state"] == "complete" and report["counts"] == {
        "n": N,
        "ok": N,
        "failed": 0,
        "truncated": 0,
        "missing": 0,
    }
    assert report["metrics"]["n"] == N


def test_two_processes_cannot_resume_the_same_run(isolated_home):
    install_contract(isolated_home)
    release = threading.Event()
    code = "def f(x):\n    return x + 1\n"
    with FakeLLMServer(
        default=lambda number: ("ok", code) if number == 0 else ("hold", release, code)
    ) as server:
        first = start_cli(
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
            "8",
            "--concurrency",
            "1",
        )
        runs_dir = isolated_home / "runs"
        run_dir = wait_for(
            lambda: (
                next((p for p in runs_dir.iterdir() if not p.name.startswith(".")), None)
                if runs_dir.exists()
                else None
            )
        )
        wait_for(lambda: len(finished_lines(run_dir / "samples.jsonl")) >= 1)
        listing = json.loads(run_cli(isolated_home, "runs", "list", "--json").stdout)["runs"]
        second = run_cli(isolated_home, "resume", run_dir.name, OPENAI_API_KEY="sk-test-kill")
        still_running = first.poll() is None
        release.set()
        first.wait(timeout=60)
    assert second.returncode == 2
    assert second.stderr.strip() == (
        f"skyt-tui: error: run {run_dir.name}: another skyt-tui process is adding samples to it "
        f"(pid {first.pid}); wait for it to finish"
    )
    assert listing[0]["state"] == "running" and still_running
    assert first.returncode == 0 and len(finished_lines(run_dir / "samples.jsonl")) == 8


def test_ctrl_c_stops_promptly_and_says_how_to_resume(isolated_home):
    install_contract(isolated_home)
    runs_dir = isolated_home / "runs"
    release = threading.Event()
    with FakeLLMServer(default=answers(release)) as server:
        process = start_cli(
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
            str(N),
            "--concurrency",
            str(CONCURRENCY),
        )
        run_dir = wait_for(
            lambda: (
                next((p for p in runs_dir.iterdir() if not p.name.startswith(".")), None)
                if runs_dir.exists()
                else None
            )
        )
        wait_for(
            lambda: (
                len(finished_lines(run_dir / "samples.jsonl")) >= K
                and len(server.requests) == K + CONCURRENCY
            )
        )
        interrupted_at = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
        elapsed = time.monotonic() - interrupted_at
        release.set()
        assert process.returncode == 130 and elapsed < 20, (
            "Ctrl-C must not wait for requests in flight"
        )
        assert stderr.decode().strip().splitlines()[-1] == (
            f"skyt-tui: interrupted: run {run_dir.name} has {K} of {N} samples; "
            f"continue with `skyt-tui resume {run_dir.name}`"
        )
        assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
        resumed = run_cli(isolated_home, "resume", "latest", OPENAI_API_KEY="sk-test-kill")
        assert resumed.returncode == 0, resumed.stderr
    assert sorted(
        json.loads(line)["index"] for line in finished_lines(run_dir / "samples.jsonl")
    ) == list(range(N))


def test_a_child_takes_ctrl_c_even_when_the_tests_ignore_it():
    """The Ctrl-C tests failed whenever the suite itself ran with SIGINT ignored (started as a
    background job): the CLI inherited the ignore, never saw the interrupt and ran on."""
    probe = [
        sys.executable,
        "-c",
        "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)",
    ]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        inherited = subprocess.run(probe, capture_output=True, text=True, check=True).stdout
        child = popen_interruptible(probe, stdout=subprocess.PIPE, text=True)
        interruptible, _ = child.communicate(timeout=30)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # the test process is as it was
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (inherited.strip(), interruptible.strip()) == ("False", "True")
