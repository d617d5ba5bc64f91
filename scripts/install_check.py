"""Install skyt-tui as a user would and check that it works: a built wheel in a fresh venv, and pipx.

    python3 scripts/install_check.py [--no-pipx] [--keep]

1. builds the wheel (`pip wheel --no-deps`) and checks it carries the bundled contracts,
   the examples, the stylesheet and the license;
2. installs it into a fresh virtual environment (dependencies from the package index) and
   runs `skyt-tui --version`, `skyt-tui demo` (into a temporary SKYT_HOME) and the app
   headless until its first screen is ready (SKYT_TUI_EXIT_WHEN_READY);
3. with pipx (installed into its own venv when not on PATH), `pipx install`s the wheel and
   runs the same three checks, then checks that `--provider anthropic` without the extra
   says `pipx inject skyt-tui anthropic`.

Exit code 0 when every check passed; each check prints one line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEEL_MUST_HOLD = (
    "skyt_tui/bundled/contracts/",
    "skyt_tui/bundled/examples/",
    "skyt_tui/ui/styles.tcss",
    "LICENSE",
)


class CheckFailed(Exception):
    pass


def step(name: str, argv: list[str], env: dict[str, str] | None = None, expect: str = "") -> str:
    result = subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=900, cwd=tempfile.gettempdir()
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 or expect not in output:
        tail = "\n".join(output.strip().splitlines()[-15:])
        raise CheckFailed(f"{name}: exit {result.returncode}\n{tail}")
    print(f"ok  {name}", flush=True)
    return output


def build_wheel(out: Path) -> Path:
    step(
        "build the wheel",
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)],
    )
    [wheel] = out.glob("skyt_tui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in WHEEL_MUST_HOLD:
        if not any(needed in name for name in names):
            raise CheckFailed(f"the wheel {wheel.name} has no {needed}")
    if not any(n.startswith("skyt_tui/bundled/contracts/") and n.endswith(".toml") for n in names):
        raise CheckFailed("the wheel's bundled contracts are not files (a symlink was not copied)")
    print(f"ok  the wheel holds the contracts, examples, stylesheet and license ({wheel.name})")
    return wheel


def check_installed(label: str, skyt: Path, home: Path, env: dict[str, str]) -> None:
    env = {**env, "SKYT_HOME": str(home)}
    env.pop("PYTHONPATH", None)
    step(f"{label}: skyt-tui --version", [str(skyt), "--version"], env, expect="skyt-tui ")
    step(f"{label}: skyt-tui demo", [str(skyt), "demo"], env, expect="demo")
    step(
        f"{label}: the app starts headless",
        [str(skyt)],
        {**env, "SKYT_TUI_EXIT_WHEN_READY": "1"},
        expect="Screen",
    )


def check_venv(work: Path, wheel: Path) -> None:
    target = work / "venv"
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    step("venv: pip install the wheel", [str(python), "-m", "pip", "install", "-q", str(wheel)])
    check_installed("venv", target / "bin" / "skyt-tui", work / "home-venv", dict(os.environ))


def pipx_command(work: Path) -> list[str]:
    found = shutil.which("pipx")
    if found:
        return [found]
    tools = work / "pipx-tool"
    venv.create(tools, with_pip=True)
    step("install pipx", [str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "pipx"])
    return [str(tools / "bin" / "pipx")]


def check_pipx(work: Path, wheel: Path) -> None:
    pipx = pipx_command(work)
    env = {
        **os.environ,
        "PIPX_HOME": str(work / "pipx-home"),
        "PIPX_BIN_DIR": str(work / "pipx-bin"),
        "PIPX_MAN_DIR": str(work / "pipx-man"),
    }
    env.pop("PYTHONPATH", None)
    step("pipx install the wheel", [*pipx, "install", str(wheel)], env)
    skyt = work / "pipx-bin" / "skyt-tui"
    check_installed("pipx", skyt, work / "home-pipx", env)
    home = work / "home-pipx"
    out = subprocess.run(
        [
            str(skyt),
            "run",
            "fibonacci_iterative",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "-n",
            "1",
        ],
        capture_output=True,
        text=True,
        env={**env, "SKYT_HOME": str(home), "ANTHROPIC_API_KEY": "unused"},
        timeout=300,
    )
    if "pipx inject skyt-tui anthropic" not in out.stderr:
        raise CheckFailed(f"pipx: the missing-extra message is {out.stderr.strip()!r}")
    print("ok  pipx: --provider anthropic without the extra says `pipx inject skyt-tui anthropic`")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-pipx", action="store_true", help="skip the pipx checks")
    parser.add_argument("--keep", action="store_true", help="keep the work folder and print it")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="skyt-install-check-"))
    try:
        wheel = build_wheel(work / "dist")
        check_venv(work, wheel)
        if not args.no_pipx:
            check_pipx(work, wheel)
    except CheckFailed as failed:
        print(f"FAILED {failed}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"work folder: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("install check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
