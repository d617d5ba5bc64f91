"""A stored run's report as data: per-sample rows, the whole report, CSV and JSON text.

The CLI (`skyt-tui report`) and the app's export both call these, so a CSV or
JSON written from either is the same file.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any

from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.registry import fmt3 as fmt3
from skyt_tui.engine.printable import json_printable, printable
from skyt_tui.engine.runs import run_store

if TYPE_CHECKING:  # the records load numpy (`measure.metrics`): not for every report's import
    from skyt_tui.engine.runs.analysis_record import OracleSummary, StoredAnalysis

SAMPLE_COLUMNS = (
    "run_id",
    "contract_id",
    "index",
    "status",
    "model",
    "temperature",
    "level",
    "passed",
    "passed_all",
    "tests_passed",
    "tests_total",
    "threshold",
    "compliant",
    "violations",
    "parse_error",
    "d_pre",
    "d_post",
    "signature_raw",
    "signature_level",
    "repair_steps",
    "truncated",
    "finish_reason",
    "extraction",
    "latency_s",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "seed",
    "error",
    "limited",
)
"""The per-sample CSV of `report --csv`, `analyze --csv` and the app's export (docs/json.md).

`passed` is the verdict under the contract's pass threshold (`threshold`, the share of
`tests_total` that must pass), `passed_all` whether every test passed; `compliant` and
`violations` (the broken rule ids) are empty for a contract without coding rules.
`signature_level` is the signature at the analysis level (the `level` column, `--level`);
facts a source did not record (latency, tokens, ... of imported samples) are empty.
`limited` says what the analysis did not do for a sample that is still counted (a program too
long to parse: not normalized, never canon, not repaired; a distance that is its bound).
"""
SIGNATURE_CHARS = 12
# `fmt3` (3 decimals, `–` for not computed) is the registry's; the CLI and the app import it
# from here.
SUMMARY_METRICS = registry.report_metrics()
"""The rows of `report RUN`'s metrics table (`measure.registry`: the metrics marked `report`)."""


JSON_SCHEMA_VERSION = 2
"""Version of the `--json` envelope and of every kind's fields (docs/json.md)."""


