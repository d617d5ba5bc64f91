"""Issue 27.1: on a read-only store every command that writes says so in one line and exits with
code 2, writing nothing; the commands that only read still work.

The store is made read-only for real: a bubblewrap mount namespace binds it read-only over itself
(EROFS, as a read-only file system or a snapshot gives), or, without bubblewrap and not as root,
its files lose their write permission (EACCES).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import require
from tests.run_helpers import ROOT, cli_env, run_cli

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = FIXTURES / "fibonacci_samples.jsonl"
PROBLEMS = FIXTURES / "humaneval_full" / "problems.jsonl"


def _bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    done = subprocess.run(
        ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"],
        capture_output=True,
    )
    return done.returncode == 0


def read_only(home: Path):
    """A function running `skyt-tui ARGS` with `home` read-only, or a skip when that cannot be made."""
    if _bwrap_works():
        prefix = ["bwrap", "--bind", "/", "/", "--ro-bind", str(home), str(home)]
        prefix += ["--dev", "/dev", "--proc", "/proc"]
    elif os.geteuid() != 0:
        prefix = []
        for directory, _, files in os.walk(home):
            for name in files:
                os.chmod(os.path.join(directory, name), 0o444)
            os.chmod(directory, 0o555)
    else:
        pytest.skip("neither bubblewrap nor a non-root user to make the store read-only")

    def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*prefix, sys.executable, "-m", "skyt_tui", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=cli_env(home),
            timeout=timeout,
        )

    return run


def tree_digest(home: Path) -> dict[str, str]:
    """Every file of the store with a digest of its content (every folder as a name)."""
    found = {}
    for directory, folders, files in os.walk(home):
        for name in folders:
            found[os.path.relpath(os.path.join(directory, name), home) + "/"] = ""
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, home)] = hashlib.sha256(handle.read()).hexdigest()
    return found


@pytest.fixture(scope="module")
def filled_store(tmp_path_factory) -> Path:
    """A store with an imported run (analysed, so it has a canon), an interrupted run, a benchmark
    with an anchor sample and a study."""
    home = tmp_path_factory.mktemp("read-only") / "home"
    items = home.parent / "items.jsonl"
    items.write_text(
        "".join(f'{{"id": "i{n}", "difficulty": "easy"}}\n' for n in range(8)), encoding="utf-8"
    )
    for args in (
        ("import", str(SAMPLES)),
        ("report", "latest"),
        ("bench", "import", "b", str(items)),
        ("bench", "sample", "b", "--size", "4"),
        ("study", "create", "s", "--filter", "contract=fibonacci_iterative"),
    ):
        done = run_cli(home, *args)
        assert done.returncode == 0, (args, done.stderr)
    code = (
        "from skyt_tui.engine.contracts.catalog import get_contract\n"
        "from skyt_tui.engine.runs import run_store\n"
        "c = get_contract('fibonacci_iterative')\n"
        "run_store.create_run(contract_id=c.id, contract=c, provider='command', model=None,\n"
        "    temperature=0.7, n=3, provider_settings={'command': 'false'},\n"
        "    status=run_store.INTERRUPTED, samples=[run_store.SampleRecord(index=0,\n"
        "    status=run_store.OK, response='x = 1', code='x = 1')])\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=cli_env(home), check=True)
    return home


def store_copy(filled_store: Path, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(filled_store, home, symlinks=True)
    return home


def stored_run(home: Path, interrupted: bool) -> str:
    """The interrupted run, or the imported one."""
    for run_dir in sorted((home / "runs").iterdir()):
        if ('"interrupted"' in (run_dir / "run.json").read_text()) == interrupted:
            return run_dir.name
    raise AssertionError("no such run")


WRITERS = {
    "import": lambda home: ["import", str(FIXTURES / "humaneval_full")],
    "analyze --resume": lambda home: ["analyze", str(SAMPLES), "--resume"],
    "demo": lambda home: ["demo"],
    "run": lambda home: ["run", "fibonacci_iterative", "--provider", "command", "--command", "cat"],
    "resume": lambda home: ["resume", stored_run(home, interrupted=True)],
    "bench import": lambda home: ["bench", "import", "c", str(home.parent / "items.jsonl")],
    "bench sample": lambda home: ["bench", "sample", "b", "--size", "4", "--seed", "9"],
    "bench rotate": lambda home: ["bench", "rotate", "b", "--force"],
    "study create": lambda home: ["study", "create", "t", "--filter", "model=x"],
    "study delete": lambda home: ["study", "delete", "s"],
    "contracts import-humaneval": lambda home: ["contracts", "import-humaneval", str(PROBLEMS)],
    "canon reestablish": lambda home: [
        "canon",
        "reestablish",
        "fibonacci_iterative",
        "--from",
        stored_run(home, interrupted=False),
    ],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_writing_command_on_a_read_only_store_says_so_in_one_line(
    command, filled_store, tmp_path
):
    home = store_copy(filled_store, tmp_path)
    (home.parent / "items.jsonl").write_text((filled_store.parent / "items.jsonl").read_text())
    args = WRITERS[command](home)
    before = tree_digest(home)
    done = read_only(home)(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (command, done.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("skyt-tui: error: "), done.stderr
    assert "Traceback" not in done.stderr
    assert str(home) in lines[0], "the line says where"
    assert tree_digest(home) == before, "nothing written"


def test_importing_skyt_templates_on_a_read_only_store_says_so_in_one_line(filled_store, tmp_path):
    templates = require("skyt-msr2026", "templates.json")
    home = store_copy(filled_store, tmp_path)
    before = tree_digest(home)
    done = read_only(home)("contracts", "import-skyt", str(templates))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert tree_digest(home) == before


@pytest.mark.parametrize(
    "args",
    [
        ("runs", "list"),
        ("report", "latest"),
        ("runs", "list", "--json"),
        ("study", "show", "s"),
        ("bench", "status", "b"),
        ("canon", "list"),
    ],
    ids=" ".join,
)
def test_reading_a_read_only_store_works(args, filled_store, tmp_path):
    home = store_copy(filled_store, tmp_path)
    done = read_only(home)(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
