"""Terminal escapes (issue 13, class 6): nothing a sample controls reaches a terminal raw.

An exception type and message, printed output, a file name, the program text itself: each
can carry escape sequences (clear the screen, set the window title, recolour). They are made
printable (control characters shown as escapes) in the verdict itself, and again wherever the
CLI or the app shows them, so old records are safe too.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rich.console import Console

from skyt_tui.engine.printable import json_printable, printable
from skyt_tui.engine.runs.analysis_record import OracleSummary
from skyt_tui.engine.sandbox import pool as sandbox
from skyt_tui.ui.diff_text import unified_diff_text
from skyt_tui.ui.run_text import verdict_text

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = Path(__file__).parent / "fixtures" / "oracle" / "hostile.toml"
RAW = ("\x1b", "\x9b", "\x07", "\u202e")
"""ESC, the one-byte CSI (C1), BEL (ends a title sequence) and a right-to-left override."""
EVIL = "\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x9b6n\u202eevil"


def modes():
    problem = sandbox._bwrap_probe()
    return [
        pytest.param(
            "bubblewrap", marks=pytest.mark.skipif(problem is not None, reason=str(problem))
        ),
        "reduced",
    ]


def test_control_characters_are_shown_as_escapes():
    assert printable(EVIL) == "\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\x9b6n\\u202eevil"
    assert printable("a\nb\tc\r") == "a\\nb\\tc\\r"
    assert printable("a\nb\tc\r", multiline=True) == "a\nb\tc\\r"
    assert printable("\U000e0001 \ud800") == "\\U000e0001 \\ud800"


def test_printable_text_is_left_alone_and_escaping_twice_changes_nothing():
    for text in ("plain", "naïve – ✓ μ 中文", "C:\\path\\x1b"):
        assert printable(text) == text
    assert printable(printable(EVIL)) == printable(EVIL)
    assert not set(RAW) & set(printable(EVIL))


def inert(shown: str) -> bool:
    """No escape sequence of the sample's survives (the renderer's own colours may)."""
    return not any(part in shown for part in ("\x1b]", "\x1b[2J", "\x9b", "\x07", "\u202e"))


def test_json_keeps_its_meaning_without_terminal_active_characters():
    text = json.dumps({"reason": EVIL, "ok": "é μ"}, ensure_ascii=False)
    safe = json_printable(text)
    assert not any(char in safe for char in RAW)
    assert json.loads(safe) == json.loads(text)
    assert "é μ" in safe


def run_cli(*args, home):
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(home), "COLUMNS": "200"},
    )


def assert_no_raw_escapes(data: bytes):
    text = data.decode("utf-8", "replace")
    assert not any(char in text for char in RAW), text[:2000]


@pytest.mark.parametrize("mode", modes())
def test_the_oracle_command_never_prints_a_samples_escapes(mode, tmp_path):
    """Piped, as a script or a CI log would read it: the table, the JSON and the error line."""
    hostile = tmp_path / f"evil{EVIL}.py"
    hostile.write_text(
        textwrap.dedent(f"""
        print({EVIL!r})
        Evil = type({EVIL!r}, (Exception,), {{}})
        raise Evil({EVIL!r})
        """)
    )
    wrong = tmp_path / "wrong.py"
    wrong.write_text(f"def solve(x):\n    return {EVIL!r}\n")
    samples = [str(hostile), str(wrong)]
    table = run_cli("oracle", str(CONTRACT), *samples, "--isolation", mode, home=tmp_path)
    assert table.returncode == 0, table.stderr
    assert b"load_error" in table.stdout and b"\\x1b[2J" in table.stdout
    assert_no_raw_escapes(table.stdout + table.stderr)
    as_json = run_cli(
        "oracle", str(CONTRACT), *samples, "--json", "--isolation", mode, home=tmp_path
    )
    assert as_json.returncode == 0
    assert_no_raw_escapes(as_json.stdout + as_json.stderr)
    report = json.loads(as_json.stdout)
    verdict = report["samples"][0]["verdict"]
    assert verdict["status"] == "load_error"
    assert verdict["reason"].isprintable() and "\\x1b]0;pwned" in verdict["reason"]
    assert EVIL in verdict["output"]  # what the sample printed is data, kept exactly
    assert report["samples"][0]["path"] == str(hostile)
    missing = run_cli("oracle", str(CONTRACT), str(tmp_path / f"gone{EVIL}.py"), home=tmp_path)
    assert missing.returncode == 2 and b"no such file" in missing.stderr
    assert_no_raw_escapes(missing.stderr)


def rendered(renderable, colour=True) -> str:
    """What a terminal would receive for `renderable`, colours and all (or without colours)."""
    console = Console(
        force_terminal=colour, color_system="truecolor" if colour else None, width=200
    )
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def test_the_apps_verdict_lines_escape_even_old_records():
    """A verdict stored before the oracle escaped its texts still shows inert."""
    oracle = {
        "reason": f"loading the program raised {EVIL}",
        "tests": [
            {
                "name": f"test {EVIL}",
                "kind": "call",
                "passed": False,
                "error_type": EVIL,
                "error_message": EVIL,
                "actual": None,
            }
        ],
    }
    shown = rendered(verdict_text(OracleSummary.from_dict(oracle), passed=False))
    assert inert(shown) and "\\x1b[2J" in shown


def test_code_and_diffs_in_the_app_escape_the_samples_text():
    from skyt_tui.ui.screens.contracts import code_syntax

    code = f'def f(x):\n    return "{EVIL}"\n'
    for renderable in (code_syntax(code, dark=True), unified_diff_text("x = 1\n", code, "a", "b")):
        assert inert(rendered(renderable))
        assert "\\x1b]0;pwned\\x07" in rendered(renderable, colour=False)


def test_the_app_shows_a_hostile_sample_inert(isolated_home, monkeypatch):
    """End to end: a stored run whose sample prints, raises and contains escapes, opened in the
    app; what the app writes to the terminal holds none of the sample's sequences."""
    import asyncio

    from textual.widgets import DataTable

    from skyt_tui.engine.contracts.catalog import get_contract
    from skyt_tui.engine.runs import analyses, run_store
    from skyt_tui.engine.runs.run_store import SampleRecord
    from skyt_tui.ui.app import SkytApp
    from tests.run_helpers import CONTRACT_ID, install_contract
    from tests.test_ui_runs import open_run
    from tests.ui_support import clock

    monkeypatch.setenv("SKYT_SANDBOX", "reduced")
    install_contract(isolated_home)
    codes = [
        "def f(x):\n    return x + 1\n",
        f"print({EVIL!r})\nEvil = type({EVIL!r}, (Exception,), {{}})\n"
        f'def f(x):\n    raise Evil("{EVIL}")\n',
    ]
    samples = [
        SampleRecord(index=i, status="ok", response=code, code=code) for i, code in enumerate(codes)
    ]
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=get_contract(CONTRACT_ID),
        provider="openai",
        model="m",
        temperature=0.5,
        n=2,
        samples=samples,
        status=run_store.COMPLETE,
    )
    analyses.analyze_stored_run(meta.id)

    async def look() -> list[str]:
        app = SkytApp(start="runs", clock=clock)
        shown = []
        async with app.run_test(size=(160, 40)) as pilot:
            screen = await open_run(pilot, meta.id)
            screen.query_one("#samples-table", DataTable).move_cursor(row=1)
            for _ in range(3):
                await pilot.pause()
                shown.append(rendered(app.screen._compositor.render_update(full=True)))
                await pilot.press("v")
        return shown

    views = asyncio.run(look())
    assert all(inert(view) for view in views)
    assert any("\\x1b]0;pwned" in view for view in views)


@pytest.mark.parametrize(
    ("error_type", "message", "actual", "shown"),
    [
        ("WrongResult", "expected 1, got 0", "0", "WrongResult expected 1, got 0"),
        (
            "TypeError",
            "TypeError: gcd() got an unexpected keyword argument 'a'",
            '{"$raised":"TypeError"}',
            "TypeError: gcd() got an unexpected keyword argument 'a'",
        ),
        (None, None, "[1, 2]", "wrong result (got [1, 2])"),
        ("AssertionError", "", "3", "AssertionError (got 3)"),
    ],
)
def test_a_failed_tests_line_says_each_thing_once(error_type, message, actual, shown):
    """The app's line for a failed test repeated itself ("expected 1, got 0 (got 0)",
    "TypeError TypeError: …") and showed the oracle's encoding of a raised call
    ("(got {"$raised":"TypeError"})")."""
    oracle = {
        "tests": [
            {
                "name": "t",
                "kind": "call",
                "passed": False,
                "error_type": error_type,
                "error_message": message,
                "actual": actual,
            }
        ]
    }
    line = rendered(verdict_text(OracleSummary.from_dict(oracle), passed=False), colour=False)
    assert line.strip() == f"✗ t: {shown}"
