"""Reading other tools' files as they are (issue 23): each format recognised from its content,
every answer through the one extraction rule, the tool's verdicts beside skyt-tui's.

The files under tests/fixtures/formats are the project's own answers to its three Study
problems, laid out as each tool writes them (tests/fixtures/formats/write_fixtures.py);
EvalPlus's results there were written by EvalPlus itself.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.sources.recorded import load_sources, parse_field_map, resolve_contracts
from tests.corpus import require

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
PROBLEMS = ROOT / "tests" / "fixtures" / "humaneval_full" / "problems.jsonl"
INSPECT_EVAL = FIXTURES / "inspect" / "study.eval"
INSPECT_JSON = FIXTURES / "inspect" / "study.json"
LM_EVAL = FIXTURES / "lm-eval" / "fake-model" / "samples_humaneval_2026-01-01T00-00-00.000000.jsonl"
EVALPLUS_RESULTS = FIXTURES / "evalplus" / "samples_eval_results.json"
EVALPLUS_SAMPLES = FIXTURES / "evalplus" / "samples.jsonl"
EVALPLUS_DATASET = FIXTURES / "evalplus" / "StudyPlus.jsonl"
BIGCODE = FIXTURES / "bigcode" / "generations_humaneval.json"
PROMPTFOO = FIXTURES / "promptfoo" / "results.jsonl"
BATCH_OUTPUT = FIXTURES / "openai-batch" / "batch_output.jsonl"
BATCH_INPUT = FIXTURES / "openai-batch" / "batch_input.jsonl"

FIB = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        input=stdin,
        timeout=300,
    )


def analyze(capsys, *args: str) -> dict:
    assert main(["analyze", *args, "--json", "--samples", "--no-repair"]) == 0
    return json.loads(capsys.readouterr().out)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


# ---- observation 1: one extraction rule on every path --------------------------------------


def fenced_answers(tmp_path: Path) -> Path:
    answers = [
        f"Here is the function:\n\n```python\n{FIB}```\n",
        f"```python\n{FIB}```",
        f"Sure!\n```py\n{FIB}```\nIt runs in O(n).",
    ]
    return write_jsonl(
        tmp_path / "chat.jsonl",
        [{"contract_id": "fibonacci_iterative", "code": answer} for answer in answers],
    )


def test_fenced_chat_answers_score_the_same_by_analyze_import_and_replay(
    tmp_path, capsys, isolated_home
):
    """Before: analyze and import + report 0.000 (syntax error, line 1), replay 1.000."""
    source = fenced_answers(tmp_path)
    [analysed] = analyze(capsys, str(source))["runs"]
    assert analysed["metrics"]["pass_rate"] == 1.0
    assert [s["extraction"] for s in analysed["samples"]] == ["fenced"] * 3

    assert main(["import", str(source), "--json"]) == 0
    [run_id] = json.loads(capsys.readouterr().out)["created"]
    stored = run_store.load_run(run_id)
    assert [s.extraction for s in stored.samples] == ["fenced"] * 3
    assert stored.samples[0].response.startswith("Here is the function")
    assert main(["report", run_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["pass_rate"] == 1.0

    replay = subprocess.run(
        [
            sys.executable,
            "-m",
            "skyt_tui",
            "run",
            "fibonacci_iterative",
            "--provider",
            "replay",
            "--replay",
            str(source),
            "-n",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(isolated_home)},
    )
    assert replay.returncode == 0, replay.stderr
    [outcome] = json.loads(replay.stdout)["runs"]
    replayed = run_store.load_run(outcome["run_id"])
    assert [s.code for s in replayed.samples] == [s.code for s in stored.samples]


def test_analyze_csv_and_report_csv_say_how_each_answer_was_taken(capsys, isolated_home):
    """Before: `analyze --csv` left `extraction`, the stop reason and the token counts empty
    for recorded samples whose `report --csv`, once imported, has them."""
    columns = ("passed", "extraction", "finish_reason", "prompt_tokens", "completion_tokens")

    def rows(text: str) -> dict[tuple[str, str], list[str]]:
        return {
            (row["contract_id"], row["index"]): [row[c] for c in columns]
            for row in csv.DictReader(io.StringIO(text))
        }

    assert main(["analyze", str(INSPECT_EVAL), "--csv", "-", "--no-repair"]) == 0
    analysed = rows(capsys.readouterr().out)
    assert analysed[("Study_0", "0")] == ["True", "completion-full", "stop", "60", "30"]
    assert main(["import", str(INSPECT_EVAL), "--json"]) == 0
    reported: dict[tuple[str, str], list[str]] = {}
    for run_id in json.loads(capsys.readouterr().out)["created"]:
        assert main(["report", run_id, "--csv", "-"]) == 0
        reported |= rows(capsys.readouterr().out)
    assert len(analysed) == 9 and reported == analysed


def test_plain_code_is_unchanged_by_the_rule():
    """SKYT's raw_outputs and plain code samples parse, so the rule keeps them byte for byte."""
    resolved = resolve_contracts(
        load_sources([ROOT / "tests" / "fixtures" / "fibonacci_samples.jsonl"])
    )
    for run in resolved:
        assert run.codes == run.responses
        assert set(run.extraction) == {"unfenced"}


