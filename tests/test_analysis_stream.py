"""Issue 39 on this machine: the analysis run by run (`analysis.stream`) gives what the batch
pipeline gives; `analyze` writes its output as runs finish, byte for byte what it wrote of the
whole; `--resume` keeps finished runs in the store and takes them back, with the same final
bytes, checking what it reads; the stored runs' analyses are cached as each run finishes; and
the Ray executor's stream has a bounded number of calls out, whatever the number of runs (a
stand-in for Ray: no cluster needed). The same on a real cluster: tests/test_ray_executor.py.
"""

from __future__ import annotations

import io
import json
import math
from functools import partial
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.analysis import stream
from skyt_tui.engine.analysis.pipeline import analyze_runs
from skyt_tui.engine.sources.recorded import load_sources, resolve_contracts

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RUNS = 6
SAMPLES_PER_RUN = 5


def records(folder: Path, runs: int = RUNS, per_run: int = SAMPLES_PER_RUN) -> Path:
    """`runs` runs of fibonacci samples (the fixture's, each run a different slice) as records."""
    samples = [
        json.loads(line) for line in (FIXTURES / "fibonacci_samples.jsonl").read_text().splitlines()
    ]
    lines = []
    for number in range(runs):
        for position in range(per_run):
            sample = samples[(number * 3 + position) % len(samples)]
            lines.append(
                json.dumps(
                    {
                        "run_id": f"fib-{number}",
                        "contract_id": "fibonacci_iterative",
                        "model": f"model-{number % 2}",
                        "temperature": 0.1 * number,
                        "code": sample["code"],
                    }
                )
            )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "records.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def runs_of(path: Path):
    return resolve_contracts(load_sources([str(path)]), override=None, require=True)


def as_json(analyses) -> list[str]:
    return [json.dumps(a.to_dict(), sort_keys=True, allow_nan=True) for a in analyses]


# ---- the analysis run by run --------------------------------------------------------------------


def test_run_by_run_gives_what_the_batch_gives(tmp_path):
    """Each run analysed on its own (as on a cluster's node, here with the local executor) and
    in batches: the same analyses, in the same order."""
    runs = runs_of(records(tmp_path))
    batch = as_json(analyze_runs(runs))
    assert as_json(stream.analyze_stream(runs, per_run=True)) == batch
    assert as_json(stream.analyze_stream(runs)) == batch
    assert any(
        json.loads(run)["samples"][i].get("repair", {}).get("steps")
        for run in batch
        for i in range(SAMPLES_PER_RUN)
    ), "the slice repairs something"


def test_run_by_run_in_store_mode_gives_what_the_batch_gives(tmp_path):
    """Stored runs: the canon is the store's (found, or established, by the driver), on both paths."""
    from skyt_tui.engine.runs.analyses import first_passing_stored_sample, run_input
    from skyt_tui.engine.runs.analyses import shared_oracle as oracle
    from skyt_tui.engine.runs.run_import import import_runs
    from skyt_tui.engine.runs.run_store import load_run

    ids = [meta.id for meta in import_runs([str(records(tmp_path))]).created]
    inputs = [run_input(load_run(run_id)) for run_id in ids]

    def provider(contract):
        return first_passing_stored_sample(contract, oracle())

    options = dict(canon_mode="store", store_canon_provider=provider)
    per_run = as_json(stream.analyze_stream(inputs, per_run=True, **options))
    assert per_run == as_json(analyze_runs(inputs, **options))
    assert json.loads(per_run[0])["canon"]["source"] == "store"


def test_batches_here_are_bounded_and_in_order(tmp_path, monkeypatch):
    """On this machine runs go in batches of about LOCAL_BATCH_SAMPLES samples, in input order."""
    runs = runs_of(records(tmp_path))
    seen: list[list[str]] = []
    real = stream.analyze_runs

    def counting(batch, **options):
        seen.append([run.id for run in batch])
        return real(batch, **options)

    monkeypatch.setattr(stream, "analyze_runs", counting)
    monkeypatch.setattr(stream, "LOCAL_BATCH_SAMPLES", 2 * SAMPLES_PER_RUN)
    found = [a.run.id for a in stream.analyze_stream(runs, oracle=False)]
    assert found == [run.id for run in runs]
    assert seen == [[run.id for run in runs[i : i + 2]] for i in range(0, RUNS, 2)]


