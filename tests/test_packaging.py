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
    def missing_feature(notice=None):
        raise AttributeError("module 'os' has no attribute 'sched_getaffinity'")

    monkeypatch.setattr(skyt_tui.cli, "start_app", missing_feature)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("skyt-tui: error: skyt-tui runs generated code in a Linux sandbox")
    assert "does not support darwin" in err and "sched_getaffinity" in err


def test_on_linux_such_a_failure_keeps_its_traceback(monkeypatch):
    def bug(notice=None):
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
        "python3 -m pip install -e '.[test,plots]'",
        "python3 -m pytest -n 2 -q",
    ):
        assert command in readme


def readme_commands() -> list[str]:
    """Every line of the README's shell blocks, continuation lines joined."""
    readme = (ROOT / "README.md").read_text()
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", readme, re.S):
        lines += block.replace("\\\n", " ").splitlines()
    return [line.split("  #")[0].strip() for line in lines if line.strip()]


def test_the_readme_installs_from_the_checkout_first():
    """Issue 27.5: skyt-tui is not on the package index yet, so the first install command a
    newcomer meets installs the checkout, with the extra its own study example needs."""
    commands = readme_commands()
    installs = [c for c in commands if re.search(r"\b(pipx|pip) install\b", c)]
    assert installs and re.fullmatch(r"pipx install '\.\[plots\]'", installs[0]), installs
    assert commands.index(installs[0]) > 0 and commands[0].startswith("git clone ")
    assert any("--figures" in c for c in commands), "the plots extra is there for a reason"


def test_every_skyt_tui_command_in_the_readme_parses():
    """The README's commands are ones this skyt-tui takes (options and all)."""
    import shlex

    from skyt_tui.cli import build_parser
    from skyt_tui.cli.commands import command_on_line

    checked = 0
    for line in readme_commands():
        for part in re.split(r"&&|;", line):
            words = shlex.split(part)
            if not words or words[0] != "skyt-tui":
                continue
            argv = words[1:]  # shell variables ($D) stand for paths: parsed as written
            parser = build_parser(command_on_line(argv))
            try:
                parser.parse_args(argv)
            except SystemExit as exc:
                raise AssertionError(f"README: {part.strip()!r} does not parse") from exc
            checked += 1
    assert checked >= 15
