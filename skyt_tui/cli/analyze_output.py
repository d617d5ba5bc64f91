"""What `analyze` prints of each run, made where the run is analysed, and written as runs finish.

`run_output` turns a run's analysis into what the command prints of it — the run's entry in
`--json` as text, its row of the table, its part of the per-source summary, its limited samples,
its CSV rows — and runs where the run was analysed (a node, on a cluster: `analysis.stream`
sends it there), so what comes back to this process is only what it writes. `JsonDocument`
writes the `--json` document run by run, byte for byte what `print_json` writes of the whole.
A `RunOutput` is plain JSON (`to_dict`), which `analyze --resume` keeps (`runs.resume`);
`from_dict` checks what it reads back.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from skyt_tui.cli.output import _json_safe
from skyt_tui.engine import store
from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.printable import json_printable
from skyt_tui.engine.runs.report import SAMPLE_COLUMNS, analysis_rows, envelope, samples_csv
from skyt_tui.engine.sources.agreement import Judged, source_part
from skyt_tui.engine.sources.recorded import assembly_label, provenance, trivial_asserts_label

if TYPE_CHECKING:
    from skyt_tui.engine.analysis.pipeline import RunAnalysis

TABLE_METRICS = (
    "pass_rate",
    "R_raw",
    "R_anchor_post",
    "rescue_rate",
    "mu_post",
    "P_tau_post",
    "R_pairwise",
)
"""The table's metric columns (headers from `measure.registry`; a metric with a pair shows pre→post)."""
COMPLIANCE = "compliance_rate"
"""Shown after the first column when a run's contract has coding rules."""


def table_metric_names() -> list[str]:
    """Every metric a table row may show, with the "pre" of each pair."""
    names = []
    for name in (COMPLIANCE, *TABLE_METRICS):
        metric = registry.metric(name)
        names += [metric.pair, name] if metric.pair else [name]
    return names


@dataclass(frozen=True)
class OutputOptions:
    """What the command prints, so what each run's output holds."""

    json: bool
    samples: bool
    csv: bool

    def settings(self) -> dict[str, Any]:
        return {"json": self.json, "samples": self.samples, "csv": self.csv}


