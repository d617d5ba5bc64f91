"""Probing: passing samples and the reference on generated inputs, compared and grouped by
behaviour (docs/probe.md).

For each contract: example inputs (`examples`) → generated inputs (`generate`) → the contract's
`guard`, in the sandbox → the reference and every passing sample run on the inputs in the
sandbox (`calls_iter` of the executor's oracle - this machine's pool or a Ray cluster's nodes:
the same worker, limits and isolation as the tests) → outputs
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from skyt_tui.engine.contracts.contract import Contract, Entry
from skyt_tui.engine.contracts.values import literal_text
from skyt_tui.engine.oracle.outputs import MISSING, RETURNED, Call, CallOutput, CallsResult
from skyt_tui.engine.oracle.verdicts import values_match
from skyt_tui.engine.printable import printable
from skyt_tui.engine.probe.examples import example_calls
from skyt_tui.engine.probe.generate import DEFAULT_MAX_INPUTS, generate_inputs
from skyt_tui.engine.versions import PROBE_VERSION


class CallsJudge(Protocol):
    """What probing needs of an oracle: `Oracle.calls_iter` on this machine's sandbox pool, or
    `RayOracle.calls_iter` on a cluster's nodes (the same worker, limits and isolation)."""

    def calls_iter(
        self, jobs: Sequence[tuple[Contract, str, Sequence[Call]]]
    ) -> Iterator[CallsResult]: ...


