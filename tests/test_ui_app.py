"""The app's main flows, driven with Pilot: first start, the five sections over the demo, help, palette,
contracts, and starting a run (with a stand-in executor, and once for real through the engine)."""

import shutil
import sys
import threading

import pytest
from textual.widgets import DataTable, Input, Select

from skyt_tui.engine.demo import DemoResult
from skyt_tui.engine.runs import run_store
from skyt_tui.ui import canon_data, demo_data, run_data, run_execution, run_form
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.commands import BindingCommands
from skyt_tui.ui.help import HelpScreen
from skyt_tui.ui.run_request import RunRequest
from skyt_tui.ui.screens.contracts import ContractsScreen
from skyt_tui.ui.screens.run_dialog import RunDialog
from skyt_tui.ui.widgets.run_progress import RunProgress
from tests.ui_support import clock, notifications, pilot_test, screen_text, settle

EMPTY_TEXT = {
    "1": ("contracts", "fibonacci_iterative"),
    "2": ("runs", "No runs yet"),
    "3": ("canon", "none"),
    "4": ("heatmap", "No run to draw yet"),
    "5": ("benchmark", "No benchmarks yet"),
}
DEMO_TEXT = {
    "1": ("contracts", "fibonacci_iterative"),
    "2": ("runs", "0.286  0.429→0.714"),
    "3": ("canon", "canon of balanced_brackets · ok"),
    "4": ("heatmap", "level nodoc (v) · before repair (p) · order: distance to canon (o)"),
    "5": ("benchmark", "anchor sample"),
}

BROKEN = """id = "broken"
version = 1
prompt = "Write f."
difficulty = "extreme"
[entry]
name = "f"
[[tests]]
kind = "call"
args = [1]
expected = 1
"""


@pytest.fixture(autouse=True)
def provider_keys(monkeypatch):
    """The run dialog checks the provider's key is set; these tests stand in an executor (no request is sent)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")


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
        # keys 1–5 switch sections, and each says what it is for and how to fill it: never a blank screen
        for key, (mode, text) in EMPTY_TEXT.items():
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode
            shown = screen_text(app)
            assert text in shown, (mode, shown)
            assert shown.splitlines()[0].startswith(" skyt-tui")


@pilot_test
async def test_d_on_the_welcome_page_loads_the_demo(demo_store, isolated_home, monkeypatch):
    calls = []

    def load_demo(now):  # the session's demo store stands in for building it again
        calls.append(now)
        shutil.copytree(demo_store, isolated_home / "demo", dirs_exist_ok=True)
        return DemoResult(created=(), existing=(), skipped=())

    monkeypatch.setattr(demo_data, "load_demo", load_demo)
    app = SkytApp(clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "welcome" and "press d" in screen_text(app)
        await pilot.press("d")
        await settle(pilot)
        assert calls == [clock()]
        assert app.current_mode == "runs"
        assert "6 runs, newest first" in screen_text(app)
        assert screen_text(app).startswith(" skyt-tui  DEMO "), "the demo's own store, marked"
        assert not (isolated_home / "runs").exists()


@pilot_test
async def test_a_store_with_runs_starts_on_contracts_and_lists_a_damaged_run(isolated_home):
    run = isolated_home / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}", encoding="utf-8")
    app = SkytApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "contracts"
        await pilot.press("2")
        await settle(pilot)
        shown = screen_text(app)
        assert "r1 (damaged)" in shown and "run.json: corrupt file" in shown


@pilot_test
async def test_after_the_demo_every_section_is_filled(demo_home):
    app = SkytApp(clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "contracts"
        for key, (mode, text) in DEMO_TEXT.items():
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode
            assert text in screen_text(app), (mode, screen_text(app))


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
        for expected in {
            ("r", "Run…"),
            ("^r", "Reload"),
            ("?", "Help"),
            ("1", "Contracts"),
            ("5", "Benchmark"),
            ("t", "Light/dark theme"),
        }:
            assert expected in listed
        assert any(
            action.description == "Quit" and "q" in action.keys.split(" / ")
            for action in app.screen.actions
        )
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
        for expected in (
            "Contracts: Run…",
            "Contracts: Reload",
            "Help",
            "Quit",
            "Light/dark theme",
            "Contracts",
            "Runs",
            "Canon",
            "Heatmap",
            "Benchmark",
        ):
            assert expected in names, names
        hits = [hit async for hit in provider.search("heatmap")]
        hits.sort(key=lambda hit: hit.score, reverse=True)  # as the palette shows them
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
        errors = {
            field: str(dialog.query_one(f"#error-{field}").render())
            for field in ("provider", "model", "n", "temperatures", "concurrency")
        }
        assert errors["provider"] == ""
        assert errors["model"].startswith("↑ required")
        assert "must be a whole number" in errors["concurrency"]
        assert app.focused is dialog.query_one("#field-model")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ContractsScreen)


PROFILES = """
[profiles.local]
provider = "openai"
model = "qwen-coder"
base_url = "http://localhost:11434/v1"
temperature = 0.0
n = 6
concurrency = 2

