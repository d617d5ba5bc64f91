"""Reading recorded samples for analysis: SKYT experiment files, human-eval folders, JSONL.

Each source becomes one or more `RunInput`s (one contract, one model and
temperature, samples in generation order). `analyze`, `import` and the replay
provider all read sources here, so a sample is the same program, judged by the
same contract, whichever command reads it:
- a SKYT experiment JSON file is one run (its `experiment_id`, `model`,
  `temperature`; samples are `raw_outputs`); a folder of them is many. The
  contract embedded in the file judges its samples: it becomes a versioned
  contract with its own namespaced id (`importers.embedded_skyt_contract`);
- a human-eval folder (`problems.jsonl` + `samples.jsonl` with `completion`
  or `solution`) is one run per task; each answer becomes a program by the one
  assembly rule (`extract.assemble_completion`), and the way it went is
  recorded per sample (`assembly`: completion, truncated_at, full_function);
- a JSONL file (or a JSON list) has one sample a line: `code` (string, or null for
  a failed generation) and either `run_id` or `contract_id` (+ optional `model`,
  `temperature`, `sample`); other field names are mapped with `--map`
  (`FieldMap`). Lines are grouped into runs by `run_id`, else by
  (contract_id, model, temperature), keeping first-appearance order (or the
  `sample` field's order when given).
`resolve_contracts` then decides the contract of every run (embedded, the
problem's, the catalog's, or an explicit override) and refuses a run whose
contract is unknown. Every problem is one `InputError` line naming the file
(and line).
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skyt_tui.engine import store
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.sources import humaneval


@dataclass(frozen=True)
class RunInput:
    id: str
    contract_id: str
    model: str | None
    temperature: float | None
    codes: tuple[str | None, ...]
    """Extracted code per sample in generation order; None marks a failed generation."""
    kept_names: frozenset[str]
    source: str
    source_format: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    responses: tuple[str | None, ...] = ()
    """The recorded answer per sample, when it differs from the code (human-eval completions)."""
    assembly: tuple[str | None, ...] = ()
    """Per sample, how its program was assembled (completion, truncated_at, full_function);
    empty for sources whose samples are whole programs already."""


def assembly_counts(kinds: Iterable[str | None]) -> dict[str, int]:
    """How many samples were assembled each way, every kind listed (zeros included)."""
    from skyt_tui.engine.sources.extract import ASSEMBLY_KINDS

    counted = Counter(kind for kind in kinds if kind is not None)
    if not counted:
        return {}
    return {kind: counted.get(kind, 0) for kind in ASSEMBLY_KINDS}


def _read_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError.at(path, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InputError.at(
            path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror}") from None


def _temperature(path: Path, value: Any, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 10:
        raise InputError.at(path, f"must be a number between 0 and 10, not {value!r}", key=key)
    return float(value)


def load_skyt_experiment(path: Path) -> RunInput:
    data = _read_json_file(path)
    if not isinstance(data, dict):
        raise InputError.at(path, "not a SKYT experiment file (expected a JSON object)")
    for key in ("experiment_id", "contract_id", "raw_outputs"):
        if key not in data:
            raise InputError.at(path, "missing (not a SKYT experiment file?)", key=key)
    outputs = data["raw_outputs"]
    if not isinstance(outputs, list) or not all(
        item is None or isinstance(item, str) for item in outputs
    ):
        raise InputError.at(path, "must be a list of code strings", key="raw_outputs")
    for key in ("experiment_id", "contract_id"):
        if not isinstance(data[key], str) or not data[key]:
            raise InputError.at(path, "must be a non-empty string", key=key)
    contract: dict[str, Any] = data["contract"] if isinstance(data.get("contract"), dict) else {}
    constraints: dict[str, Any] = (
        contract["constraints"] if isinstance(contract.get("constraints"), dict) else {}
    )
    naming: dict[str, Any] = (
        constraints["variable_naming"]
        if isinstance(constraints.get("variable_naming"), dict)
        else {}
    )
    fixed = naming.get("fixed_variables")
    kept = {
        name
        for name in (
            constraints.get("function_name"),
            constraints.get("class_name"),
            *(fixed if isinstance(fixed, list) else []),
        )
        if isinstance(name, str)
    }
    model = data.get("model")
    extra: dict[str, Any] = {
        "skyt_contract": contract,
        "skyt_metrics": data.get("metrics"),
        "timestamp": data.get("timestamp"),
        "skyt_contract_id": data["contract_id"],
    }
    contract_id = data["contract_id"]
    if contract:
        from skyt_tui.engine.sources.importers import embedded_skyt_contract

        try:
            embedded = embedded_skyt_contract(contract, key=data["contract_id"], file=path)
        except (ContractError, InputError) as exc:
            extra["contract_error"] = f"{path}: the embedded contract is not usable: {exc}"
        else:
            extra["contract"] = embedded
            extra["contract_origin"] = "embedded"
            contract_id = embedded.id
    return RunInput(
        id=data["experiment_id"],
        contract_id=contract_id,
        model=model if isinstance(model, str) else None,
        temperature=_temperature(path, data.get("temperature"), "temperature"),
        codes=tuple(outputs),
        kept_names=frozenset(kept),
        source=str(path),
        source_format="skyt",
        extra=extra,
    )


def load_humaneval_runs(directory: Path) -> list[RunInput]:
    from skyt_tui.engine.sources.extract import assemble_completion

    problems, completions = humaneval.load_dir(directory)
    by_task: dict[str, list[humaneval.Completion]] = {task_id: [] for task_id in problems}
    for completion in completions:
        by_task[completion.task_id].append(completion)
    runs = []
    for task_id, answers in by_task.items():
        if not answers:
            continue
        problem = problems[task_id]
        assembled = [
            assemble_completion(a.completion, prompt=problem.prompt, entry=problem.entry_point)
            for a in answers
        ]
        runs.append(
            RunInput(
                id=humaneval.safe_task_id(task_id),
                contract_id=humaneval.safe_task_id(task_id),
                model=None,
                temperature=None,
                codes=tuple(a.code for a in assembled),
                kept_names=frozenset({problem.entry_point}),
                source=str(directory),
                source_format="humaneval",
                extra={
                    "task_id": task_id,
                    "problem": problem,
                    # the contract `import` stores, so analyze and report judge and repair alike
                    "contract": humaneval.problem_contract(
                        problem, file=Path(directory) / "problems.jsonl"
                    ),
                    "contract_origin": "problem",
                    "lines": tuple(a.line for a in answers),
                },
                responses=tuple(a.completion for a in answers),
                assembly=tuple(a.kind for a in assembled),
            )
        )
    return runs


MAP_FIELDS = ("run", "task", "code", "model", "temperature", "sample")
_DEFAULT_FIELDS = {
    "run": "run_id",
    "task": "contract_id",
    "code": "code",
    "model": "model",
    "temperature": "temperature",
    "sample": "sample",
}


@dataclass(frozen=True)
class FieldMap:
    """Where each sample field is in a study's own records (`--map task=problem,code=output.text`).

    Keys: run, task (the contract id), code, model, temperature, sample (order
    within a run). A value is a field name, or a dotted path into nested objects.
    Unmapped keys use the default names (run_id, contract_id, code, model,
    temperature, sample).
    """

    fields: tuple[tuple[str, str], ...] = ()

    def path(self, key: str) -> str:
        return dict(self.fields).get(key, _DEFAULT_FIELDS[key])

    def get(self, row: dict[str, Any], key: str) -> tuple[bool, Any]:
        """(present, value) of `key` in `row`, following the dotted path."""
        value: Any = row
        for part in self.path(key).split("."):
            if not isinstance(value, dict) or part not in value:
                return False, None
            value = value[part]
        return True, value

    @property
    def given(self) -> bool:
        return bool(self.fields)


def parse_field_map(text: str | None) -> FieldMap:
    """`task=problem,code=output.text` or the path of a TOML file with a [map] table (or top-level keys)."""
    if text is None:
        return FieldMap()
    pairs: dict[str, Any]
    if "=" not in text:
        path = Path(text)
        if not path.is_file():
            raise InputError(f"--map: {text!r} is neither KEY=FIELD pairs nor a TOML mapping file")
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputError.at(path, f"--map: invalid TOML: {exc}") from None
        pairs = document.get("map", document)
        if not isinstance(pairs, dict):
            raise InputError.at(path, '--map: [map] must be a table of KEY = "FIELD"')
        where = str(path)
    else:
        pairs = {}
        for item in text.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise InputError(f"--map: {item.strip()!r} is not KEY=FIELD")
            if key.strip() in pairs:
                raise InputError(f"--map: {key.strip()!r} is given twice")
            pairs[key.strip()] = value.strip()
        where = "--map"
    for key, value in pairs.items():
        if key not in MAP_FIELDS:
            raise InputError(f"{where}: unknown key {key!r} (known: {', '.join(MAP_FIELDS)})")
        if not isinstance(value, str) or not value or any(not p for p in value.split(".")):
            raise InputError(f"{where}: {key} must name a field (or a dotted path), not {value!r}")
    if "code" not in pairs and "task" not in pairs and "run" not in pairs:
        raise InputError(f"{where}: maps none of code, task, run; nothing to map")
    return FieldMap(tuple(sorted(pairs.items())))


def _mapped_rows(path: Path, mapping: FieldMap) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix == ".jsonl":
        return store.read_jsonl_rows(path)
    data = _read_json_file(path)
    if isinstance(data, dict):
        listed = [value for value in data.values() if isinstance(value, list)]
        if len(listed) != 1:
            raise InputError.at(
                path, "expected a JSON list of sample records (or an object holding one list)"
            )
        data = listed[0]
    if not isinstance(data, list):
        raise InputError.at(path, "expected a JSON list of sample records")
    rows = []
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise InputError.at(path, f"record {number}: expected a JSON object")
        rows.append((number, row))
    return rows


def load_samples_jsonl(path: Path, mapping: FieldMap | None = None) -> list[RunInput]:
    """Runs from a JSONL of samples (or, with a mapping, a JSON list of records)."""
    mapping = mapping or FieldMap()
    rows = _mapped_rows(Path(path), mapping)
    unit = "line" if Path(path).suffix == ".jsonl" else "record"
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for number, row in rows:
        at = f"{unit} {number}"
        present, code = mapping.get(row, "code")
        if not present or not (code is None or isinstance(code, str)):
            raise InputError.at(
                path,
                f"{at}: field {mapping.path('code')!r} must be a string (or null for a failed sample)",
            )
        values: dict[str, Any] = {}
        for name in ("run", "task", "model"):
            _, value = mapping.get(row, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError.at(
                    path, f"{at}: field {mapping.path(name)!r} must be a non-empty string"
                )
            values[name] = value
        run_id, contract_id, model = values["run"], values["task"], values["model"]
        if run_id is None and contract_id is None:
            raise InputError.at(
                path,
                f"{at}: needs {mapping.path('run')!r} or {mapping.path('task')!r} to group samples into runs",
            )
        _, raw_temperature = mapping.get(row, "temperature")
        temperature = _temperature(path, raw_temperature, f"{at}: {mapping.path('temperature')}")
        _, order = mapping.get(row, "sample")
        if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
            raise InputError.at(
                path, f"{at}: field {mapping.path('sample')!r} must be an integer sample number"
            )
        key: tuple[Any, ...] = (
            ("run", run_id) if run_id is not None else ("contract", contract_id, model, temperature)
        )
        group = groups.setdefault(
            key,
            {
                "id": run_id or _group_id(contract_id, model, temperature),
                "contract_id": contract_id or run_id,
                "model": model,
                "temperature": temperature,
                "samples": [],
                "line": number,
            },
        )
        if order is not None and any(order == o for o, _, _ in group["samples"]):
            raise InputError.at(path, f"{at}: sample {order} of run {group['id']!r} appears twice")
        group["samples"].append((order, number, code))
    if not groups:
        raise InputError.at(path, "no samples (empty file)")
    runs = []
    for g in groups.values():
        samples = g["samples"]
        if any(order is not None for order, _, _ in samples):
            if any(order is None for order, _, _ in samples):
                raise InputError.at(
                    path,
                    f"run {g['id']!r}: some samples have {mapping.path('sample')!r} and some do not",
                )
            samples = sorted(samples, key=lambda item: item[0])
        runs.append(
            RunInput(
                id=g["id"],
                contract_id=g["contract_id"],
                model=g["model"],
                temperature=g["temperature"],
                codes=tuple(code for _, _, code in samples),
                kept_names=frozenset(),
                source=str(path),
                source_format="jsonl",
                extra={"line": g["line"], "lines": tuple(n for _, n, _ in samples)},
            )
        )
    return runs


def _group_id(contract_id: str, model: str | None, temperature: float | None) -> str:
    parts = [contract_id, model or "unknown-model"]
    if temperature is not None:
        parts.append(f"t{temperature:g}")
    return "_".join(parts)


def load_sources(paths: Sequence[str | Path], *, mapping: FieldMap | None = None) -> list[RunInput]:
    """Every run in the given sources, in order; the first bad source raises before anything is returned.

    With a `mapping` (`--map`), .json and .jsonl files are read as sample records
    with those field names (not as SKYT experiments).
    """
    runs: list[RunInput] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError.at(path, "no such file or directory")
        if mapping is not None and mapping.given and path.is_file():
            if path.suffix not in (".json", ".jsonl"):
                raise InputError.at(path, "--map reads .json or .jsonl sample records")
            runs.extend(load_samples_jsonl(path, mapping))
            continue
        if path.is_dir():
            if humaneval.is_humaneval_dir(path):
                runs.extend(load_humaneval_runs(path))
                continue
            files = sorted(path.glob("*.json"))
            if not files:
                raise InputError.at(
                    path,
                    "contains no SKYT experiment files (*.json) and no human-eval problems.jsonl",
                )
            runs.extend(load_skyt_experiment(f) for f in files)
        elif path.suffix == ".jsonl":
            runs.extend(load_samples_jsonl(path))
        elif path.suffix == ".json":
            runs.append(load_skyt_experiment(path))
        else:
            raise InputError.at(
                path,
                "unsupported source: give a SKYT .json file or folder, a human-eval folder, or a .jsonl of samples",
            )
    seen: set[str] = set()
    for run in runs:
        if run.id in seen:
            raise InputError.at(
                run.source, f"run id {run.id!r} appears more than once in the given sources"
            )
        seen.add(run.id)
    return runs


def _catalog_contract(contract_id: str) -> Contract | None:
    from skyt_tui.engine.contracts.catalog import find_contract

    return find_contract(contract_id)


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
    """
    resolved = []
    for run in runs:
        extra = dict(run.extra)
        if override is not None:
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
                raise InputError(
                    f"{_where(run)}: contract {run.contract_id!r} is not known "
                    "(see `skyt-tui contracts list`; give --contract ID, or --no-oracle)"
                )
            resolved.append(run)
            continue
        extra["contract"] = found
        extra["contract_origin"] = "catalog"
        resolved.append(replace(run, extra=extra))
    return resolved


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
