"""What a user installing skyt-tui meets: license, metadata, pins, platform message."""

import re
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import skyt_tui.cli
from skyt_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_license_file_matches_pyproject():
    assert PROJECT["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert (
        text.startswith("MIT License")
        and "License :: OSI Approved :: MIT License" in (PROJECT["classifiers"])
    )


def test_classifiers_say_linux_and_python_3_11_to_3_13():
    classifiers = PROJECT["classifiers"]
    assert "Operating System :: POSIX :: Linux" in classifiers
    versions = {c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)}
    assert versions == {"3.11", "3.12", "3.13"}
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(PROJECT["urls"])


def test_textual_is_pinned_to_the_snapshot_version_and_sdks_are_capped():
    pins = dict(re.match(r"([A-Za-z0-9_.-]+)(.*)", d).groups() for d in PROJECT["dependencies"])
    assert pins["textual"] == f"=={version('textual')}"
    assert re.search(r",<\d+$", pins["openai"])
    [anthropic] = PROJECT["optional-dependencies"]["anthropic"]
    assert re.search(r",<\d+$", anthropic)


def test_outside_linux_a_platform_failure_is_one_line_not_a_traceback(monkeypatch, capsys):
    def missing_feature():
        raise AttributeError("module 'os' has no attribute 'sched_getaffinity'")

    monkeypatch.setattr(skyt_tui.cli, "start_app", missing_feature)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("skyt-tui: error: skyt-tui runs generated code in a Linux sandbox")
    assert "does not support darwin" in err and "sched_getaffinity" in err


def test_on_linux_such_a_failure_keeps_its_traceback(monkeypatch):
    def bug():
        raise AttributeError("a bug")

    monkeypatch.setattr(skyt_tui.cli, "start_app", bug)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(AttributeError):
        main([])


def test_readme_is_short_and_renders_on_pypi():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert images and all(url.startswith("https://") for url in images)
    for url in images:  # the image is one this checkout holds, at the same path
        assert (ROOT / url.split("/main/", 1)[1]).is_file()
    links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)]+)\)", readme)
    assert all(url.startswith("https://") for url in links), "relative links break on PyPI"
    for command in (
        "pipx install skyt-tui",
        "pipx inject skyt-tui anthropic",
        "python3 -m pip install 'skyt-tui[anthropic]'",
        "python3 -m pip install -e '.[test]' && skyt-tui demo && skyt-tui",
        "python3 -m pytest -n 2 -q",
    ):
        assert command in readme
