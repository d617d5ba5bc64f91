"""The app's main flows, driven with Pilot: first start, sections, help, palette, contracts, the run dialog."""

import threading

import pytest
from textual.widgets import DataTable, Input, Select

from skyt_tui.ui import data
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.commands import BindingCommands
from skyt_tui.ui.help import HelpScreen
from skyt_tui.ui.run_request import RunRequest
from skyt_tui.ui.screens.contracts import ContractsScreen
from skyt_tui.ui.screens.run_dialog import RunDialog
from skyt_tui.ui.widgets.run_progress import RunProgress
from tests.ui_support import notifications, pilot_test, sample_analyses, screen_text

SECTION_TEXT = {
    "1": ("contracts", "fibonacci_iterative"),
    "2": ("runs", "No runs yet"),
    "3": ("canon", "No canon yet"),
    "4": ("heatmap", "No run to draw yet"),
    "5": ("benchmark", "No benchmarks yet"),
}

BROKEN = '''id = "broken"
version = 1
prompt = "Write f."
difficulty = "extreme"
[entry]
name = "f"
[[tests]]
kind = "call"
args = [1]
expected = 1
'''


async def select_contract(pilot, contract_id):
    """Put the contracts table's cursor on the row of `contract_id` (bundled contracts come and go)."""
    await pilot.pause()
    table = pilot.app.screen.query_one(DataTable)
    ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
    table.move_cursor(row=ids.index(contract_id))
    await pilot.pause()


def write_user_contract(home, name, text):
    directory = home / "contracts"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")


@pilot_test
async def test_first_start_with_empty_store_welcomes_with_demo_and_providers():
    app = SkytApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "welcome"
        shown = screen_text(app)
        assert "Welcome to skyt-tui" in shown
        assert "skyt-tui demo" in shown
        assert "OPENAI_API_KEY" in shown and "--provider replay" in shown


@pilot_test
async def test_a_store_with_runs_starts_on_contracts(isolated_home):
    run = isolated_home / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}", encoding="utf-8")
    app = SkytApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "contracts"
        await pilot.press("2")
        # the stored run cannot be read by this build yet, and the screen says so instead of "no runs"
        assert "cannot show them yet" in screen_text(app)


@pilot_test
async def test_keys_1_to_5_switch_sections_and_each_is_filled():
    app = SkytApp()
    async with app.run_test(size=(120, 36)) as pilot:
        for key, (mode, text) in SECTION_TEXT.items():
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode
            shown = screen_text(app)
            assert text in shown, (mode, shown)
            assert shown.splitlines()[0].startswith(" skyt-tui")


@pilot_test
async def test_section_bar_is_clickable():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        line = screen_text(app).splitlines()[0]
        await pilot.click(offset=(line.index("4 Heatmap") + 2, 0))
        await pilot.pause()
        assert app.current_mode == "heatmap"


@pilot_test
async def test_question_mark_lists_every_active_key():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = {(action.keys, action.description) for action in app.screen.actions}
        for expected in {("r", "Run…"), ("^r", "Reload"), ("?", "Help"), ("1", "Contracts"), ("5", "Benchmark"),
                         ("t", "Light/dark theme")}:
            assert expected in listed
        assert any(action.description == "Quit" and "q" in action.keys.split(" / ") for action in app.screen.actions)
        shown = screen_text(app)
        assert "Run…" in shown and "Everywhere" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, ContractsScreen)


@pilot_test
async def test_q_quits():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code == 0


@pilot_test
async def test_t_toggles_light_and_dark():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.current_theme.dark
        await pilot.press("t")
        assert app.theme == "textual-light" and not app.current_theme.dark
        await pilot.press("t")
        assert app.current_theme.dark


@pilot_test
async def test_palette_offers_every_footer_action_and_the_sections():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        system = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme" in system and "Quit" not in system  # quit comes once, from the bindings
        provider = BindingCommands(app.screen)
        names = [hit.text async for hit in provider.discover()]
        for expected in ("Contracts: Run…", "Contracts: Reload", "Help", "Quit", "Light/dark theme",
                         "Contracts", "Runs", "Canon", "Heatmap", "Benchmark"):
            assert expected in names, names
        hits = [hit async for hit in provider.search("heatmap")]
        assert hits and hits[0].text == "Heatmap"
        await hits[0].command()
        await pilot.pause()
        assert app.current_mode == "heatmap"


