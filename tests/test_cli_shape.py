"""One machine-readable shape: the --json envelope, one --json help, one per-sample CSV."""

import csv
import json

from skyt_tui.cli import build_parser, main
from skyt_tui.cli.commands import COMMANDS
from skyt_tui.engine.runs.report import JSON_SCHEMA_VERSION, SAMPLE_COLUMNS

FIB = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
FIB_DOC = FIB.replace("):\n", '):\n    """The n-th Fibonacci number."""\n', 1)


def json_of(capsys, *argv):
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_json_output_is_the_envelope(capsys, tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps({"contract_id": "fibonacci_iterative", "code": FIB}) + "\n")
    for argv, kind in (
        (("paths",), "paths"),
        (("runs", "list"), "runs"),
        (("contracts", "list"), "contracts"),
        (("canon", "list"), "canons"),
        (("bench", "list"), "benchmarks"),
        (("analyze", str(source), "--no-oracle"), "analysis"),
        (("import", str(source)), "import"),
        (("report", "latest"), "report"),
    ):
        document = json_of(capsys, *argv)
        assert list(document)[:2] == ["kind", "schema_version"] or {
            "kind",
            "schema_version",
        } <= set(document)
        assert (document["schema_version"], document["kind"]) == (JSON_SCHEMA_VERSION, kind), argv


def test_paths_names_state_settings_and_contracts(capsys, isolated_home):
    document = json_of(capsys, "paths")
    assert document["state"] == str(isolated_home)
    assert document["settings"] == str(isolated_home / "settings.toml")
    assert document["contracts"] == str(isolated_home / "contracts")
    assert main(["paths"]) == 0
    text = capsys.readouterr().out
    assert f"settings           {isolated_home / 'settings.toml'}" in text


def _all_parsers():
    """(name, parser) of every command and subcommand, each command's module registered."""
    found = []

    def walk(prefix, parser):
        found.append((prefix, parser))
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, sub in action.choices.items():
                    walk(f"{prefix} {name}".strip(), sub)

    for command in COMMANDS:
        parser = build_parser(command)
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                walk(command, action.choices[command])
    return found


def test_one_json_help_and_a_description_on_every_command_and_positional():
    helps = set()
    for name, parser in _all_parsers():
        assert parser.description, f"`{name}` has no description"
        for action in parser._actions:
            if "--json" in action.option_strings:
                helps.add(action.help)
            if not action.option_strings and action.__class__.__name__ != "_SubParsersAction":
                assert action.help, f"`{name}` positional {action.dest} has no help"
    assert len(helps) == 1


def test_no_spec_references_in_help(capsys):
    for name, parser in _all_parsers():
        assert "SPEC" not in parser.format_help(), name


def test_analyze_and_report_write_the_same_csv_and_the_signature_follows_the_level(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "fibonacci_iterative", "code": code}) + "\n"
            for code in (FIB, FIB_DOC)
        )
    )
    analyzed = tmp_path / "analyze.csv"
    assert main(["analyze", str(source), "--level", "raw", "--csv", str(analyzed)]) == 0
    assert main(["import", str(source)]) == 0
    reported = tmp_path / "report.csv"
    assert main(["report", "latest", "--level", "raw", "--csv", str(reported)]) == 0
    for path in (analyzed, reported):
        with path.open() as handle:
            reader = csv.DictReader(handle)
            assert tuple(reader.fieldnames) == SAMPLE_COLUMNS
            rows = list(reader)
        assert [r["level"] for r in rows] == ["raw", "raw"]
        assert all(r["signature_level"] == r["signature_raw"] for r in rows)
        assert rows[0]["signature_raw"] != rows[1]["signature_raw"]
    nodoc = tmp_path / "nodoc.csv"
    assert main(["analyze", str(source), "--level", "nodoc", "--csv", str(nodoc)]) == 0
    rows = list(csv.DictReader(nodoc.open()))
    assert rows[0]["signature_level"] == rows[1]["signature_level"] != rows[1]["signature_raw"]


def test_report_csv_gives_the_runs_model_where_a_sample_names_none(tmp_path):
    """An imported run's samples carry no model of their own: `report --csv` left the column
    empty where `analyze --csv` of the same file gives the run's model."""
    source = tmp_path / "s.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "fibonacci_iterative", "model": "gpt-x", "code": code})
            + "\n"
            for code in (FIB, FIB_DOC)
        )
    )
    analyzed, reported = tmp_path / "analyze.csv", tmp_path / "report.csv"
    assert main(["analyze", str(source), "--csv", str(analyzed)]) == 0
    assert main(["import", str(source)]) == 0
    assert main(["report", "latest", "--csv", str(reported)]) == 0
    for path in (analyzed, reported):
        assert [row["model"] for row in csv.DictReader(path.open())] == ["gpt-x", "gpt-x"]


def test_a_piped_report_keeps_every_samples_cell_whole(tmp_path, capsys, monkeypatch):
    """Piped (a CI log, a file), `report`'s samples table is as wide as its cells, as every other
    table of the command line is (`output.print_table`): it was folded into 80 columns, each
    signature cut to "ade769e…" and the `latency s` header to "s"."""
    monkeypatch.delenv("COLUMNS", raising=False)
    source = tmp_path / "s.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "fibonacci_iterative", "code": code}) + "\n"
            for code in (FIB, FIB_DOC)
        )
    )
    assert main(["import", str(source)]) == 0
    samples = json_of(capsys, "report", "latest")["samples"]
    capsys.readouterr()
    assert main(["report", "latest"]) == 0
    out = capsys.readouterr().out
    assert "latency s" in out and "signature" in out
    for sample in samples:
        assert sample["signature_level"] and sample["signature_level"] in out, sample
