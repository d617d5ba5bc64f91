"""A stored probe read as typed records (`runs.probe_record`, docs/probe.md): a real probe reads
with the values of its document, and a document of any shape reads without raising, what is
missing or of the wrong type left out (the app shows "–" or leaves the part out)."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from skyt_tui.engine.runs.probe_record import (
    ProbeFigures,
    SampleProbeRecord,
    StoredProbe,
    WitnessRecord,
)
from tests.run_helpers import run_cli
from tests.test_probe_store import stored_run
from tests.ui_support import pilot_test, screen_text, settle

HOSTILE = [
    None,
    [],
    "probe",
    7,
    {},
    {"run": "figures", "samples": "rows", "key": ["k"], "stale": "yes", "stale_because": "x"},
    {
        "run": {
            "behaviour_classes": "2",
            "counted": True,
            "plausible_but_wrong": [1],
            "classes": [[0, "1", None], "2", 3],
            "R_behavioral": "1.0",
            "behaviourally_unlike": {"1": 1},
            "canon_unlike_rest": 1,
        },
        "samples": [
            1,
            None,
            {"index": "0", "probe": {}},
            {"index": True, "probe": {"behaviour": 1}},
            {"index": 2, "probe": "record"},
            {
                "index": 3,
                "probe": {
                    "behaviour": "2",
                    "witness": "w",
                    "differs_from_reference": "yes",
                    "status": 5,
                },
            },
            {"index": 4, "probe": {"behaviour": 1, "witness": {"against": 3, "call": 5}}},
            {"index": 5, "probe": {"behaviour": 2, "witness": {"against": "call", "call": 9}}},
        ],
        "key": {"probe_version": 3},
        "stale": True,
        "stale_because": ["probe_version", 7],
        "contract_version": "1",
    },
]


@pytest.mark.parametrize("document", HOSTILE, ids=range(len(HOSTILE)))
def test_a_document_of_any_shape_reads_into_the_record(document):
    from skyt_tui.ui.families import Family, probe_records
    from skyt_tui.ui.probe_data import probe_line
    from skyt_tui.ui.screens.families import probe_cell, probe_title, witness_text

    record = StoredProbe.from_document(document)
    figures = record.figures
    assert (figures.behaviour_classes, figures.counted, figures.plausible_but_wrong) == (
        None,
        None,
        None,
    )
    assert figures.R_behavioral is None and figures.behaviourally_unlike == ()
    assert record.contract_version is None and record.key_probe_version is None
    assert all(isinstance(r, SampleProbeRecord) for r in record.samples)
    assert set(probe_records(document)) <= {3, 4, 5}
    # what the app shows from it: zero counts, "–", no witness; never an exception
    assert probe_line(record) == "probe: 0 passing samples, 0 behaviour classes"
    assert "on 0 generated inputs: 0 classes among passing samples" in probe_title(record).plain
    assert "warning" not in probe_title(record).plain
    for sample in record.samples:
        cell = probe_cell(Family("", (), True, False, (sample.index,), sample)).plain
        assert cell in ("–", "class 1", "class 2")
        witness_text(sample)
    if record.stale:
        shown = probe_title(None, record).plain
        assert "probed with an unknown version, an older probe version" in shown


def test_a_hostile_documents_parts_are_left_out_or_kept_by_type():
    record = StoredProbe.from_document(HOSTILE[-1])
    assert record.figures.classes == ((0,), (), ())  # class numbers stay in place
    assert record.stale and record.stale_because == ("probe_version",) and record.older_version
    by_index = record.by_index
    assert sorted(by_index) == [3, 4, 5]
    assert by_index[3] == SampleProbeRecord(index=3)
    assert by_index[4].witness == WitnessRecord(against="reference")
    assert by_index[5].witness == WitnessRecord(against="call")


def test_a_stored_probe_reads_with_the_values_of_its_document(isolated_home, tmp_path):
    from skyt_tui.engine.errors import InputError
    from skyt_tui.engine.runs.probes import load_stored_probe, witness_as_test
    from skyt_tui.engine.versions import PROBE_VERSION
    from skyt_tui.ui import probe_data

    run_id = stored_run(isolated_home, tmp_path)
    done = run_cli(isolated_home, "probe", "run", run_id, "--probe-inputs", "40", "--json")
    assert done.returncode == 0, done.stderr
    document = load_stored_probe(run_id)
    assert document is not None
    record = StoredProbe.from_document(document)
    assert probe_data.load_probe(run_id) == record

    figures = document["run"]
    names = {f.name for f in fields(ProbeFigures)}
    assert set(figures) - names == {"settings", "tolerance"}
    for name in names:
        value = getattr(record.figures, name)
        if name == "classes":
            value = [list(members) for members in value]
        elif name == "behaviourally_unlike":
            value = list(value)
        assert value == figures[name], name
    assert record.figures.behaviour_classes == 2 and record.figures.plausible_but_wrong == 1

    assert [r.index for r in record.samples] == [row["index"] for row in document["samples"]]
    for row, sample in zip(document["samples"], record.samples, strict=True):
        stored = row["probe"]
        for name in ("status", "differs_from_reference", "differs_from_majority", "behaviour"):
            assert getattr(sample, name) == stored[name], name
        assert sample.run_status == stored["run_status"]
        if stored["witness"] is None:
            assert sample.witness is None
            continue
        witness, stored_witness = sample.witness, stored["witness"]
        assert witness is not None
        assert witness.against == stored_witness["against"] == "reference"
        assert witness.expected == stored_witness["reference"]
        for name in ("call", "sample", "args_py", "kwargs_py", "expected_py"):
            assert getattr(witness, name) == stored_witness.get(name), name
    assert record.by_index[1].witness is not None
    assert (record.entry, record.contract_id, record.contract_version) == ("f", "magnitude", 1)
    assert not record.stale and record.stale_because == ()
    assert record.key_probe_version == PROBE_VERSION

    # `probe add-test` reads it the same way: a damaged file is a clear error, not a crash
    path = isolated_home / "runs" / run_id / "probe.json"
    stored_document = json.loads(path.read_text())
    damaged = json.loads(path.read_text())
    damaged["samples"][1]["probe"]["witness"] = "w"
    path.write_text(json.dumps(damaged))
    with pytest.raises(InputError, match="sample 1 has no witness"):
        witness_as_test(run_id, 1, write=False)
    damaged["samples"] = "rows"
    path.write_text(json.dumps(damaged))
    with pytest.raises(InputError, match="no sample 1 among the probed samples"):
        witness_as_test(run_id, 1, write=False)

    # made by an older probe version: stale, and says which
    stored_document["key"]["probe_version"] = "probe-3"
    path.write_text(json.dumps(stored_document))
    stale = probe_data.load_probe(run_id)
    assert stale is not None and stale.stale and stale.older_version
    assert stale.key_probe_version == "probe-3" and stale.stale_because == ("probe_version",)
    assert stale.samples == record.samples and stale.figures == record.figures


@pilot_test
async def test_the_families_view_shows_a_damaged_probe_without_failing(isolated_home, tmp_path):
    """A probe.json whose figures and records have the wrong types (edited by hand, or written by
    another tool): the families view opens, counts what it can read and shows "–" for the rest."""
    from textual.widgets import DataTable

    from skyt_tui.ui.app import SkytApp
    from skyt_tui.ui.screens.families import FamiliesScreen

    run_id = stored_run(isolated_home, tmp_path)
    done = run_cli(isolated_home, "probe", "run", run_id, "--probe-inputs", "40", "--json")
    assert done.returncode == 0, done.stderr
    path = isolated_home / "runs" / run_id / "probe.json"
    document = json.loads(path.read_text())
    document["run"] = "figures"
    for row in document["samples"]:
        row["probe"]["behaviour"] = str(row["probe"]["behaviour"])
        row["probe"]["witness"] = "w"
    path.write_text(json.dumps(document))
    app = SkytApp(start="runs")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FamiliesScreen)
        shown = screen_text(app)
        assert "split by behaviour on 0 generated inputs: 0 classes" in shown
        assert "class 1" not in shown and "class 2" not in shown and "–" in shown
        assert all(f.probe is not None and f.probe.witness is None for f in screen.families)