@pilot_test
async def test_contracts_show_bundled_and_invalid_user_contracts(isolated_home):
    write_user_contract(isolated_home, "broken.toml", BROKEN)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert "broken.toml" in ids and "fibonacci_iterative" in ids
        await select_contract(pilot, "broken.toml")
        shown = screen_text(app)
        # under the list, the file's one-line error (wrapped to the pane)
        assert "✗ broken.toml: difficulty: must be one of" in shown
        assert shown.count("'extreme'") == 2  # in the list pane and in the detail
        # the invalid row's detail repeats the error; the valid one shows prompt, tests and reference
        assert "Fix the file and press ctrl+r" in shown
        await select_contract(pilot, "fibonacci_iterative")
        shown = screen_text(app)
        assert "Fibonacci number, iteratively" in shown
        assert "fibonacci(10) == 55" in shown
        assert "fibonacci(n=30) == 832040" in shown
        assert "def fibonacci(n):" in shown


@pilot_test
async def test_reload_picks_up_a_fixed_contract(isolated_home):
    write_user_contract(isolated_home, "broken.toml", BROKEN)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        write_user_contract(isolated_home, "broken.toml", BROKEN.replace("extreme", "hard"))
        await pilot.press("ctrl+r")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert "broken" in ids and "broken.toml" not in ids
        assert "✗" not in screen_text(app)


@pilot_test
async def test_running_an_invalid_contract_is_refused(isolated_home):
    write_user_contract(isolated_home, "broken.toml", BROKEN)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "broken.toml")
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ContractsScreen)
        assert any("Cannot run an invalid contract" in message for message in notifications(app))


async def start_run(pilot, **values):
    """Open the run dialog on fibonacci_iterative, fill it and submit it."""
    await select_contract(pilot, "fibonacci_iterative")
    await pilot.press("r")
    await pilot.pause()
    await fill_dialog(pilot, **values)
    await pilot.press("ctrl+s")
    await pilot.pause()


async def fill_dialog(pilot, **values):
    dialog = pilot.app.screen
    assert isinstance(dialog, RunDialog)
    for field, value in values.items():
        if field == "provider":
            dialog.query_one("#field-provider", Select).value = value
        else:
            dialog.query_one(f"#field-{field}", Input).value = value
    await pilot.pause()


@pilot_test
async def test_run_dialog_shows_every_bad_field_and_stays_open():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        await fill_dialog(pilot, model=" ", n="0", temperatures="0.2, hot", concurrency="many")
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RunDialog)
        shown = screen_text(app)
        assert "must be between 1 and 1000" in shown
        assert "'hot' is not a number" in shown
        errors = {field: str(dialog.query_one(f"#error-{field}").render()) for field in
                  ("provider", "model", "n", "temperatures", "concurrency")}
        assert errors["provider"] == ""
        assert errors["model"].startswith("↑ required")
        assert "must be a whole number" in errors["concurrency"]
        assert app.focused is dialog.query_one("#field-model")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ContractsScreen)


@pilot_test
async def test_run_dialog_returns_a_request_and_says_the_engine_is_missing(monkeypatch):
    monkeypatch.setattr(data, "run_engine_available", lambda: False)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        await fill_dialog(pilot, provider="anthropic", model="claude-x", n="5", temperatures="0, 0.7", concurrency="2")
        await pilot.click("#run-start")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ContractsScreen)
        assert screen.last_request == RunRequest(contract_id="fibonacci_iterative", provider="anthropic",
                                                 model="claude-x", n=5, temperatures=(0.0, 0.7), concurrency=2)
        assert "run engine not available in this build" in notifications(app)
        assert not screen.query_one(RunProgress).running
        # the dialog remembers the last request
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query_one("#field-temperatures", Input).value == "0, 0.7"


@pilot_test
async def test_a_run_shows_live_progress_and_failures():
    seen: list[RunRequest] = []

    def executor(request, report, cancelled):
        seen.append(request)
        total = request.n * len(request.temperatures)
        report(data.SampleProgress(index=0, total=total, passed=True))
        report(data.SampleProgress(index=1, total=total, failed=True, message="HTTP 429 [rate limited]"))
        report(data.SampleProgress(index=2, total=total, passed=False))
        return data.RunOutcome(run_ids=("fib-run-1",), n_done=2, n_failed=1)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot, n="3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        progress = app.screen.query_one(RunProgress)
        assert seen[0].n == 3 and seen[0].contract_id == "fibonacci_iterative"
        assert progress.marks == ["passed", "failed", "done"]
        assert (progress.done, progress.total) == (3, 3)
        shown = screen_text(app)
        assert "✓✗○" in shown
        assert "sample 1: HTTP 429 [rate limited]" in shown  # provider text shown as is, not as markup
        assert "Finished: 2 samples, 1 failed — fib-run-1" in shown


