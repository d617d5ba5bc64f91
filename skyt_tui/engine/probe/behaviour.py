"""Probing: passing samples and the reference on generated inputs, compared and grouped by
behaviour (docs/probe.md).

For each contract: example inputs (`examples`) → generated inputs (`generate`) → the contract's
`guard`, in the sandbox → the reference and every passing sample run on the inputs in the
sandbox (`Oracle.calls_iter`: the same worker, limits and isolation as the tests) → outputs
compared in this process as the oracle compares values (`values_match`, with the tolerance the
tests use).

An input counts when the reference returns a value on it; without a reference, when most
probed samples do. Inputs on which the reference (or most samples) raise are outside the domain
the tests imply and are never disagreements. A sample differs from the reference on a counted
input when it returns a different value, raises, or gives nothing (it hung or hit a limit on
that input or before it: a probe that hangs or floods is that sample's alone). Its witness is
the first such input with both outputs. Samples are grouped into behaviour classes: two samples
are in one class when they give matching outputs on every counted input; classes are numbered
in generation order of their first member.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from skyt_tui.engine.contracts.contract import Contract, Entry
from skyt_tui.engine.contracts.values import literal_text
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.outputs import MISSING, RETURNED, Call, CallOutput
from skyt_tui.engine.oracle.verdicts import values_match
from skyt_tui.engine.printable import printable
from skyt_tui.engine.probe.examples import example_calls
from skyt_tui.engine.probe.generate import DEFAULT_MAX_INPUTS, generate_inputs

PROBE_VERSION = "probe-1"
"""Names the generation, the counting rule and the comparison; bump when any of them changes."""
DEFAULT_MAX_SECONDS = 600.0
JOBS_PER_ROUND = 256
SLOWDOWN = 4.0
"""Samples get the contract's timeout for all inputs; the inputs kept are those the reference
answers within 1/SLOWDOWN of it in all, so a sample up to SLOWDOWN times slower still finishes."""
REFERENCE_RESTARTS = 5
"""Times the reference is run again past an input it hangs on (docs/probe.md)."""
"""Jobs handed to the pool between two looks at the time budget."""


@dataclass(frozen=True)
class ProbeSettings:
    max_inputs: int = DEFAULT_MAX_INPUTS
    max_seconds: float = DEFAULT_MAX_SECONDS
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"max_inputs": self.max_inputs, "max_seconds": self.max_seconds, "seed": self.seed}


@dataclass(frozen=True)
class Witness:
    """An input on which a sample differs, with both outputs (`against`: reference or majority)."""

    call: Call
    sample: CallOutput
    expected: CallOutput
    against: str
    sample_reason: str = ""

    def call_text(self, entry: str) -> str:
        parts = [literal_text(a) for a in self.call.args] + [
            f"{k}={literal_text(v)}" for k, v in self.call.kwargs
        ]
        return printable(f"{entry}({', '.join(parts)})")

    def to_dict(self, entry: str) -> dict[str, Any]:
        sample = self.sample.show(200)
        if self.sample.status == MISSING and self.sample_reason:
            sample = f"no result ({self.sample_reason})"
        out: dict[str, Any] = {
            "call": self.call_text(entry),
            "args_py": literal_text(list(self.call.args)),
            "kwargs_py": literal_text(dict(self.call.kwargs)),
            "sample": printable(sample),
            "against": self.against,
            self.against: printable(self.expected.show(200)),
        }
        if self.expected.status == RETURNED:
            out["expected_py"] = literal_text(self.expected.value)
        return out


@dataclass(frozen=True)
class SampleProbe:
    """One sample's probe record; `behaviour` is its class number (1-based)."""

    status: str
    """"probed", or why not: "failed the tests", "no inputs", "time budget"."""
    differs_from_reference: bool | None = None
    witness: Witness | None = None
    behaviour: int | None = None
    run_status: str = ""
    """How the sample's probe job ended (the oracle's status words: ok, timeout, ...)."""

    def to_dict(self, entry: str) -> dict[str, Any]:
        return {
            "status": self.status,
            "differs_from_reference": self.differs_from_reference,
            "witness": self.witness.to_dict(entry) if self.witness else None,
            "behaviour": self.behaviour,
            "run_status": self.run_status,
        }


