"""The SKYT corpus, imported: a study of the runs SKYT summarised reproduces its R_raw means."""

from __future__ import annotations

import csv
import json
from collections import defaultdict

import pytest

from skyt_tui.cli import main
from tests.corpus import require

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def test_study_report_reproduces_skyt_summary_r_raw_means(capsys, tmp_path):
    outputs = require("skyt-msr2026", "outputs")
    summary = require("skyt-msr2026", "metrics_summary.csv")
    assert main(["import", str(outputs)]) == 0
    assert main(["study", "create", "skyt", "--ids-from", str(summary)]) == 0
    capsys.readouterr()
    ours_csv = tmp_path / "summary.csv"
    arguments = ["study", "report", "skyt", "--json", "--compare", "temperature=0:0.7"]
    assert main([*arguments, "--csv", str(ours_csv)]) == 0
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

    # SKYT's columns hold SKYT's quantities (issue 24): where both sides count the same thing
    # (verdicts agree on every sample), the values agree with SKYT's file run by run
    with ours_csv.open() as handle:
        ours = {row["experiment_id"]: row for row in csv.DictReader(handle)}
    for row in rows:
        mine = ours[row["experiment_id"]]
        for column in ("contract_id", "runs"):
            assert mine[column] == row[column], column
        for column in ("canon_coverage", "R_behavioral"):
            assert float(mine[column]) == pytest.approx(float(row[column]), abs=5e-4), column
        # Delta_mu is μ_pre − μ_post, as SKYT writes it (distances are measured differently)
        assert float(mine["Delta_mu"]) == pytest.approx(
            float(mine["mean_distance_pre"]) - float(mine["mean_distance_post"])
        )
        assert float(mine["Delta_mu"]) >= 0 and float(mine["Delta_mu_post_minus_pre"]) <= 0

    (comparison,) = report["comparisons"]
    assert len(comparison["paired"]) == 3  # one per model, paired over the 10 contracts
    for paired in comparison["paired"]:
        assert paired["n"] == 10 and paired["mean_a"] > paired["mean_b"]
        assert paired["p_holm"] < 0.05
