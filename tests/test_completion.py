"""`skyt-tui completion {bash,zsh,fish}` (issue 27, observation 9): the README's promise holds,
and the scripts come from the full parser, so they know every command and option."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.cli.commands import COMMANDS
from skyt_tui.cli.completion_cmd import SHELLS, full_parser

ROOT = Path(__file__).resolve().parents[1]


def completion(shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "completion", shell],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def bash_completes(script: Path, *words: str) -> list[str]:
    """What bash offers after `skyt-tui WORDS...` (the last word being completed)."""
    line = " ".join(words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=(skyt-tui {line}); COMP_CWORD={len(words)}; COMP_LINE='skyt-tui {line}'\n"
        "COMP_POINT=${#COMP_LINE}\n"
        "_shtab_skyt_tui\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60)
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_subcommands_and_options(tmp_path):
    script = tmp_path / "skyt-tui.bash"
    script.write_text(completion("bash"))
    assert bash_completes(script, "") == list(COMMANDS)
    assert bash_completes(script, "st") == ["study"]
    assert bash_completes(script, "study", "re") == ["report"]
    assert "--temperature" in bash_completes(script, "run", "--te")
    assert bash_completes(script, "completion", "") == list(SHELLS)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command_and_option(shell):
    text = completion(shell)
    assert ("#compdef skyt-tui" if shell == "zsh" else "complete -c skyt-tui") in text
    for name in COMMANDS:
        assert name in text
    assert "--temperature" in text and "--retry-budget" in text


def test_the_full_parser_registers_every_command_with_its_arguments():
    [sub] = [a for a in full_parser()._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert set(sub.choices) == set(COMMANDS)
    for name, parser in sub.choices.items():
        assert parser.get_default("handler") is not None or parser._subparsers, name


def test_an_unknown_shell_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["completion", "powershell"])
    assert stop.value.code == 2
    assert "invalid choice: 'powershell'" in capsys.readouterr().err
