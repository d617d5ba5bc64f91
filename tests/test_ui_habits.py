"""Issue 27.9: habits people bring from other terminal tools — `esc` clears an applied filter, and
an export says where the file landed."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.export import ExportDialog
from skyt_tui.ui.screens.run_detail import sample_cells
from tests.test_ui_live import wait_for
from tests.ui_support import clock, demo_run_id, notifications, pilot_test, screen_text, settle


@pilot_test
async def test_esc_clears_an_applied_filter_in_runs(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        everything = table.row_count
        await pilot.press("/")
        await pilot.press(*"slugify")
        await pilot.press("enter")  # applied: the table has the keys again
        await pilot.pause()
        assert table.has_focus and table.row_count == 1 < everything
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == everything
        assert not app.screen.query_one("#runs-filter", Input).display
        assert app.screen.id == "runs-screen"


@pilot_test
async def test_esc_in_a_run_clears_its_filter_before_going_back(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        samples = app.screen.query_one("#samples-table", DataTable)
        everything = samples.row_count
        await pilot.press("/")
        await pilot.press(*"fail")
        await pilot.press("enter")
        await pilot.pause()
        assert samples.row_count < everything
        await pilot.press("escape")
        await pilot.pause()
        assert samples.row_count == everything and app.screen.id != "runs-screen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.id == "runs-screen"


@pilot_test
async def test_an_export_typed_as_a_bare_name_says_the_folder_it_landed_in(
    demo_home, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        slugify = demo_run_id("slugify")
        await settle(pilot)
        await pilot.press("/")
        await pilot.press(*"slugify")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
        app.screen.query_one("#export-path", Input).value = "out.csv"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Wrote" in note for note in notifications(app)))
        assert (tmp_path / "out.csv").is_file()
        assert f"Wrote 12 samples to {tmp_path / 'out.csv'}" in notifications(app), slugify


@pilot_test
async def test_a_failed_sample_is_numbered_as_its_run_numbers_it(monkeypatch):
    """In a sweep (or a resume) a sample's place in the request is not its number in the run: the
    panel names the number the run's detail shows."""
    import threading

    from skyt_tui.ui import run_execution
    from skyt_tui.ui.widgets.run_progress import RunProgress
    from tests.test_ui_app import start_run
    from tests.test_ui_live import wait_for

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # the stand-in executor sends nothing
    go_on = threading.Event()

    def executor(request, report, cancel):
        report(run_execution.SampleProgress(index=0, total=3, run_id="run-a", sample=0))
        report(
            run_execution.SampleProgress(
                index=2, total=3, run_id="run-b", sample=1, failed=True, message="HTTP 500: busy"
            )
        )
        assert go_on.wait(20) or cancel.is_set()
        return run_execution.RunOutcome(
            run_ids=("run-a", "run-b"), n_done=2, n_failed=1, cancelled=True
        )

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await start_run(pilot, n="3")
        progress = app.screen.query_one(RunProgress)
        await wait_for(pilot, lambda: progress.done == 2)
        failures = str(progress.query_one("#run-progress-failures").render())
        assert "sample 1: HTTP 500: busy" in failures and "sample 2" not in failures
        go_on.set()
        await wait_for(pilot, lambda: not progress.running)


def test_a_wrapped_diff_line_keeps_its_mark_on_every_row():
    """A long added or removed line folded by a narrow screen keeps `+`/`-` on each row it takes,
    so the continuation never reads as unchanged code (without colour either)."""
    from rich.console import Console

    from skyt_tui.ui.diff_text import diff_renderable

    before = "def f(x):\n    return x + 1\n"
    after = "def f(x):\n    return some_long_function_name(x, another_argument, and_more)\n"
    console = Console(width=30, record=True, color_system=None)
    console.print(diff_renderable(before, after, "canon", "sample 3", side_by_side=False))
    rows = console.export_text().splitlines()
    assert rows[:3] == ["--- canon", "+++ sample 3", "@@ -1,2 +1,2 @@"]
    assert rows[3:5] == [" def f(x):", "-    return x + 1"]
    added = rows[5:]
    assert len(added) > 1 and all(row.startswith("+") for row in added), rows
    assert "".join(row[1:] for row in added).replace(" ", "") == after.splitlines()[1].replace(
        " ", ""
    )


