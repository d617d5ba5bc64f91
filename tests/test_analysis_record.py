"""A stored analysis read into typed records: the same facts and metrics as the document the
pipeline writes (which does not change), and one line naming the run for a document it cannot read."""

import json

import pytest

from skyt_tui.engine.analysis.pipeline import analyze_runs
from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.runs.analysis_record import OracleSummary, StoredAnalysis
from skyt_tui.engine.sources.recorded import RunInput

CODES = (
    "def f(x):\n    return x + 1\n",
    "def f(x):\n    return x + 1\n",
    "def f(y):\n    return y + 1\n",
    "def f(x:\n",
)


def stored_document():
    run = RunInput(
        id="run-1",
        contract_id="c",
        model="m",
        temperature=0.5,
        codes=CODES,
        kept_names=frozenset(),
        source="test",
        source_format="jsonl",
    )
    [analysis] = analyze_runs([run], oracle=False)
    # what the run store caches: the document through JSON
    return analysis, json.loads(json.dumps(analysis.to_dict(), allow_nan=True))


def test_the_records_hold_the_documents_metrics_and_sample_facts():
    analysis, document = stored_document()
    record = StoredAnalysis.from_document(document)
    assert record.metrics == analysis.metrics
    assert record.metrics.R_raw == 0.5 and record.metrics.n == 4
    assert [sample.facts for sample in record.samples] == list(analysis.samples)
    assert record.sample(3).facts.parse_error and record.sample(7) is None
    assert (record.run_id, record.model, record.temperature, record.level) == (
        "run-1",
        "m",
        0.5,
        "nodoc",
    )
    assert record.canon.status == "not_computed" and not record.canon.established
    assert record.oracle.isolation is None
    assert record.document == document


def test_the_records_write_the_stored_metrics_canon_and_oracle_out_again():
    """`report --json` writes the metrics, canon and oracle from the records: the stored format."""
    _, document = stored_document()
    document["canon"] = {
        "status": "established",
        "source": "run",
        "sample_index": 0,
        "run_id": "run-1",
        "code": CODES[0],
        "reason": "",
    }
    document["oracle"] = {"version": "9", "isolation": "bubblewrap", "layers": ["uid", "seccomp"]}
    record = StoredAnalysis.from_document(document)
    for name, written in (
        ("metrics", record.metrics.to_dict()),
        ("canon", record.canon.to_dict()),
        ("oracle", record.oracle.to_dict()),
    ):
        assert json.dumps(written, sort_keys=True) == json.dumps(document[name], sort_keys=True)
    assert StoredAnalysis.from_document(stored_document()[1]).oracle.to_dict() == {}


def test_a_verdict_and_a_repair_are_read_with_their_tests_and_steps():
    _, document = stored_document()
    document["samples"][2]["oracle"] = {
        "passed": False,
        "status": "fail",
        "reason": "1 of 2 tests failed",
        "pass_fraction": 0.5,
        "tests": [
            {"name": "t1", "kind": "call", "passed": True, "actual": "2"},
            {"name": "t2", "kind": "call", "passed": False, "error_type": "ValueError"},
        ],
    }
    document["samples"][2]["repair"] = {
        "steps": [{"transformer": "rename_locals", "d_before": 0.2, "d_after": 0.0, "sites": 2}],
        "candidates_checked": 3,
        "repaired_code": "def f(x):\n    return x + 1\n",
    }
    sample = StoredAnalysis.from_document(document).sample(2)
    assert sample.oracle == OracleSummary.from_dict(document["samples"][2]["oracle"])
    assert [t.name for t in sample.oracle.tests if not t.passed] == ["t2"]
    assert sample.oracle.tests[1].error_type == "ValueError"
    assert [(s.transformer, s.d_before, s.d_after) for s in sample.repair.steps] == [
        ("rename_locals", 0.2, 0.0)
    ]
    assert sample.repair.candidates_checked == 3 and sample.oracle_after_repair is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("metrics"),
        lambda d: d["samples"][0].pop("index"),
        lambda d: d.update(samples=[1, 2]),
        lambda d: d["metrics"].update(ci={"R_raw": 0.5}),
    ],
)
def test_a_document_it_cannot_read_is_one_line_naming_the_run(damage):
    _, document = stored_document()
    damage(document)
    with pytest.raises(StoreError, match="^analysis of run 'run-1': not an analysis"):
        StoredAnalysis.from_document(document)