# ---- observation 2: Inspect ------------------------------------------------------------------


@pytest.mark.parametrize("log", [INSPECT_EVAL, INSPECT_JSON], ids=["eval", "json"])
def test_inspect_logs_are_read_with_their_verdicts(capsys, log):
    """Before: `.eval` was an unsupported source; the `.json` log was taken for a SKYT file."""
    out = analyze(capsys, str(log))
    assert [r["contract_id"] for r in out["runs"]] == ["Study_0", "Study_1", "Study_2"]
    first = out["runs"][0]
    assert first["model"] == "openai-api/local/fake-model" and first["temperature"] == 0.7
    assert first["contract"]["origin"] == "problem"
    assert first["generation"] == {"temperature": 0.7}
    sample = first["samples"][0]["recorded"]
    assert sample["finish_reason"] == "stop" and sample["usage"]["completion_tokens"] == 30
    assert sample["prompt"].startswith("Read the following function signature")
    assert sample["tool_passed"] is True
    # Inspect's scorer fails the prose-then-function answer that skyt-tui extracts
    assert first["tool_verdicts"]["disagreements"] == 1
    assert first["tool_verdicts"]["disagreeing_samples"] == [1]
    [summary] = out["sources"]
    assert summary["samples"] == 9 and summary["tool"] == "inspect"
    assert summary["pass_rate"] == pytest.approx(2 / 3)
    assert summary["tool_pass_rate"] == pytest.approx(5 / 9)
    assert summary["disagreements"] == 1


def test_map_picks_the_samples_list_out_of_an_inspect_json_log(capsys):
    """Before: `--map` could not choose among the log's three lists."""
    mapping = "records=samples,task=id,code=output.completion"
    out = analyze(capsys, str(INSPECT_JSON), "--map", mapping, "--no-oracle")
    assert [r["n"] for r in out["runs"]] == [3, 3, 3]


def test_inspect_archive_members_are_read_with_a_cap(tmp_path, monkeypatch):
    """A member that inflates past the cap is refused without inflating it whole."""
    from skyt_tui.engine.sources import files

    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t", "model": "m"}}))
        archive.writestr("samples/1_epoch_1.json", b"{" + b" " * (2 << 20) + b"}")
    monkeypatch.setattr(files, "MAX_ZIP_MEMBER_BYTES", 1 << 20)
    with pytest.raises(InputError, match="larger than 1 MiB"):
        load_sources([bomb])


# ---- observation 3: lm-evaluation-harness ----------------------------------------------------


def test_lm_eval_samples_are_read_with_the_model_from_the_results_file(capsys):
    out = analyze(capsys, str(LM_EVAL))
    assert {r["model"] for r in out["runs"]} == {"fake-model"}
    assert {r["temperature"] for r in out["runs"]} == {0.7}
    assert [r["n"] for r in out["runs"]] == [3, 3, 3]
    assert [s["assembly"] for s in out["runs"][0]["samples"]] == ["completion"] * 3
    verdicts = out["runs"][0]["tool_verdicts"]
    assert verdicts["granularity"] == "task" and verdicts["tool_pass_rate"] == pytest.approx(2 / 3)
    assert verdicts["disagreements"] == 0
    [summary] = out["sources"]
    assert summary["pass_rate"] == pytest.approx(summary["tool_pass_rate"])


