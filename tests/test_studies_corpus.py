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


def doc_table(text: str, header_start: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header_start`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_numbers_in_docs_studies_are_the_commands_own(capsys):
    """Issue 27.8: docs/studies.md quotes the corpus study; every number there is what the command
    prints (R_raw run means, the Wilcoxon table, the pass rates with Fisher p and Cohen's h)."""
    from skyt_tui.cli.output import fmt3
    from skyt_tui.cli.study_cmd import _p
    from tests.run_helpers import ROOT

    outputs = require("skyt-msr2026", "outputs")
    summary = require("skyt-msr2026", "metrics_summary.csv")
    assert main(["import", str(outputs)]) == 0
    assert main(["study", "create", "skyt", "--ids-from", str(summary)]) == 0
    capsys.readouterr()
    assert main(["study", "report", "skyt", "--json", "--compare", "temperature=0:0.7"]) == 0
    report = json.loads(capsys.readouterr().out)
    doc = (ROOT / "docs" / "studies.md").read_text()

    def model_of(label: str) -> str:
        return label.rsplit(" temperature=", 1)[0]

    def short(model: str) -> str:
        return model.removesuffix("-20250929")

    groups = {(g["model"], g["temperature"]): g for g in report["table"]["groups"]}
    temperatures = (0.0, 0.3, 0.5, 0.7, 1.0)
    means = doc_table(doc, "| model | T = 0 |")
    assert {row[0] for row in means} == {model for model, _ in groups}
    for row in means:
        assert row[1:] == [fmt3(groups[(row[0], t)]["mean_runs"]) for t in temperatures], row

    mini = [groups[("gpt-4o-mini", t)]["mean"] for t in (0.5, 0.7)]
    assert f"means over contracts are {fmt3(mini[0])} and {fmt3(mini[1])}" in " ".join(doc.split())

    (comparison,) = report["comparisons"]
    wilcoxon = {row[0]: row for row in doc_table(doc, "| model | pairs (differing) |")}
    for paired in comparison["paired"]:
        row = wilcoxon[short(model_of(paired["a"]))]
        assert row[1:] == [
            f"{paired['n']} ({paired['n_nonzero']})",
            fmt3(paired["mean_a"]),
            fmt3(paired["mean_b"]),
            f"{paired['median_difference']:+.3f}",
            f"{paired['rank_biserial']:+.3f}",
            _p(paired["p_value"]),
            _p(paired["p_holm"]),
        ], row
    rates = {row[0]: row for row in doc_table(doc, "| model | pass T=0 |")}
    assert len(rates) == len(comparison["rates"]) == 3
    for rate in comparison["rates"]:
        row = rates[short(model_of(rate["a"]))]
        assert row[1:] == [
            f"{fmt3(rate['rate_a']['rate'])} of {rate['rate_a']['n']}",
            f"{fmt3(rate['rate_b']['rate'])} of {rate['rate_b']['n']}",
            _p(rate["p_value"]),
            _p(rate["p_holm"]),
            f"{rate['cohens_h']:+.3f}",
        ], row
        # issue 25: pooled rates are said to be clustered, in the JSON and on the page
        assert "clustered" in rate["pooling"]
    assert "which are clustered" in doc