@dataclass(frozen=True)
class RunOutput:
    run_id: str
    source: dict[str, Any]
    """The run's part of the per-source summary (`agreement.source_part`)."""
    limited: tuple[str, ...] = ()
    """One line per sample the analysis could not afford in full (`RunAnalysis.limited`)."""
    entry: str | None = None
    """The run's entry in `--json`, as `print_json` writes it at its place in the document."""
    row: dict[str, Any] | None = None
    """The table's row and the lines after the table (without `--json`)."""
    csv: str | None = None
    """The run's CSV rows, without the header (`--csv`)."""
    probe: Any = field(default=None, compare=False)
    """(probe, sample labels, figures) with `--probe`, for the table: not kept."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "source": self.source,
            "limited": list(self.limited),
            "entry": self.entry,
            "row": self.row,
            "csv": self.csv,
        }

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], options: OutputOptions, run_id: str, where: object = "kept run"
    ) -> RunOutput:
        """A kept output, checked: the run it is for, the parts `options` print, each of the
        type it must have; the `--json` entry parsed and written again, so what is printed is
        JSON as this program writes it whatever the file held. StoreError when it does not hold."""
        problem = _problem(data, options, run_id)
        if problem is not None:
            raise StoreError(f"{where}: {problem}")
        entry = data["entry"]
        if options.json:
            entry = entry_text(store.loads_json(entry))
        return cls(
            run_id=run_id,
            source=data["source"],
            limited=tuple(data["limited"]),
            entry=entry,
            row=data["row"],
            csv=data["csv"],
        )


def _problem(data: dict[str, Any], options: OutputOptions, run_id: str) -> str | None:
    if data.get("run_id") != run_id:
        return "is for another run"
    source = data.get("source")
    if not isinstance(source, dict) or not _source_part_ok(source):
        return "has no valid source summary"
    limited = data.get("limited")
    if not isinstance(limited, list) or not all(isinstance(line, str) for line in limited):
        return "has invalid limited samples"
    if options.json:
        entry = data.get("entry")
        if not isinstance(entry, str):
            return "has no --json entry"
        try:
            parsed = store.loads_json(entry)
        except store.JsonProblem:
            return "has an invalid --json entry"
        if not isinstance(parsed, dict) or parsed.get("id") != run_id:
            return "has a --json entry of another run"
    elif not _row_ok(data.get("row"), run_id):
        return "has no valid table row"
    if options.csv:
        text = data.get("csv")
        if not isinstance(text, str):
            return "has no CSV rows"
        width = len(SAMPLE_COLUMNS)
        if any(len(row) != width for row in csv.reader(io.StringIO(text))):
            return "has CSV rows of another shape"
    return None


def _number(value: Any) -> bool:
    """A JSON number (not a bool) or null: what a rate or metric may be."""
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _source_part_ok(part: dict[str, Any]) -> bool:
    """Every field `summarize_sources` reads, of the type it reads."""
    samples = part.get("samples")
    if not (
        isinstance(part.get("file"), str)
        and isinstance(part.get("format"), str)
        and isinstance(samples, int)
        and not isinstance(samples, bool)
        and samples >= 0
        and isinstance(part.get("judged_all"), bool)
        and isinstance(part.get("derived"), bool)
        and _tool_run_ok(part.get("tool_run"))
        and all(_text(part.get(key)) for key in ("tool", "granularity", "metric"))
        and all(_number(part.get(key)) for key in ("pass_rate", "total_pass_rate"))
    ):
        return False
    agreement = part.get("agreement")
    if agreement is None:
        return True
    if not isinstance(agreement, dict) or not _number(agreement.get("tool_pass_rate")):
        return False
    disagreements = agreement.get("disagreements")
    if disagreements is not None and (
        not isinstance(disagreements, int) or isinstance(disagreements, bool)
    ):
        return False
    evalplus = agreement.get("evalplus")
    return evalplus is None or (
        isinstance(evalplus, dict)
        and all(
            isinstance(evalplus.get(kind), dict)
            and all(_number(evalplus[kind].get(who)) for who in ("skyt", "tool"))
            for kind in ("base", "plus")
        )
    )


def _tool_run_ok(ended: Any) -> bool:
    """How the tool's run ended, as `ToolRun.to_dict` wrote it (or None)."""
    if ended is None:
        return True
    recorded, expected = (
        (ended.get("samples_recorded"), ended.get("samples_expected"))
        if isinstance(ended, dict)
        else (None, None)
    )
    return (
        isinstance(ended, dict)
        and isinstance(ended.get("status"), str)
        and isinstance(recorded, int)
        and not isinstance(recorded, bool)
        and (expected is None or (isinstance(expected, int) and not isinstance(expected, bool)))
        and all(_text(ended.get(key)) for key in ("tool", "tool_status", "error"))
    )


def _row_ok(row: Any, run_id: str) -> bool:
    """Every field the table reads, of the type it reads."""
    if not isinstance(row, dict) or row.get("id") != run_id:
        return False
    metrics = row.get("metrics")
    notes = row.get("notes")
    n = row.get("n")
    return (
        isinstance(metrics, dict)
        and all(_number(value) for value in metrics.values())
        and isinstance(notes, list)
        and all(isinstance(line, str) for line in notes)
        and isinstance(n, int)
        and not isinstance(n, bool)
        and _text(row.get("model"))
        and _number(row.get("temperature"))
        and _text(row.get("isolation"))
    )


def judged(analysis: RunAnalysis) -> Judged:
    """skyt-tui's verdicts on the run's samples, beside its source's."""
    names = tuple(t.name for t in analysis.contract.tests) if analysis.contract else ()
    return Judged(
        run=analysis.run,
        passed={s.index: s.passed for s in analysis.samples},
        tests={
            s.index: (names, s.pass_vector)
            for s in analysis.samples
            if s.pass_vector is not None and len(s.pass_vector) == len(names)
        },
    )


def run_dict(analysis: RunAnalysis, agreement: dict[str, Any] | None, with_samples: bool) -> dict:
    """The run's entry in `analyze --json`."""
    out = {**analysis.to_dict(with_samples=with_samples), **provenance(analysis.run)}
    if agreement is not None:
        out["tool_verdicts"] = agreement
    if analysis.run.tool is not None and analysis.run.tool.generation:
        out["generation"] = dict(sorted(analysis.run.tool.generation.items()))
    if analysis.run.tool_run is not None:
        out["tool_run"] = analysis.run.tool_run.to_dict()
    if with_samples:
        run = analysis.run
        for sample in out.get("samples", []):
            index = sample["index"]
            if run.assembly:
                sample["assembly"] = run.assembly[index]
            if run.extraction:
                sample["extraction"] = run.extraction[index]
            recorded = run.fact(index).to_dict()
            if recorded:
                sample["recorded"] = recorded
    return out


