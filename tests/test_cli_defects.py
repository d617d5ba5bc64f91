"""Small CLI defects, each kept fixed: a closed pipe, a missing output folder, file modes,
tables cut to 80 columns when piped."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine import store

ROOT = Path(__file__).resolve().parents[1]
FIB = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"


def cli(home, *args, **popen):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(PYTHONPATH=str(ROOT), SKYT_HOME=str(home))
    return subprocess.Popen(
        [sys.executable, "-m", "skyt_tui", *args], cwd=ROOT, env=env, text=True, **popen
    )


@pytest.mark.parametrize(
    "argv", [["runs", "list"], ["contracts", "list"], ["paths"], ["contracts", "list", "--json"]]
)
def test_a_reader_that_goes_away_is_exit_0_without_a_traceback(isolated_home, argv):
    """`skyt-tui runs list | head -1`: the reader has closed the pipe before we write."""
    process = cli(isolated_home, *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0, err
    assert err == ""


def test_report_csv_into_a_missing_folder_is_an_error_and_makes_no_folder(demo_home, capsys):
    target = demo_home / "nonexistent" / "dir" / "x.csv"
    assert main(["report", "latest", "--csv", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"skyt-tui: error: {target}: directory {target.parent} does not exist\n"
    assert not (demo_home / "nonexistent").exists()


def test_analyze_csv_into_a_missing_folder_is_an_error_before_any_work(tmp_path, capsys):
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps({"contract_id": "fibonacci_iterative", "code": FIB}) + "\n")
    assert main(["analyze", str(source), "--csv", str(tmp_path / "no" / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_writes_honour_the_umask_like_appended_logs(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        store.atomic_write_text(tmp_path / "a.json", "{}\n")
        store.append_jsonl(tmp_path / "log.jsonl", {"schema_version": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "log.jsonl").stat().st_mode) == 0o644 & ~umask


def test_analysis_table_is_not_cut_to_80_columns_when_piped(isolated_home, tmp_path):
    source = tmp_path / "samples.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "fibonacci_iterative", "model": "m", "code": FIB}) + "\n"
            for _ in range(2)
        )
    )
    process = cli(isolated_home, "analyze", str(source), stdout=subprocess.PIPE)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    header = next(line for line in out.splitlines() if "R_raw" in line)
    for column in ("run", "model", "R_anchor pre→post", "μ pre→post", "P_τ pre→post", "R_pairwise"):
        assert column in header, header
    assert len(header.rstrip()) > 80
    [row] = [line for line in out.splitlines() if "fibonacci_iterative" in line]
    assert "1.000" in row and "…" not in row


def _source(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps({"contract_id": "fibonacci_iterative", "code": FIB}) + "\n")
    return source


@pytest.mark.parametrize("kind", ["device", "fifo", "link"])
def test_csv_onto_a_device_pipe_or_link_is_refused_and_left_as_it_was(tmp_path, capsys, kind):
    """`--csv /dev/null` (or a FIFO, or a link) was replaced by a plain file, exit 0: as root
    `--csv /dev/full` replaced the system's device. The file is written under a temporary name
    and renamed into place, so anything but a plain file is refused, before any work."""
    target = tmp_path / "out.csv"
    if kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node takes root")
        os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(tmp_path / "elsewhere.csv")
    before = os.lstat(target)
    assert main(["analyze", str(_source(tmp_path)), "--csv", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"skyt-tui: error: {target}: is ") and "give a file path" in err
    assert err.count("\n") == 1
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert not (tmp_path / "elsewhere.csv").exists()


def test_report_csv_onto_a_fifo_is_refused(demo_home, tmp_path, capsys):
    target = tmp_path / "pipe.csv"
    os.mkfifo(target)
    assert main(["report", "latest", "--csv", str(target)]) == 2
    assert "is not a plain file" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(target).st_mode)


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "{long}.json"],
        ["import", "{long}.json"],
        ["contracts", "validate", "{long}.toml"],
        ["analyze", "{source}", "--csv", "{long}.csv"],
        ["analyze", "{source}", "--map", "{long}.toml"],
    ],
)
def test_a_file_name_too_long_is_one_line_and_exit_2(tmp_path, isolated_home, capsys, argv):
    """A name over the file system's 255 bytes raised OSError ENAMETOOLONG out of the command:
    a traceback and exit 1."""
    long = str(tmp_path / ("a" * 300))
    args = [a.format(long=long, source=_source(tmp_path)) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("skyt-tui: error: ") and "File name too long" in err
    assert err.count("\n") == 1


def test_gate_fails_a_run_in_which_no_sample_has_code(isolated_home, capsys):
    """A run whose every generation failed has N = 0 and figures of 0.000 that measure
    nothing; `gate --max mu_post=0.2 --max-failed 2` passed it, exit 0."""
    assert main(
        [
            "run",
            "gcd",
            "--provider",
            "command",
            "--command",
            "false",
            "-n",
            "2",
            "--max-attempts",
            "1",
        ]
    ) in (0, 1)
    capsys.readouterr()
    assert main(["gate", "latest", "--max", "mu_post=0.2", "--max-failed", "2"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL ") and "no sample of the run has code (N = 0, 2 failed)" in out


def test_one_damaged_run_does_not_stop_latest(isolated_home, capsys):
    """`latest` read every run's metadata, so one run.json torn in half stopped `gate latest`,
    `report latest` … with that run's error (exit 2), whatever run was the latest. Now the
    damaged run is left out, and said to be."""
    from datetime import UTC, datetime

    from skyt_tui.engine.runs import run_store

    def stored(day: int) -> str:
        return run_store.create_run(
            contract_id="fibonacci_iterative",
            provider="replay",
            model="m",
            temperature=0.0,
            n=1,
            samples=[run_store.SampleRecord(index=0, status=run_store.OK, code=FIB, response=FIB)],
            status=run_store.COMPLETE,
            created=datetime(2026, 1, day, 12, tzinfo=UTC),
        ).id

    older, newer = stored(1), stored(2)
    (run_store.run_path(older) / "run.json").write_text('{"schema_version": 1, "id": ')
    assert main(["gate", "latest", "--min-r-raw", "0"]) == 0
    captured = capsys.readouterr()
    assert newer in captured.out
    assert captured.err.startswith(f"skyt-tui: warning: latest: left out {older}: ")
    assert captured.err.count("\n") == 1
    (run_store.run_path(newer) / "run.json").write_text("[")
    assert main(["report", "latest", "--brief"]) == 2  # nothing readable: an error, one line
    err = capsys.readouterr().err
    assert err.startswith("skyt-tui: error: no stored run can be read (") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["analyze", "x.json", "--bogus"], "usage: skyt-tui analyze "),
        (["study", "report", "--bogus"], "usage: skyt-tui study report "),
        (["--bogus"], "usage: skyt-tui [-h]"),
    ],
)
def test_an_unknown_option_is_said_with_its_commands_usage(capsys, argv, usage):
    """`analyze FILE --bogus` printed the top level's usage (`skyt-tui [-h] [--version]
    COMMAND ...`), not the command's."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage) and "unrecognized arguments: --bogus" in err


def test_probe_run_does_not_offer_the_switch_it_always_has_on(capsys):
    with pytest.raises(SystemExit):
        main(["probe", "run", "--help"])
    out = capsys.readouterr().out
    assert "--probe-inputs" in out and "[--probe]" not in out and "--probe " not in out
