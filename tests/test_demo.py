"""`skyt-tui demo`: runs from the hand-written examples, labelled as such, analysed, offline, idempotent."""

import json

import pytest

from skyt_tui import locations
from skyt_tui.cli import main
from skyt_tui.engine.demo import DEMO_LABEL, DEMO_MODEL, create_demo_runs
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.runs import analyses, run_store
from tests.run_helpers import CONTRACT_ID, install_contract, run_cli

VARIANTS = {
    "01.py": "def f(x):\n    return x + 1\n",
    "02.py": "def f(x):\n    return x + 1\n",
    "03.py": "def f(x):\n    # add one\n    return x + 1\n",
    "10.py": "def f(x)\n    return x + 1\n",
}


@pytest.fixture
def examples(tmp_path, isolated_home):
    install_contract(isolated_home)
    folder = tmp_path / "examples"
    (folder / CONTRACT_ID).mkdir(parents=True)
    for name, text in VARIANTS.items():
        (folder / CONTRACT_ID / name).write_text(text)
    (folder / "no_such_contract").mkdir()
    (folder / "no_such_contract" / "01.py").write_text("x = 1\n")
    (folder / "README.md").write_text("hand-written")
    return folder


def test_demo_runs_are_labelled_hand_written_and_analysed(examples):
    result = create_demo_runs(examples)
    [meta] = result.created
    assert result.skipped == (
        f"{examples / 'no_such_contract'}: no valid contract 'no_such_contract' in the catalog",
    )
    assert (meta.provider, meta.model, meta.temperature, meta.label) == (
        "replay",
        DEMO_MODEL,
        None,
        DEMO_LABEL,
    )
    assert (
        "no model produced them" in meta.note
        and meta.origin["kind"] == "demo"
        and meta.status == run_store.COMPLETE
    )
    run = run_store.load_run(meta.id)
    assert [s.response for s in run.samples] == list(VARIANTS.values()), (
        "generation order is the file order"
    )
    assert [s.code for s in run.samples] == [
        text.strip("\n") if i == 3 else text for i, text in enumerate(VARIANTS.values())
    ]
    assert (run.directory / "analysis.json").exists()
    analysis = analyses.analyze_stored_run(run)
    metrics = analysis["metrics"]
    # 01 = 02 byte for byte; 03 differs only by a comment; 10 does not parse
    assert metrics["n"] == 4 and metrics["R_raw"] == 0.5 and metrics["R_sig"]["format"] == 0.75
    assert [s["parse_error"] for s in analysis["samples"]] == [False, False, False, True]


def test_running_the_demo_again_adds_nothing(examples):
    first = create_demo_runs(examples)
    again = create_demo_runs(examples)
    assert again.created == () and again.existing == (first.created[0].id,)
    (examples / CONTRACT_ID / "11.py").write_text("def f(x):\n    return 1 + x\n")
    assert len(create_demo_runs(examples).created) == 1, "a changed example set is a new demo run"


def test_demo_without_examples_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="no example sets found"):
        create_demo_runs(tmp_path / "nothing")


def test_demo_command_then_runs_list(examples, monkeypatch, capsys):
    monkeypatch.setattr(locations, "bundled_examples_dir", lambda: examples)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "demo: 1 run created" in out and "hand-written examples (not model output)" in out
    assert run_store.run_ids() == [] and not locations.canon_dir().exists(), (
        "the demo never writes to the user's store (issue 14.3)"
    )
    monkeypatch.setenv("SKYT_STORE", "demo")
    assert main(["runs", "list", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["runs"]
    assert (
        entry["label"] == DEMO_LABEL
        and entry["model"] == DEMO_MODEL
        and entry["state"] == "complete"
    )


def test_bundled_demo_on_a_fresh_store_with_no_keys_and_no_network(tmp_path):
    if not any(locations.bundled_examples_dir().glob("*/*.py")):
        pytest.skip("no bundled example sets in this checkout")
    home = tmp_path / "fresh"
    offline = {
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
    }
    result = run_cli(home, "demo", "--json", **offline)
    assert result.returncode == 0, result.stderr
    created = json.loads(result.stdout)["created"]
    assert created and json.loads(result.stdout)["skipped"] == []
    assert json.loads(run_cli(home, "runs", "list", "--json", **offline).stdout)["runs"] == []
    assert not (home / "canon").exists(), "no demo canon in the user's store"
    demo = {**offline, "SKYT_STORE": "demo"}
    listing = json.loads(run_cli(home, "runs", "list", "--json", **demo).stdout)["runs"]
    assert sorted(r["id"] for r in listing) == sorted(created)
    assert all(r["label"] == DEMO_LABEL and r["state"] == "complete" for r in listing)
    report = run_cli(home, "report", created[0], **demo)
    assert report.returncode == 0 and "samples (generation order)" in report.stdout


def test_full_demo_is_reproducible_with_a_fixed_clock_and_adds_a_benchmark(
    isolated_home, tmp_path, monkeypatch
):
    """Bundled examples + bundled contracts: ids and dates come from `now`, the benchmark has no invented scores."""
    import datetime as dt

    from skyt_tui.engine import benchmark
    from skyt_tui.engine.analysis import canon
    from skyt_tui.engine.demo import DEMO_BENCHMARK, create_demo

    if not any(locations.bundled_examples_dir().glob("*/*.py")):
        pytest.skip("no bundled example sets in this checkout")
    now = dt.datetime(2026, 1, 15, 9, 0, tzinfo=dt.UTC)
    result = create_demo(now=now)
    assert run_store.run_ids() == [], "the demo has its own store"
    monkeypatch.setenv("SKYT_STORE", "demo")
    ids = [meta.id for meta in result.created]
    assert ids[0].startswith("20260115-090000-balanced_brackets-") and ids[1].startswith(
        "20260115-090001-"
    )
    for meta in result.created:
        state = canon.load_canon(meta.contract_id)
        assert (
            state.status == "ok"
            and state.canon.provenance["established_at"] == "2026-01-15T09:00:00Z"
        )
        assert state.canon.provenance["run_id"] == meta.id
    info = benchmark.load_benchmark(DEMO_BENCHMARK)
    assert len(info.items) == 20 and info.data.scores is None, (
        "difficulties only, no per-system scores"
    )
    assert benchmark.current_sample(DEMO_BENCHMARK).size == 8
    [rotation] = benchmark.rotation_history(DEMO_BENCHMARK)
    assert rotation.at == "2026-01-15T09:00:00+00:00" and len(rotation.held_out) == 13
    again = create_demo(now=now + dt.timedelta(days=3))
    assert (
        again.created == ()
        and sorted(again.existing) == sorted(ids)
        and again.benchmark_steps == ()
    )
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "another-store"))
    monkeypatch.delenv("SKYT_STORE")
    elsewhere = create_demo_runs(analyze=False, now=now)
    assert [meta.id for meta in elsewhere.created] == ids, (
        "the id suffix is a digest of the content, not random"
    )