[profiles.mine]
provider = "command"
command = "python3 answer.py"
timeout = 60
"""


@pilot_test
async def test_run_dialog_profile_fills_the_fields_and_starts_with_them(isolated_home):
    """A saved provider profile ([profiles.NAME] in settings.toml) is the dialog's first field;
    choosing one fills provider, model, base URL and the numbers it sets."""
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text(PROFILES)
    seen = []

    def executor(request, report, cancel):
        seen.append(request)
        return run_execution.RunOutcome(run_ids=(), n_done=0, n_failed=0)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, RunDialog)
        profile = dialog.query_one("#field-profile", Select)
        assert app.focused is profile, "the profile list is the first field"
        profile.value = "mine"
        await pilot.pause()
        assert dialog.query_one("#field-provider", Select).value == "command"
        assert dialog.query_one("#field-target", Input).value == "python3 answer.py"
        assert "Command" in str(dialog.query_one("#label-target").render())
        profile.value = "local"
        await pilot.pause()
        assert dialog.query_one("#field-target", Input).value == "http://localhost:11434/v1"
        await pilot.click("#run-start")
        await settle(pilot)
    assert seen == [
        RunRequest(
            contract_id="fibonacci_iterative",
            provider="openai",
            model="qwen-coder",
            n=6,
            temperatures=(0.0,),
            concurrency=2,
            target="http://localhost:11434/v1",
            timeout_s=60.0,
        )
    ], "values the chosen profile does not set stay as they were (timeout from 'mine')"


@pilot_test
async def test_run_dialog_saves_its_values_as_a_new_profile(isolated_home, monkeypatch):
    """Issue 14.9: "Save as profile…" asks a name and keeps the dialog's checked values as
    [profiles.NAME] in settings.toml, next to the profiles already there; the dialog stays open.
    A missing API key does not stop the save (the profile is for later)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    from skyt_tui.engine.settings import Profile, load_settings
    from skyt_tui.ui.screens.run_dialog import ProfileNameScreen

    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text(PROFILES)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        dialog = app.screen
        await fill_dialog(
            pilot,
            provider="openai",
            model="qwen2.5-coder",
            target="",
            n="8",
            temperatures="0.2",
            concurrency="3",
            timeout="30",
            seed="11",
            system="Code only.",
        )
        await pilot.press("ctrl+s")  # starting needs the key …
        await pilot.pause()
        assert app.screen is dialog and "OPENAI_API_KEY is not set" in screen_text(app)
        await pilot.click("#run-save-profile")  # … saving a profile does not
        await pilot.pause()
        assert isinstance(app.screen, ProfileNameScreen)
        assert "Save as profile" in screen_text(app)
        await pilot.press(*"local", "enter")  # taken: refused, the prompt stays
        await pilot.pause()
        assert isinstance(app.screen, ProfileNameScreen)
        assert "a profile 'local' exists already" in screen_text(app)
        app.screen.query_one("#profile-name", Input).value = "bad name"
        await pilot.press("enter")
        await pilot.pause()
        assert "letters, digits" in screen_text(app)
        app.screen.query_one("#profile-name", Input).value = "llama-local"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "back in the run dialog, nothing started"
        assert any("Saved profile llama-local" in n for n in notifications(app))
        assert dialog.query_one("#field-profile", Select).value == "llama-local"
        settings = load_settings()
        assert list(settings.profiles) == ["local", "mine", "llama-local"]
        assert settings.profiles["llama-local"] == Profile(
            provider="openai",
            model="qwen2.5-coder",
            n=8,
            temperature=0.2,
            timeout=30.0,
            seed=11,
            system="Code only.",
            concurrency=3,
        )
        await fill_dialog(pilot, n="0")  # a bad value is shown on its field, nothing asked
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.screen is dialog and "must be between" in screen_text(app)
    assert run_store.run_ids() == []


