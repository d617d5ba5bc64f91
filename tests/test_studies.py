"""Studies: filters, saved TOML, the grouped table, comparisons, exports and the CLI."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import UTC, datetime

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.errors import InputError, NotFoundError
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.studies.study import (
    RunFilter,
    Study,
    delete_study,
    ids_from_file,
    list_studies,
    load_study,
    parse_filter,
    save_study,
    select_runs,
    study_path,
)
from skyt_tui.engine.studies.study_report import (
    CSV_COLUMNS,
    SKYT_COLUMNS,
    StudyRow,
    aggregate,
    compare,
    summary_csv,
)


def make_run(contract, model, temperature, codes, *, label="", day=1, source_id=None):
    """A complete stored run of recorded codes (no contract in the catalog: no oracle)."""
    return run_store.create_run(
        contract_id=contract,
        provider="replay",
        model=model,
        temperature=temperature,
        n=len(codes),
        label=label,
        origin={"kind": "import", "source_id": source_id} if source_id else {},
        samples=[
            run_store.SampleRecord(index=i, status=run_store.OK, code=code, response=code)
            for i, code in enumerate(codes)
        ],
        status=run_store.COMPLETE,
        created=datetime(2026, 1, day, 12, tzinfo=UTC),
    )


def test_filter_criteria_each_select():
    a = make_run("c1", "m1", 0.0, ["x = 1"], label="pilot", day=2, source_id="exp-a")
    b = make_run("c2", "m2", 0.7, ["x = 1"], day=5)
    both = [a, b]
    assert select_runs(RunFilter(contracts=("c1",)), both) == [a]
    assert select_runs(RunFilter(models=("m2",)), both) == [b]
    assert select_runs(RunFilter(temperatures=(0.7,)), both) == [b]
    assert select_runs(RunFilter(providers=("replay",)), both) == sorted(both, key=lambda m: m.id)
    assert select_runs(RunFilter(labels=("PILOT",)), both) == [a]
    assert select_runs(RunFilter(since="2026-01-03"), both) == [b]
    assert select_runs(RunFilter(until="2026-01-02"), both) == [a]
    assert select_runs(RunFilter(ids=("exp-a",)), both) == [a]
    assert select_runs(RunFilter(ids=(b.id,)), both) == [b]
    # every criterion must hold
    assert select_runs(RunFilter(models=("m1",), temperatures=(0.7,)), both) == []
    # from the store when no list is given
    assert [m.id for m in select_runs(RunFilter(models=("m1", "m2")))] == sorted([a.id, b.id])


def test_parse_filter_and_its_errors():
    f = parse_filter(["model=a,b", "temperature=0,0.7", "since=2026-01-01", "id=x"])
    assert f == RunFilter(
        models=("a", "b"), temperatures=(0.0, 0.7), since="2026-01-01", ids=("x",)
    )
    for bad in ("colour=red", "model", "temperature=hot", "since=yesterday", "model="):
        with pytest.raises(InputError, match="--filter"):
            parse_filter([bad])


def test_ids_from_csv_column_or_lines(tmp_path):
    table = tmp_path / "summary.csv"
    table.write_text("experiment_id,R_raw\nexp-a,0.5\nexp-b,1.0\nexp-a,0.5\n")
    assert ids_from_file(table) == ("exp-a", "exp-b")
    plain = tmp_path / "ids.txt"
    plain.write_text("# chosen runs\nrun-1\n\nrun-2\n")
    assert ids_from_file(plain) == ("run-1", "run-2")
    with pytest.raises(InputError, match="no such file"):
        ids_from_file(tmp_path / "missing.csv")
    (tmp_path / "empty.txt").write_text("\n")
    with pytest.raises(InputError, match="lists no ids"):
        ids_from_file(tmp_path / "empty.txt")
    # a table without an id column was read line by line: "a,b" and "1,2" became ids
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(
        InputError, match=r"no run_id or experiment_id column \(its columns: a, b\)"
    ):
        ids_from_file(tmp_path / "other.csv")


def test_study_toml_round_trip_list_and_delete():
    study = Study(
        name="temps",
        filter=RunFilter(models=("m1",), temperatures=(0.0, 0.7)),
        description="T 0 vs 0.7",
        distance="tree",
    )
    path = save_study(study)
    assert path == study_path("temps") and "temperatures = [" in path.read_text()
    assert load_study("temps") == study
    with pytest.raises(InputError, match="already exists"):
        save_study(study)
    save_study(study, overwrite=True)
    (path.parent / "broken.toml").write_text('name = "broken"\n[runs]\nmodels = "m1"\n')
    listed = {name: (s, error) for name, s, error in list_studies()}
    assert listed["temps"][0] == study
    assert listed["broken"][0] is None and "runs: models: must be a list" in listed["broken"][1]
    delete_study("temps")
    with pytest.raises(NotFoundError):
        load_study("temps")
    with pytest.raises(InputError, match="study name"):
        Study(name="../escape")


def store_a_partial_run():
    """m1 at T 0: a whole run of c1 and an interrupted one of c2 (3 of 8 samples); m1 at T 0.7: a
    whole run of c1."""
    make_run("c1", "m1", 0.0, ["x = 1", "x = 1"])
    run_store.create_run(
        contract_id="c2",
        provider="replay",
        model="m1",
        temperature=0.0,
        n=8,
        samples=[
            run_store.SampleRecord(index=i, status=run_store.OK, code="y = 2", response="y = 2")
            for i in range(3)
        ],
        status=run_store.INTERRUPTED,
        created=datetime(2026, 1, 2, 12, tzinfo=UTC),
    )
    make_run("c1", "m1", 0.7, ["x = 1", "x = 2"])


def row(model, temperature, contract, value, *, oer=1.0, pass_rate=1.0, n=10):
    return StudyRow(
        {
            "model": model,
            "decoding_temperature": temperature,
            "contract_id": contract,
            "R_raw": value,
            "OER": oer,
            "pass_rate": pass_rate,
            "n": n,
        }
    )


def test_aggregate_worked_example():
    rows = [
        row("m", 0.0, "a", 1.0),
        row("m", 0.0, "b", 0.6),
        row("m", 0.0, "b", 0.8),  # two runs in one cell: cell mean 0.7
        row("m", 0.5, "a", 0.5, oer=0.0),
        row("m", 0.5, "b", 0.3),
    ]
    table = aggregate(rows, "R_raw")
    assert table.contracts == ("a", "b")
    cold, warm = table.groups
    assert cold.cells == {"a": 1.0, "b": pytest.approx(0.7)}
    assert cold.runs_per_cell == {"a": 1, "b": 2}
    assert cold.mean == pytest.approx(0.85)  # over contracts: (1.0 + 0.7) / 2
    assert cold.mean_runs == pytest.approx(0.8)  # over runs: 2.4 / 3
    assert cold.std == pytest.approx(math.sqrt(2 * 0.15**2))  # sample std of 1.0, 0.7
    assert cold.ci[0] <= cold.mean <= cold.ci[1]
    assert warm.zero_equal_share == 0.5 and cold.zero_equal_share == 0.0
    (trend,) = table.trends
    assert trend.means == (pytest.approx(0.85), pytest.approx(0.4))
    assert trend.slope == pytest.approx((0.4 - 0.85) / 0.5)
    with pytest.raises(InputError, match="metric"):
        aggregate(rows, "nonsense")


def test_compare_temperatures_per_model_with_holm():
    rows = []
    for model in ("m1", "m2"):
        for i, contract in enumerate("abcdef"):
            rows.append(row(model, 0.0, contract, 0.9, pass_rate=0.8))
            rows.append(row(model, 0.7, contract, 0.8 - 0.05 * i, pass_rate=0.5))
    result = compare(rows, "R_raw", "temperature", "0", "0.7")
    assert [c.a for c in result.paired] == ["m1 temperature=0", "m2 temperature=0"]
    for c in result.paired:
        assert c.n == 6 and c.paired_over == "contract"
        assert c.p_value == pytest.approx(1 / 32)  # six positive differences, exact test
        assert c.p_holm == pytest.approx(2 / 32)
        assert c.rank_biserial == pytest.approx(1.0)
    rate = result.rates[0]
    assert (rate.rate_a.successes, rate.rate_a.n) == (48, 60)
    assert (rate.rate_b.successes, rate.rate_b.n) == (30, 60)


def test_summary_csv_columns_are_a_superset_of_skyts():
    header = next(csv.reader(io.StringIO(summary_csv([]))))
    assert tuple(header) == CSV_COLUMNS
    assert header[: len(SKYT_COLUMNS)] == list(SKYT_COLUMNS)
    from tests.corpus import corpus_dir

    skyt = corpus_dir() / "skyt-msr2026" / "metrics_summary.csv"
    if skyt.exists():
        with skyt.open() as handle:
            assert set(next(csv.reader(handle))) <= set(header)


def test_cli_create_report_json_csv_and_bad_input(tmp_path, capsys):
    for t, codes in ((0.0, ["a = 1"] * 4), (0.7, ["a = 1", "a = 2", "b = 1", "a = 1"])):
        for contract in ("c1", "c2"):
            make_run(contract, "m", t, codes)
    assert main(["study", "create", "s", "--filter", "model=m", "--description", "two temps"]) == 0
    assert "4 runs" in capsys.readouterr().out
    out_csv = tmp_path / "summary.csv"
    code = main(
        ["study", "report", "s", "--json", "--csv", str(out_csv), "--compare", "temperature=0:0.7"]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_runs"] == 4 and report["kind"] == "study_report"
    groups = {g["label"]: g for g in report["table"]["groups"]}
    assert groups["m T=0"]["mean"] == 1.0 and groups["m T=0.7"]["mean"] == 0.5
    paired = report["comparisons"][0]["paired"][0]
    assert paired["n"] == 2 and paired["paired_over"] == "contract"
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 4 and {r["R_raw"] for r in rows} == {"1.0", "0.5"}
    assert rows[0]["LCS"] != ""  # literature metrics are filled
    # the human table
    assert main(["study", "report", "--filter", "contract=c1"]) == 0
    shown = capsys.readouterr().out
    assert "R_raw · m" in shown and "trend m" in shown
    # bad input: one line, exit 2
    assert main(["study", "report", "--filter", "colour=red"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--filter 'colour=red'" in err[0]
    assert main(["study", "report", "s", "--metric", "nonsense"]) == 2
    assert main(["study", "report", "--filter", "model=nobody"]) == 2
    assert "selects no stored runs" in capsys.readouterr().err
    assert main(["study", "show", "missing"]) == 2


def test_cli_figures_png_and_svg(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for t in (0.0, 1.0):
        make_run("c1", "m", t, ["a = 1", "a = 2"])
    target = tmp_path / "figures"
    assert main(["study", "report", "--filter", "model=m", "--figures", str(target)]) == 0
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted(
        f"{stem}.{ext}"
        for stem in ("R_raw_vs_temperature", "distances_pre_post", "distance_heatmap")
        for ext in ("png", "svg")
    )
    assert (target / "R_raw_vs_temperature.png").read_bytes()[:4] == b"\x89PNG"


def test_figures_without_matplotlib_say_which_extra(monkeypatch, tmp_path, capsys):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    meta = make_run("c1", "m", 0.0, ["a = 1"])
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    summary = tmp_path / "summary.csv"
    assert (
        main(
            ["study", "report", "--filter", "model=m"]
            + ["--csv", str(summary), "--figures", str(tmp_path / "f")]
        )
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'skyt-tui[plots]'" in err[0]
    # issue 27.5: refused before the analysis starts, not after it
    assert not (run_store.run_path(meta.id) / run_store.ANALYSIS_FILE).exists()
    assert not summary.exists() and not (tmp_path / "f").exists()


def test_a_comparison_without_pairs_says_so(capsys):
    make_run("c1", "m", 0.0, ["a = 1", "a = 1"])
    assert main(["study", "report", "--filter", "model=m", "--compare", "temperature=0:0.7"]) == 0
    assert "no model has runs at both temperatures" in capsys.readouterr().out
    assert main(["study", "report", "--filter", "model=m", "--compare", "temperature=hot:0"]) == 2
    assert "--compare 'temperature=hot:0'" in capsys.readouterr().err


def test_study_without_tau_takes_settings_run_tau_and_records_it(capsys):
    from skyt_tui.engine.settings import update_setting
    from skyt_tui.engine.studies.study import load_study

    update_setting("run.tau", 0.25)
    assert main(["study", "create", "t", "--filter", "model=m"]) == 0
    assert load_study("t").tau == 0.25
    assert main(["study", "create", "u", "--filter", "model=m", "--tau", "0.05"]) == 0
    assert load_study("u").tau == 0.05


def test_a_sample_read_through_the_study_path_keeps_every_fact(monkeypatch):
    """The study's rows read the stored analysis by the one typed reader (`runs.analysis_record`):
    a sample's `passed_all`, `compliant` and `repair_steps` reach the study's metrics as stored
    (a parser of its own once dropped them)."""
    from skyt_tui.engine.runs import analyses
    from skyt_tui.engine.studies import study_report

    make_run("c1", "m1", 0.0, ["x = 1", "x = 2"])
    stored_facts = {"passed_all": True, "compliant": False, "repair_steps": ["rename_locals"]}
    analyze = analyses.analyze_stored_runs

    def with_facts(*args, **kwargs):
        documents = analyze(*args, **kwargs)
        for document in documents:
            document["samples"][0].update(stored_facts)
        return documents

    seen = []

    def literature(samples, *args, **kwargs):
        seen.append(list(samples))
        return literature_metrics(samples, *args, **kwargs)

    literature_metrics = study_report.literature_metrics
    monkeypatch.setattr(analyses, "analyze_stored_runs", with_facts)
    monkeypatch.setattr(study_report, "literature_metrics", literature)
    [row] = study_report.study_rows(Study(name="s", filter=RunFilter()))
    assert row.contract_id == "c1"
    [[first, second]] = seen
    assert (first.passed_all, first.compliant, first.repair_steps) == (
        True,
        False,
        ("rename_locals",),
    )
    assert (second.passed_all, second.compliant, second.repair_steps) == (None, None, ())


def test_a_run_without_code_is_not_averaged_in_as_zero(capsys):
    """A run in which no sample produced code (every generation failed, or cancelled before
    the first) has N = 0, and the engine's figures for it are 0.000s that measure nothing: the
    study's means took them in as 0.000 (the Runs list rightly shows `–`), and `report` printed
    them as values."""
    from skyt_tui.engine.studies import study_report

    make_run("c1", "m1", 0.0, ["x = 1", "x = 1"])
    run_store.create_run(
        contract_id="c1",
        provider="command",
        model="m1",
        temperature=0.0,
        n=2,
        samples=[
            run_store.SampleRecord(index=i, status=run_store.FAILED, error="exited with 1")
            for i in range(2)
        ],
        status=run_store.RUN_FAILED,
        created=datetime(2026, 1, 2, 12, tzinfo=UTC),
    )
    rows = study_report.study_rows(Study(name="s", filter=RunFilter()))
    empty = next(row for row in rows if row.values["n"] == 0)
    assert empty.values["R_raw"] is None and empty.values["mu_pre"] is None
    assert empty.values["n_failed"] == 2
    [group] = aggregate(rows, "R_raw").groups
    assert group.mean == 1.0 and group.runs_per_cell == {"c1": 1}
    assert main(["report", empty.run_id or ""]) == 0
    out = capsys.readouterr().out
    assert "no sample of the run has code: no metric is computed" in out
    assert "R_raw                       │ not computed" in out


def test_a_mean_over_partial_runs_is_marked_and_counted(capsys, monkeypatch):
    """A study averaged an interrupted run (3 of 8 samples) in without a word, where the Runs list
    marks its figures `~`."""
    from skyt_tui.engine.studies import study_report

    monkeypatch.setenv("COLUMNS", "160")
    store_a_partial_run()
    rows = study_report.study_rows(Study(name="s", filter=RunFilter()))
    assert sorted(row.partial for row in rows) == [False, False, True]
    cold, warm = aggregate(rows, "R_raw").groups
    assert (cold.partial_runs, warm.partial_runs) == (1, 0)
    assert aggregate(rows, "R_raw").to_dict()["groups"][0]["partial_runs"] == 1
    assert main(["study", "report", "--filter", "model=m1"]) == 0
    out = capsys.readouterr().out
    assert "~1.000" in out and "~0.500" not in out
    assert "~ the mean includes 1 partial run (fewer samples analysed than asked for" in out


def test_complete_and_failed_samples_make_a_run_whole():
    whole = StudyRow({"runs": 4, "n": 3, "n_failed": 1})
    short = StudyRow({"runs": 4, "n": 3, "n_failed": 0})
    assert (whole.partial, short.partial, StudyRow({}).partial) == (False, True, False)