# ---- analyze prints as runs finish ----------------------------------------------------------


def test_the_json_document_written_run_by_run_is_print_jsons(capsys):
    """`JsonDocument` against `print_json` of the whole, with outside text that must be escaped
    (C1 controls, bidirectional overrides, line separators) and NaN in a run and the sources."""
    from skyt_tui.cli.analyze_output import JsonDocument, entry_text
    from skyt_tui.cli.output import print_json

    nasty = "run\u0085\u202e\u2028 ü \x1b[31m"
    runs = [
        {"id": nasty, "n": 3, "metrics": {"R_raw": math.nan, "nested": [1, {"a": []}]}},
        {"id": "plain", "samples": [], "source": "x\ty"},
    ]
    data = {"level": "nodoc", "tau": 0.1, "distance": "nodoc/levenshtein@1"}
    sources = [{"file": nasty, "pass_rate": math.nan, "runs": 2}]
    for count in (0, 1, 2):
        print_json("analysis", {**data, "runs": runs[:count], "sources": sources})
        expected = capsys.readouterr().out
        out = io.StringIO()
        document = JsonDocument(out, "analysis", data)
        for run in runs[:count]:
            document.add(entry_text(run))
        document.close(sources)
        assert out.getvalue() == expected, count


def test_the_cached_documents_text_is_write_jsons(tmp_path):
    """A stored run's cached analysis, made around the text a node sends: write_json's bytes."""
    from skyt_tui.engine import store
    from skyt_tui.engine.runs.analyses import _cached_document

    analysis = {"id": "r\u2028", "metrics": {"mu": math.nan, "n": 2}, "samples": [{"a": [1.5, []]}]}
    key = {"level": "nodoc", "tau": 0.1, "versions": {"oracle": "o@1"}}
    store.write_json(tmp_path / "a.json", {"key": key, "analysis": analysis}, kind="analysis")
    text = json.dumps(analysis, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=True)
    assert _cached_document(key, text) == (tmp_path / "a.json").read_text(encoding="utf-8")


