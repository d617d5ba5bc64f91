"""Reading recorded samples for analysis: SKYT experiment files, human-eval folders, JSONL.

Each source becomes one or more `RunInput`s (one contract, one model and
temperature, samples in generation order):
- a SKYT experiment JSON file is one run (its `experiment_id`, `contract_id`,
  `model`, `temperature`; samples are `raw_outputs`); a folder of them is many;
- a human-eval folder (`problems.jsonl` + `samples.jsonl`) is one run per task;
  a sample's program is prompt + completion cut at the stop sequences;
- a JSONL file has one sample a line: `code` (string, or null for a failed
  generation) and either `run_id` or `contract_id` (+ optional `model`,
  `temperature`); lines are grouped into runs by `run_id`, else by
  (contract_id, model, temperature), keeping first-appearance order.
Every problem is reported as one `InputError` line naming the file (and line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skyt_tui.engine import humaneval
from skyt_tui.engine.errors import InputError


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
    contract = data.get("contract") if isinstance(data.get("contract"), dict) else {}
    constraints = (
        contract.get("constraints") if isinstance(contract.get("constraints"), dict) else {}
    )
    naming = (
        constraints.get("variable_naming")
        if isinstance(constraints.get("variable_naming"), dict)
        else {}
    )
    kept = {
        name
        for name in (
            constraints.get("function_name"),
            constraints.get("class_name"),
            *naming.get("fixed_variables", []),
        )
        if isinstance(name, str)
    }
    model = data.get("model")
    return RunInput(
        id=data["experiment_id"],
        contract_id=data["contract_id"],
        model=model if isinstance(model, str) else None,
        temperature=_temperature(path, data.get("temperature"), "temperature"),
        codes=tuple(outputs),
        kept_names=frozenset(kept),
        source=str(path),
        source_format="skyt",
        extra={
            "skyt_contract": contract,
            "skyt_metrics": data.get("metrics"),
            "timestamp": data.get("timestamp"),
        },
    )


def load_humaneval_runs(directory: Path) -> list[RunInput]:
    problems, completions = humaneval.load_dir(directory)
    by_task: dict[str, list[str]] = {task_id: [] for task_id in problems}
    for completion in completions:
        by_task[completion.task_id].append(
            humaneval.assemble_program(problems[completion.task_id], completion.completion)
        )
    runs = []
    for task_id, codes in by_task.items():
        if not codes:
            continue
        problem = problems[task_id]
        runs.append(
            RunInput(
                id=humaneval.safe_task_id(task_id),
                contract_id=humaneval.safe_task_id(task_id),
                model=None,
                temperature=None,
                codes=tuple(codes),
                kept_names=frozenset({problem.entry_point}),
                source=str(directory),
                source_format="humaneval",
                extra={"task_id": task_id, "problem": problem},
            )
        )
    return runs


def load_samples_jsonl(path: Path) -> list[RunInput]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.at(path, f"not UTF-8 text (byte {exc.start})") from None
    groups: dict[tuple, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError.at(path, f"line {number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError.at(path, f"line {number}: expected a JSON object")
        if "code" not in row or not (row["code"] is None or isinstance(row["code"], str)):
            raise InputError.at(
                path, f"line {number}: field 'code' must be a string (or null for a failed sample)"
            )
        run_id, contract_id = row.get("run_id"), row.get("contract_id")
        for key, value in (
            ("run_id", run_id),
            ("contract_id", contract_id),
            ("model", row.get("model")),
        ):
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError.at(
                    path, f"line {number}: field {key!r} must be a non-empty string"
                )
        if run_id is None and contract_id is None:
            raise InputError.at(
                path, f"line {number}: needs 'run_id' or 'contract_id' to group samples into runs"
            )
        temperature = _temperature(path, row.get("temperature"), f"line {number}: temperature")
        key = (
            ("run", run_id)
            if run_id is not None
            else ("contract", contract_id, row.get("model"), temperature)
        )
        group = groups.setdefault(
            key,
            {
                "id": run_id or _group_id(contract_id, row.get("model"), temperature),
                "contract_id": contract_id or run_id,
                "model": row.get("model"),
                "temperature": temperature,
                "codes": [],
            },
        )
        group["codes"].append(row["code"])
    if not groups:
        raise InputError.at(path, "no samples (empty file)")
    return [
        RunInput(
            id=g["id"],
            contract_id=g["contract_id"],
            model=g["model"],
            temperature=g["temperature"],
            codes=tuple(g["codes"]),
            kept_names=frozenset(),
            source=str(path),
            source_format="jsonl",
        )
        for g in groups.values()
    ]


def _group_id(contract_id: str, model: str | None, temperature: float | None) -> str:
    parts = [contract_id, model or "unknown-model"]
    if temperature is not None:
        parts.append(f"t{temperature:g}")
    return "_".join(parts)


def load_sources(paths: list[str | Path]) -> list[RunInput]:
    """Every run in the given sources, in order; the first bad source raises before anything is returned."""
    runs: list[RunInput] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError.at(path, "no such file or directory")
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
