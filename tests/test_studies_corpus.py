"""The SKYT corpus, imported: a study of the runs SKYT summarised reproduces its R_raw means."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict

import pytest

from skyt_tui.cli import main
from tests.corpus import require
from tests.test_layout import ROOT

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def test_study_report_reproduces_skyt_summary_r_raw_means(capsys):
    outputs = require("skyt-msr2026", "outputs")
    summary = require("skyt-msr2026", "metrics_summary.csv")
    assert main(["import", str(outputs)]) == 0
    assert main(["study", "create", "skyt", "--ids-from", str(summary)]) == 0
    capsys.readouterr()
    assert main(["study", "report", "skyt", "--json", "--compare", "temperature=0:0.7"]) == 0
    report = json.loads(capsys.readouterr().out)

    theirs: dict[tuple[str, float], list[float]] = defaultdict(list)
    with summary.open() as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        theirs[(row["model"], float(row["decoding_temperature"]))].append(float(row["R_raw"]))
    assert report["n_runs"] == len(rows) == 154
    groups = {(g["model"], g["temperature"]): g for g in report["table"]["groups"]}
    assert set(groups) == set(theirs)
    for key, values in theirs.items():
        # SKYT's summary averages its rows (runs); its R_raw is rounded to 3 decimals
        assert groups[key]["mean_runs"] == pytest.approx(sum(values) / len(values), abs=5e-4)
    by_run = {r["experiment_id"]: r["R_raw"] for r in report["runs"]}
    for row in rows:
        assert by_run[row["experiment_id"]] == pytest.approx(float(row["R_raw"]), abs=5e-4)

    (comparison,) = report["comparisons"]
    assert len(comparison["paired"]) == 3  # one per model, paired over the 10 contracts
    for paired in comparison["paired"]:
        assert paired["n"] == 10 and paired["mean_a"] > paired["mean_b"]
        assert paired["p_holm"] < 0.05

    # docs/studies.md quotes the pass-rate comparison; it must be what the command prints
    rates = comparison["rates"]
    assert len(rates) == 3 and all("clustered" in r["pooling"] for r in rates)
    docs = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    quoted = re.search(r"Fisher p ([0-9.]+)–([0-9.]+), \|h\| ≤ ([0-9.]+)", docs)
    assert quoted, "docs/studies.md no longer quotes the pass-rate comparison"
    low, high, h = quoted.groups()
    p_values = [r["p_value"] for r in rates]
    assert f"{min(p_values):.2f}" == low and f"{max(p_values):.2f}" == high
    assert f"{max(abs(r['cohens_h']) for r in rates):.3f}" == h
