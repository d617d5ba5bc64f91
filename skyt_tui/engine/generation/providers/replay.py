"""Recorded answers as a provider: sample i of the run gets the i-th recorded answer.

Sources (one contract's answers, in generation order):
- a SKYT experiment `.json` file (its `raw_outputs`; the contract ids must match),
  or a folder of them holding exactly one experiment for the contract;
- a human-eval folder (`problems.jsonl` + `samples.jsonl`) or a `samples.jsonl`
  alone: the completions of the task whose id is the contract's
  (`source.task_id`, or `HumanEval/0` ↔ `HumanEval_0`);
- a JSONL of answers: one a line, the text under `response`, `text`,
  `completion` or `code` (null = a failed generation); lines with a
  `contract_id` only count for that contract;
- a folder of `.py` files, one answer per file, in natural name order
  (`2.py` before `10.py`);
- `-`: a JSONL of answers (or human-eval samples) on standard input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response
from skyt_tui.engine.sources import files as foreign
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.recorded import load_skyt_experiment
from skyt_tui.engine.sources.run_input import RunInput

ANSWER_FIELDS = ("response", "text", "completion", "code")


@dataclass(frozen=True)
class RecordedAnswer:
    text: str | None
    """None: the recorded generation failed."""
    model: str | None = None


@dataclass(frozen=True)
class ReplaySource:
    path: Path
    format: str
    answers: tuple[RecordedAnswer, ...]
    model: str | None = None
    temperature: float | None = None


def natural_key(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def _task_matches(task_id: str, contract: Contract) -> bool:
    return (
        task_id == contract.source.get("task_id") or humaneval.safe_task_id(task_id) == contract.id
    )


def _skyt_ids(run_contract_id: str, extra: dict[str, Any]) -> set[str]:
    return {run_contract_id, str(extra.get("skyt_contract_id") or run_contract_id)}


def _require_experiment_for(path: Path, run: RunInput, contract: Contract) -> None:
    """The SKYT experiment in `path` was recorded for `contract` (its id, or the SKYT id it was
    imported from), else an error naming the file and both contracts."""
    wanted = {contract.id, str(contract.source.get("original_id") or contract.id)}
    if not _skyt_ids(run.contract_id, run.extra) & wanted:
        raise InputError.at(
            path,
            f"is an experiment for contract {run.extra.get('skyt_contract_id', run.contract_id)!r}, "
            f"not {contract.id!r}",
        )


def _from_skyt_file(path: Path, contract: Contract) -> ReplaySource:
    run = load_skyt_experiment(path)
    _require_experiment_for(path, run, contract)
    answers = tuple(RecordedAnswer(code, run.model) for code in run.codes)
    return ReplaySource(path, "skyt", answers, model=run.model, temperature=run.temperature)


def _from_skyt_folder(path: Path, files: list[Path], contract: Contract) -> ReplaySource:
    matching = []
    for file in files:
        data = foreign.read_json(file)
        wanted = {contract.id, str(contract.source.get("original_id") or contract.id)}
        if isinstance(data, dict) and data.get("contract_id") in wanted:
            matching.append(file)
    if len(matching) != 1:
        found = "no experiment" if not matching else f"{len(matching)} experiments"
        raise InputError.at(
            path, f"holds {found} for contract {contract.id!r}; give one experiment file"
        )
    return _from_skyt_file(matching[0], contract)


def _from_humaneval(samples_path: Path, contract: Contract) -> ReplaySource:
    completions = humaneval.load_completions(samples_path)
    answers = tuple(
        RecordedAnswer(c.completion) for c in completions if _task_matches(c.task_id, contract)
    )
    if not answers:
        raise InputError.at(samples_path, f"has no completions for contract {contract.id!r}")
    return ReplaySource(samples_path, "humaneval", answers)


def _is_humaneval_samples(path: Path) -> bool:
    try:
        row = foreign.first_json_line(foreign.read_text(path))
    except InputError:
        return False
    return isinstance(row, dict) and "task_id" in row and "completion" in row


def _from_answers_jsonl(path: Path, contract: Contract) -> ReplaySource:
    answers = []
    for number, row in foreign.read_jsonl_rows(path):
        if row.get("contract_id") not in (None, contract.id):
            continue
        field = next((name for name in ANSWER_FIELDS if name in row), None)
        if field is None:
            raise InputError.at(
                path, f"line {number}: needs one of the fields {', '.join(ANSWER_FIELDS)}"
            )
        value = row[field]
        if value is not None and not isinstance(value, str):
            raise InputError.at(
                path,
                f"line {number}: field {field!r} must be a string (or null for a failed sample)",
            )
        model = row.get("model") if isinstance(row.get("model"), str) else None
        answers.append(RecordedAnswer(value, model))
    if not answers:
        raise InputError.at(path, f"has no answers for contract {contract.id!r}")
    return ReplaySource(path, "jsonl", tuple(answers))


def _from_py_folder(path: Path, files: list[Path]) -> ReplaySource:
    answers = []
    for file in sorted(files, key=lambda f: natural_key(f.name)):
        answers.append(RecordedAnswer(foreign.read_text(file)))
    return ReplaySource(path, "py-folder", tuple(answers))


def load_replay_source(path: Path | str, contract: Contract) -> ReplaySource:
    """The recorded answers for `contract` in `path`; one `InputError` line if there are none."""
    if foreign.is_stdin(path):
        stdin = Path(foreign.STDIN)
        if _is_humaneval_samples(stdin):
            return _from_humaneval(stdin, contract)
        return _from_answers_jsonl(stdin, contract)
    path = Path(path).expanduser()
    if not path.exists():
        raise InputError.at(path, "no such file or directory (needed by --provider replay)")
    if path.is_dir():
        if humaneval.is_humaneval_dir(path):
            return _from_humaneval(path / "samples.jsonl", contract)
        py_files = [f for f in path.iterdir() if f.suffix == ".py" and f.is_file()]
        json_files = sorted(f for f in path.iterdir() if f.suffix == ".json" and f.is_file())
        if json_files and not py_files:
            return _from_skyt_folder(path, json_files, contract)
        if py_files:
            return _from_py_folder(path, py_files)
        raise InputError.at(path, "holds no .py answers, SKYT experiments or human-eval files")
    if path.suffix == ".json":
        return _from_skyt_file(path, contract)
    if path.suffix == ".jsonl":
        if _is_humaneval_samples(path):
            return _from_humaneval(path, contract)
        return _from_answers_jsonl(path, contract)
    raise InputError.at(
        path,
        "unsupported replay source: give a SKYT .json, a .jsonl, a human-eval folder or a folder of .py files",
    )


def recorded_contract(path: Path | str, contract: Contract) -> Contract | None:
    """The contract a SKYT experiment in `path` was generated under, when it embeds one.

    `run --provider replay` judges the recorded samples by it (as `analyze` and
    `import` do), not by a catalog contract that merely shares the SKYT id.
    None for other sources (their samples were generated for `contract` itself).
    """
    path = Path(path).expanduser()
    if path.is_dir() and not humaneval.is_humaneval_dir(path):
        json_files = sorted(f for f in path.iterdir() if f.suffix == ".json" and f.is_file())
        if not json_files or any(f.suffix == ".py" for f in path.iterdir()):
            return None
        path = _from_skyt_folder(path, json_files, contract).path
    if path.suffix != ".json" or not path.is_file():
        return None
    run = load_skyt_experiment(path)
    _require_experiment_for(path, run, contract)  # not the recorded contract of another task
    embedded = run.extra.get("contract")
    if isinstance(embedded, Contract):
        return embedded
    error = run.extra.get("contract_error")
    if isinstance(error, str):
        raise InputError(error)
    return None


class ReplayProvider:
    name = "replay"
    sends_seed = False
    deterministic = True

    def __init__(self, source: ReplaySource, *, default_model: str | None = None) -> None:
        self.source = source
        self.default_model = default_model

    @classmethod
    def from_path(
        cls, path: Path | str, contract: Contract, *, default_model: str | None = None
    ) -> ReplayProvider:
        return cls(load_replay_source(path, contract), default_model=default_model)

    def __len__(self) -> int:
        return len(self.source.answers)

    def describe(self) -> dict[str, Any]:
        path = self.source.path
        shown = foreign.label(path) if foreign.is_stdin(path) else str(path.resolve())
        return {"source": shown, "format": self.source.format}

    def complete(self, request: Request) -> Response:
        if not 0 <= request.index < len(self.source.answers):
            raise ProviderError(
                f"the replay source has {len(self.source.answers)} answers; none for sample {request.index}"
            )
        answer = self.source.answers[request.index]
        if answer.text is None:
            raise ProviderError("the recorded generation failed (no answer in the source)")
        return Response(
            text=answer.text, model=answer.model or self.source.model or self.default_model
        )