@pilot_test
async def test_run_dialog_returns_a_request_and_remembers_it():
    seen = []

    def executor(request, report, cancel):
        seen.append(request)
        return run_execution.RunOutcome(run_ids=(), n_done=0, n_failed=0)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        await fill_dialog(
            pilot,
            provider="anthropic",
            model="claude-x",
            n="5",
            temperatures="0, 0.7",
            concurrency="2",
        )
        await pilot.click("#run-start")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ContractsScreen)
        expected = RunRequest(
            contract_id="fibonacci_iterative",
            provider="anthropic",
            model="claude-x",
            n=5,
            temperatures=(0.0, 0.7),
            concurrency=2,
        )
        assert screen.last_request == expected and seen == [expected]
        # the dialog remembers the last request
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query_one("#field-temperatures", Input).value == "0, 0.7"


@pilot_test
async def test_the_run_dialog_keeps_its_memory_apart_from_the_cli_defaults(isolated_home):
    """Issue 27.9: a run started in the dialog leaves settings.toml's `[run]` defaults (which
    `skyt-tui run` uses) as they were; the dialog's own file gives its values back next start."""
    from skyt_tui import locations
    from skyt_tui.engine.settings import load_settings

    settings = isolated_home / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[run]\nprovider = "openai"\nmodel = "cli-model"\nn = 7\n')
    before = settings.read_bytes()

    def executor(request, report, cancel):
        return run_execution.RunOutcome(run_ids=(), n_done=0, n_failed=0)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query_one("#field-model", Input).value == "cli-model"
        await fill_dialog(pilot, provider="anthropic", model="dialog-model", n="3")
        await pilot.click("#run-start")
        await settle(pilot)
    assert settings.read_bytes() == before
    assert load_settings().run.model == "cli-model" and load_settings().run.n == 7
    assert locations.run_dialog_file().is_file()
    app = SkytApp(start="contracts", run_executor=executor)  # a new start
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "fibonacci_iterative")
        await pilot.press("r")
        await pilot.pause()
        values = {f: app.screen.query_one(f"#field-{f}", Input).value for f in ("model", "n")}
        assert values == {"model": "dialog-model", "n": "3"}


def test_a_damaged_run_dialog_memory_is_named_and_the_settings_still_used(isolated_home):
    from skyt_tui import locations

    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text('[run]\nmodel = "cli-model"\n')
    locations.run_dialog_file().write_text("[form]\nmodel = 3\n")
    values, error = run_form.run_form_defaults()
    assert values["model"] == "cli-model"
    assert error and "run-dialog.toml: form.model: must be text" in error
    locations.run_dialog_file().write_text("[form\n")
    values, error = run_form.run_form_defaults()
    assert values["model"] == "cli-model" and "run-dialog.toml" in (error or "")


@pilot_test
async def test_the_third_field_follows_the_provider():
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        await fill_dialog(pilot, provider="command")
        assert str(app.screen.query_one("#label-target").render()) == "Command"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "required: the program that answers" in screen_text(app)
        await fill_dialog(pilot, provider="replay")
        assert str(app.screen.query_one("#label-target").render()) == "Recording"


