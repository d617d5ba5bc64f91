"""Shared fixtures for the run tests: a small contract in the test's store, CLI runners."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONTRACT_ID = "add_one"
CONTRACT_TOML = """
schema_version = 1
id = "add_one"
version = 1
title = "Add one"
difficulty = "easy"
prompt = "Write a Python function `f(x)` that returns x + 1. Return only the code."

[entry]
kind = "function"
name = "f"

[constraints]
fixed_names = ["x"]

[[tests]]
kind = "call"
args = [1]
expected = 2
"""


def install_contract(home: Path, text: str = CONTRACT_TOML, name: str = "add_one.toml") -> Path:
    path = home / "contracts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY")
    }
    env.update({"PYTHONPATH": str(ROOT), "SKYT_HOME": str(home), "COLUMNS": "120"})
    env.update(extra)
    return env


def run_cli(
    home: Path, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=cli_env(home, **env),
        timeout=timeout,
    )


def only_run_id(home: Path) -> str:
    ids = sorted(p.name for p in (home / "runs").iterdir() if not p.name.startswith("."))
    assert len(ids) == 1, ids
    return ids[0]


def sample_lines(home: Path, run_id: str) -> list[dict]:
    path = home / "runs" / run_id / "samples.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def popen_interruptible(argv: list[str], **kwargs) -> subprocess.Popen:
    """`subprocess.Popen(argv, **kwargs)` whose child takes Ctrl-C (SIGINT) as a user's terminal
    gives it. A process started with SIGINT ignored passes that on, and Python then never raises
    KeyboardInterrupt: pytest run as a background job (`pytest &`, `nohup`) starts ignoring it. A
    handled signal is reset to its default on exec, so the child starts with Python's own handler
    whatever this process had (called from the main thread, as tests are)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(argv, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)