def test_map_indexes_into_lists_and_expands_stars(capsys):
    """Before: `--map code=resps.0.0` was "must be a string"; no way to read N answers a line."""
    mapping = "task=doc.task_id,code=resps.0.*"
    out = analyze(capsys, str(LM_EVAL), "--map", mapping, "--problems", str(PROBLEMS))
    assert [r["n"] for r in out["runs"]] == [3, 3, 3]
    one = analyze(capsys, str(LM_EVAL), "--map", "task=doc.task_id,code=resps.0.1", "--no-oracle")
    assert [r["n"] for r in one["runs"]] == [1, 1, 1]


def test_a_missing_map_path_is_said_to_be_missing(tmp_path):
    result = run_cli(
        "analyze", str(LM_EVAL), "--map", "task=doc.task_id,code=resps.0.5", "--no-oracle"
    )
    assert result.returncode == 2
    line = result.stderr.strip()
    assert "line 1: field 'resps.0.5' is missing: resps.0 has 3 items, no index 5" in line


def test_map_where_filters_records(tmp_path, capsys):
    source = write_jsonl(
        tmp_path / "two-filters.jsonl",
        [
            {"task": "fibonacci_iterative", "filter": "none", "out": [FIB]},
            {"task": "fibonacci_iterative", "filter": "strip", "out": ["x = 1"]},
        ],
    )
    out = analyze(capsys, str(source), "--map", "task=task,code=out.*,where=filter=none")
    assert out["runs"][0]["n"] == 1 and out["runs"][0]["metrics"]["pass_rate"] == 1.0


# ---- observation 4: EvalPlus -----------------------------------------------------------------


def test_evalplus_results_with_its_dataset_reproduce_base_and_plus(capsys):
    """The plus inputs become tests; expected outputs from the reference inside the sandbox."""
    out = analyze(capsys, str(EVALPLUS_RESULTS), "--problems", str(EVALPLUS_DATASET))
    [summary] = out["sources"]
    assert summary["tool"] == "evalplus" and summary["samples"] == 9
    assert summary["evalplus"]["base"] == {
        "skyt": pytest.approx(2 / 3),
        "tool": pytest.approx(2 / 3),
    }
    assert summary["evalplus"]["plus"] == {
        "skyt": pytest.approx(5 / 9),
        "tool": pytest.approx(5 / 9),
    }
    assert summary["disagreements"] == 0
    names = [t["name"] for t in out["runs"][2]["samples"][2]["oracle"]["tests"]]
    assert names == ["Study/2 base[1]", "Study/2 plus[1]"]


def test_evalplus_samples_read_beside_their_results_and_ids_match_imported_contracts(capsys):
    """Before: `HumanEval/0` never matched the `HumanEval_0` contract `import-humaneval` writes."""
    assert main(["contracts", "import-humaneval", str(PROBLEMS)]) == 0
    capsys.readouterr()
    out = analyze(capsys, str(EVALPLUS_SAMPLES))
    assert [r["contract"]["origin"] for r in out["runs"]] == ["catalog"] * 3
    [summary] = out["sources"]
    # judged by the human-eval check, compared with EvalPlus's base verdict: the split(' ')
    # answer passes EvalPlus's base inputs and fails the check's '  x   y '
    assert summary["tool"] == "evalplus" and summary["disagreements"] == 1


def test_evalplus_model_and_temperature_come_from_its_file_name(tmp_path, capsys):
    folder = tmp_path / "humaneval"
    folder.mkdir()
    named = folder / "gpt-4o_openai_temp_0.2_eval_results.json"
    named.write_text(EVALPLUS_RESULTS.read_text())
    out = analyze(capsys, str(named), "--problems", str(PROBLEMS))
    assert {(r["model"], r["temperature"]) for r in out["runs"]} == {("gpt-4o", 0.2)}


