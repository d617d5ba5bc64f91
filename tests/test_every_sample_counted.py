"""Issue 36: every sample that produced code is a sample of its run, on every path.

The run the issue observed: three recorded samples of `is_prime`, the middle one a degenerate
answer of a kind models write at a high temperature, a 2,500-branch `elif` table of 93,918
characters (wrong for primes past its table). Before: `analyze` warned "sample 1 refused",
then reported `n: 2`, samples 0 and 2 only, `pass_rate: 1.0` and `n_failed: 1` in one metrics
object. Its true pass rate is 2/3, and every path — `analyze` (table, `--json --samples`,
`--csv`), `import` + `report` (table, `--json`, `--csv`), replay, a study, the app's Runs list
and run view — must say n = 3 and pass rate 2/3, in both isolation modes, and say that the
long sample was not parsed.

The counts' invariant on every run of both corpora is in the last tests
(`scripts/count_invariants.py`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from textual.widgets import DataTable

from skyt_tui.cli import main
from skyt_tui.engine import syntax
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.report import fmt3
from tests.corpus import require
from tests.test_hostile import isolation_modes
from tests.ui_support import clock, pilot_test, screen_text, settle

GOOD = (
    "def is_prime(n):\n    if n < 2:\n        return False\n    d = 2\n"
    "    while d * d <= n:\n        if n % d == 0:\n            return False\n"
    "        d += 1\n    return True\n"
)
ELIF_CHARS = 93_918
PASS_RATE = 2 / 3


def _prime(k: int) -> bool:
    return k > 1 and all(k % d for d in range(2, int(k**0.5) + 1))


def elif_program(branches: int = 2_500, chars: int = ELIF_CHARS) -> str:
    """A lookup table of `branches` `elif`s, `chars` characters long (its docstring fills it to
    the size), false for every number past the table: it fails `is_prime`'s large prime."""
    lines = ["\tif n == 0:", "\t\treturn False"]
    for k in range(1, branches):
        lines += [f"\telif n == {k}:", f"\t\treturn {_prime(k)}"]
    body = "\n".join([*lines, "\treturn False"])
    head = "def is_prime(n):\n"
    room = chars - len(head) - len(body) - len('\t""""""\n')
    doc = f"Whether n is prime, from a table of the numbers below {branches}. " * 400
    program = f'{head}\t"""{doc[:room]}"""\n{body}'
    assert len(program) == chars and program.count("\telif ") == branches - 1
    return program


@pytest.fixture
def three(tmp_path: Path) -> Path:
    """good, the 93,918-character elif program, good: as recorded samples (JSONL)."""
    path = tmp_path / "three.jsonl"
    rows = [
        {"contract_id": "is_prime", "model": "m", "temperature": 1.0, "code": code}
        for code in (GOOD, elif_program(), GOOD)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


REASON = f"the program has {ELIF_CHARS:,} characters (skyt-tui parses at most 50,000)"


def _counted(metrics: dict) -> None:
    assert (metrics["n"], metrics["n_failed"], metrics["n_limited"]) == (3, 0, 1), metrics
    assert metrics["pass_rate"] == PASS_RATE and metrics["pass_all_rate"] == PASS_RATE
    assert metrics["distance_bounds"] == 0 and metrics["invariant_violations"] == []


def _csv_rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _csv_counted(rows: list[dict]) -> None:
    assert [(r["index"], r["status"], r["passed"]) for r in rows] == [
        ("0", "ok", "True"),
        ("1", "ok", "False"),
        ("2", "ok", "True"),
    ]
    assert [bool(r["limited"]) for r in rows] == [False, True, False]
    assert rows[1]["limited"].startswith(REASON)


@pytest.fixture
def sandbox_mode(monkeypatch):
    """Set the isolation mode for this test's commands: the process's shared oracle is closed
    before (it keeps the mode it started with) and after (the next test starts its own)."""
    from skyt_tui.engine.executor.choice import current_executor

    def choose(mode: str) -> None:
        monkeypatch.setenv("SKYT_SANDBOX", mode)
        current_executor().close()

    yield choose
    current_executor().close()


def _json(capsys, *args: str) -> dict:
    assert main(list(args)) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out)