@pilot_test
async def test_a_run_shows_live_progress_and_failures():
    seen: list[RunRequest] = []

    def executor(request, report, cancel):
        seen.append(request)
        total = request.n * len(request.temperatures)
        report(run_execution.SampleProgress(index=0, total=total, passed=True))
        report(
            run_execution.SampleProgress(
                index=1, total=total, failed=True, message="HTTP 429 [rate limited]"
            )
        )
        report(
            run_execution.SampleProgress(
                index=1, total=total, retry=True, message="sample 1: HTTP 429; retry 1 in 2.0 s"
            )
        )
        report(run_execution.SampleProgress(index=2, total=total, passed=False))
        return run_execution.RunOutcome(
            run_ids=("fib-run-1",), n_done=2, n_failed=1, metrics=("fib-run-1: N=2  R_raw=0.500",)
        )

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot, n="3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        progress = app.screen.query_one(RunProgress)
        assert seen[0].n == 3 and seen[0].contract_id == "fibonacci_iterative"
        assert progress.marks == ["passed", "failed", "wrong"]
        assert (progress.done, progress.total) == (3, 3)
        shown = screen_text(app)
        assert "✓!✗" in shown
        # provider text shown as is, not as markup
        assert "sample 1: HTTP 429 [rate limited]" in shown
        assert "Finished: 2 samples, 1 failed — fib-run-1" in shown
        assert "fib-run-1: N=2  R_raw=0.500" in shown


@pilot_test
async def test_a_run_can_be_cancelled():
    started = threading.Event()

    def executor(request, report, cancel):
        report(run_execution.SampleProgress(index=0, total=request.n, passed=True))
        started.set()
        assert cancel.wait(10)
        return run_execution.RunOutcome(run_ids=(), n_done=1, n_failed=0, cancelled=True)

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
        assert "Cancelled: 1 sample, 0 failed" in screen_text(app)
        assert "c" not in screen.active_bindings


@pilot_test
async def test_an_engine_error_is_shown_not_raised():
    def executor(request, report, cancel):
        raise RuntimeError("provider bug")

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Run failed: RuntimeError: provider bug" in screen_text(app)