@pilot_test
async def test_a_run_can_be_cancelled():
    started = threading.Event()

    def executor(request, report, cancelled):
        report(data.SampleProgress(index=0, total=request.n, passed=True))
        started.set()
        while not cancelled():
            threading.Event().wait(0.01)
        return data.RunOutcome(run_ids=(), n_done=1, n_failed=0, cancelled=True)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot)
        assert started.wait(5)
        screen = app.screen
        assert screen.query_one(RunProgress).running
        assert "c" in screen.active_bindings  # cancel is offered only while a run is going
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.query_one(RunProgress).running
        assert "Cancelled: 1 samples, 0 failed" in screen_text(app)
        assert "c" not in screen.active_bindings


@pilot_test
async def test_an_engine_error_is_shown_not_raised():
    def executor(request, report, cancelled):
        raise data.RunEngineUnavailable("provider openai: OPENAI_API_KEY is not set")

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Run failed: provider openai: OPENAI_API_KEY is not set" in screen_text(app)


def test_execute_run_is_not_connected_in_this_build():
    with pytest.raises(data.RunEngineUnavailable):
        data.execute_run(RunRequest("c", "openai", "m", 1, (0.0,), 1), lambda progress: None, lambda: False)


@pilot_test
async def test_heatmap_section_draws_runs_and_opens_a_pair_diff():
    analyses = sample_analyses()
    app = SkytApp(analyses=analyses, start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        heatmap = screen.query_one("#heatmap")
        assert heatmap.n == 20
        shown = screen_text(app)
        assert "fib-handwritten-t07" in shown and "level nodoc" in shown
        assert "order: generation — no canon" in shown
        await pilot.press("down", "down", "down", "right")
        assert "sample 3 × sample 1: d = " in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        diff = screen_text(app)
        assert "--- sample 3" in diff and "+++ sample 1" in diff
        assert "-    if n < 1:" in diff and "+    if n <= 0:" in diff
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


@pilot_test
async def test_heatmap_level_toggle_recomputes_the_matrix():
    from skyt_tui.engine.distance import pairwise_matrix

    analyses = sample_analyses()
    app = SkytApp(analyses=analyses, start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        heatmap = screen.query_one("#heatmap")
        await pilot.press("v")  # nodoc → alpha
        assert screen.level == "alpha"
        expected = pairwise_matrix([norm.texts["alpha"] for norm in analyses[0].normalized])
        assert (screen.matrix() == expected).all()
        # samples 18 and 0 differ only in local names: identical at alpha, not at nodoc
        assert analyses[0].pairwise[18, 0] > 0 and expected[18, 0] == 0.0
        heatmap.move_cursor(18, 0)
        await pilot.pause()
        assert heatmap.cursor_distance == 0.0
        assert "sample 18 × sample 0: d = 0.000" in screen_text(app)
        assert "level alpha" in screen_text(app)
        await pilot.press("v", "v")  # alpha → raw → format
        assert screen.level == "format"
        # samples 2 and 0 differ only by a docstring: apart at format, identical at nodoc
        assert heatmap.distance_at(2, 0) > 0 and analyses[0].pairwise[2, 0] == 0.0


@pilot_test
async def test_heatmap_post_repair_and_canon_order_say_what_is_missing():
    app = SkytApp(analyses=sample_analyses(), start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("p")
        assert not app.screen.post_repair
        assert any("post-repair matrix not available yet" in message for message in notifications(app))
        await pilot.press("o")
        assert app.screen.order_mode == "generation"
        await pilot.press("v", "right_square_bracket")
        await pilot.pause()
        assert app.screen.run_index == 1 and app.screen.query_one("#heatmap").n == 10
        assert app.screen.level == "alpha"  # the chosen level stays when the run changes
        assert "fib-handwritten-t00" in screen_text(app)


@pilot_test
async def test_heatmap_of_a_run_without_samples_says_so(tmp_path):
    from skyt_tui.engine.analysis import analyze_run
    from skyt_tui.engine.sources import load_samples_jsonl

    source = tmp_path / "failed.jsonl"
    source.write_text('{"run_id": "all-failed", "code": null}\n{"run_id": "all-failed", "code": null}\n')
    analyses = [analyze_run(run) for run in load_samples_jsonl(source)] + sample_analyses()
    app = SkytApp(analyses=analyses, start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#heatmap").n == 0
        assert "no samples to compare: 2 generation(s) failed" in screen_text(app)
        await pilot.press("enter", "down", "v")
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert "sample 0 × sample 0: d = 0.000" in screen_text(app)


@pilot_test
async def test_every_section_fits_80_by_24():
    app = SkytApp(analyses=sample_analyses())
    async with app.run_test(size=(80, 24)) as pilot:
        for key, (mode, text) in SECTION_TEXT.items():
            await pilot.press(key)
            await pilot.pause()
            shown = screen_text(app)
            lines = shown.splitlines()
            assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
            expected = "fib-handwritten-t07" if mode == "heatmap" else text
            assert expected in shown, (mode, shown)
            assert "Help" in lines[-1] and "palette" in lines[-1]
