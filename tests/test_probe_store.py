"""A stored run's probe and a witness as a test, from the CLI and the app (docs/probe.md)."""

from __future__ import annotations

import json

from textual.widgets import DataTable

from skyt_tui.engine.contracts.contract import load_contract
from tests.run_helpers import install_contract, only_run_id, run_cli
from tests.ui_support import pilot_test, screen_text, settle

CONTRACT = """
schema_version = 1
id = "magnitude"
version = 1
title = "Magnitude"
difficulty = "easy"
prompt = "Write f(x) returning the absolute value of x."
reference = "def f(x):\\n    return x if x >= 0 else -x\\n"

[entry]
kind = "function"
name = "f"

[oracle]
timeout_s = 2.0

[[tests]]
kind = "call"
args = [-2]
expected = 2

[[tests]]
kind = "call"
args = [3]
expected = 3
"""
SAMPLES = [
    "def f(x):\n    return abs(x)\n",
    "def f(x):\n    return 2 if x == -2 else x\n",
    "def f(x):\n    return -x if x < 0 else x\n",
]


def stored_run(home, tmp_path) -> str:
    install_contract(home, CONTRACT, "magnitude.toml")
    source = tmp_path / "samples.jsonl"
    source.write_text(
        "".join(
            json.dumps({"run_id": "m", "contract_id": "magnitude", "code": code}) + "\n"
            for code in SAMPLES
        )
    )
    done = run_cli(home, "import", str(source))
    assert done.returncode == 0, done.stderr
    return only_run_id(home)


def test_probe_run_and_add_a_witness_as_a_test(isolated_home, tmp_path):
    run_id = stored_run(isolated_home, tmp_path)
    done = run_cli(isolated_home, "probe", "run", run_id, "--probe-inputs", "40", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    figures = document["run"]
    assert (figures["probed"], figures["behaviour_classes"], figures["plausible_but_wrong"]) == (
        3,
        2,
        1,
    )
    assert figures["R_behavioral"] == 1.0 and abs(figures["R_behavioral_probe"] - 2 / 3) < 1e-12
    assert figures["behaviourally_unlike"] == [1]
    wrong = document["samples"][1]["probe"]
    assert wrong["differs_from_reference"] is True and wrong["witness"]["against"] == "reference"
    assert (isolated_home / "runs" / run_id / "probe.json").is_file()

    # without --yes: what would change, nothing written
    done = run_cli(isolated_home, "probe", "add-test", run_id, "1")
    assert done.returncode == 0, done.stderr
    assert "version 1 → 2" in done.stdout and "nothing written" in done.stdout
    assert load_contract(isolated_home / "contracts" / "magnitude.toml").version == 1

    done = run_cli(isolated_home, "probe", "add-test", run_id, "1", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    new = load_contract(isolated_home / "contracts" / "magnitude.toml")
    old = load_contract(isolated_home / "contracts" / "history" / "magnitude.v1.toml")
    assert (old.version, new.version, len(old.tests), len(new.tests)) == (1, 2, 2, 3)
    x = json.loads(wrong["witness"]["args_py"])[0]
    assert (new.tests[-1].args, new.tests[-1].expected) == ((x,), -x)
    assert summary["expected_from"] == "reference"

    # the wrong sample now fails the new version; the canon made under version 1 is stale
    program = tmp_path / "wrong.py"
    program.write_text(SAMPLES[1])
    done = run_cli(isolated_home, "oracle", "magnitude", str(program), "--json")
    assert json.loads(done.stdout)["samples"][0]["verdict"]["passed"] is False
    done = run_cli(isolated_home, "canon", "show", "magnitude", "--json")
    assert json.loads(done.stdout)["status"] == "stale"

    # the run's probe was made under the old contract snapshot: still valid for that run
    done = run_cli(isolated_home, "probe", "add-test", run_id, "0")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "has no witness" in done.stderr


def test_probe_options_bad_input(isolated_home, tmp_path):
    run_id = stored_run(isolated_home, tmp_path)
    done = run_cli(isolated_home, "probe", "add-test", run_id, "1")
    assert done.returncode == 2 and "not probed yet" in done.stderr
    done = run_cli(isolated_home, "probe", "run", run_id, "--probe-inputs", "0")
    assert done.returncode == 2 and "--probe-inputs" in done.stderr
    done = run_cli(isolated_home, "oracle", "magnitude", "x.py", "--probe-seed", "3")
    assert done.returncode == 2 and "--probe-seed needs --probe" in done.stderr


def test_oracle_probe_json_on_sample_files(isolated_home, tmp_path):
    install_contract(isolated_home, CONTRACT, "magnitude.toml")
    paths = []
    for k, code in enumerate(SAMPLES):
        path = tmp_path / f"s{k}.py"
        path.write_text(code)
        paths.append(str(path))
    done = run_cli(isolated_home, "oracle", "magnitude", *paths, "--probe", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [s["probe"]["differs_from_reference"] for s in report["samples"]] == [False, True, False]
    assert report["probe"]["behaviour_classes"] == 2


@pilot_test
async def test_app_probes_a_run_splits_families_and_adds_the_witness(isolated_home, tmp_path):
    from skyt_tui.ui.app import SkytApp
    from skyt_tui.ui.screens.families import FamiliesScreen
    from skyt_tui.ui.screens.run_detail import RunDetailScreen

    run_id = stored_run(isolated_home, tmp_path)
    app = SkytApp(start="runs")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RunDetailScreen)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, FamiliesScreen)
        assert "not probed" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert (isolated_home / "runs" / run_id / "probe.json").is_file()
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FamiliesScreen)
        shown = screen_text(app)
        assert "warning: the tests let behaviourally different samples pass" in shown
        assert "class 2 ≠ ref" in shown
        table = screen.query_one("#families-table", DataTable)
        row = next(k for k, f in enumerate(screen.families) if 1 in f.members)
        table.move_cursor(row=row)
        await pilot.pause()
        shown = screen_text(app)
        assert "witness f(" in shown and "reference:" in shown and "this sample:" in shown
        await pilot.press("t")
        await settle(pilot)
        assert "Add the witness as a test?" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
    new = load_contract(isolated_home / "contracts" / "magnitude.toml")
    assert new.version == 2 and new.tests[-1].name.startswith("probe witness f(")