@pytest.mark.parametrize("mode", isolation_modes())
def test_the_observed_run_counts_its_three_samples(
    mode, three, tmp_path, monkeypatch, capsys, sandbox_mode
):
    """Issue 36, observed: `n: 2`, samples 0 and 2, `pass_rate: 1.0` and `n_failed: 1`."""
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    sandbox_mode(mode)
    [run] = _json(capsys, "analyze", str(three), "--json", "--samples")["runs"]
    assert [s["index"] for s in run["samples"]] == [0, 1, 2]
    metrics = run["metrics"]
    assert (metrics["n"], metrics["n_failed"], metrics["pass_rate"]) == (3, 0, PASS_RATE)


@pytest.mark.parametrize("mode", isolation_modes())
def test_the_three_samples_have_one_n_and_one_pass_rate_on_every_path(
    mode, three, tmp_path, monkeypatch, capsys, sandbox_mode
):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "200")  # whole cells in the tables, whatever the terminal
    sandbox_mode(mode)
    line = f"sample 1: {REASON}: {syntax.NOT_PARSED}"

    # analyze: the table, --json --samples (and its one warning line), --csv
    assert main(["analyze", str(three)]) == 0
    captured = capsys.readouterr()
    assert line in captured.err and captured.err.count("\n") == 1
    [row] = [r for r in captured.out.splitlines() if "is_prime" in r]
    assert "│ 3 │ 0.667 │" in row, row  # n, pass
    analysed = _json(capsys, "analyze", str(three), "--json", "--samples")
    [run] = analysed["runs"]
    _counted(run["metrics"])
    assert run["n"] == 3 and run["limited"] == [{"index": 1, "reason": REASON}]
    assert [s["index"] for s in run["samples"]] == [0, 1, 2]
    assert [s["passed"] for s in run["samples"]] == [True, False, True]
    long = run["samples"][1]
    assert long["oracle"]["status"] == "ok" and run["oracle"]["isolation"] == mode
    assert (
        long["oracle"]["reason"].startswith("test ")
        and "expected True, got False" in (long["oracle"]["reason"])
    )
    assert long["parse_error"] and long["limited"] == f"{REASON}: {syntax.NOT_PARSED}"
    assert 0.99 < long["d_pre"] == long["d_post"] < 1.0 and not long["d_bound"]
    csv_path = tmp_path / "analyze.csv"
    assert main(["analyze", str(three), "--csv", str(csv_path)]) == 0
    capsys.readouterr()
    _csv_counted(_csv_rows(csv_path.read_text()))

    # import + report: --json, --csv, the table
    imported = _json(capsys, "import", str(three), "--json")
    [run_id] = imported["created"]
    report = _json(capsys, "report", run_id, "--json")
    _counted(report["metrics"])
    assert report["metrics"] == run["metrics"]  # one run of the contract: the same canon
    assert [r["status"] for r in report["samples"]] == ["ok"] * 3
    assert report["samples"][1]["limited"] == long["limited"]
    assert main(["report", run_id, "--csv", "-"]) == 0
    _csv_counted(_csv_rows(capsys.readouterr().out))
    assert main(["report", run_id]) == 0
    captured = capsys.readouterr()
    assert line in captured.err
    assert "│ N (samples with code)       │             3 │" in captured.out
    assert "│ pass_rate                   │         0.667 │" in captured.out
    [sample_row] = [r for r in captured.out.splitlines() if r.startswith("│ 1 │")]
    assert [cell.strip() for cell in sample_row.split("│")[2:7]] == [
        "ok",
        "0.998",
        "0.998",
        "no",
        "long",
    ]

    # replay: the recorded answers through `run`, stored and analysed as a run of its own
    replayed = _json(
        capsys, "run", "is_prime", "--provider", "replay", "--replay", str(three), "--json"
    )
    [outcome] = replayed["runs"]
    assert (outcome["finished"], outcome["failed"]) == (3, 0)
    _counted(_json(capsys, "report", outcome["run_id"], "--json")["metrics"])

    # a study of both stored runs: its rows, SKYT's columns, its pass-rate counts
    assert main(["study", "create", "three", "--filter", "contract=is_prime"]) == 0
    capsys.readouterr()
    study = _json(capsys, "study", "report", "three", "--json")
    assert {r["run_id"] for r in study["runs"]} == {run_id, outcome["run_id"]}
    for study_row in study["runs"]:
        assert (study_row["n"], study_row["n_failed"], study_row["pass_rate"]) == (3, 0, PASS_RATE)
        assert (study_row["skyt"]["runs"], study_row["skyt"]["canon_coverage"]) == (3, PASS_RATE)
        assert study_row["LCS"] is not None and study_row["LED"] is not None