@pilot_test
async def test_a_missing_api_key_names_the_field_and_the_error_goes_once_fixed(monkeypatch):
    """Issue 14.9: the missing key is reported on the dialog field that can replace it, and clears when fixed."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(pilot, provider="openai", model="gpt-4o-mini", n="2")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RunDialog), "the dialog stays open"
        error = str(dialog.query_one("#error-target").render())
        assert "OPENAI_API_KEY is not set" in error and "Base URL here" in error
        assert app.focused is dialog.query_one("#field-target")
        await fill_dialog(pilot, n="0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "must be between" in str(dialog.query_one("#error-n").render())
        # fixed: both errors go at once
        await fill_dialog(pilot, target="http://127.0.0.1:9/v1", n="2")
        assert str(dialog.query_one("#error-target").render()) == ""
        assert str(dialog.query_one("#error-n").render()) == ""
        assert run_store.run_ids() == []  # nothing stored half-made


ANSWER = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"


@pilot_test
async def test_a_real_run_through_the_engine_is_stored_checked_and_shown(tmp_path):
    program = tmp_path / "answer.py"
    program.write_text(f"import sys\nsys.stdin.read()\nprint({ANSWER!r})\n")
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(
            pilot,
            provider="command",
            model="",
            target=f"{sys.executable} {program}",
            n="3",
            temperatures="0",
            concurrency="2",
        )
        await settle(pilot)
        progress = app.screen.query_one(RunProgress)
        assert progress.marks == ["passed"] * 3, screen_text(app)
        [run_id] = run_store.run_ids()
        run = run_store.load_run(run_id)
        assert run.meta.provider == "command" and run.n_ok == 3 and run.meta.status == "complete"
        shown = screen_text(app)
        assert f"Finished: 3 samples, 0 failed — {run_id}" in shown
        assert f"{run_id}: N=3  R_raw=1.000" in shown
        assert canon_data.canon_state(canon_data.find_contract("fibonacci_iterative")) == "ok"
        await pilot.press("2")
        await settle(pilot)
        assert run_id in screen_text(app)


@pilot_test
async def test_a_sweep_is_analysed_in_one_batch_and_every_run_reported(tmp_path, monkeypatch):
    program = tmp_path / "answer.py"
    program.write_text(f"import sys\nsys.stdin.read()\nprint({ANSWER!r})\n")
    batches = []
    real = run_data.analyze_runs
    monkeypatch.setattr(
        run_data,
        "analyze_runs",
        lambda run_ids, **kw: batches.append(list(run_ids)) or real(run_ids, **kw),
    )
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await start_run(
            pilot,
            provider="command",
            model="",
            target=f"{sys.executable} {program}",
            n="2",
            temperatures="0, 0.7",
            concurrency="2",
        )
        await settle(pilot)
        assert app.screen.query_one(RunProgress).marks == ["passed"] * 4, screen_text(app)
        run_ids = run_store.run_ids()
        # the sweep's runs are analysed in one batch at the end; single-run analyses are the estimates
        # the panel shows while a run generates
        assert len(run_ids) == 2 and [batch for batch in batches if len(batch) > 1] == [
            [run.id for run in map(run_store.load_run, run_ids) if run.meta.temperature == 0.0]
            + [run.id for run in map(run_store.load_run, run_ids) if run.meta.temperature == 0.7]
        ]
        assert all(len(batch) == 1 for batch in batches[:-1])
        shown = screen_text(app)
        assert all(f"{run_id}: N=2  R_raw=1.000" in shown for run_id in run_ids)


@pilot_test
async def test_every_section_fits_80_by_24(demo_home):
    app = SkytApp(clock=clock)
    # at 80 columns the Runs list keeps contract, model and T before R_anchor (issue 27.7)
    narrow = DEMO_TEXT | {"2": ("runs", "hand-written-exam…  complete  14/14  –  0.286  0.857")}
    async with app.run_test(size=(80, 24)) as pilot:
        for key, (mode, text) in narrow.items():
            await pilot.press(key)
            await settle(pilot)
            shown = screen_text(app)
            lines = shown.splitlines()
            assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
            assert text.split("(v)")[0] in shown, (mode, shown)
            assert "Help" in lines[-1] and "palette" in lines[-1]


@pilot_test
@pytest.mark.parametrize("width", [80, 86, 120])
async def test_section_bar_fits_with_the_demo_badge_and_keeps_help(
    monkeypatch, demo_store, isolated_home, width
):
    """Old code: at 80 columns with the six sections and the DEMO badge the line ran over and
    "? help" was cut to "?" (and then off the edge)."""
    shutil.copytree(demo_store, isolated_home / "demo")
    monkeypatch.setenv("SKYT_STORE", "demo")
    app = SkytApp(start="runs")
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        line = screen_text(app).splitlines()[0]
        assert "DEMO" in line and line.rstrip().endswith("? help"), line
        for number in range(1, 7):
            assert f"{number} " in line
        assert len(line.rstrip()) <= width
        await pilot.click(offset=(line.index("? help"), 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


def test_each_section_is_a_typed_section_screen_of_its_name():
    """The sections are an explicit table of screen classes (imported when first opened), not
    "module.Class" strings looked up by name."""
    from skyt_tui.ui.app import SECTION_SCREENS
    from skyt_tui.ui.screens.base import SectionScreen
    from skyt_tui.ui.widgets.section_bar import SECTIONS

    assert set(SECTION_SCREENS) == {"welcome", *(name for name, _ in SECTIONS)}
    for name, screen_class in SECTION_SCREENS.items():
        loaded = screen_class()
        assert issubclass(loaded, SectionScreen) and loaded.SECTION == name
    assert SECTION_SCREENS["contracts"]() is ContractsScreen