@dataclass(frozen=True)
class ContractProbe:
    """A contract's probe: its inputs, the counting, and a record per sample given."""

    contract: Contract
    settings: ProbeSettings
    examples: int
    skipped_examples: int
    generated: int
    """Inputs generated in the domain the examples imply (or the declared one), before the guard."""
    rejected: int
    guard_rejected: int
    counted: int
    reference_status: str
    """"ok", the reference job's status, or "none" (no reference: compared with the majority)."""
    rel_tol: float | None
    abs_tol: float | None
    tolerance_from: str
    samples: tuple[SampleProbe, ...]
    classes: tuple[tuple[int, ...], ...] = ()
    """Members (positions in the samples given) of each behaviour class, in class order."""
    reference_class: int | None = None
    note: str = ""
    inputs: tuple[Call, ...] = field(default=(), compare=False)
    reference_excluded: int = 0
    """Inputs left out because the reference raised on them or gave no result."""

    @property
    def has_reference(self) -> bool:
        return self.reference_status != "none"

    def figures(self) -> dict[str, Any]:
        probed = [s for s in self.samples if s.status == "probed"]
        wrong = sum(1 for s in probed if s.differs_from_reference)
        modal = max((len(m) for m in self.classes), default=0)
        return {
            "probed": len(probed),
            "plausible_but_wrong": wrong if self.has_reference else None,
            "plausible_but_wrong_share": (wrong / len(probed) if probed else 0.0)
            if self.has_reference
            else None,
            "behaviour_classes": len(self.classes),
            "modal_class_share": modal / len(probed) if probed else 0.0,
            "behaviourally_unlike": [
                position for members in self.classes if len(members) < modal for position in members
            ]
            if len(self.classes) > 1
            else [],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe_version": PROBE_VERSION,
            "contract": self.contract.id,
            "settings": self.settings.to_dict(),
            "examples": self.examples,
            "skipped_examples": self.skipped_examples,
            "generated": self.generated,
            "rejected": self.rejected,
            "guard_rejected": self.guard_rejected,
            "reference_excluded": self.reference_excluded,
            "counted": self.counted,
            "reference": self.reference_status,
            "tolerance": {
                "rel_tol": self.rel_tol,
                "abs_tol": self.abs_tol,
                "from": self.tolerance_from,
            },
            "classes": [list(members) for members in self.classes],
            "reference_class": self.reference_class,
            "note": self.note,
            **self.figures(),
        }


@dataclass
class _Work:
    contract: Contract
    codes: Sequence[str]
    passed: Sequence[bool]
    calls: tuple[Call, ...] = ()
    generated: int = 0
    examples: int = 0
    skipped: int = 0
    rejected: int = 0
    guard_rejected: int = 0
    rel_tol: float | None = None
    abs_tol: float | None = None
    tolerance_from: str = "none"
    note: str = ""
    reference: tuple[CallOutput, ...] | None = None
    """The reference's outputs on `calls`, once it has run (it returned a value on each)."""
    reference_excluded: int = 0


Progress = Callable[[int, int], None]


def probe_contracts(
    oracle: Oracle,
    items: Sequence[tuple[Contract, Sequence[str], Sequence[bool]]],
    settings: ProbeSettings = ProbeSettings(),
    progress: Progress | None = None,
) -> list[ContractProbe]:
    """Probe each (contract, sample programs, passed-the-oracle flags); one result per item.

    Jobs of all contracts share the pool; the time budget is looked at between rounds of
    `JOBS_PER_ROUND` jobs, and the contracts not started when it is spent are not probed.
    """
    start = time.monotonic()
    works = [_prepare(contract, codes, passed, settings) for contract, codes, passed in items]
    _apply_guards(oracle, works)
    results: list[ContractProbe | None] = [None] * len(works)
    order = list(range(len(works)))
    total = sum(sum(1 for p in w.passed if p) + 1 for w in works)
    done = 0
    while order:
        if time.monotonic() - start > settings.max_seconds:
            for index in order:
                results[index] = _unprobed(works[index], settings, "time budget")
            break
        batch: list[int] = []
        jobs = 0
        while order and (not batch or jobs < JOBS_PER_ROUND):
            index = order.pop(0)
            batch.append(index)
            jobs += sum(1 for p in works[index].passed if p) + 1
        for index, probe in zip(batch, _run_batch(oracle, [works[i] for i in batch], settings)):
            results[index] = probe
        done += jobs
        if progress is not None:
            progress(min(done, total), total)
    return [r for r in results if r is not None]


def _prepare(
    contract: Contract, codes: Sequence[str], passed: Sequence[bool], settings: ProbeSettings
) -> _Work:
    work = _Work(contract, codes, passed)
    if contract.entry.kind != "function":
        work.note = "a class entry point is not probed (stateful tests have no single call)"
        return work
    examples = example_calls(contract)
    seeds = [call for i, call in enumerate(examples.calls) if i not in examples.raising]
    generated = generate_inputs(contract, seeds, max_inputs=settings.max_inputs, seed=settings.seed)
    work.calls = generated.calls
    work.generated = len(generated.calls)
    work.examples = len(seeds)
    work.skipped = examples.skipped
    work.rejected = generated.rejected
    work.rel_tol, work.abs_tol, work.tolerance_from = (
        examples.rel_tol,
        examples.abs_tol,
        examples.tolerance_from,
    )
    if not seeds:
        work.note = "the tests call the entry point with no literal inputs to start from"
    return work