@pilot_test
async def test_the_app_counts_the_long_sample_and_says_it_was_not_parsed(three, isolated_home):
    from skyt_tui.ui.app import SkytApp
    from tests.test_ui_runs import open_run

    assert main(["import", str(three)]) == 0
    [summary] = run_store.list_runs()
    metrics = analyses.analyze_stored_run(summary.id)["metrics"]
    _counted(metrics)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        assert str(table.get_cell(summary.id, "N")) == "3/3"
        assert str(table.get_cell(summary.id, "pass")) == fmt3(PASS_RATE)
        screen = await open_run(pilot, summary.id)
        samples = screen.query_one("#samples-table", DataTable)
        assert samples.row_count == 3
        verdicts = [str(samples.get_row_at(i)[1]) for i in range(3)]
        assert verdicts == ["✓ pass", "✗ fail", "✓ pass"], verdicts
        samples.move_cursor(row=1)
        await pilot.pause()
        shown = screen_text(app)
        assert "sample 1 · ✗ fail · d_pre 0.998 → d_post 0.998" in shown
        assert "the program has 93,918 characters (skyt-tui parses at most 50,000)" in shown
        # the code view holds the first 1,000 lines, and says so at their end
        from skyt_tui.ui.screens.run_detail import _plain

        view = _plain(screen.sample_view(screen.selected_row(), "view-code"))
        assert view.rstrip().endswith(
            "(the first 1,000 of 5,003 lines shown, at most 100,000 of its 93,918 characters)"
        )


def test_the_old_refusal_is_gone_from_every_record(three, tmp_path, monkeypatch, capsys):
    """No `refused` key, status or line is left: a long sample is counted and named `limited`."""
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    text = json.dumps(_json(capsys, "analyze", str(three), "--json", "--samples", "--no-oracle"))
    assert "refused" not in text and '"limited"' in text


# --- the counts agree with the samples on every run of both corpora --------------------------


@pytest.mark.corpus
def test_every_run_of_skyt_msr2026_counts_every_sample():
    """All 240 runs (4,505 samples), judged in the sandbox; repair left out (it changes no count)."""
    from scripts.count_invariants import check_sources

    paths = sorted(require("skyt-msr2026", "outputs").glob("*.json"))
    runs_checked, samples, problems = check_sources(paths, repair=False)
    assert (runs_checked, samples) == (240, 4_505)
    assert problems == []


@pytest.mark.corpus
def test_a_slice_of_humaneval_codegen16b_counts_every_sample():
    """The first 4 tasks (400 samples; the whole, 8,000, is `scripts/count_invariants.py`'s)."""
    from scripts.count_invariants import check_sources

    folder = require("humaneval-codegen16b")
    runs_checked, samples, problems = check_sources([folder], runs=4, repair=False)
    assert (runs_checked, samples) == (4, 400)
    assert problems == []
