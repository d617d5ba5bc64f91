"""Shared helpers for repair tests and `bench/repair_effect.py`.

`OutputVerifier` runs programs in a child process (`tests/repair_worker.py`,
a throwaway harness, not the product's sandboxed oracle) and answers the
question repair's `verify` asks: does each candidate behave exactly like the
original sample on the test inputs? `skyt_experiment` reads what repair needs
from a SKYT experiment file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

WORKER = Path(__file__).resolve().with_name("repair_worker.py")


@dataclass(frozen=True)
class Behaviour:
    outputs: tuple[str, ...]
    passed: tuple[bool, ...]

    @property
    def passes_all(self) -> bool:
        return bool(self.passed) and all(self.passed)


class OutputVerifier:
    """Behaviour of programs on fixed inputs, computed in a child process and cached by program text."""

    def __init__(
        self,
        entry: str,
        inputs: Sequence[Sequence],
        expected: Sequence,
        timeout_s: float = 2.0,
        check: str | None = None,
    ) -> None:
        """`check`: a human-eval test body (defines `check(candidate)`), used instead of inputs."""
        self.entry = entry
        self.check = check
        self.inputs = [list(args) for args in inputs]
        self.expected = list(expected)
        self.timeout_s = timeout_s
        self.cache: dict[str, Behaviour] = {}
        self.programs_run = 0

    def behaviours(self, programs: Sequence[str]) -> list[Behaviour]:
        missing = list(dict.fromkeys(p for p in programs if p not in self.cache))
        if missing:
            for program, behaviour in zip(missing, self._run(missing)):
                self.cache[program] = behaviour
        return [self.cache[p] for p in programs]

    def _run(self, programs: list[str]) -> list[Behaviour]:
        request = {
            "entry": self.entry,
            "inputs": self.inputs,
            "expected": self.expected,
            "programs": programs,
            "timeout_s": self.timeout_s,
            "check": self.check,
        }
        budget = 5 + self.timeout_s * (len(self.inputs) + 1) * len(programs)
        self.programs_run += len(programs)
        try:
            done = subprocess.run(
                [sys.executable, "-I", str(WORKER)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=budget,
                env={},
            )
            lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        except (subprocess.TimeoutExpired, json.JSONDecodeError):
            lines = []
        if len(lines) == len(programs):
            return [Behaviour(tuple(r["outputs"]), tuple(r["passed"])) for r in lines]
        if len(programs) == 1:  # the worker died on this program
            width = 1 if self.check is not None else len(self.inputs)
            return [Behaviour(("crash",) * width, (False,) * width)]
        return [b for program in programs for b in self._run([program])]

    def same_as(self, original: str):
        """A `verify` callable: True for each candidate whose behaviour equals `original`'s."""
        reference = self.behaviours([original])[0]

        def verify(candidates: Sequence[str]) -> list[bool]:
            return [behaviour == reference for behaviour in self.behaviours(list(candidates))]

        return verify


@dataclass(frozen=True)
class SkytExperiment:
    path: Path
    experiment_id: str
    contract_id: str
    model: str | None
    temperature: float | None
    entry: str
    kept_names: frozenset[str]
    codes: tuple[str, ...]
    inputs: tuple[tuple, ...]
    expected: tuple
    skyt_metrics: dict


def skyt_experiment(path: Path) -> SkytExperiment:
    data = json.loads(path.read_text(encoding="utf-8"))
    contract = data["contract"]
    constraints = contract.get("constraints", {})
    entry = constraints.get("function_name") or constraints.get("class_name")
    fixed = constraints.get("variable_naming", {}).get("fixed_variables", [])
    cases = contract["oracle_requirements"]["test_cases"]
    inputs = tuple(
        tuple(case["input"]) if isinstance(case["input"], list) else (case["input"],)
        for case in cases
    )
    return SkytExperiment(
        path=path,
        experiment_id=data["experiment_id"],
        contract_id=data["contract_id"],
        model=data.get("model"),
        temperature=data.get("temperature"),
        entry=entry,
        kept_names=frozenset([entry, *fixed]),
        codes=tuple(code for code in data["raw_outputs"] if isinstance(code, str)),
        inputs=inputs,
        expected=tuple(case["expected"] for case in cases),
        skyt_metrics=data.get("metrics") or {},
    )


def rewrite(
    transformer: str, code: str, canon: str = "", kept=(), selection: dict[int, int] | None = None
) -> str:
    """`code` after one transformer, at the sites in `selection` (default: every site, first option)."""
    import ast

    from skyt_tui.engine.repair import TRANSFORMERS, Context

    cls = TRANSFORMERS[transformer]
    context = Context(canon=ast.parse(canon), kept_names=frozenset(kept))
    if selection is None:
        counter = cls(context, None)
        counter.run(ast.parse(code))
        selection = {site: 0 for site in range(len(counter.options))}
    return ast.unparse(cls(context, selection).run(ast.parse(code)))


def sites(transformer: str, code: str, canon: str = "", kept=()) -> list[int]:
    """Option counts of each site the transformer finds in `code`."""
    import ast

    from skyt_tui.engine.repair import TRANSFORMERS, Context

    counter = TRANSFORMERS[transformer](
        Context(canon=ast.parse(canon), kept_names=frozenset(kept)), None
    )
    counter.run(ast.parse(code))
    return counter.options


def same(code: str) -> str:
    import ast

    return ast.unparse(ast.parse(code))
