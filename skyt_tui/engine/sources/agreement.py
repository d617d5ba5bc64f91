"""The recording tool's own verdicts beside skyt-tui's, and how many disagree.

A tool that judged the samples it logged (Inspect's scorer, EvalPlus's base/plus status,
promptfoo's success, lm-eval's per-task pass@1, bigcode's pass@1) is compared with
skyt-tui's oracle on the same answers:
- per sample: both verdicts per sample, `disagreements` = samples where they differ;
- per task: the tool's pass rate of the task times its samples is the number it passed;
  `disagreements` = how far skyt-tui's count is from it (the fewest samples judged differently);
- one number for the file (bigcode): compared in `source_summaries`, no count is possible.
A pass rate is computed as the tools compute pass@1: per task the share of its samples that
pass, then the mean over tasks. A sample without an answer counts as not passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skyt_tui.engine.sources.run_input import RunInput


@dataclass(frozen=True)
class Judged:
    """skyt-tui's verdicts on one run: per sample index, passed (None: not judged) and tests."""

    run: RunInput
    passed: dict[int, bool | None]
    tests: dict[int, tuple[tuple[str, ...], tuple[bool, ...]]]

    def skyt(self, index: int) -> bool | None:
        if index in self.passed:
            return self.passed[index]
        return False if self.run.codes[index] is None else None


def _rate(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def run_agreement(judged: Judged) -> dict[str, Any] | None:
    """The tool's verdicts on this run beside skyt-tui's (None: the source kept no verdict)."""
    run, tool = judged.run, judged.run.tool
    if tool is None or tool.granularity == "total":
        return None
    n = len(run.codes)
    ours = [judged.skyt(i) for i in range(n)]
    out: dict[str, Any] = {
        "tool": tool.tool,
        "granularity": tool.granularity,
        "metric": tool.metric,
    }
    if tool.note:
        out["note"] = tool.note
    if any(value is None for value in ours):
        out["skyt_pass_rate"] = None
    else:
        out["skyt_pass_rate"] = _rate([bool(v) for v in ours])
    if tool.granularity == "task":
        out["tool_pass_rate"] = tool.task_pass_rate
        if tool.task_pass_rate is None or out["skyt_pass_rate"] is None:
            out["disagreements"] = None
            return out
        theirs = round(tool.task_pass_rate * n)
        out["disagreements"] = abs(theirs - sum(bool(v) for v in ours))
        out["compared"] = n
        return out
    theirs_by_sample = [run.fact(i).tool_passed for i in range(n)]
    pairs = [(a, b) for a, b in zip(ours, theirs_by_sample) if a is not None and b is not None]
    known = [b for b in theirs_by_sample if b is not None]
    out["tool_pass_rate"] = _rate(known) if len(known) == n else None
    out["compared"] = len(pairs)
    differing = [
        i
        for i, (a, b) in enumerate(zip(ours, theirs_by_sample))
        if a is not None and b is not None and a != b
    ]
    out["disagreements"] = len(differing)
    out["disagreeing_samples"] = differing
    if tool.tool == "evalplus" and tool.metric == "base+plus":
        out["evalplus"] = _evalplus_rates(judged)
    return out


def _evalplus_rates(judged: Judged) -> dict[str, Any]:
    """Base and plus pass rates, EvalPlus's and skyt-tui's (from the `base[k]`/`plus[k]` tests)."""
    from skyt_tui.engine.sources.formats.evalplus import split_verdict

    run = judged.run
    n = len(run.codes)
    rates: dict[str, Any] = {}
    for kind in ("base", "plus"):
        tool_values = []
        for i in range(n):
            detail = run.fact(i).tool_detail or {}
            base, plus = detail.get("base_status"), detail.get("plus_status")
            if kind == "base":
                tool_values.append(None if base is None else base == "pass")
            else:
                tool_values.append(None if plus is None else base == plus == "pass")
        ours: list[bool | None] = []
        for i in range(n):
            if i in judged.tests:
                names, passes = judged.tests[i]
                ours.append(split_verdict(list(names), list(passes))[kind])
            else:
                ours.append(False if run.codes[i] is None else None)
        rates[kind] = {
            "tool": _rate([bool(v) for v in tool_values]) if None not in tool_values else None,
            "skyt": _rate([bool(v) for v in ours]) if None not in ours else None,
        }
    return rates


def source_summaries(judged: Sequence[Judged], loses: dict[str, str]) -> list[dict[str, Any]]:
    """Per source file: samples read, pass rate by skyt-tui and by the tool, disagreements, what is
    lost; for a tool run that errored or was cut short, `tool_run` (its status, error, samples
    expected and recorded) and `complete: false`: the pass rates then cover the recorded samples."""
    by_file: dict[str, list[Judged]] = {}
    for item in judged:
        by_file.setdefault(item.run.source, []).append(item)
    out = []
    for source, items in by_file.items():
        run = items[0].run
        tool = run.tool
        entry: dict[str, Any] = {
            "file": source,
            "format": run.source_format,
            "runs": len(items),
            "samples": sum(len(item.run.codes) for item in items),
            "tool": tool.tool if tool else None,
            "tool_metric": tool.metric if tool else None,
            "lost": loses.get(run.source_format, ""),
        }
        derived = sorted(
            {item.run.tool.metric for item in items if item.run.tool and item.run.tool.note}
        )
        if derived:
            entry["tool_note"] = (
                f"{tool.tool if tool else 'the tool'} logged only pass@k for k > 1; its pass@1 is "
                f"read back from it ({', '.join(derived)}: the count of passing samples it implies)"
            )
        ended = next(
            (
                item.run.extra.get("tool_run_file") or item.run.tool_run
                for item in items
                if item.run.tool_run
            ),
            None,
        )
        if ended is not None:
            entry["tool_run"] = ended.to_dict()
            entry["complete"] = False
            entry["pass_rate_covers"] = (
                f"the {ended.samples_recorded} recorded samples only (incomplete run)"
            )
        per_run = [run_agreement(item) for item in items]
        ours = [_rate([bool(item.skyt(i)) for i in range(len(item.run.codes))]) for item in items]
        judged_all = all(
            item.skyt(i) is not None for item in items for i in range(len(item.run.codes))
        )
        entry["pass_rate"] = _mean(ours) if judged_all else None
        if tool is None:
            entry["tool_pass_rate"] = None
        elif tool.granularity == "total":
            entry["tool_pass_rate"] = tool.total_pass_rate
        else:
            rates = [a.get("tool_pass_rate") if a else None for a in per_run]
            entry["tool_pass_rate"] = _mean(rates) if None not in rates else None
            counts = [a.get("disagreements") if a else None for a in per_run]
            entry["disagreements"] = sum(c for c in counts if c is not None)
            if tool.tool == "evalplus" and tool.metric == "base+plus":
                entry["evalplus"] = {
                    kind: {
                        who: _mean([a["evalplus"][kind][who] for a in per_run if a])
                        for who in ("skyt", "tool")
                    }
                    for kind in ("base", "plus")
                }
        out.append(entry)
    return out


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    if not known or len(known) != len(values):
        return None
    return sum(known) / len(known)