# ---- observation 5: bigcode ------------------------------------------------------------------


def test_bigcode_generations_take_their_tasks_by_position(capsys):
    out = analyze(capsys, str(BIGCODE), "--problems", str(PROBLEMS))
    assert [r["contract_id"] for r in out["runs"]] == ["Study_0", "Study_1", "Study_2"]
    assert {(r["model"], r["temperature"]) for r in out["runs"]} == {("fake-model", 0.7)}
    [summary] = out["sources"]
    assert summary["pass_rate"] == pytest.approx(summary["tool_pass_rate"]) == pytest.approx(2 / 3)


def test_bigcode_without_problems_says_what_to_give():
    result = run_cli("analyze", str(BIGCODE))
    assert result.returncode == 2 and "--problems" in result.stderr


# ---- observation 6: promptfoo ----------------------------------------------------------------


def test_promptfoo_results_map_task_ids_and_extract_fenced_answers(capsys):
    """Before: only with --map --no-oracle; HumanEval/0 was no contract, fences stayed in."""
    out = analyze(capsys, str(PROMPTFOO), "--problems", str(PROBLEMS))
    assert [r["contract_id"] for r in out["runs"]] == ["Study_0", "Study_1", "Study_2"]
    assert out["runs"][0]["model"] == "openai:chat:fake-model"
    [summary] = out["sources"]
    assert summary["pass_rate"] == summary["tool_pass_rate"] == pytest.approx(2 / 3)
    assert summary["disagreements"] == 0


# ---- observation 7: OpenAI Batch -------------------------------------------------------------


def test_openai_batch_output_is_joined_to_its_requests(capsys):
    out = analyze(
        capsys, str(BATCH_OUTPUT), "--requests", str(BATCH_INPUT), "--problems", str(PROBLEMS)
    )
    assert {(r["model"], r["temperature"]) for r in out["runs"]} == {("fake-model", 0.7)}
    study2 = out["runs"][2]
    assert study2["metrics"]["n"] == 2  # the third request failed in the batch
    first = out["runs"][0]["samples"][0]["recorded"]
    assert first["model"] == "fake-model-2026-01-01" and first["usage"]["total_tokens"] == 90
    assert "user: Complete this function:" in first["prompt"]


def test_openai_batch_output_without_requests_says_what_to_give():
    result = run_cli("analyze", str(BATCH_OUTPUT))
    assert result.returncode == 2 and "--requests" in result.stderr
    result = run_cli("analyze", str(BATCH_INPUT))
    assert result.returncode == 2 and "OpenAI Batch input file" in result.stderr


# ---- recognised from content; unrecognised in one line ---------------------------------------


def test_formats_are_recognised_from_content_not_names(tmp_path):
    from skyt_tui.engine.sources.formats import Source, detect

    for path, name in [
        (INSPECT_EVAL, "inspect"),
        (INSPECT_JSON, "inspect"),
        (LM_EVAL, "lm-eval"),
        (EVALPLUS_RESULTS, "evalplus"),
        (BIGCODE, "bigcode"),
        (PROMPTFOO, "promptfoo"),
        (BATCH_OUTPUT, "openai-batch"),
    ]:
        renamed = tmp_path / f"{name}.data"
        renamed.write_bytes(path.read_bytes())
        assert detect(Source(renamed)).name == name


def test_an_unrecognised_file_says_what_it_looks_like_and_which_format_to_give(tmp_path):
    odd = write_jsonl(tmp_path / "odd.jsonl", [{"question": "q", "answer": "a"}])
    result = run_cli("analyze", str(odd))
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "JSONL whose first line has the keys answer, question" in line
    assert "--format" in line and "--map" in line


def test_format_flag_reads_a_file_as_that_format(tmp_path, capsys):
    out = analyze(capsys, str(PROMPTFOO), "--format", "promptfoo", "--problems", str(PROBLEMS))
    assert len(out["runs"]) == 3
    result = run_cli("analyze", str(PROMPTFOO), "--format", "nope")
    assert result.returncode == 2 and "unknown format 'nope'" in result.stderr


