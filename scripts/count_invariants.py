"""Every sample counted (issue 36): on every run of a corpus, the counts agree with the samples.

For each run of each source, the analysis (oracle in the sandbox, canon, repair unless
`--no-repair`) must keep every sample that produced code, in order, and say the same in its
metrics, its JSON, its per-sample CSV rows and its list of samples it did not parse:

    n == the samples with code == the sample records == the CSV rows
    n + n_failed == the samples of the run
    pass_rate == (samples passing) / n, pass_all_rate likewise
    n_limited == the samples named in `limited` == the records whose `limited` is set
    invariant_violations == []

    python scripts/count_invariants.py ../shared/corpus/skyt-msr2026/outputs \\
        ../shared/corpus/humaneval-codegen16b [--runs N] [--no-repair]

prints one line per source (runs, samples, time) and every problem found; exit 1 if any.
`tests/test_every_sample_counted.py` runs it on all of skyt-msr2026 and a slice of
humaneval-codegen16b; the whole of both is run by hand (docs/metrics.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skyt_tui.engine.analysis.pipeline import RunAnalysis, analyze_runs  # noqa: E402
from skyt_tui.engine.runs.report import analysis_rows  # noqa: E402
from skyt_tui.engine.sources.recorded import RunInput, load_sources, resolve_contracts  # noqa: E402
from skyt_tui.engine.syntax import too_large  # noqa: E402


def count_problems(run: RunInput, analysis: RunAnalysis) -> list[str]:
    """What in `analysis` disagrees with the samples of `run` (an empty list: nothing)."""
    where = f"run {run.id}"
    with_code = [index for index, code in enumerate(run.codes) if code is not None]
    m = analysis.metrics
    problems = [f"{where}: {violation}" for violation in m.invariant_violations]
    indexes = [sample.index for sample in analysis.samples]
    if indexes != with_code:
        missing = sorted(set(with_code) - set(indexes))
        problems.append(f"{where}: samples {missing} with code are not among the measured")
    if m.n != len(with_code):
        problems.append(f"{where}: n = {m.n}, but {len(with_code)} samples have code")
    if m.n + m.n_failed != len(run.codes):
        problems.append(f"{where}: n + n_failed = {m.n + m.n_failed} of {len(run.codes)} samples")
    for name, field in (("pass_rate", "passed"), ("pass_all_rate", "passed_all")):
        value = getattr(m, name)
        count = sum(bool(getattr(sample, field)) for sample in analysis.samples)
        if value is not None and (m.n == 0 or value != count / m.n):
            problems.append(f"{where}: {name} = {value}, but {count} of {m.n} samples count")
    named = sorted(sample.index for sample in analysis.limited)
    long = [i for i in with_code if too_large(str(run.codes[i])) is not None]
    marked = sorted(s.index for s in analysis.samples if s.limited is not None and s.parse_error)
    if not m.n_limited == len(named) == len(long) or not named == long == marked:
        problems.append(
            f"{where}: n_limited = {m.n_limited}, limited {named}, records {marked}, long {long}"
        )
    document: dict[str, Any] = analysis.to_dict()
    if document["n"] != m.n or len(document["samples"]) != m.n:
        problems.append(f"{where}: the JSON has n {document['n']} and {len(document['samples'])}")
    rows = analysis_rows([analysis])
    if len(rows) != m.n:
        problems.append(f"{where}: {len(rows)} CSV rows for n = {m.n}")
    return problems


def check_sources(
    paths: list[Path], *, runs: int | None = None, repair: bool = True
) -> tuple[int, int, list[str]]:
    """(runs, samples, problems) of the runs of `paths` (files, or a human-eval folder),
    analysed in one batch as `analyze` does."""
    loaded = resolve_contracts(load_sources(paths), require=True)
    if runs is not None:
        loaded = loaded[:runs]
    analyses = analyze_runs(loaded, repair_samples=repair)
    problems = [p for run, a in zip(loaded, analyses) for p in count_problems(run, a)]
    return len(loaded), sum(len(run.codes) for run in loaded), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="files or folders of samples")
    parser.add_argument("--runs", type=int, help="only the first N runs of each source")
    parser.add_argument("--no-repair", action="store_true", help="skip the repair stage")
    args = parser.parse_args(argv)
    failed = False
    for source in args.sources:
        paths = (
            sorted(source.glob("*.json"))
            if source.is_dir() and not (source / "samples.jsonl").exists()
            else [source]
        )
        start = time.monotonic()
        total_runs, total_samples, problems = check_sources(
            paths, runs=args.runs, repair=not args.no_repair
        )
        elapsed = time.monotonic() - start
        print(
            f"{source}: {total_runs} runs, {total_samples} samples, {len(problems)} problems, "
            f"{elapsed:.0f} s (load {os.getloadavg()[0]:.1f})"
        )
        for problem in problems:
            print(f"  {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