RUN_INDENT = " " * 4
"""A run's place in the document: an item of the top level's `runs` list."""


def entry_text(entry: dict[str, Any]) -> str:
    """A run's entry as `print_json` writes it inside the whole document."""
    text = json.dumps(_json_safe(entry), indent=2, sort_keys=True, ensure_ascii=False)
    return json_printable(RUN_INDENT + text.replace("\n", "\n" + RUN_INDENT))


def run_output(options: OutputOptions, analysis: RunAnalysis) -> RunOutput:
    """What the command prints of one run (where the run was analysed)."""
    verdicts = judged(analysis)
    part = source_part(verdicts)
    agreement = part["agreement"]
    run_id = analysis.run.id
    entry = row = text = None
    if options.json:
        entry = entry_text(run_dict(analysis, agreement, options.samples))
    else:
        row = table_row(analysis)
    if options.csv:
        body = samples_csv(analysis_rows([analysis]))
        text = body[body.index("\n") + 1 :]
    probe = None
    if analysis.probe is not None:
        probe = (
            analysis.probe,
            [f"{run_id} #{s.index}" for s in analysis.samples],
            analysis.probe_figures() or {},
        )
    return RunOutput(
        run_id=run_id,
        source=part,
        limited=tuple(sample.line(run_id) for sample in analysis.limited),
        entry=entry,
        row=row,
        csv=text,
        probe=probe,
    )


def table_row(analysis: RunAnalysis) -> dict[str, Any]:
    """The run's row of the table, and the lines the table is followed by."""
    metrics = analysis.metrics
    run = analysis.run
    notes = []
    facts = provenance(run)
    override = facts.get("contract_override")
    if override:
        notes.append(
            f"{run.id}: judged by --contract {override['id']} instead of {override['instead_of']}"
        )
    if facts["contract"].get("origin") == "catalog" and run.source_format == "skyt":
        notes.append(  # SKYT files embed the contract they were generated under; this one did not
            f"{run.id}: the file embeds no contract: judged by the catalog's {run.contract_id}"
        )
    if facts.get("assembly"):
        notes.append(f"{run.id}: programs assembled: {assembly_label(facts['assembly'])}")
    if facts.get("trivial_asserts"):
        notes.append(f"{run.id}: {trivial_asserts_label(facts['trivial_asserts'])}")
    return {
        "id": run.id,
        "model": run.model,
        "temperature": run.temperature,
        "n": metrics.n,
        "metrics": {name: getattr(metrics, name) for name in table_metric_names()},
        "notes": notes,
        "isolation": analysis.oracle_info.get("isolation"),
    }


class JsonDocument:
    """The `analyze --json` document, written run by run: the same bytes `print_json` writes of
    the whole (the runs sit between the keys that sort before `runs` and those after)."""

    MARK = "\0runs\0"

    def __init__(self, out: TextIO, kind: str, data: dict[str, Any]) -> None:
        self.out = out
        self.kind = kind
        self.data = data
        self.runs = 0

    def _halves(self, sources: list[dict[str, Any]]) -> tuple[str, str]:
        document = envelope(self.kind, {**self.data, "runs": self.MARK, "sources": sources})
        text = json.dumps(_json_safe(document), indent=2, sort_keys=True, ensure_ascii=False)
        head, tail = text.split(json.dumps(self.MARK))
        return json_printable(head), json_printable(tail)

    def add(self, entry: str) -> None:
        """One run's entry (`entry_text`)."""
        if self.runs == 0:
            self.out.write(self._halves([])[0] + "[\n")
        else:
            self.out.write(",\n")
        self.out.write(entry)
        self.out.flush()
        self.runs += 1

    def close(self, sources: list[dict[str, Any]]) -> None:
        """The keys after the runs, `sources` among them, and the end of the document."""
        head, tail = self._halves(sources)
        if self.runs == 0:
            self.out.write(head + "[]")
        else:
            self.out.write("\n  ]")
        self.out.write(tail + "\n")
        self.out.flush()