def envelope(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The one shape of every `--json` output: `schema_version`, `kind`, then `data`'s keys.

    `kind` names what the data is (`report`, `runs`, `paths`, ...), so a consumer can check it
    reads what it expects; `schema_version` changes when a kind's fields change incompatibly.
    """
    if not isinstance(data, dict):
        raise TypeError(f"a JSON envelope holds a dict, not {type(data).__name__}")
    clash = {"schema_version", "kind"} & data.keys()
    if clash:
        raise ValueError(f"data for kind {kind!r} has envelope keys: {', '.join(sorted(clash))}")
    return {"schema_version": JSON_SCHEMA_VERSION, "kind": kind, **data}


def json_safe(value: Any) -> Any:
    """nan/inf are not JSON; write them as null so every consumer can parse the output."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def metrics_line(analysis: StoredAnalysis) -> str:
    """One line of the headline metrics, for `run`, `resume` and the app's run progress."""
    m = analysis.metrics
    parts = [
        f"N={m.n}",
        f"R_raw={fmt3(m.R_raw)}",
        f"R_sig[{m.level}]={fmt3(m.R_sig.get(m.level))}",
        f"R_pairwise={fmt3(m.R_pairwise)}",
        f"R_anchor_pre={fmt3(m.R_anchor_pre)}",
        f"R_anchor_post={fmt3(m.R_anchor_post)}",
        f"pass_rate={fmt3(m.pass_rate)}",
    ]
    return "  ".join(parts) + (
        "  (– = not computed)" if m.R_anchor_pre is None or m.pass_rate is None else ""
    )


def sample_rows(run: run_store.StoredRun, analysis: StoredAnalysis) -> list[dict[str, Any]]:
    """One row per sample in index order: stored facts merged with the analysis, failed samples included."""
    level = analysis.level
    imported = run.meta.origin.get("kind") == "import"
    rows = []
    for record in run.samples:
        analysed = analysis.sample(record.index)
        facts = analysed.facts if analysed is not None else None
        signatures = facts.signatures if facts is not None else {}
        usage = record.usage or {}
        rows.append(
            {
                "run_id": run.meta.id,
                "contract_id": run.meta.contract_id,
                "index": record.index,
                "status": record.status,
                "temperature": run.meta.temperature,
                "level": level,
                "d_pre": facts.d_pre if facts is not None else None,
                "d_post": facts.d_post if facts is not None else None,
                "passed": facts.passed if facts is not None else None,
                **_verdict_columns(
                    facts.passed_all if facts is not None else None,
                    facts.compliant if facts is not None else None,
                    analysed.oracle if analysed is not None else None,
                ),
                "parse_error": facts.parse_error if facts is not None else None,
                # an imported sample was not generated here: its source recorded no attempts and
                # no truncation flag (`finish_reason` has what it recorded), as `analyze` has it
                "truncated": None if imported else record.truncated,
                "finish_reason": record.finish_reason,
                "extraction": record.extraction,
                "latency_s": record.latency_s,
                "attempts": None if imported else record.attempts,
                "prompt_tokens": usage.get("prompt_tokens", usage.get("input_tokens")),
                "completion_tokens": usage.get("completion_tokens", usage.get("output_tokens")),
                "model": record.model or run.meta.model,  # the run's, as `analysis_rows` has it
                "seed": record.seed,
                "signature_raw": _short(signatures.get("raw")),
                "signature_level": _short(signatures.get(level)),
                "repair_steps": " ".join(facts.repair_steps) or None if facts is not None else None,
                "error": record.error,
                "limited": facts.limited if facts is not None else None,
            }
        )
    return rows


def _verdict_columns(
    passed_all: bool | None, compliant: bool | None, oracle: OracleSummary | None
) -> dict[str, Any]:
    """The per-sample columns that say how the verdict was reached and which rules broke."""
    violations = oracle.compliance.violations if oracle and oracle.compliance else ()
    broken = [f"{v.rule}:{v.pattern}" if v.pattern else v.rule for v in violations]
    return {
        "passed_all": passed_all,
        "tests_passed": oracle.tests_passed if oracle is not None else None,
        "tests_total": oracle.tests_total if oracle is not None else None,
        "threshold": oracle.threshold if oracle is not None else None,
        "compliant": compliant,
        "violations": " | ".join(broken) or None,
    }


def _short(signature: str | None) -> str | None:
    return signature[:SIGNATURE_CHARS] if signature else None


def analysis_rows(analyses: list[Any]) -> list[dict[str, Any]]:
    """`SAMPLE_COLUMNS` rows of `analyze`'s results (`engine.analysis.pipeline.RunAnalysis`, not
    imported here: that would load numpy for every report); recorded samples count as `ok`, with what
    their source recorded (stop reason, token counts, the model per sample) and how each
    answer's code was taken (`extraction`), as `report --csv` has them for a stored run."""
    from skyt_tui.engine.runs.analysis_record import AnalysedSample

    rows = []
    for analysis in analyses:
        run = analysis.run
        details = {detail.index: detail for detail in analysis.details}
        run_rows = []
        for sample in analysis.samples:
            detail = details.get(sample.index)
            oracle = (
                AnalysedSample.from_dict(detail.to_dict()).oracle if detail is not None else None
            )
            fact = run.fact(sample.index)
            usage = fact.usage or {}
            run_rows.append(
                {
                    "run_id": run.id,
                    "contract_id": run.contract_id,
                    "index": sample.index,
                    "status": "ok",
                    "model": fact.model or run.model,
                    "temperature": analysis.run.temperature,
                    "level": analysis.level,
                    "passed": sample.passed,
                    **_verdict_columns(sample.passed_all, sample.compliant, oracle),
                    "parse_error": sample.parse_error,
                    "d_pre": sample.d_pre,
                    "d_post": sample.d_post,
                    "signature_raw": _short(sample.signatures.get("raw")),
                    "signature_level": _short(sample.signatures.get(analysis.level)),
                    "repair_steps": " ".join(sample.repair_steps) or None,
                    "finish_reason": fact.finish_reason,
                    "extraction": (
                        run.extraction[sample.index] if sample.index < len(run.extraction) else None
                    ),
                    "prompt_tokens": usage.get("prompt_tokens", usage.get("input_tokens")),
                    "completion_tokens": usage.get("completion_tokens", usage.get("output_tokens")),
                    "limited": sample.limited,
                }
            )
        rows.extend(sorted(run_rows, key=lambda row: row["index"]))
    return rows


def report_dict(
    run: run_store.StoredRun, analysis: StoredAnalysis, *, with_text: bool = False
) -> dict[str, Any]:
    """Everything `report --json` prints: run, state, counts, metrics, canon, oracle and the sample
    rows, the run's probe figures when it has a probe that is not stale (docs/probe.md), its
    provenance (contract, assembly) and the verdicts its tool recorded, when it did. The
    metrics, canon and oracle are the typed records written out in the format the analysis stores
    them in."""
    from skyt_tui.engine.runs.probes import stored_probe_figures
    from skyt_tui.engine.runs.run_import import stored_provenance, stored_tool_verdicts

    meta = run.meta.to_dict()
    meta.pop("contract", None)
    rows = sample_rows(run, analysis)
    if with_text:
        by_index = {r.index: r for r in run.samples}
        for row in rows:
            row["response"] = by_index[row["index"]].response
            row["code"] = by_index[row["index"]].code
    return {
        "run": meta,
        "state": run.state,
        "damaged": list(run.damaged),
        "counts": {
            "n": run.meta.n,
            "ok": run.n_ok,
            "failed": run.n_failed,
            "truncated": run.n_truncated,
            "missing": len(run.missing_indexes),
        },
        "level": analysis.level,
        "metrics": analysis.metrics.to_dict(),
        "canon": analysis.canon.to_dict(),
        "oracle": analysis.oracle.to_dict(),
        "samples": rows,
        **({"probe": probe} if (probe := stored_probe_figures(run)) is not None else {}),
        "provenance": stored_provenance(run),
        **(
            {"tool_verdicts": verdicts}
            if (verdicts := stored_tool_verdicts(run, analysis)) is not None
            else {}
        ),
    }


def report_json(
    run: run_store.StoredRun, analysis: StoredAnalysis, *, with_text: bool = False
) -> str:
    """The report as the JSON text `report --json` prints, byte for byte (nan/inf as null, keys
    sorted, characters a terminal would act on as \\u escapes)."""
    text = json.dumps(
        json_safe(envelope("report", report_dict(run, analysis, with_text=with_text))),
        indent=2,
        sort_keys=True,
        ensure_ascii=False,
    )
    return json_printable(text) + "\n"


def _csv_value(value: Any) -> Any:
    """A cell: floats at full precision, text from outside (a model's or run's name, an error)
    with its control characters written as escapes, so the CSV is inert wherever it goes (a
    file, a pipe, a terminal); newlines and tabs stay, quoted by the CSV."""
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if isinstance(value, str):
        return printable(value, multiline=True)
    return repr(value) if isinstance(value, float) else value


def samples_csv(rows: list[dict[str, Any]]) -> str:
    """The per-sample rows as CSV text with the `SAMPLE_COLUMNS` header; floats at full precision."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(SAMPLE_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _csv_value(row.get(key)) for key in SAMPLE_COLUMNS})
    return buffer.getvalue()