@pilot_test
async def test_a_run_started_with_probe_inputs_is_probed_after_it_finishes(isolated_home, tmp_path):
    from skyt_tui.engine.runs import run_store
    from skyt_tui.ui.app import SkytApp
    from skyt_tui.ui.widgets.run_progress import RunProgress
    from tests.test_ui_app import fill_dialog, select_contract
    from tests.test_ui_live import wait_for

    install_contract(isolated_home, CONTRACT, "magnitude.toml")
    recording = tmp_path / "answers.jsonl"
    recording.write_text("".join(json.dumps({"code": code}) + "\n" for code in SAMPLES))
    app = SkytApp(start="contracts")
    async with app.run_test(size=(120, 36)) as pilot:
        await select_contract(pilot, "magnitude")
        await pilot.press("r")
        await pilot.pause()
        await fill_dialog(pilot, probe_inputs="many")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "a whole number of inputs" in str(
            app.screen.query_one("#error-probe_inputs").render()
        )
        await fill_dialog(pilot, provider="replay", target=str(recording), n="3", probe_inputs="30")
        await pilot.press("ctrl+s")
        await pilot.pause()
        progress = app.screen.query_one(RunProgress)
        await wait_for(pilot, lambda: not progress.running, 120)
        await settle(pilot)
    [run_id] = run_store.run_ids()
    document = json.loads((isolated_home / "runs" / run_id / "probe.json").read_text())
    assert document["key"]["settings"]["max_inputs"] == 30
    assert document["run"]["behaviour_classes"] == 2


@pilot_test
async def test_families_say_a_probe_made_by_an_older_probe_version_and_counts_read_as_english(
    isolated_home, tmp_path
):
    """A probe stored under another probe version is stale: the families view names the version
    it was made with and the current one, and shows no classes from it; a fresh probe's title
    reads "1 class", never "1 classes"."""
    from skyt_tui.engine.runs.probes import load_stored_probe
    from skyt_tui.engine.versions import PROBE_VERSION
    from skyt_tui.ui.app import SkytApp
    from skyt_tui.ui.screens.families import FamiliesScreen, probe_title

    run_id = stored_run(isolated_home, tmp_path)
    done = run_cli(isolated_home, "probe", "run", run_id, "--json")
    assert done.returncode == 0, done.stderr
    path = isolated_home / "runs" / run_id / "probe.json"
    document = json.loads(path.read_text())
    document["key"]["probe_version"] = "probe-3"
    path.write_text(json.dumps(document))
    stored = load_stored_probe(run_id)
    assert stored["stale"] and stored["stale_because"] == ["probe_version"]
    app = SkytApp(start="runs")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, FamiliesScreen)
        shown = screen_text(app)
        assert f"probed with probe-3, an older probe version (now {PROBE_VERSION})" in shown
        assert "class 2" not in shown and "not probed" not in shown
    one = {"run": {"counted": 1, "behaviour_classes": 1}}
    assert "on 1 generated input: 1 class among passing samples" in probe_title(one).plain
    two = {"run": {"counted": 5, "behaviour_classes": 2, "plausible_but_wrong": 1}}
    assert "5 generated inputs: 2 classes" in probe_title(two).plain
    assert "(1 sample differs from the reference)" in probe_title(two).plain
    changed = {"key": {"probe_version": PROBE_VERSION}, "stale_because": ["samples_sha256"]}
    assert "no longer matches the run" in probe_title(None, changed).plain


