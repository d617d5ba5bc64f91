"""Section 3, Canon, over the demo store: code, provenance, versions, integrity, history, re-establishing."""

import json

from textual.widgets import DataTable, OptionList

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.runs import run_store
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.canon import CanonScreen, ChooseRunScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from tests.ui_support import (
    clock,
    demo_run_id,
    notifications,
    pilot_test,
    screen_text,
    settle,
)


async def select(pilot, contract_id):
    table = pilot.app.screen.query_one("#canon-table", DataTable)
    table.move_cursor(row=table.get_row_index(contract_id))
    await pilot.pause()


@pilot_test
async def test_each_canon_with_its_provenance_versions_code_and_history(demo_home):
    app = SkytApp(start="canon", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#canon-table", DataTable)
        states = {
            str(table.get_row_at(row)[0]): str(table.get_row_at(row)[1])
            for row in range(table.row_count)
        }
        assert [cid for cid, state in states.items() if state == "ok"] == [
            "balanced_brackets",
            "binary_search",
            "fibonacci_iterative",
            "is_palindrome",
            "lru_cache",
            "slugify",
        ]
        assert states["gcd"] == "none"
        await select(pilot, "slugify")
        shown = screen_text(app)
        run_id = demo_run_id("slugify")
        assert "canon of slugify · ok" in shown
        assert (
            f"run {run_id}, sample 0" in shown
            and "hand-written examples (not model output)" in shown
        )
        assert "established  2026-01-15T09:00:00Z" in shown
        assert "normalization 1" in shown and "def slugify(text):" in shown
        assert "1  established  2026-01-15 09:00:00  run " in shown
        await pilot.press("c")
        assert app.clipboard == canon_store.load_canon("slugify").canon.code


@pilot_test
async def test_a_tampered_canon_is_reported(demo_home):
    path = canon_store.canon_path("gcd")
    document = json.loads(canon_store.canon_path("slugify").read_text())
    document["contract_id"] = "gcd"  # edited by hand: the stored hash no longer matches
    path.write_text(json.dumps(document))
    app = SkytApp(start="canon", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await select(pilot, "gcd")
        shown = screen_text(app)
        assert (
            "canon of gcd · tampered" in shown and "content does not match its stored hash" in shown
        )
        await pilot.press("1")
        await pilot.pause()
        table = app.screen.query_one("#contracts-table", DataTable)
        row = [
            str(cell)
            for cell in table.get_row_at(
                [str(table.get_row_at(r)[0]) for r in range(table.row_count)].index("gcd")
            )
        ]
        assert row[3] == "tampered"


@pilot_test
async def test_reestablishing_says_what_happens_then_keeps_the_old_canon(demo_home):
    contract = get_contract("is_palindrome")
    first = demo_run_id("is_palindrome")
    # a second run of the contract whose first sample differs from the demo's canon
    second = run_store.create_run(
        contract_id=contract.id,
        contract=contract,
        provider="replay",
        model="other",
        temperature=0.2,
        n=1,
        samples=[
            run_store.SampleRecord(index=0, status="ok", response="x", code=contract.reference)
        ],
        status=run_store.COMPLETE,
    ).id
    old = canon_store.load_canon("is_palindrome").canon
    app = SkytApp(start="canon", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await select(pilot, "is_palindrome")
        await pilot.press("r")
        await pilot.pause()
        chooser = app.screen
        assert isinstance(chooser, ChooseRunScreen)
        assert [option.id for option in chooser.query_one(OptionList)._options] == [second, first]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        said = app.screen.body.plain
        assert f"first sample of run {second}" in said
        assert f"from run {first}, sample 0" in said and "kept in the canon history" in said
        await pilot.press("n")
        await pilot.pause()
        assert (
            isinstance(app.screen, CanonScreen)
            and canon_store.load_canon("is_palindrome").canon == old
        )
        await pilot.press("r", "enter")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        new = canon_store.load_canon("is_palindrome")
        assert new.status == "ok" and new.canon.provenance["run_id"] == second
        events = canon_store.canon_history("is_palindrome")
        assert [e["event"] for e in events] == ["established", "reestablished"]
        assert events[1]["previous"]["content_hash"] == old.content_hash
        shown = screen_text(app)
        assert "2  reestablished  " in shown and f"run {second}, sample 0" in shown
        assert any("re-established from run " + second in m for m in notifications(app))