# ---- observation 8: pipelines ----------------------------------------------------------------


def test_standard_input_is_a_source():
    """Before: `-` was "no such file or directory"."""
    result = run_cli("analyze", "-", "--json", "--no-repair", stdin=INSPECT_JSON.read_text())
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["runs"]) == 3
    result = run_cli(
        "analyze",
        str(PROMPTFOO),
        "--problems",
        "-",
        "--json",
        "--no-repair",
        stdin=PROBLEMS.read_text(),
    )
    assert result.returncode == 0, result.stderr


def test_standard_input_for_oracle_samples_contracts_and_contamination(monkeypatch):
    """Before: `oracle CONTRACT -` and `contracts validate -` said "-: no such file", and
    `bench contamination NAME -` read a file named `-`."""
    result = run_cli("oracle", "fibonacci_iterative", "-", "--json", stdin=FIB)
    assert result.returncode == 0, result.stderr
    [verdict] = json.loads(result.stdout)["samples"]
    assert verdict["verdict"]["passed"] is True
    bundled = ROOT / "skyt_tui" / "bundled" / "contracts" / "balanced_brackets.toml"
    result = run_cli("contracts", "validate", "-", "--json", stdin=bundled.read_text())
    assert result.returncode == 0, result.stderr
    [checked] = json.loads(result.stdout)["results"]
    assert checked["ok"] and checked["id"] == "balanced_brackets"
    result = run_cli("contracts", "validate", "-", stdin="id = [")
    assert result.returncode == 2 and "<stdin>: invalid TOML" in result.stderr

    from skyt_tui.engine.benchmark.fingerprints import check_contamination
    from skyt_tui.engine.benchmark.items import Item

    words = "the quick brown fox jumps over the lazy dog while seven wizards quietly hex"
    stdin = io.TextIOWrapper(io.BytesIO(f"noise\n{words}\n".encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    report = check_contamination((Item(id="leaky", difficulty="easy", body=words),), "-")
    assert report.file == "<stdin>" and report.contaminated[0].shared == 2
    assert not stdin.buffer.closed


def test_analyze_csv_to_stdout_writes_only_the_csv():
    """Before: the table followed the CSV."""
    result = run_cli("analyze", str(INSPECT_JSON), "--csv", "-", "--no-repair")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("run_id,") and len(lines) == 10


def test_read_jsonl_rows_is_the_one_reader(tmp_path):
    """The store, the human-eval reader and the replay provider read foreign JSONL through one
    function (files.read_jsonl_rows)."""
    import skyt_tui.engine.generation.providers.replay as replay
    import skyt_tui.engine.sources.humaneval as humaneval_module
    from skyt_tui.engine import store

    assert not hasattr(store, "read_jsonl_rows")
    assert "json.loads" not in Path(replay.__file__).read_text()
    assert "files" in humaneval_module.__dict__


def test_stdin_is_read_once(monkeypatch):
    from skyt_tui.engine.sources import files

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"a": 1}\n')))
    files.set_stdin_bytes(None)
    try:
        assert files.read_bytes("-") == b'{"a": 1}\n'
        assert files.read_bytes("-") == b'{"a": 1}\n'
    finally:
        files.set_stdin_bytes(None)


def test_parse_field_map_rejects_bad_paths():
    with pytest.raises(InputError, match="'\\*' may appear once"):
        parse_field_map("code=a.*.b.*")
    with pytest.raises(InputError, match="where must be PATH=VALUE"):
        parse_field_map("code=x,where=filter")


def test_import_keeps_what_the_tool_recorded_and_report_shows_its_verdicts(capsys):
    """Prompt sent, stop reason, token counts and the tool's verdict survive import."""
    assert main(["import", str(INSPECT_EVAL), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)["created"]
    study0 = next(i for i in created if run_store.load_meta(i).contract_id == "Study_0")
    run = run_store.load_run(study0)
    assert run.meta.origin["tool"]["name"] == "inspect"
    assert run.meta.origin["generation"] == {"temperature": 0.7}
    first = run.samples[0]
    assert first.finish_reason == "stop" and first.usage == {
        "prompt_tokens": 60,
        "completion_tokens": 30,
        "total_tokens": 90,
    }
    assert first.prompt.startswith("Read the following") and first.extraction == "completion-full"
    assert [s.recorded_verdict["passed"] for s in run.samples] == [True, False, False]
    assert main(["report", study0, "--json"]) == 0
    verdicts = json.loads(capsys.readouterr().out)["tool_verdicts"]
    assert verdicts["tool"] == "inspect" and verdicts["disagreements"] == 1
    assert verdicts["disagreeing_samples"] == [1]


def test_old_sample_records_still_read(tmp_path):
    """Records written before `prompt` and `recorded_verdict` existed read as None."""
    record = run_store.SampleRecord.from_dict(
        {"index": 0, "status": "ok", "code": "x = 1", "extraction": "recorded"}, tmp_path
    )
    assert record.prompt is None and record.recorded_verdict is None


def test_study_report_csv_to_stdout_writes_only_the_csv(tmp_path, isolated_home, monkeypatch):
    """Before: `study report --csv -` wrote a file named `-`."""
    assert main(["import", str(ROOT / "tests" / "fixtures" / "fibonacci_samples.jsonl")]) == 0
    monkeypatch.chdir(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(isolated_home)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skyt_tui",
            "study",
            "report",
            "--filter",
            "provider=replay",
            "--csv",
            "-",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and "," in lines[0] and "wrote" not in done.stdout


def test_replay_reads_answers_from_standard_input(tmp_path, isolated_home):
    answers = fenced_answers(tmp_path).read_text()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(isolated_home)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skyt_tui",
            "run",
            "fibonacci_iterative",
            "--provider",
            "replay",
            "--replay",
            "-",
            "-n",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        input=answers,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    [outcome] = json.loads(done.stdout)["runs"]
    assert outcome["finished"] == 3


def test_a_byte_order_mark_before_the_json_is_not_part_of_it(tmp_path, capsys):
    """A JSONL or SKYT file that an editor saved with a UTF-8 byte order mark was "neither JSON,
    JSONL nor an Inspect log"."""
    skyt = require("skyt-msr2026", "outputs", "gcd_temp0.7_20260119_134348.json")
    row = json.dumps({"contract_id": "gcd", "code": "def gcd(a, b):\n    return a"}) + "\n"
    cases = [(skyt.read_bytes(), "s.json"), (row.encode(), "s.jsonl")]
    for plain, name in cases:
        metrics = []
        for data in (plain, b"\xef\xbb\xbf" + plain):
            path = tmp_path / name
            path.write_bytes(data)
            assert main(["analyze", str(path), "--json"]) == 0
            [run] = json.loads(capsys.readouterr().out)["runs"]
            metrics.append(run["metrics"])
        assert metrics[0] == metrics[1]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"contract_id": "gcd", "model": "m"}\n', "line 1: field 'code' is missing"),
        ("{}\n", "a JSONL whose first line has no keys, not a format"),
    ],
)
def test_a_one_line_jsonl_is_told_what_it_lacks(tmp_path, capsys, text, said):
    """A one-line JSONL of records without `code` was read as a SKYT experiment ("experiment_id:
    missing (not a SKYT experiment file?)"), its `contract_id` being a key SKYT files have too;
    and `{}` was "a JSONL whose first line has the keys no keys"."""
    source = tmp_path / "records.jsonl"
    source.write_text(text)
    assert main(["analyze", str(source)]) == 2
    err = capsys.readouterr().err
    assert said in err and "experiment_id" not in err and "the keys no keys" not in err


@pytest.mark.parametrize(
    ("text", "kind"),
    [('"hello"\n', "string"), ("42\n", "number"), ("true", "true"), ("null", "null")],
)
def test_a_json_value_that_is_not_records_is_named(tmp_path, capsys, text, kind):
    """A file holding one JSON string or number was "neither JSON, JSONL nor an Inspect log"."""
    path = tmp_path / "value.json"
    path.write_text(text)
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"value.json: unsupported source: a JSON {kind}, not records" in err
    assert err.count("\n") == 1