def test_counts_read_as_english():
    from skyt_tui.engine.printable import counted
    from skyt_tui.ui.probe_data import probe_line

    assert [counted(n, "behaviour class") for n in (0, 1, 2)] == [
        "0 behaviour classes",
        "1 behaviour class",
        "2 behaviour classes",
    ]
    assert counted(3, "solution family") == "3 solution families"
    assert counted(1, "witness") == "1 witness" and counted(2, "witness") == "2 witnesses"
    assert counted(1, "item", verb="move") == "1 item moves"
    assert counted(2, "id", verb="are") == "2 ids are"
    line = probe_line({"run": {"probed": 1, "behaviour_classes": 1, "plausible_but_wrong": 1}})
    assert line == "probe: 1 passing sample, 1 behaviour class, 1 sample differs from the reference"


def test_probe_run_prints_counts_as_english(capsys):
    """`probe run`'s summary said "1 behaviour classes" and "1 passing samples probed"."""
    from skyt_tui.cli.probe_cmd import print_run_probe
    from skyt_tui.engine.runs.probe_record import StoredProbe

    figures = {"probed": 1, "counted": 1, "generated": 1, "behaviour_classes": 1}
    figures |= {"R_behavioral": 1.0, "R_behavioral_probe": 1.0, "plausible_but_wrong": 1}
    document = {"contract_id": "c", "run": figures | {"plausible_but_wrong_share": 1.0}}
    print_run_probe(StoredProbe.from_document(document | {"samples": []}))
    printed = " ".join(capsys.readouterr().out.split())
    assert "1 passing sample probed on 1 counted input (1 generated): 1 behaviour class," in printed
    assert "plausible but wrong: 1 (1.000) differs from the reference" in printed
    assert "classes" not in printed and "samples" not in printed


def test_probe_run_prints_each_witness_printable(capsys):
    """`probe run`'s witness lines come from the stored record (`StoredProbe`); the texts a
    sample gave are shown printable."""
    from skyt_tui.cli.probe_cmd import print_run_probe
    from skyt_tui.engine.runs.probe_record import StoredProbe

    figures = {"probed": 2, "counted": 3, "generated": 3, "behaviour_classes": 2}
    witness = {"call": "f(-1)", "sample": "'\x1b[31mred'", "against": "reference"}
    rows = [
        {"index": 0, "probe": {"behaviour": 1, "witness": None}},
        {"index": 4, "probe": {"behaviour": 2, "witness": witness | {"reference": "1"}}},
    ]
    print_run_probe(
        StoredProbe.from_document({"contract_id": "c", "run": figures, "samples": rows})
    )
    printed = capsys.readouterr().out
    assert "sample 4 (class 2): f(-1) gives '\\x1b[31mred', the reference 1" in printed
    assert "\x1b" not in printed and "sample 0" not in printed
    assert "the tests of c let 2 behaviourally different kinds of sample pass" in printed


def test_probe_run_names_the_wide_inputs_it_counts(capsys):
    """`probe run` said "300 counted inputs (200 generated)": the 100 wide-tier inputs it also
    counted went unnamed, so more inputs seemed counted than generated."""
    from skyt_tui.cli.probe_cmd import print_run_probe
    from skyt_tui.engine.runs.probe_record import StoredProbe

    figures = {"probed": 2, "counted": 300, "generated": 200, "generated_wide": 100}
    document = {"contract_id": "c", "run": figures | {"behaviour_classes": 1}, "samples": []}
    print_run_probe(StoredProbe.from_document(document))
    printed = " ".join(capsys.readouterr().out.split())
    assert "on 300 counted inputs (200 generated, 100 wide):" in printed