def _apply_guards(oracle: Oracle, works: list[_Work]) -> None:
    guarded = [w for w in works if w.contract.domain.guard is not None and w.calls]
    if not guarded:
        return
    jobs = []
    for work in guarded:
        guard_contract = replace(work.contract, entry=Entry("function", "guard"))
        jobs.append((guard_contract, work.contract.domain.guard or "", work.calls))
    for work, result in zip(guarded, oracle.calls_iter(jobs)):
        kept = tuple(
            call
            for call, output in zip(work.calls, result.outputs)
            if output.status == RETURNED and _truthy(output.value)
        )
        work.guard_rejected = len(work.calls) - len(kept)
        work.calls = kept
        if result.status != "ok":
            work.note = (
                f"the guard did not finish ({result.reason}); inputs it did not answer are left out"
            )


def _truthy(value: Any) -> bool:
    """Decoded values are plain data (never a sample's objects), so `bool` is safe here."""
    try:
        return bool(value)
    except Exception:  # pragma: no cover - plain data has a truth value
        return False


def _unprobed(work: _Work, settings: ProbeSettings, why: str) -> ContractProbe:
    return ContractProbe(
        contract=work.contract,
        settings=settings,
        examples=work.examples,
        skipped_examples=work.skipped,
        generated=work.generated,
        rejected=work.rejected,
        guard_rejected=work.guard_rejected,
        counted=0,
        reference_status="none" if work.contract.reference is None else "not run",
        rel_tol=work.rel_tol,
        abs_tol=work.abs_tol,
        tolerance_from=work.tolerance_from,
        samples=tuple(SampleProbe("failed the tests" if not p else why) for p in work.passed),
        note=work.note or why,
        inputs=work.calls,
    )


def _reference_outputs(oracle: Oracle, works: list[_Work]) -> dict[int, tuple[str, str]]:
    """Run each reference on its inputs, then keep only the inputs it returns a value on, in
    generation order while its time on them adds up to at most 1/SLOWDOWN of the timeout.

    An input on which the reference hangs (or hits a limit) would cost every later input its
    result, so after such an input the rest is run again, at most `REFERENCE_RESTARTS` times.
    Returns, per work, the reference job's first status and reason other than "ok".
    """
    outputs: dict[int, list[CallOutput]] = {}
    starts: dict[int, int] = {}
    ended: dict[int, tuple[str, str]] = {}
    for w, work in enumerate(works):
        if work.calls and work.contract.reference is not None:
            outputs[w] = [CallOutput(MISSING)] * len(work.calls)
            starts[w] = 0
    for _ in range(REFERENCE_RESTARTS + 1):
        pending = [w for w, start in starts.items() if start < len(works[w].calls)]
        if not pending:
            break
        jobs = [
            (works[w].contract, works[w].contract.reference or "", works[w].calls[starts[w] :])
            for w in pending
        ]
        for w, result in zip(pending, oracle.calls_iter(jobs)):
            start = starts[w]
            outputs[w][start : start + len(result.outputs)] = result.outputs
            if result.status == "ok":
                starts[w] = len(works[w].calls)
                continue
            ended.setdefault(w, (result.status, result.reason))
            missing = next(
                (i for i, out in enumerate(result.outputs) if out.status == MISSING), None
            )
            starts[w] = len(works[w].calls) if missing is None else start + missing + 1
    for w, found in outputs.items():
        work = works[w]
        budget = work.contract.oracle.timeout_s / SLOWDOWN
        kept, spent = [], 0.0
        for i, out in enumerate(found):
            if out.status == RETURNED and spent + out.seconds <= budget:
                kept.append(i)
                spent += out.seconds
        work.reference_excluded = len(work.calls) - len(kept)
        work.calls = tuple(work.calls[i] for i in kept)
        work.reference = tuple(found[i] for i in kept)
    return ended


def _run_batch(oracle: Oracle, works: list[_Work], settings: ProbeSettings) -> list[ContractProbe]:
    ended = _reference_outputs(oracle, works)
    jobs: list[tuple[Contract, str, Sequence[Call]]] = []
    slots: list[tuple[int, int | None]] = []  # (work, sample position)
    for w, work in enumerate(works):
        if not work.calls:
            continue
        for position, (code, ok) in enumerate(zip(work.codes, work.passed)):
            if ok:
                jobs.append((work.contract, code, work.calls))
                slots.append((w, position))
    outputs: list[dict[int | None, tuple[str, str, tuple[CallOutput, ...]]]] = [{} for _ in works]
    for w, work in enumerate(works):
        if work.reference is not None:
            outputs[w][None] = (*ended.get(w, ("ok", "")), work.reference)
    for (w, slot), result in zip(slots, oracle.calls_iter(jobs)):
        outputs[w][slot] = (result.status, result.reason, result.outputs)
    return [_judge(work, settings, found) for work, found in zip(works, outputs)]