def _analyze(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_csv_written_in_parts_is_whole_or_absent(tmp_path, capsys, monkeypatch):
    """`--csv FILE` is renamed into place whole once every run is in; a command that stops
    midway leaves no file and no temporary one."""
    source = str(records(tmp_path / "in"))
    whole = tmp_path / "whole.csv"
    assert _analyze(capsys, source, "--csv", str(whole), "--json")[0] == 0
    lines = whole.read_text().splitlines()
    assert lines[0].startswith("run_id,") and len(lines) == 1 + RUNS * SAMPLES_PER_RUN
    assert _analyze(capsys, source, "--csv", "-")[1] == whole.read_text()

    from skyt_tui.cli import analyze_output

    calls = []
    real = analyze_output.run_output

    def failing(options, analysis):
        calls.append(analysis.run.id)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(options, analysis)

    monkeypatch.setattr(stream, "LOCAL_BATCH_SAMPLES", 1)
    monkeypatch.setattr(analyze_output, "run_output", failing)
    import skyt_tui.cli.analyze_cmd as analyze_cmd

    monkeypatch.setattr(analyze_cmd, "run_output", failing)
    broken = tmp_path / "out" / "broken.csv"
    broken.parent.mkdir()
    code, _, _ = _analyze(capsys, source, "--csv", str(broken), "--json")
    assert code == 130
    assert list(broken.parent.iterdir()) == []


# ---- --resume ---------------------------------------------------------------------------------


@pytest.fixture
def interrupt_after(monkeypatch):
    """`interrupt_after(n)`: the next analyze stops (as Ctrl-C) when n runs are finished; every
    run analysed is counted in the list it returns. Runs go one per batch, so each is kept as
    it finishes."""
    import skyt_tui.cli.analyze_cmd as analyze_cmd
    from skyt_tui.cli import analyze_output

    monkeypatch.setattr(stream, "LOCAL_BATCH_SAMPLES", 1)
    analysed: list[str] = []
    limit: list[int | None] = [None]
    real = analyze_output.run_output

    def counted(options, analysis):
        if limit[0] is not None and len(analysed) >= limit[0]:
            raise KeyboardInterrupt
        analysed.append(analysis.run.id)
        return real(options, analysis)

    monkeypatch.setattr(analyze_cmd, "run_output", counted)

    def arm(count: int | None) -> list[str]:
        limit[0] = count
        analysed.clear()
        return analysed

    return arm


def kept_files(home: Path) -> list[Path]:
    folder = home / "resume"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("options", [["--json", "--samples"], ["--json"], []])
def test_an_interrupted_analyze_resumes_to_the_same_bytes(
    tmp_path, capsys, isolated_home, interrupt_after, options
):
    """Stopped after 2 of 6 runs: the 2 are kept; run again with --resume, only the other 4 are
    analysed and the output is the uninterrupted one's, byte for byte; then nothing is kept."""
    source = str(records(tmp_path / "in"))
    interrupt_after(None)
    code, expected, _ = _analyze(capsys, source, *options)
    assert code == 0
    interrupt_after(2)
    code, _, _ = _analyze(capsys, source, *options, "--resume")
    assert code == 130
    assert len(kept_files(isolated_home)) == 2
    analysed = interrupt_after(None)
    code, resumed, _ = _analyze(capsys, source, *options, "--resume")
    assert code == 0
    assert analysed == [f"fib-{n}" for n in range(2, RUNS)]
    assert resumed == expected
    assert kept_files(isolated_home) == []


def test_kept_runs_are_used_only_for_the_same_analysis(
    tmp_path, capsys, isolated_home, interrupt_after
):
    """Other options (τ, --no-repair, what is printed) or other samples: nothing kept is used."""
    source = records(tmp_path / "in")
    interrupt_after(3)
    assert _analyze(capsys, str(source), "--json", "--resume")[0] == 130
    for options in (["--tau", "0.2"], ["--no-repair"], ["--samples"], ["--level", "raw"]):
        analysed = interrupt_after(None)
        assert _analyze(capsys, str(source), "--json", "--resume", *options)[0] == 0
        assert len(analysed) == RUNS, options
    text = source.read_text().replace("return b", "return (b)", 1)
    source.write_text(text)
    analysed = interrupt_after(None)
    assert _analyze(capsys, str(source), "--json", "--resume")[0] == 0
    # fib-0's samples changed: analysed again; fib-1 and fib-2 kept; fib-3.. never finished
    assert analysed == ["fib-0", "fib-3", "fib-4", "fib-5"]


def test_a_kept_run_that_does_not_hold_is_analysed_again(
    tmp_path, capsys, isolated_home, interrupt_after
):
    """A kept file that is not JSON, holds another run's output, or an entry that is not JSON:
    one warning line naming it, the run analysed again, the same bytes."""
    source = str(records(tmp_path / "in"))
    interrupt_after(None)
    expected = _analyze(capsys, source, "--json")[1]
    interrupt_after(4)
    assert _analyze(capsys, source, "--json", "--resume")[0] == 130
    first, second, third, _ = kept_files(isolated_home)
    first.write_text("{ not json")
    document = json.loads(second.read_text())
    document["output"]["run_id"] = "fib-9"
    second.write_text(json.dumps(document))
    document = json.loads(third.read_text())
    document["output"]["entry"] = '{"id": "fib-2", '
    third.write_text(json.dumps(document))
    analysed = interrupt_after(None)
    code, out, err = _analyze(capsys, source, "--json", "--resume")
    assert code == 0 and out == expected
    assert len(analysed) == RUNS - 1, "the three that do not hold are analysed again"
    warnings = [line for line in err.splitlines() if "analysed again" in line]
    assert len(warnings) == 3 and all(line.startswith("skyt-tui: warning: ") for line in warnings)
    for path, reason in (
        (first, "corrupt JSON"),
        (second, "is for another run"),
        (third, "has an invalid --json entry"),
    ):
        assert any(str(path) in line and reason in line for line in warnings), (path, warnings)


def test_a_kept_entry_is_written_as_this_program_writes_json(
    tmp_path, capsys, isolated_home, interrupt_after
):
    """What a kept entry holds is parsed and written again: a file with raw terminal controls in
    a string and its own layout still gives the document's escapes and layout."""
    source = str(records(tmp_path / "in"))
    interrupt_after(1)
    assert _analyze(capsys, source, "--json", "--resume")[0] == 130
    [kept] = kept_files(isolated_home)
    document = json.loads(kept.read_text())
    entry = json.loads(document["output"]["entry"])
    entry["model"] = "evil\u009b\u202e"
    document["output"]["entry"] = json.dumps(entry, ensure_ascii=False)
    kept.write_text(json.dumps(document, ensure_ascii=False))
    interrupt_after(None)
    code, out, _ = _analyze(capsys, source, "--json", "--resume")
    assert code == 0
    assert "\u009b" not in out and "\u202e" not in out and "\\u009b\\u202e" in out
    assert json.loads(out)["runs"][0]["model"] == "evil\u009b\u202e"


def _valid_output() -> dict:
    return {
        "run_id": "r",
        "source": {
            "file": "f.jsonl",
            "format": "jsonl",
            "samples": 2,
            "tool": "evalplus",
            "granularity": "sample",
            "metric": "base+plus",
            "total_pass_rate": None,
            "agreement": {
                "tool_pass_rate": 0.5,
                "disagreements": 1,
                "evalplus": {"base": {"skyt": 1.0, "tool": 0.5}, "plus": {"skyt": 0, "tool": None}},
            },
            "pass_rate": 0.5,
            "judged_all": True,
            "derived": False,
            "tool_run": {
                "tool": "inspect",
                "status": "error",
                "tool_status": "error",
                "error": "boom",
                "samples_expected": 4,
                "samples_recorded": 2,
                "complete": False,
            },
        },
        "limited": ["run r: sample 3: too long"],
        "entry": json.dumps({"id": "r", "n": 2}),
        "row": {
            "id": "r",
            "model": "m",
            "temperature": 0.7,
            "n": 2,
            "metrics": {"R_raw": 0.5, "mu_post": None},
            "notes": [],
            "isolation": "bubblewrap",
        },
        "csv": "",
    }


BREAKAGES = [
    ("run_id", None, "is for another run"),
    ("source", [], "source summary"),
    ("source.samples", "2", "source summary"),
    ("source.samples", True, "source summary"),
    ("source.pass_rate", "0.5", "source summary"),
    ("source.tool", 3, "source summary"),
    ("source.agreement", [], "source summary"),
    ("source.agreement.disagreements", "1", "source summary"),
    ("source.agreement.evalplus", {"base": {}}, "source summary"),
    ("source.agreement.evalplus.base.skyt", "x", "source summary"),
    ("source.derived", None, "source summary"),
    ("source.tool_run", [], "source summary"),
    ("source.tool_run.status", None, "source summary"),
    ("source.tool_run.samples_recorded", "2", "source summary"),
    ("source.tool_run.samples_expected", True, "source summary"),
    ("source.tool_run.error", 3, "source summary"),
    ("limited", [3], "limited samples"),
    ("entry", None, "no --json entry"),
    ("entry", '{"id": ', "invalid --json entry"),
    ("entry", "[" * 300 + "]" * 300, "invalid --json entry"),
    ("entry", '{"id": "s"}', "another run"),
    ("row.model", 3, "table row"),
    ("row.temperature", "hot", "table row"),
    ("row.n", 2.0, "table row"),
    ("row.metrics", {"R_raw": "1"}, "table row"),
    ("row.notes", "x", "table row"),
    ("csv", None, "no CSV rows"),
    ("csv", "a,b\n", "CSV rows of another shape"),
]


@pytest.mark.parametrize(("where", "value", "reason"), BREAKAGES)
def test_a_kept_output_is_checked_field_by_field(where, value, reason):
    """Every field the command reads back from a kept file, of the type it reads, or one
    StoreError saying what does not hold (the run is then analysed again)."""
    from skyt_tui.cli.analyze_output import OutputOptions, RunOutput
    from skyt_tui.engine.errors import StoreError

    json_mode = not where.startswith("row")
    options = OutputOptions(json=json_mode, samples=False, csv=where == "csv")
    assert RunOutput.from_dict(_valid_output(), options, "r").run_id == "r"
    data = _valid_output()
    *path, last = where.split(".")
    target = data
    for key in path:
        target = target[key]
    target[last] = value
    with pytest.raises(StoreError, match=reason):
        RunOutput.from_dict(data, options, "r", "kept.json")


def test_resume_with_probe_is_refused(tmp_path, capsys):
    code, out, err = _analyze(capsys, str(records(tmp_path)), "--probe", "--resume")
    assert code == 2 and out == ""
    assert err == (
        "skyt-tui: error: --resume does not apply to --probe "
        "(a probed analysis goes in batches, not run by run)\n"
    )


# ---- stored runs: each analysis cached as its run finishes ---------------------------------


def _one_run_per_batch(monkeypatch) -> None:
    """Runs analysed one per batch here (on a cluster each is on its own anyway). Written so the
    test runs against the code before issue 39 too, which had no `stream` (and fails there by
    its assertions)."""
    try:
        from skyt_tui.engine.analysis import stream as streamed
    except ImportError:
        return
    monkeypatch.setattr(streamed, "LOCAL_BATCH_SAMPLES", 1)


def test_analyze_prints_each_run_as_it_finishes(tmp_path, capsys, monkeypatch):
    """Issue 39: the driver held every result until it printed them all. Now each run's entry is
    on stdout before the next run's analysis is finished."""
    from skyt_tui.engine.analysis import pipeline

    _one_run_per_batch(monkeypatch)
    real = pipeline._finish
    printed_before: list[int] = []

    def finishing(*args, **options):
        printed_before.append(len(capsys.readouterr().out))
        return real(*args, **options)

    monkeypatch.setattr(pipeline, "_finish", finishing)
    assert main(["analyze", str(records(tmp_path)), "--json"]) == 0
    assert len(printed_before) == RUNS
    assert printed_before[0] == 0 and all(size > 0 for size in printed_before[1:])


def test_stored_runs_are_cached_as_each_finishes(tmp_path, isolated_home, monkeypatch):
    """Issue 39: an analysis of stored runs cached them only once all were done, so one stopped
    midway kept nothing. Now it has cached the runs it finished, and the next analysis takes
    them from the cache and analyses the others only."""
    from skyt_tui.engine.analysis import pipeline
    from skyt_tui.engine.runs import analyses
    from skyt_tui.engine.runs.run_import import import_runs

    _one_run_per_batch(monkeypatch)
    ids = [meta.id for meta in import_runs([str(records(tmp_path))]).created]
    real = pipeline._finish
    finished: list[str] = []

    def stopping(p, *args, **options):  # p: the run's pipeline._Stage
        if len(finished) == 2:
            raise KeyboardInterrupt
        finished.append(p.p.run.id)
        return real(p, *args, **options)

    monkeypatch.setattr(pipeline, "_finish", stopping)
    with pytest.raises(KeyboardInterrupt):
        analyses.analyze_stored_runs(ids)
    runs = isolated_home / "runs"
    assert [run_id for run_id in ids if (runs / run_id / "analysis.json").exists()] == ids[:2]
    finished.clear()
    monkeypatch.setattr(
        pipeline, "_finish", lambda p, *a, **o: finished.append(p.p.run.id) or real(p, *a, **o)
    )
    found = analyses.analyze_stored_runs(ids)
    assert finished == ids[2:]
    assert [entry["id"] for entry in found] == ids


def test_an_interrupted_import_analyze_continues_where_it_stopped(
    tmp_path, capsys, isolated_home, monkeypatch
):
    """`import --analyze` stopped after 2 runs, run again: the runs are stored already, and the
    ones without a cached analysis (only those) are analysed now."""
    from skyt_tui.engine.analysis import pipeline

    _one_run_per_batch(monkeypatch)
    source = str(records(tmp_path))
    real = pipeline._finish
    finished: list[str] = []
    limit = [2]

    def stopping(p, *args, **options):  # p: the run's pipeline._Stage
        if limit[0] is not None and len(finished) == limit[0]:
            raise KeyboardInterrupt
        finished.append(p.p.run.id)
        return real(p, *args, **options)

    monkeypatch.setattr(pipeline, "_finish", stopping)
    assert main(["import", source, "--analyze", "--json"]) == 130
    capsys.readouterr()
    first = list(finished)
    finished.clear()
    limit[0] = None
    assert main(["import", source, "--analyze", "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["created"] == [] and len(imported["existing"]) == RUNS
    assert imported["analysed"] == imported["existing"]
    assert len(first) == 2 and len(finished) == RUNS - 2 and not set(first) & set(finished)
    runs = isolated_home / "runs"
    assert all((runs / run_id / "analysis.json").exists() for run_id in imported["analysed"])


# ---- Ray's stream: a bounded number of calls out -------------------------------------------


class _Ref:
    def __init__(self, value):
        self.value = value


class _FakeRay:
    """What `RayExecutor._gather` uses of `ray`, with tasks that finish when asked for."""

    class exceptions:  # noqa: N801 - Ray's name
        class RayError(Exception):
            pass

        class RayTaskError(RayError):
            pass

    def __init__(self):
        self.out: set[int] = set()
        self.most = 0
        self.cancelled: list[_Ref] = []

    def remote(self, function):
        fake = self

        class Remote:
            def remote(self, *args):
                ref = _Ref(function(*args))
                fake.out.add(id(ref))
                fake.most = max(fake.most, len(fake.out))
                return ref

        return Remote()

    def get(self, ref):
        self.out.discard(id(ref))
        return ref.value

    def wait(self, refs, num_returns=1):
        return refs[:num_returns], refs[num_returns:]

    def cancel(self, ref, force=False):
        self.cancelled.append(ref)


def test_rays_stream_has_a_bounded_number_of_calls_out_and_reads_lazily():
    """However many runs: at most the window is sent and not handed back, the arguments are
    read only as calls go out, results come in order; a caller that stops cancels what is out."""
    from skyt_tui.engine.executor.ray_executor import RayExecutor

    fake = _FakeRay()
    executor = RayExecutor(fake, "fake", owned=False)
    read = []

    def calls():
        for number in range(1000):
            read.append(number)
            yield (number,)

    remote = fake.remote(partial(pow, 2))
    results = executor._gather(remote, calls(), window=4)
    first = [next(results) for _ in range(10)]
    assert first == [2**n for n in range(10)]
    assert fake.most <= 4
    assert len(read) <= 10 + 4
    results.close()
    assert len(fake.cancelled) == len(fake.out) and fake.cancelled
    fake = _FakeRay()
    executor = RayExecutor(fake, "fake", owned=False)
    everything = list(executor._gather(fake.remote(partial(pow, 3)), calls(), window=3))
    assert everything == [3**n for n in range(1000)] and fake.most <= 3


@pytest.mark.parametrize("options", [["--json", "--samples"], []])
def test_resume_keeps_incomplete_runs_and_limited_samples(
    tmp_path, capsys, isolated_home, interrupt_after, options
):
    """What issues 35 and 36 added to a run's output travels through a kept file: an Inspect run
    that stopped on an error (its `tool_run`, the INCOMPLETE line) and a sample past the size
    rule (its `limited` line on stderr): taken back without a word and printed, byte for byte,
    as an uninterrupted run prints them."""
    from skyt_tui.engine.syntax import MAX_PROGRAM_CHARS

    log = FIXTURES / "formats" / "real" / "inspect-0.3.90" / "error.eval"
    source = records(tmp_path / "in", runs=2)
    lines = source.read_text().splitlines()
    long = json.loads(lines[0])
    long["code"] += "\n" + "# padding\n" * (MAX_PROGRAM_CHARS // 10 + 1)
    source.write_text("\n".join([json.dumps(long), *lines[1:]]) + "\n")
    interrupt_after(None)
    code, expected, expected_err = _analyze(capsys, str(log), str(source), *options)
    assert code == 0
    assert ("INCOMPLETE" in expected) == (options == [])
    assert '"tool_run"' in expected or options == []
    assert "fib-0" in expected_err  # the limited sample, said
    interrupt_after(4)  # the log's three runs and fib-0 kept
    assert _analyze(capsys, str(log), str(source), *options, "--resume")[0] == 130
    assert len(kept_files(isolated_home)) == 4
    analysed = interrupt_after(None)
    code, resumed, err = _analyze(capsys, str(log), str(source), *options, "--resume")
    assert code == 0
    assert analysed == ["fib-1"]
    assert "analysed again" not in err
    assert resumed == expected
    assert err.count("fib-0") == expected_err.count("fib-0")