def test_filters_put_exact_matches_first_then_near_ones():
    """Issue 27.9: filters forgive a typo (rapidfuzz), exact substring matches first."""
    from skyt_tui.ui.fuzzy import ranked_matches

    rows = ["gcd gpt-4o", "fibonacci_iterative gpt-4o-mini", "slugify llama3", "gcd fibonaci"]
    assert ranked_matches(rows, "fibonaci", str) == (
        ["gcd fibonaci", "fibonacci_iterative gpt-4o-mini"],
        1,
    )
    assert ranked_matches(rows, "gpt4o", str)[0] == [
        "gcd gpt-4o",
        "fibonacci_iterative gpt-4o-mini",
    ]
    assert ranked_matches(rows, "GCD", str) == (["gcd gpt-4o", "gcd fibonaci"], 2)
    assert ranked_matches(rows, "gdc", str) == ([], 0)  # short: exact only
    assert ranked_matches(rows, "zzzzzz", str) == ([], 0)
    assert ranked_matches(rows, "  ", str) == (rows, 4)


@pilot_test
async def test_a_typo_in_the_runs_filter_still_finds_the_run(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        await pilot.press("/")
        await pilot.press(*"slugfy")
        await pilot.press("enter")
        await pilot.pause()
        assert table.row_count == 1
        assert str(table.coordinate_to_cell_key((0, 0)).row_key.value) == demo_run_id("slugify")
        assert "(1 near, after the exact)" in screen_text(app)


@pilot_test
async def test_a_typo_in_the_samples_and_benchmark_filters_still_finds_rows(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        words = {
            word
            for row in screen.all_rows
            for word in " ".join(str(c) for c in sample_cells(row)).split()
            if word.isalnum() and len(word) >= 6
        }
        word = max(sorted(words), key=len)  # a signature, a repair step
        typo = word[: len(word) // 2] + word[len(word) // 2 + 1 :]
        await pilot.press("/")
        screen.query_one("#samples-filter", Input).value = typo  # typed with a typo
        await pilot.pause()
        assert any(word in " ".join(str(c) for c in sample_cells(r)) for r in screen.rows), typo
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v", "v")
        table = app.screen.query_one("#bench-fingerprint-table", DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        item = max(ids, key=len)
        typo = item[: len(item) // 2] + item[len(item) // 2 + 1 :]
        exact = [i for i in ids if typo.casefold() in i.casefold()]
        await pilot.press("slash")
        await pilot.press(*typo)
        await pilot.pause()
        shown = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert item in shown and shown[: len(exact)] == exact, (typo, shown)


@pilot_test
async def test_the_palette_lists_every_sections_commands_the_current_ones_first(demo_home):
    """Issue 27.9: ctrl+p offers every section's commands, not only the current one's; the
    current section's come first, and another's runs there."""
    from textual.command import CommandList, CommandPalette

    app = SkytApp(start="contracts", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        commands = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: commands.option_count > 40, 20)

        def listed():
            return [
                str(commands.get_option_at_index(i).prompt).split("\n")[0]
                for i in range(commands.option_count)
            ]

        names = listed()
        for expected in (
            "Runs: Filter",
            "Runs: Export…",
            "Benchmark: Rotate now…",
            "Canon: Reload",
        ):
            assert expected in names, names
        sections = [name.split(":")[0] for name in names if ":" in name]
        assert sections[0] == "Contracts"
        assert sections.index("Runs") > max(i for i, s in enumerate(sections) if s == "Contracts")
        await pilot.press(*"runs filter")
        await wait_for(pilot, lambda: listed() and listed()[0] == "Runs: Filter", 20)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current_mode == "runs", 20)
        await wait_for(pilot, lambda: app.screen.query_one("#runs-filter", Input).display, 20)
        await pilot.pause()
        assert app.focused is app.screen.query_one("#runs-filter", Input)  # typing filters


@pilot_test
async def test_the_palettes_runs_filter_opens_the_runs_lists_filter_from_a_run_too(demo_home):
    """With a run open (in Runs, or left open there while in another section), the palette's
    "Runs: Filter" opened that run's samples filter: it now goes back to the list and opens its
    filter; the run's own filter is "Run: Filter samples"."""
    from textual.command import CommandList, CommandPalette

    from skyt_tui.ui.screens.run_detail import RunDetailScreen
    from skyt_tui.ui.screens.runs import RunsScreen

    async def choose(pilot, typed: str, wanted: str) -> None:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        commands = pilot.app.screen.query_one(CommandList)
        await pilot.press(*typed)

        def first() -> str:
            return str(commands.get_option_at_index(0).prompt).split("\n")[0] if commands.option_count else ""  # fmt: skip

        await wait_for(pilot, lambda: first() == wanted, 20)
        await pilot.press("enter")

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for leave in (False, True):
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, RunDetailScreen)
            if leave:
                await pilot.press("1")
                await settle(pilot)
            await choose(pilot, "runs filter", "Runs: Filter")
            await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), 20)
            box = app.screen.query_one("#runs-filter", Input)
            await wait_for(pilot, lambda: app.focused is box, 20)  # noqa: B023
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await choose(pilot, "filter samples", "Run: Filter samples")
        await wait_for(pilot, lambda: app.focused is app.screen.query_one("#samples-filter"), 20)
        assert isinstance(app.screen, RunDetailScreen)


def test_which_terminals_take_an_osc52_copy():
    from skyt_tui.ui.clipboard import osc52_support

    assert osc52_support({"TERM": "xterm-kitty"}) == ("yes", "xterm-kitty")
    assert osc52_support({"TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color"})[0] == "yes"
    assert osc52_support({"TERM": "xterm-256color", "WT_SESSION": "1"})[0] == "yes"
    assert osc52_support({"TERM_PROGRAM": "Apple_Terminal"}) == ("no", "Apple_Terminal")
    assert osc52_support({"TERM": "linux"})[0] == "no"
    # inside tmux an outer kitty's variables are inherited, but tmux drops the copy by default
    assert (
        osc52_support({"KITTY_WINDOW_ID": "1", "TMUX": "/tmp/tmux-0/default,1,0"})[0] == "unknown"
    )
    assert osc52_support({"TERM": "tmux-256color", "TMUX": "/tmp/t,1,0"}) == ("unknown", "tmux")
    assert osc52_support({"TERM": "xterm-256color"}) == ("unknown", "xterm-256color")
    assert osc52_support({"TERM": "xterm-kitty"}, terminal=False) == ("no", "no terminal")


@pilot_test
async def test_a_copy_the_terminal_cannot_take_lands_in_a_file_and_says_where(demo_home):
    """Issue 27.9: where OSC 52 cannot work (here: no terminal at all) the copy is written to
    clipboard.txt in the store's folder, and the notification says so and where."""
    from skyt_tui.engine.analysis.canon import load_canon
    from skyt_tui.ui.clipboard import clipboard_file

    app = SkytApp(start="canon", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#canon-table", DataTable)
        contract_id = str(table.get_row_at(table.cursor_row)[0])
        await pilot.press("c")
        await wait_for(pilot, lambda: any("Copied" in note for note in notifications(app)))
        [note] = [note for note in notifications(app) if "Copied" in note]
        assert note == (
            f"Copied the canon code of {contract_id} to {clipboard_file()} "
            "(there is no terminal to copy to)"
        )
        code = load_canon(contract_id).canon.code
        assert clipboard_file().read_text() == code and app.clipboard == code


@pilot_test
async def test_a_copy_that_cannot_be_written_either_says_so(demo_home):
    from skyt_tui.ui.clipboard import clipboard_file

    clipboard_file().mkdir(parents=True)  # in the way: the file cannot be written
    app = SkytApp(start="canon", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: any("Could not copy" in n for n in notifications(app)))
        [note] = [n for n in notifications(app) if "Could not copy" in n]
        assert str(clipboard_file()) in note and note.count("\n") == 0