def _judge(
    work: _Work,
    settings: ProbeSettings,
    found: dict[int | None, tuple[str, str, tuple[CallOutput, ...]]],
) -> ContractProbe:
    if not work.calls:
        return _unprobed(
            work,
            settings,
            "no inputs" if not work.reference_excluded else "the reference returns on no input",
        )
    contract = work.contract
    rel, abs_ = work.rel_tol, work.abs_tol
    probed = [p for p in range(len(work.codes)) if work.passed[p]]
    reference = found.get(None)
    if reference is not None:
        counted = [i for i, out in enumerate(reference[2]) if out.status == RETURNED]
    else:
        counted = [
            i
            for i in range(len(work.calls))
            if 2 * sum(found[p][2][i].status == RETURNED for p in probed) > len(probed)
        ]
    classes: list[list[int]] = []
    representatives: list[tuple[CallOutput, ...]] = []
    class_of: dict[int, int] = {}
    for position in probed:
        outs = found[position][2]
        for number, rep in enumerate(representatives):
            if _same(outs, rep, counted, rel, abs_) is None:
                classes[number].append(position)
                class_of[position] = number + 1
                break
        else:
            representatives.append(outs)
            classes.append([position])
            class_of[position] = len(classes)
    reference_class = None
    if reference is not None:
        reference_class = next(
            (
                number + 1
                for number, rep in enumerate(representatives)
                if _same(rep, reference[2], counted, rel, abs_) is None
            ),
            None,
        )
        expected, against = reference[2], "reference"
    elif classes:
        modal = max(range(len(classes)), key=lambda n: (len(classes[n]), -n))
        expected, against = representatives[modal], "majority"
    else:
        expected, against = (), "majority"
    samples = []
    for position, ok in enumerate(work.passed):
        if not ok:
            samples.append(SampleProbe("failed the tests"))
            continue
        status, reason, outs = found[position]
        at = _same(outs, expected, counted, rel, abs_) if expected else None
        witness = (
            Witness(
                work.calls[at], outs[at], expected[at], against, reason if status != "ok" else ""
            )
            if at is not None
            else None
        )
        samples.append(
            SampleProbe(
                "probed",
                differs_from_reference=(at is not None) if reference is not None else None,
                witness=witness,
                behaviour=class_of[position],
                run_status=status,
            )
        )
    note = work.note
    if reference is not None and reference[0] != "ok":
        note = note or (
            f"the reference gave no result on some inputs ({reference[1]}); they are left out"
        )
    return ContractProbe(
        contract=contract,
        settings=settings,
        examples=work.examples,
        skipped_examples=work.skipped,
        generated=work.generated,
        rejected=work.rejected,
        guard_rejected=work.guard_rejected,
        reference_excluded=work.reference_excluded,
        counted=len(counted),
        reference_status=reference[0] if reference is not None else "none",
        rel_tol=rel,
        abs_tol=abs_,
        tolerance_from=work.tolerance_from,
        samples=tuple(samples),
        classes=tuple(tuple(members) for members in classes),
        reference_class=reference_class,
        note=note,
        inputs=work.calls,
    )


def _same(
    outs: Sequence[CallOutput],
    expected: Sequence[CallOutput],
    counted: Sequence[int],
    rel: float | None,
    abs_: float | None,
) -> int | None:
    """The first counted input on which `outs` differs from `expected`, or None."""
    for i in counted:
        got, want = outs[i], expected[i]
        if want.status == RETURNED:
            if got.status != RETURNED or not values_match(got.value, want.value, rel, abs_):
                return i
        elif got.status != want.status or got.raised != want.raised:
            return i
    return None


def r_behavioral_probe(
    pass_vectors: Sequence[tuple[bool, ...] | None], behaviours: Sequence[int | None]
) -> float:
    """Modal share of (test pass/fail vector, behaviour class on probes) over all samples.

    SKYT's R_behavioral groups samples by their pass/fail vector on the tests; on probes each
    passing sample's group is further split by its behaviour class, so this is never above
    R_behavioral. 0 for no samples.
    """
    if not pass_vectors:
        return 0.0
    counts = Counter(zip(pass_vectors, behaviours))
    return max(counts.values()) / len(pass_vectors)
