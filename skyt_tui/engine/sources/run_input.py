"""What every reader of recorded samples produces: `RunInput`s, one per contract × model × temperature.

A reader fills in the answers as the source recorded them (`responses`) and what else it
kept per sample (`SampleFacts`: the prompt sent, stop reason, token counts, the tool's own
verdict); `recorded.resolve_contracts` then decides each run's contract and takes every
answer's code by the one extraction rule (`extract.extract_for_contract`), recording per
sample how it went (`extraction`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from skyt_tui.engine.printable import counted
from skyt_tui.engine.sources.humaneval import Problem


@dataclass(frozen=True)
class SampleFacts:
    """What a source recorded about one sample besides its answer (None: not recorded)."""

    prompt: str | None = None
    """The prompt actually sent (chat messages rendered as `role: text` blocks)."""
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    """prompt_tokens, completion_tokens, total_tokens (the keys a live run stores)."""
    model: str | None = None
    """The model id the service returned for this sample."""
    tool_passed: bool | None = None
    """The recording tool's own verdict on this sample (None: it gave none per sample)."""
    tool_detail: dict[str, Any] | None = None
    """The tool's verdict as it wrote it (e.g. EvalPlus `base_status`/`plus_status`)."""
    where: str | None = None
    """Where in the source the sample is (`line 4`, `sample HumanEval/0 epoch 2`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            key: value
            for key, value in (
                ("prompt", self.prompt),
                ("finish_reason", self.finish_reason),
                ("usage", self.usage),
                ("model", self.model),
                ("tool_passed", self.tool_passed),
                ("tool_detail", self.tool_detail),
                ("where", self.where),
            )
            if value is not None
        }


@dataclass(frozen=True)
class ToolReport:
    """The recording tool and the verdicts it gave, kept beside skyt-tui's.

    `granularity`: `sample` (a verdict per sample, in `SampleFacts.tool_passed`), `task`
    (a pass rate per task: `task_pass_rate`), or `total` (one pass rate for the whole file:
    `total_pass_rate`, e.g. bigcode-evaluation-harness's pass@1).
    """

    tool: str
    granularity: str
    metric: str = "pass"
    task_pass_rate: float | None = None
    total_pass_rate: float | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    """The generation settings the tool recorded (temperature, top_p, max tokens, n …)."""
    note: str | None = None
    """How the tool's number was made comparable, when it was (lm-eval's pass@k read back as
    pass@1)."""


@dataclass(frozen=True)
class ToolRun:
    """How the recording tool's own run ended, as its file says (run-level facts).

    `status` is skyt-tui's word: `complete`, `error` (the tool stopped on an error),
    `cancelled` (stopped by a person) or `cut-short` (the file ends before the run did: a log
    the tool never finished writing); `tool_status` is the tool's own (`error`, `started` …).
    `samples_expected` is how many samples the run set out to produce (None: the file does
    not say); `samples_recorded` how many the file holds. A run that is not complete has its
    pass rates computed over the recorded samples only, and every report says so.
    """

    tool: str
    status: str
    tool_status: str | None = None
    error: str | None = None
    samples_expected: int | None = None
    samples_recorded: int = 0

    @property
    def complete(self) -> bool:
        return self.status == "complete" and (
            self.samples_expected is None or self.samples_recorded >= self.samples_expected
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "status": self.status,
            "tool_status": self.tool_status,
            "error": self.error,
            "samples_expected": self.samples_expected,
            "samples_recorded": self.samples_recorded,
            "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, data: Any) -> ToolRun | None:
        """The facts a stored run kept (None: not a dict, or no status)."""
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
            return None

        def count(value: Any) -> int | None:
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(
            tool=str(data.get("tool") or "the tool"),
            status=data["status"],
            tool_status=data.get("tool_status")
            if isinstance(data.get("tool_status"), str)
            else None,
            error=data.get("error") if isinstance(data.get("error"), str) else None,
            samples_expected=count(data.get("samples_expected")),
            samples_recorded=count(data.get("samples_recorded")) or 0,
        )

    def line(self) -> str:
        """One line for reports: what happened and what the numbers cover."""
        said = {
            "error": "stopped on an error",
            "cancelled": "was cancelled",
            "cut-short": "was cut short (its log was never finished)",
            "complete": "ended with fewer samples than it set out to produce",
        }.get(self.status, f"ended with status {self.status}")
        line = f"the {self.tool} run {said}"
        if self.tool_status and self.tool_status != self.status:
            line += f" (status {self.tool_status!r})"
        if self.error:
            first = self.error.strip().splitlines()[0] if self.error.strip() else ""
            line += f": {first[:300]}"
        recorded = (
            f"{self.samples_recorded} of {self.samples_expected} samples"
            if self.samples_expected is not None
            else counted(self.samples_recorded, "sample")
        )
        line += (
            f" · {recorded} recorded; pass rates cover the recorded samples only, not the whole run"
        )
        return line


@dataclass(frozen=True)
class RunInput:
    id: str
    contract_id: str
    model: str | None
    temperature: float | None
    codes: tuple[str | None, ...]
    """Code per sample in generation order; None marks a failed generation. Before
    `resolve_contracts` it is the recorded answer; after, the code taken out of it."""
    kept_names: frozenset[str]
    source: str
    source_format: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    responses: tuple[str | None, ...] = ()
    """The recorded answer per sample (empty: the answers are `codes` as first read)."""
    assembly: tuple[str | None, ...] = ()
    """Per sample, how its program was assembled (completion, truncated_at, full_function);
    empty for instruction-style contracts."""
    extraction: tuple[str | None, ...] = ()
    """Per sample, how its code was taken out of the answer (`extract.Extraction.method`);
    empty before `resolve_contracts`."""
    facts: tuple[SampleFacts, ...] = ()
    """Per sample, what the source recorded besides the answer (empty: nothing)."""
    tool: ToolReport | None = field(default=None, compare=False)
    tool_run: ToolRun | None = field(default=None, compare=False)
    """How the tool's run that wrote the file ended (None: the file does not say, or it
    ended well)."""

    @property
    def answers(self) -> tuple[str | None, ...]:
        return self.responses or self.codes

    def fact(self, index: int) -> SampleFacts:
        return self.facts[index] if index < len(self.facts) else SampleFacts()


@dataclass(frozen=True)
class LoadOptions:
    """What a reader may need besides the file: task definitions, a Batch input file, `--map`."""

    problems: dict[str, Problem] | None = None
    """Task definitions (`--problems`), keyed by task id."""
    problems_file: Path | None = None
    requests: str | Path | None = None
    """An OpenAI Batch input file (`--requests`)."""
    mapping: Any = None
    """A `records.FieldMap` (`--map`)."""

    @cached_property
    def problem_index(self) -> dict[str, Problem]:
        """`problems` by task id in both spellings (`HumanEval/0`, `HumanEval_0`)."""
        from skyt_tui.engine.sources.humaneval import problem_index

        return problem_index(self.problems or {})


def assembly_counts(kinds: Iterable[str | None]) -> dict[str, int]:
    """How many samples were assembled each way, every kind listed (zeros included)."""
    from skyt_tui.engine.sources.extract import ASSEMBLY_KINDS

    counted = Counter(kind for kind in kinds if kind is not None)
    if not counted:
        return {}
    return {kind: counted.get(kind, 0) for kind in ASSEMBLY_KINDS}
