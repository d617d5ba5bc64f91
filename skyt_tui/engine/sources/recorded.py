"""Reading recorded samples for analysis, whatever wrote them (docs/recorded-samples.md, docs/coming-from.md).

`load_sources` reads each file with the reader its content calls for (`formats.detect`, or
the one `--format` names): SKYT experiments, human-eval sample sets, Inspect logs,
lm-evaluation-harness samples, EvalPlus results, bigcode generations, promptfoo results,
OpenAI Batch output, or sample records of your own (`--map`). Each source becomes one or more
`RunInput`s (one contract, one model and temperature, answers in generation order).
`analyze`, `import` and the replay provider all read sources here, so a sample is the same
program, judged by the same contract, whichever command reads it.

`resolve_contracts` then decides the contract of every run (embedded, the problem's, the
catalog's, or an explicit override), refuses a run whose contract is unknown, and takes every
answer's code by the one rule `run` uses (`extract.extract_for_contract`: fence extraction,
whole-function detection, completion assembly), recording per sample how it went. Every
problem is one `InputError` line naming the file (and line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files, humaneval
from skyt_tui.engine.sources.formats import Source, by_name, detect
from skyt_tui.engine.sources.formats.humaneval_samples import load_folder
from skyt_tui.engine.sources.formats.records import (
    MAP_FIELDS,
    FieldMap,
    load_samples_jsonl,
    parse_field_map,
)
from skyt_tui.engine.sources.formats.skyt import load_experiment
from skyt_tui.engine.sources.run_input import (
    LoadOptions,
    RunInput,
    SampleFacts,
    ToolReport,
    assembly_counts,
)

__all__ = [
    "MAP_FIELDS",
    "FieldMap",
    "LoadOptions",
    "RunInput",
    "SampleFacts",
    "ToolReport",
    "assembly_counts",
    "assembly_label",
    "extract_answers",
    "load_humaneval_runs",
    "load_samples_jsonl",
    "load_skyt_experiment",
    "load_sources",
    "parse_field_map",
    "provenance",
    "resolve_contracts",
]


def load_skyt_experiment(path: Path | str) -> RunInput:
    return load_experiment(path)


def load_humaneval_runs(directory: Path) -> list[RunInput]:
    """The runs of a human-eval folder (one per task) with each completion's code taken by the
    one rule (`extract_answers`: prompt + completion assembled), ready to judge."""
    return [extract_answers(run) for run in load_folder(Path(directory))]


def load_sources(
    paths: Sequence[str | Path],
    *,
    mapping: FieldMap | None = None,
    options: LoadOptions | None = None,
    format: str | None = None,
) -> list[RunInput]:
    """Every run in the given sources, in order; the first bad source raises before anything is returned.

    Each source is read by the reader its content calls for, or by `format` (`--format`);
    with a `mapping` (`--map`) files are read as your own sample records. `-` is standard
    input. The runs' answers are not yet extracted: `resolve_contracts` does that.
    """
    options = options or LoadOptions()
    if mapping is not None and mapping.given:
        options = replace(options, mapping=mapping)
        format = format or "records"
    chosen = by_name(format) if format else None
    runs: list[RunInput] = []
    for raw in paths:
        if not files.exists(raw):
            raise InputError.at(raw, "no such file or directory")
        source = Source(raw)
        reader = chosen or detect(source)
        runs.extend(reader.load(source, options))
    seen: set[str] = set()
    for run in runs:
        if run.id in seen:
            raise InputError.at(
                run.source, f"run id {run.id!r} appears more than once in the given sources"
            )
        seen.add(run.id)
    return runs


def _catalog_contract(contract_id: str) -> Contract | None:
    """The catalog's contract of this id, in either spelling of a task id (`HumanEval/0`,
    `HumanEval_0`)."""
    from skyt_tui.engine.contracts.catalog import find_contract

    found = find_contract(contract_id)
    if found is None and humaneval.safe_task_id(contract_id) != contract_id:
        found = find_contract(humaneval.safe_task_id(contract_id))
    return found


def _where(run: RunInput) -> str:
    line = run.extra.get("line")
    return f"{run.source}: line {line}" if isinstance(line, int) else run.source


def resolve_contracts(
    runs: Sequence[RunInput],
    *,
    override: Contract | None = None,
    require: bool = True,
) -> list[RunInput]:
    """Each run with the contract its samples are judged by, in `extra["contract"]`.

    - `override` (`--contract ID`) judges every run, and the run records which
      contract it replaced (`extra["contract_override"]`);
    - otherwise the contract the samples were generated under: a SKYT file's
      embedded contract, a human-eval problem, or the catalog contract a JSONL
      sample names.
    A run whose contract cannot be found is an error naming file, line and id,
    unless `require` is False (`--no-oracle`): then it is kept without one.

    Every run's answers are then extracted by the one rule (`extract_answers`), with the
    contract the samples were generated under (its prompt and entry point), which is the
    judging contract unless `--contract` replaced it.
    """
    return [extract_answers(run) for run in _resolve(runs, override=override, require=require)]


def _resolve(
    runs: Sequence[RunInput], *, override: Contract | None, require: bool
) -> list[RunInput]:
    resolved = []
    for run in runs:
        extra = dict(run.extra)
        if override is not None:
            generated = extra.get("contract")
            if not isinstance(generated, Contract) and extra.get("contract_error") is None:
                generated = _catalog_contract(run.contract_id)
            if isinstance(generated, Contract):
                extra["generated_under"] = generated
            extra["contract_override"] = {
                "id": override.id,
                "hash": override.content_hash(),
                "instead_of": run.contract_id,
            }
            extra["contract"] = override
            extra["contract_origin"] = "override"
            resolved.append(
                replace(
                    run,
                    contract_id=override.id,
                    kept_names=run.kept_names | override.kept_names,
                    extra=extra,
                )
            )
            continue
        if isinstance(extra.get("contract"), Contract):
            resolved.append(run)
            continue
        if extra.get("problem") is not None:
            resolved.append(run)
            continue
        error = extra.get("contract_error")
        if isinstance(error, str):
            if require:
                raise InputError(error + " (give --contract ID, or --no-oracle)")
            resolved.append(run)
            continue
        found = _catalog_contract(run.contract_id)
        if found is None:
            if require:
                task = run.extra.get("task_id")
                hint = (
                    "give --problems FILE (the task definitions), --contract ID, or --no-oracle"
                    if task
                    else "give --contract ID, or --no-oracle"
                )
                raise InputError(
                    f"{_where(run)}: contract {run.contract_id!r} is not known "
                    f"(see `skyt-tui contracts list`; {hint})"
                )
            resolved.append(run)
            continue
        extra["contract"] = found
        extra["contract_origin"] = "catalog"
        resolved.append(replace(run, extra=extra))
    return resolved


def extract_answers(run: RunInput) -> RunInput:
    """`run` with each answer's code taken by the one rule `run` uses, and how, per sample.

    The rule follows the contract the samples were generated under: a completion-style
    (human-eval) prompt assembles prompt + answer or takes a whole function
    (`assemble_completion`); an instruction prompt takes the fenced block that defines the
    entry point, or the answer itself when it parses (`extract_code`). When the prompt the
    tool sent (`SampleFacts.prompt`) ends inside an open code fence, the answer's code ends at
    its first fence, as the tool's own filter cuts it. A run without a known contract is
    extracted as an instruction answer with no entry point.
    """
    from skyt_tui.engine.sources.extract import (
        KIND_OF_METHOD,
        extract_code,
        extract_for_contract,
        opens_fence,
    )

    if run.extraction:
        return run
    contract = run.extra.get("generated_under") or run.extra.get("contract")
    as_recorded = run.extra.get("answer_rule") == "as-recorded"
    answers = run.answers
    codes: list[str | None] = []
    methods: list[str | None] = []
    for index, answer in enumerate(answers):
        if answer is None:
            codes.append(None)
            methods.append(None)
            continue
        if as_recorded:
            codes.append(answer)  # the tool's filter takes the answer as it is (lm-eval's none)
            methods.append("as-recorded")
            continue
        if isinstance(contract, Contract):
            found = extract_for_contract(
                answer,
                prompt=contract.prompt,
                entry=contract.entry.name,
                prompt_style=contract.prompt_style,
                open_fence=opens_fence(run.fact(index).prompt),
            )
        else:
            found = extract_code(answer)
        codes.append(found.code)
        methods.append(found.method)
    kinds = tuple(KIND_OF_METHOD.get(method or "") for method in methods)
    return replace(
        run,
        codes=tuple(codes),
        responses=tuple(answers),
        extraction=tuple(methods),
        assembly=kinds if any(kind is not None for kind in kinds) else (),
    )


def extraction_counts(methods: Sequence[str | None]) -> dict[str, int]:
    """Samples per extraction method (fenced, unfenced, completion-full …), sorted by method."""
    counted: dict[str, int] = {}
    for method in methods:
        if method is not None:
            counted[method] = counted.get(method, 0) + 1
    return dict(sorted(counted.items()))


def provenance(run: RunInput) -> dict[str, Any]:
    """What a report says about where a run's programs and contract came from.

    `contract`: id, origin (embedded, problem, catalog, override) and content hash;
    `contract_override` when `--contract` replaced the contract the samples were
    generated under; `assembly`: samples per assembly kind (completion-style only);
    `trivial_asserts`: the `assert True` lines of a human-eval check not counted as tests.
    """
    out: dict[str, Any] = {}
    contract = run.extra.get("contract")
    origin = run.extra.get("contract_origin")
    if isinstance(contract, Contract):
        out["contract"] = {
            "id": contract.id,
            "origin": origin,
            "hash": contract.content_hash(),
        }
        if contract.source.get("file"):
            out["contract"]["source_file"] = contract.source.get("file")
        if contract.source.get("template_sha256"):
            out["contract"]["source_sha256"] = contract.source.get("template_sha256")
        if contract.source.get("trivial_asserts"):
            out["trivial_asserts"] = contract.source["trivial_asserts"]
    elif run.extra.get("problem") is not None:
        out["contract"] = {"id": run.contract_id, "origin": "problem", "hash": None}
    else:
        out["contract"] = {"id": run.contract_id, "origin": None, "hash": None}
    override = run.extra.get("contract_override")
    if isinstance(override, dict):
        out["contract_override"] = dict(override)
    counts = assembly_counts(run.assembly)
    if counts:
        out["assembly"] = counts
    if run.extraction:
        out["extraction"] = extraction_counts(run.extraction)
    out["format"] = run.source_format
    return out


def trivial_asserts_label(count: int) -> str:
    """What a report says of a human-eval check's trivial asserts (`humaneval.trivial_assert`)."""
    plural = "assert" if count == 1 else "asserts"
    return f"not counted as tests: {count} trivial {plural} of the check (assert True …)"


def assembly_label(counts: dict[str, int]) -> str:
    """`3 full · 1 cut · 1 as is` for tables; empty when the source needs no assembly."""
    if not counts:
        return ""
    return (
        f"{counts.get('full_function', 0)} full · {counts.get('truncated_at', 0)} cut · "
        f"{counts.get('completion', 0)} as is"
    )
