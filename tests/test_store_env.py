"""SKYT_STORE names the demo's store or nothing: any other value is one line at start-up."""

import subprocess
import sys

import pytest

from skyt_tui import locations
from skyt_tui.cli import main
from skyt_tui.engine.errors import InputError


@pytest.mark.parametrize("argv", [["runs", "list"], ["paths"], ["contracts", "list"]])
def test_a_store_name_other_than_demo_is_one_line_naming_the_variable(
    isolated_home, monkeypatch, capsys, argv
):
    """Old code: SKYT_STORE=Demo (or any typo) silently opened the user's own store."""
    monkeypatch.setenv("SKYT_STORE", "Demo")
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "skyt-tui: error: SKYT_STORE='Demo' names no store: the only one is 'demo' (the demo's); "
        "unset SKYT_STORE (or leave it empty) for your own store\n"
    )
    assert not isolated_home.exists(), "nothing was created in the user's own store"


def test_the_app_does_not_start_on_a_bad_store_name(isolated_home, monkeypatch, capsys):
    monkeypatch.setenv("SKYT_STORE", "real")
    monkeypatch.setattr(
        "skyt_tui.cli.start_app", lambda: pytest.fail("the app started on SKYT_STORE=real")
    )
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("skyt-tui: error: SKYT_STORE='real'")


def test_the_store_directory_refuses_a_bad_name_too(isolated_home, monkeypatch):
    monkeypatch.setenv("SKYT_STORE", "x")
    with pytest.raises(InputError, match="SKYT_STORE='x' names no store"):
        locations.data_dir()


@pytest.mark.parametrize(("value", "demo"), [("", False), ("demo", True)])
def test_empty_and_demo_are_accepted(isolated_home, monkeypatch, value, demo):
    monkeypatch.setenv("SKYT_STORE", value)
    assert locations.data_dir() == (isolated_home / "demo" if demo else isolated_home)


def test_start_up_from_the_shell(isolated_home, tmp_path):
    env = {"SKYT_HOME": str(isolated_home), "SKYT_STORE": "prod", "PATH": "/usr/bin:/bin"}
    import os

    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-m", "skyt_tui"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "SKYT_STORE='prod' names no store" in result.stderr