DEFAULT_MAX_SECONDS = 1800.0
JOBS_PER_ROUND = 256
"""Jobs handed to the pool between two looks at the time budget."""
SLOWDOWN = 4.0
"""Samples get the contract's timeout for all inputs; the inputs kept are those the reference
answers within 1/SLOWDOWN of it in all, so a sample up to SLOWDOWN times slower still finishes."""
REFERENCE_RESTARTS = 5
"""Times the reference is run again past a domain input it hangs on (docs/probe.md)."""
WIDE_RESTARTS = 3
"""Times the reference is run again past a wide-tier input it gives no result on in time."""
SAMPLE_RESTARTS = 2
"""Times a sample is run again past an input it gave no result on in a run of its own (after
the one rerun from the input its first run stopped at; docs/probe.md)."""
NOT_RUN = "not_run"
"""A sample's output on an input it never reached: it hung on an earlier one and its restarts
ran out. Never compared, never an answer (it says nothing about the sample on that input)."""
CONSENSUS = 0.9
"""An open input - beyond the domain, or one the reference gives no result on - counts when at
least this share of the samples that reached it return what the reference returns there (or,
where it gives nothing, one value: the majority's) (docs/probe.md). probe-3 had 0.8 of the
samples that answered (returned or raised)."""


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
    differs_from_majority: bool | None = None
    """On an input the reference gave no result on in time (or, without a reference, on any
    counted input), the sample does not return what most samples return; None when no input
    was counted that way."""

    def to_dict(self, entry: str) -> dict[str, Any]:
        return {
            "status": self.status,
            "differs_from_reference": self.differs_from_reference,
            "differs_from_majority": self.differs_from_majority,
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
    generated_wide: int = 0
    """Inputs generated beyond the inferred domain (the wide tier), before the guard."""
    counted_wide: int = 0
    """Wide-tier inputs counted: the reference and a large majority of the samples agree."""
    reference_hung: int = 0
    """Inputs the reference gave no result on in time: compared with the samples' majority."""
    counted_majority: int = 0
    """Inputs counted against the samples' majority (the reference hung on them, or there is no
    reference and the input is in the wide tier)."""
    documented: int = 0
    """Inputs written in the entry point's docstring (`signature`), run first among `generated`."""

    @property
    def has_reference(self) -> bool:
        return self.reference_status != "none"

    def figures(self) -> dict[str, Any]:
        probed = [s for s in self.samples if s.status == "probed"]
        wrong = sum(1 for s in probed if s.differs_from_reference)
        unlike = sum(1 for s in probed if s.differs_from_majority)
        modal = max((len(m) for m in self.classes), default=0)
        return {
            "probed": len(probed),
            "plausible_but_wrong": wrong if self.has_reference else None,
            "plausible_but_wrong_share": (wrong / len(probed) if probed else 0.0)
            if self.has_reference
            else None,
            "unlike_majority": unlike,
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
            "documented": self.documented,
            "generated": self.generated,
            "generated_wide": self.generated_wide,
            "rejected": self.rejected,
            "guard_rejected": self.guard_rejected,
            "reference_excluded": self.reference_excluded,
            "reference_hung": self.reference_hung,
            "counted": self.counted,
            "counted_wide": self.counted_wide,
            "counted_majority": self.counted_majority,
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


REFERENCE = "reference"
"""An input's kind: in the domain, the reference answered it (counted)."""
CONSENSUS_KIND = "consensus"
"""Beyond the domain, the reference answered it: counted where most samples agree with it."""
MAJORITY = "majority"
"""The reference gave no result on it in time, or (without a reference) it is beyond the domain:
counted where most samples return one value, compared with that value."""
MODAL = "modal"
"""Without a reference, in the domain: counted where most samples return a value, compared with
the largest behaviour class."""


@dataclass
class _Work:
    contract: Contract
    codes: Sequence[str]
    passed: Sequence[bool]
    calls: tuple[Call, ...] = ()
    wide_from: int = 0
    """`calls[wide_from:]` are the wide tier's (until the reference has run)."""
    kinds: tuple[str, ...] = ()
    """Each input's kind (REFERENCE, CONSENSUS_KIND, MAJORITY, MODAL), once the reference ran."""
    generated: int = 0
    generated_wide: int = 0
    examples: int = 0
    skipped: int = 0
    rejected: int = 0
    guard_rejected: int = 0
    rel_tol: float | None = None
    abs_tol: float | None = None
    tolerance_from: str = "none"
    note: str = ""
    reference: tuple[CallOutput, ...] | None = None
    """The reference's outputs on `calls`, once it has run (missing on MAJORITY inputs)."""
    reference_excluded: int = 0
    reference_hung: int = 0
    documented: int = 0


Progress = Callable[[int, int], None]


def probe_contracts(
    oracle: CallsJudge,
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
    work.calls = generated.calls + generated.wide
    work.wide_from = len(generated.calls)
    work.generated = len(generated.calls)
    work.generated_wide = len(generated.wide)
    work.examples = len(seeds)
    work.skipped = examples.skipped
    work.rejected = generated.rejected
    work.rel_tol, work.abs_tol, work.tolerance_from = (
        examples.rel_tol,
        examples.abs_tol,
        examples.tolerance_from,
    )
    work.documented = generated.documented
    if not seeds and not generated.documented:
        work.note = "the tests call the entry point with no literal inputs to start from" + (
            "; inputs from the signature's types alone, counted where the reference and most "
            "samples agree"
            if generated.wide
            else ""
        )
    return work


def _apply_guards(oracle: CallsJudge, works: list[_Work]) -> None:
    guarded = [w for w in works if w.contract.domain.guard is not None and w.calls]
    if not guarded:
        return
    jobs = []
    for work in guarded:
        guard_contract = replace(work.contract, entry=Entry("function", "guard"))
        jobs.append((guard_contract, work.contract.domain.guard or "", work.calls))
    for work, result in zip(guarded, oracle.calls_iter(jobs)):
        keep = [output.status == RETURNED and _truthy(output.value) for output in result.outputs]
        work.guard_rejected = len(work.calls) - sum(keep)
        work.wide_from = sum(keep[: work.wide_from])
        work.calls = tuple(call for call, ok in zip(work.calls, keep) if ok)
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
        documented=work.documented,
        skipped_examples=work.skipped,
        generated=work.generated,
        generated_wide=work.generated_wide,
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


def _reference_outputs(oracle: CallsJudge, works: list[_Work]) -> dict[int, tuple[str, str]]:
    """Run each reference on its inputs and sort them into kinds (docs/probe.md).

    Domain inputs run with the contract's timeout; after an input the reference hangs on (or
    hits a limit) the rest is run again, at most `REFERENCE_RESTARTS` times. Wide-tier inputs
    run apart with 1/SLOWDOWN of the timeout (they are kept only within it anyway), again past
    an input it gives no result on, at most `WIDE_RESTARTS` times.

    Kept, in generation order while the reference's time on them adds up to at most 1/SLOWDOWN
    of the timeout: the inputs it returns a value on (REFERENCE in the domain, CONSENSUS_KIND
    beyond it); then the inputs it timed out on (MAJORITY), last, so a sample that hangs there
    loses no other result. Inputs it raises on are outside the domain: left out. Without a
    reference, domain inputs are MODAL and wide ones MAJORITY. Returns, per work, the
    reference's first status and reason other than "ok".
    """
    units: list[tuple[int, int, int, Contract, int]] = []  # work, start, end, contract, restarts
    for w, work in enumerate(works):
        if not work.calls:
            continue
        if work.contract.reference is None:
            work.kinds = (MODAL,) * work.wide_from + (MAJORITY,) * (
                len(work.calls) - work.wide_from
            )
            continue
        if work.wide_from > 0:
            units.append((w, 0, work.wide_from, work.contract, REFERENCE_RESTARTS))
        if work.wide_from < len(work.calls):
            short = replace(
                work.contract,
                oracle=replace(
                    work.contract.oracle, timeout_s=work.contract.oracle.timeout_s / SLOWDOWN
                ),
            )
            units.append((w, work.wide_from, len(work.calls), short, WIDE_RESTARTS))
    outputs = {w: [CallOutput(MISSING)] * len(works[w].calls) for w in {unit[0] for unit in units}}
    hung: dict[int, set[int]] = {w: set() for w in outputs}
    ended: dict[int, tuple[str, str]] = {}
    starts = [unit[1] for unit in units]
    restarts = [unit[4] for unit in units]
    while True:
        pending = [u for u, unit in enumerate(units) if starts[u] < unit[2]]
        if not pending:
            break
        jobs = [
            (
                units[u][3],
                units[u][3].reference or "",
                works[units[u][0]].calls[starts[u] : units[u][2]],
            )
            for u in pending
        ]
        for u, result in zip(pending, oracle.calls_iter(jobs)):
            w, start, end = units[u][0], starts[u], units[u][2]
            outputs[w][start : start + len(result.outputs)] = result.outputs
            if result.status == "ok":
                starts[u] = end
                continue
            ended.setdefault(w, (result.status, result.reason))
            missing = next(
                (i for i, out in enumerate(result.outputs) if out.status == MISSING), None
            )
            if missing is None or restarts[u] <= 0:
                starts[u] = end
                if missing is not None and result.status == "timeout":
                    hung[w].add(start + missing)
                continue
            if result.status == "timeout":
                hung[w].add(start + missing)
            restarts[u] -= 1
            starts[u] = start + missing + 1
    for w, found in outputs.items():
        work = works[w]
        budget = work.contract.oracle.timeout_s / SLOWDOWN
        kept, spent = [], 0.0
        for i, out in enumerate(found):
            if out.status == RETURNED and spent + out.seconds <= budget:
                kept.append(i)
                spent += out.seconds
        slow = sorted(hung[w])
        work.reference_hung = len(slow)
        work.reference_excluded = len(work.calls) - len(kept) - len(slow)
        work.kinds = tuple(REFERENCE if i < work.wide_from else CONSENSUS_KIND for i in kept) + (
            MAJORITY,
        ) * len(slow)
        work.calls = tuple(work.calls[i] for i in kept + slow)
        work.reference = tuple(found[i] for i in kept) + (CallOutput(MISSING),) * len(slow)
    return ended


def _run_batch(
    oracle: CallsJudge, works: list[_Work], settings: ProbeSettings
) -> list[ContractProbe]:
    ended = _reference_outputs(oracle, works)
    outputs: list[dict[int | None, tuple[str, str, tuple[CallOutput, ...]]]] = [{} for _ in works]
    for w, work in enumerate(works):
        if work.reference is not None:
            outputs[w][None] = (*ended.get(w, ("ok", "")), work.reference)
    _run_samples(oracle, works, outputs)
    return [_judge(work, settings, found) for work, found in zip(works, outputs)]


@dataclass
class _Segment:
    """A passing sample's run over some of its contract's inputs (`start` to `end`)."""

    work: int
    slot: int
    start: int
    end: int
    contract: Contract
    open: bool
    """The inputs whose counting waits for the other samples (CONSENSUS_KIND, MAJORITY)."""
    runs_left: int
    status: str = "ok"
    reason: str = ""
    first: int = 0
    """The input the segment's next run starts at."""
    firsts: set[int] = field(default_factory=set)


def _run_samples(
    oracle: CallsJudge,
    works: list[_Work],
    outputs: list[dict[int | None, tuple[str, str, tuple[CallOutput, ...]]]],
) -> None:
    """Every passing sample on its contract's inputs, in two runs (docs/probe.md): the inputs
    the reference answered in the domain (or, without a reference, the domain's) with the
    contract's timeout, and the open ones - beyond the domain, or where the reference gave no
    result - with 1/SLOWDOWN of it, as the reference had them (a sample's "no result" there is
    not a difference, so a hang costs little).

    A run of the first kind that times out is run again from the input it gave no result on,
    with the timeout again: a sample that only ran out of time on a loaded machine gets its
    results; one that hangs there hangs again, and that input is its "no result" - it differs
    from the reference there whatever it does after, so it is not run further (probe-4; before,
    it was run again past the hang). An open run that gives no result is run again from the
    next input, at most `WIDE_RESTARTS` times. Up to `SAMPLE_RESTARTS` runs follow a hang on a
    domain input without a reference (the majority decides there). An input still without an
    output at the end that no run started at is `NOT_RUN`: never reached, never compared. A
    sample that crashes or floods gets no result from there on: its own record."""
    segments: list[_Segment] = []
    for w, work in enumerate(works):
        if not work.calls:
            continue
        split = sum(1 for kind in work.kinds if kind in (REFERENCE, MODAL))
        short = _shortened(work.contract)
        for slot, ok in enumerate(work.passed):
            if not ok:
                continue
            outputs[w][slot] = ("ok", "", (CallOutput(MISSING),) * len(work.calls))
            if split > 0:
                runs = 2 + SAMPLE_RESTARTS
                segments.append(_Segment(w, slot, 0, split, work.contract, False, runs))
            if split < len(work.calls):
                segments.append(
                    _Segment(w, slot, split, len(work.calls), short, True, 1 + WIDE_RESTARTS)
                )
    for segment in segments:
        segment.first = segment.start
    pending = segments
    while pending:
        jobs: list[tuple[Contract, str, Sequence[Call]]] = [
            (
                s.contract,
                works[s.work].codes[s.slot],
                works[s.work].calls[s.first : s.end],
            )
            for s in pending
        ]
        following = []
        for segment, result in zip(pending, oracle.calls_iter(jobs)):
            if _after_run(segment, result, works[segment.work], outputs):
                following.append(segment)
        pending = following
    for segment in segments:
        status, reason, outs = outputs[segment.work][segment.slot]
        if segment.status != "ok" and status == "ok":
            status, reason = segment.status, segment.reason  # the domain's status first
        if segment.firsts:
            outs = tuple(
                CallOutput(NOT_RUN)
                if segment.start <= i < segment.end
                and out.status == MISSING
                and i not in segment.firsts
                else out
                for i, out in enumerate(outs)
            )
        outputs[segment.work][segment.slot] = (status, reason, outs)


def _shortened(contract: Contract) -> Contract:
    """The contract with 1/SLOWDOWN of its timeout: for the open inputs (the reference's too)."""
    timeout = contract.oracle.timeout_s / SLOWDOWN
    return replace(contract, oracle=replace(contract.oracle, timeout_s=timeout))


def _after_run(
    segment: _Segment,
    result: CallsResult,
    work: _Work,
    outputs: list[dict[int | None, tuple[str, str, tuple[CallOutput, ...]]]],
) -> bool:
    """Take one run's outputs into the sample's record; True when the segment runs again."""
    first = segment.first
    status, reason, outs = outputs[segment.work][segment.slot]
    merged = outs[:first] + tuple(result.outputs) + outs[first + len(result.outputs) :]
    outputs[segment.work][segment.slot] = (status, reason, merged)
    segment.runs_left -= 1
    segment.status, segment.reason = result.status, result.reason  # how its last run ended
    if result.status == "ok":
        return False
    missing = next(
        (first + i for i, out in enumerate(result.outputs) if out.status == MISSING), None
    )
    if result.status != "timeout" or missing is None:
        if segment.firsts and missing is not None:
            segment.firsts.update((first, missing))  # where it crashed: its own "no result"
        return False
    segment.firsts.add(first)
    if segment.open:
        nxt = missing + 1
    elif missing != first:
        nxt = missing  # ran out of time on its way: again, from where it stopped
    elif missing < len(work.kinds) and work.kinds[missing] == REFERENCE:
        return False  # it hangs where the reference answered: it differs there, decided
    else:
        nxt = missing + 1
    if segment.runs_left <= 0 or nxt >= segment.end:
        return False
    segment.first = nxt
    return True


def _expectations(
    work: _Work, outs: list[tuple[CallOutput, ...]], reference: tuple[CallOutput, ...] | None
) -> tuple[list[CallOutput | None], list[int]]:
    """Per input, the output a sample is compared with (None: not counted, or MODAL: filled in
    from the largest class), and the counted inputs in order."""
    rel, abs_ = work.rel_tol, work.abs_tol
    expected: list[CallOutput | None] = [None] * len(work.calls)
    counted = []
    for i, kind in enumerate(work.kinds):
        answers = [found[i] for found in outs if found[i].status != NOT_RUN]
        completed = [out for out in answers if out.status != MISSING]
        if kind == REFERENCE and reference is not None:
            expected[i] = reference[i]
        elif kind == MODAL:
            if 2 * sum(out.status == RETURNED for out in answers) <= len(answers):
                continue
        elif kind == CONSENSUS_KIND and reference is not None:
            agree = sum(1 for out in completed if _matches(out, reference[i], rel, abs_))
            if agree < CONSENSUS * len(answers) or not answers:
                continue  # beyond the domain: nearly every sample must return the reference's
            expected[i] = reference[i]
        elif kind == MAJORITY:
            value = _majority_value(completed, len(answers), rel, abs_)
            if value is None:
                continue  # where the reference gave nothing: nearly every sample must agree
            expected[i] = value
        counted.append(i)
    return expected, counted


def _majority_value(
    completed: list[CallOutput], reached: int, rel: float | None, abs_: float | None
) -> CallOutput | None:
    """The value at least CONSENSUS of the `reached` samples return (first of its group), or
    None."""
    groups: list[tuple[CallOutput, int]] = []
    for out in completed:
        if out.status != RETURNED:
            continue
        for g, (first, count) in enumerate(groups):
            if values_match(out.value, first.value, rel, abs_):
                groups[g] = (first, count + 1)
                break
        else:
            groups.append((out, 1))
    best = max(groups, key=lambda group: group[1], default=None)
    if best is None or best[1] < CONSENSUS * reached:
        return None
    return best[0]


def _matches(got: CallOutput, want: CallOutput, rel: float | None, abs_: float | None) -> bool:
    if want.status == RETURNED:
        return got.status == RETURNED and values_match(got.value, want.value, rel, abs_)
    return got.status == want.status and got.raised == want.raised


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
    expected, counted = _expectations(
        work, [found[p][2] for p in probed], reference[2] if reference is not None else None
    )
    open_from = sum(1 for kind in work.kinds if kind in (REFERENCE, MODAL))
    classes: list[list[int]] = []
    representatives: list[tuple[CallOutput, ...]] = []
    class_of: dict[int, int] = {}
    for position in probed:
        outs = found[position][2]
        for number, rep in enumerate(representatives):
            if _same(outs, rep, counted, rel, abs_, open_from) is None:
                classes[number].append(position)
                class_of[position] = number + 1
                break
        else:
            representatives.append(outs)
            classes.append([position])
            class_of[position] = len(classes)
    if classes and any(work.kinds[i] == MODAL for i in counted):
        modal = max(range(len(classes)), key=lambda n: (len(classes[n]), -n))
        for i in counted:
            if work.kinds[i] == MODAL:
                expected[i] = representatives[modal][i]
    compared = [i for i in counted if expected[i] is not None]
    want = tuple(out if out is not None else CallOutput(MISSING) for out in expected)
    reference_class = None
    if reference is not None:
        reference_class = next(
            (
                number + 1
                for number, rep in enumerate(representatives)
                if _same(
                    rep,
                    reference[2],
                    [i for i in counted if work.kinds[i] != MAJORITY],
                    rel,
                    abs_,
                    open_from,
                )
                is None
            ),
            None,
        )
    by_majority = [i for i in compared if work.kinds[i] in (MAJORITY, MODAL)]
    samples = []
    for position, ok in enumerate(work.passed):
        if not ok:
            samples.append(SampleProbe("failed the tests"))
            continue
        status, reason, outs = found[position]
        at = _same(outs, want, compared, rel, abs_, open_from)
        witness = (
            Witness(
                work.calls[at],
                outs[at],
                want[at],
                "majority" if work.kinds[at] in (MAJORITY, MODAL) else "reference",
                reason if status != "ok" else "",
            )
            if at is not None
            else None
        )
        samples.append(
            SampleProbe(
                "probed",
                differs_from_reference=(
                    _same(
                        outs,
                        want,
                        [i for i in compared if i not in by_majority],
                        rel,
                        abs_,
                        open_from,
                    )
                    is not None
                )
                if reference is not None
                else None,
                witness=witness,
                behaviour=class_of[position],
                run_status=status,
                differs_from_majority=_same(outs, want, by_majority, rel, abs_, open_from)
                is not None
                if by_majority
                else None,
            )
        )
    note = work.note
    if reference is not None and reference[0] != "ok":
        note = note or (
            f"the reference gave no result on some inputs ({reference[1]}); they are left out "
            "or compared with the samples' majority"
        )
    return ContractProbe(
        contract=contract,
        settings=settings,
        examples=work.examples,
        documented=work.documented,
        skipped_examples=work.skipped,
        generated=work.generated,
        generated_wide=work.generated_wide,
        rejected=work.rejected,
        guard_rejected=work.guard_rejected,
        reference_excluded=work.reference_excluded,
        reference_hung=work.reference_hung,
        counted=len(counted),
        counted_wide=sum(1 for i in counted if work.kinds[i] == CONSENSUS_KIND),
        counted_majority=sum(1 for i in counted if work.kinds[i] == MAJORITY),
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
    open_from: int | None = None,
) -> int | None:
    """The first counted input on which `outs` differs from `expected`, or None (an input either
    side never reached, `NOT_RUN`, is not compared; from `open_from` on - the open inputs,
    beyond the domain or where the reference gave no result - only two returned values are:
    there a sample that raises or gives no result refuses an input the examples do not vouch
    for, which says nothing of its answers)."""
    for i in counted:
        got, want = outs[i], expected[i]
        if got.status == NOT_RUN or want.status == NOT_RUN:
            continue
        opened = open_from is not None and i >= open_from
        if opened and (got.status != RETURNED or want.status != RETURNED):
            continue
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
