"""`skyt-tui oracle`: check sample files against a contract, or score a human-eval folder.

Exit code 0 whenever the oracle ran (failing samples are data, not errors);
2 for bad input (unknown contract, unreadable sample, malformed folder).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_executor_options,
    add_json_option,
    add_probe_options,
    apply_executor,
    executor_lines,
    print_executor,
    probe_settings_of,
)
from skyt_tui.cli.output import console, error_console, fmt3, print_json, print_table
from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.settings import load_settings
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.versions import ORACLE_VERSION

if TYPE_CHECKING:
    from skyt_tui.engine.oracle.verdicts import Verdict

# The oracle and the sandbox (and the catalog) load when the command runs, not when the parser
# is built: every other command would pay for them.
ISOLATIONS = ("auto", "bubblewrap", "reduced")
"""`sandbox.ISOLATIONS` (tests/test_oracle_cli.py keeps the two equal)."""
DEFAULT_KS = (1, 10, 100)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "oracle",
        description="Check sample programs against a contract (id or .toml file), or score a human-eval "
        "folder (problems.jsonl + samples.jsonl) with --humaneval. Exit code 0 when the oracle "
        "ran, whatever the verdicts; 2 on bad input.",
    )
    parser.add_argument("contract", nargs="?", help="contract id or path to a contract .toml")
    parser.add_argument(
        "samples", nargs="*", metavar="SAMPLE.py", help="sample programs to check ('-': stdin)"
    )
    parser.add_argument(
        "--humaneval",
        metavar="DIR",
        type=Path,
        help="score a human-eval folder: pass rate per task, pass@k overall",
    )
    parser.add_argument(
        "-k",
        dest="ks",
        metavar="K[,K...]",
        default=",".join(map(str, DEFAULT_KS)),
        help="pass@k values for --humaneval, comma-separated (default 1,10,100)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="--humaneval: only the first N samples"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=3.0,
        help="--humaneval: wall-clock seconds per sample (default 3, as human-eval)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="sandbox workers, per node with --executor ray (default: run.workers in "
        "settings.toml, else one per core)",
    )
    parser.add_argument(
        "--isolation",
        choices=ISOLATIONS,
        default=None,
        help="auto (bubblewrap when it works here), bubblewrap, or reduced "
        "(default: run.isolation in settings.toml, else auto)",
    )
    parser.add_argument(
        "--all-outcomes",
        action="store_true",
        help="run every test of every sample and report each outcome (default: a sample's "
        "judging stops once its verdict is decided, and the tests it left are counted as not run)",
    )
    parser.add_argument(
        "--each",
        action="store_true",
        help="judge every copy of a repeated program on its own (default: a program repeated "
        "for the same contract or task is judged once and its copies share that verdict, as "
        "analyze judges them)",
    )
    add_probe_options(parser)
    add_json_option(parser)
    add_executor_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    defaults = load_settings().run
    args.workers = defaults.workers if args.workers is None else args.workers
    args.isolation = defaults.isolation if args.isolation is None else args.isolation
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers: must be at least 1")
    args.probe_settings = probe_settings_of(args)
    apply_executor(args)
    if args.humaneval is not None:
        if args.contract or args.samples:
            raise InputError(
                "--humaneval takes a folder; do not also give a contract or sample files"
            )
        return run_humaneval(args)
    if not args.contract or not args.samples:
        raise InputError("give a contract and at least one sample file (or --humaneval DIR)")
    return run_samples(args)


def _read_sample(path: Path) -> str:
    from skyt_tui.engine.sources import files

    if files.is_stdin(path):
        return files.read_text(path)
    try:
        return store.read_text(path)
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None


def run_samples(args: argparse.Namespace) -> int:
    from skyt_tui.engine.contracts.catalog import get_contract
    from skyt_tui.engine.executor.choice import current_executor

    contract = get_contract(args.contract)
    paths = [Path(p) for p in args.samples]
    codes = [_read_sample(path) for path in paths]
    jobs = [(contract, code) for code in codes]
    copies = _copies(jobs, args.each)
    probe = None
    oracle = current_executor().open_oracle(workers=args.workers, isolation=args.isolation)
    with closing(oracle):
        verdicts = oracle.check_many(jobs, dedupe=not args.each, verdict_only=not args.all_outcomes)
        isolation, layers = oracle.isolation, oracle.layers
        where = executor_lines(oracle)
        if args.probe_settings is not None:
            from skyt_tui.engine.probe.behaviour import probe_contracts

            probe = probe_contracts(
                oracle, [(contract, codes, [v.passed for v in verdicts])], args.probe_settings
            )[0]
    if args.json:
        print_json(
            "oracle",
            {
                "oracle_version": ORACLE_VERSION,
                "isolation": isolation,
                "layers": list(layers),
                "contract": contract.id,
                "each": args.each,
                "copies": sum(first is not None for first in copies),
                "samples": [
                    {
                        "path": str(path),
                        "copy_of": None if first is None else str(paths[first]),
                        "verdict": verdict.to_dict(),
                        **(
                            {"probe": probe.samples[k].to_dict(contract.entry.name)}
                            if probe is not None
                            else {}
                        ),
                    }
                    for k, (path, verdict, first) in enumerate(zip(paths, verdicts, copies))
                ],
                **({"probe": probe.to_dict()} if probe is not None else {}),
            },
        )
        return 0
    out = console()
    table = Table(title=Text(f"oracle: {printable(contract.id)}"), title_justify="left")
    for column in ("sample", "verdict", "outcomes", "status", "reason"):
        table.add_column(column, overflow="fold")
    for path, verdict, first in zip(paths, verdicts, copies):
        passed_tests = sum(o.passed for o in verdict.tests)
        outcomes = f"{passed_tests}/{len(verdict.tests) + verdict.unrun}"
        if verdict.unrun:
            outcomes += f" ({verdict.unrun} not run)"
        shown = printable(path)
        if first is not None:
            shown += f" (copy of {printable(paths[first])})"
        table.add_row(
            Text(shown),
            Text("PASS", style="green") if verdict.passed else Text("FAIL", style="red"),
            outcomes,
            Text(printable(verdict.status)),
            Text(printable(verdict.reason)),
        )
    print_table(out, table)
    _print_copies(out, copies, "sample")
    if probe is not None:
        from skyt_tui.cli.probe_output import print_probe

        print_probe(out, [probe], [[str(path) for path in paths]])
    _print_isolation(isolation, layers)
    print_executor(where)
    return 0


def _copies(jobs: list[tuple[Any, str]], each: bool) -> list[int | None]:
    """Each job's first copy (`judge.copies_of`), the one judged in its place; none with --each."""
    from skyt_tui.engine.oracle.judge import copies_of

    return [None] * len(jobs) if each else copies_of(jobs)


def _print_copies(out: Any, copies: list[int | None], noun: str) -> None:
    """Says how many samples took the verdict of an earlier copy of their program."""
    count = sum(first is not None for first in copies)
    if count:
        programs = len({first for first in copies if first is not None})
        out.print(
            f"{counted(count, noun)} {'is a copy' if count == 1 else 'are copies'} of "
            f"{counted(programs, 'earlier program')} (the same text for the same contract) and "
            f"{'takes its' if count == 1 else 'take their'} verdict; --each judges every copy",
            markup=False,
            highlight=False,
        )


def _print_isolation(isolation: str, layers: tuple[str, ...]) -> None:
    if isolation == "reduced":
        error_console().print(
            Text(f"reduced isolation (without bubblewrap): {', '.join(layers)}", style="yellow")
        )
    else:
        console().print(Text(f"isolation: {isolation} ({', '.join(layers)})", style="dim"))


def _parse_ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise InputError(f"-k: {text!r} is not a comma-separated list of integers") from None
    if not ks or ks[0] < 1:
        raise InputError(f"-k: values must be positive integers; got {text!r}")
    return ks


def score_humaneval(
    problems: dict[str, humaneval.Problem],
    completions: list[humaneval.Completion],
    verdicts: list[Verdict],
    ks: tuple[int, ...],
) -> dict[str, Any]:
    """Per-task pass counts and pass@k, and their means over tasks (pass@k only where n >= k)."""
    from skyt_tui.engine.oracle.verdicts import pass_at_k

    per_task: dict[str, list[bool]] = {}
    for completion, verdict in zip(completions, verdicts):
        per_task.setdefault(completion.task_id, []).append(verdict.passed)
    tasks = []
    for task_id in sorted(per_task, key=_task_order):
        results = per_task[task_id]
        n, c = len(results), sum(results)
        tasks.append(
            {
                "task_id": task_id,
                "n": n,
                "c": c,
                "pass_rate": c / n,
                "pass_at_k": {str(k): pass_at_k(n, c, k) for k in ks if k <= n},
            }
        )
    overall = {}
    for k in ks:
        values = [task["pass_at_k"][str(k)] for task in tasks if str(k) in task["pass_at_k"]]
        overall[str(k)] = sum(values) / len(values) if values else None
    return {
        "tasks": tasks,
        "pass_at_k": overall,
        "statuses": dict(sorted(Counter(v.status for v in verdicts).items())),
    }


def _task_order(task_id: str) -> tuple[str, int, str]:
    prefix, _, number = task_id.rpartition("/")
    return (prefix, int(number), task_id) if number.isdigit() else (task_id, -1, task_id)


def run_humaneval(args: argparse.Namespace) -> int:
    from skyt_tui.engine.contracts.contract import TIMEOUT_BOUNDS_S
    from skyt_tui.engine.executor.choice import current_executor
    from skyt_tui.engine.sources.humaneval import problem_contract

    ks = _parse_ks(args.ks)
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit: must be at least 1")
    low, high = TIMEOUT_BOUNDS_S
    if not low <= args.timeout <= high:
        raise InputError(f"--timeout: must be between {low:g} and {high:g} seconds")
    directory = args.humaneval
    if not directory.is_dir():
        raise InputError.at(directory, "no such folder")
    problems, completions = humaneval.load_dir(directory)
    if args.limit is not None:
        completions = completions[: args.limit]
    if not completions:
        raise InputError.at(directory / "samples.jsonl", "no samples")
    contracts = {
        task_id: problem_contract(problem, args.timeout, file=directory / "problems.jsonl")
        for task_id, problem in problems.items()
    }
    scored = {completion.task_id for completion in completions}  # --limit scores fewer tasks
    trivial = {
        task_id: contract.source["trivial_asserts"]
        for task_id, contract in sorted(contracts.items(), key=lambda item: _task_order(item[0]))
        if contract.source.get("trivial_asserts") and task_id in scored
    }
    jobs = [
        (contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions
    ]
    copies = _copies(jobs, args.each)
    start = time.perf_counter()
    verdicts: list[Verdict] = []
    oracle = current_executor().open_oracle(workers=args.workers, isolation=args.isolation)
    with closing(oracle):
        isolation, layers, workers = oracle.isolation, oracle.layers, oracle.workers
        where = executor_lines(oracle)
        show_progress = not args.json and sys.stderr.isatty()
        for verdict in oracle.check_iter(
            jobs, dedupe=not args.each, verdict_only=not args.all_outcomes
        ):
            verdicts.append(verdict)
            if show_progress and (len(verdicts) % 64 == 0 or len(verdicts) == len(jobs)):
                sys.stderr.write(f"\r{len(verdicts)}/{len(jobs)} samples checked")
                sys.stderr.flush()
        if show_progress:
            sys.stderr.write("\n")
        elapsed = time.perf_counter() - start
        probes = None
        if args.probe_settings is not None:
            probes, probe_elapsed = _probe_humaneval(
                oracle, contracts, completions, jobs, verdicts, args.probe_settings, show_progress
            )
    score = score_humaneval(problems, completions, verdicts, ks)
    sample_probes: dict[int, dict[str, Any]] = {}
    if probes is not None:
        for probe, positions in probes:
            for position, record in zip(positions, probe.samples):
                sample_probes[position] = record.to_dict(probe.contract.entry.name)
    report = {
        "oracle_version": ORACLE_VERSION,
        "isolation": isolation,
        "layers": list(layers),
        "workers": workers,
        "directory": str(directory),
        "samples": len(verdicts),
        "all_outcomes": args.all_outcomes,
        "each": args.each,
        "copies": sum(first is not None for first in copies),
        "tests_unrun": sum(v.unrun for v in verdicts),
        "timeout_s": args.timeout,
        "trivial_asserts": trivial,
        **score,
        "elapsed_s": elapsed,
        "samples_per_s": len(verdicts) / elapsed if elapsed > 0 else None,
        "verdicts": [
            {
                "task_id": c.task_id,
                "line": c.line,
                "copy_of": None if first is None else completions[first].line,
                "passed": v.passed,
                "status": v.status,
                "reason": v.reason,
                "unrun": v.unrun,
                **({"probe": sample_probes[k]} if probes is not None else {}),
            }
            for k, (c, v, first) in enumerate(zip(completions, verdicts, copies))
        ],
    }
    if probes is not None:
        from skyt_tui.engine.probe.report import probe_summary

        report["probe"] = {
            **probe_summary([probe for probe, _ in probes]),
            "elapsed_s": probe_elapsed,
            "tasks": [probe.to_dict() for probe, _ in probes],
        }
    if args.json:
        print_json("humaneval", report)
        return 0
    out = console()
    table = Table(title=Text(f"human-eval: {printable(directory)}"), title_justify="left")
    table.add_column("task")
    table.add_column("n", justify="right")
    table.add_column("passed", justify="right")
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
    for task in score["tasks"]:
        table.add_row(
            Text(printable(task["task_id"])),
            str(task["n"]),
            str(task["c"]),
            *(fmt3(task["pass_at_k"].get(str(k))) for k in ks),
        )
    print_table(out, table)
    overall = "  ".join(f"pass@{k} {fmt3(value)}" for k, value in score["pass_at_k"].items())
    out.print(
        f"{counted(len(verdicts), 'sample')}, {counted(len(score['tasks']), 'task')}: {overall}"
    )
    out.print(
        "statuses: " + ", ".join(f"{name} {count}" for name, count in score["statuses"].items())
    )
    _print_copies(out, copies, "sample")
    early = [v for v in verdicts if v.unrun]
    if early:
        out.print(
            f"{counted(len(early), 'verdict')} decided early: "
            f"{counted(sum(v.unrun for v in early), 'test')} not run "
            "(--all-outcomes runs them)",
            markup=False,
            highlight=False,
        )
    if trivial:
        listed = ", ".join(f"{printable(task)} ({count})" for task, count in trivial.items())
        out.print(
            f"not counted as tests: {counted(sum(trivial.values()), 'trivial assert')} (assert True …) "
            f"in {counted(len(trivial), 'task')}: {listed}",
            markup=False,
            highlight=False,
        )
    out.print(
        f"{elapsed:.1f} s, {len(verdicts) / elapsed:.0f} samples/s on {counted(workers, 'worker')}"
    )
    if probes is not None:
        from skyt_tui.cli.probe_output import print_probe

        print_probe(
            out,
            [probe for probe, _ in probes],
            [
                [f"{completions[k].task_id} line {completions[k].line}" for k in positions]
                for _, positions in probes
            ],
        )
        out.print(f"probing: {probe_elapsed:.1f} s")
    _print_isolation(isolation, layers)
    print_executor(where)
    return 0


def _probe_humaneval(
    oracle: Any,
    contracts: dict[str, Any],
    completions: list[humaneval.Completion],
    jobs: list[tuple[Any, str]],
    verdicts: list[Verdict],
    settings: Any,
    show_progress: bool,
) -> tuple[list[tuple[Any, list[int]]], float]:
    """Each task's probe, with the positions (in `completions`) of its samples."""
    from skyt_tui.engine.probe.behaviour import probe_contracts

    start = time.perf_counter()
    positions: dict[str, list[int]] = {}
    for k, completion in enumerate(completions):
        positions.setdefault(completion.task_id, []).append(k)
    tasks = sorted(positions, key=_task_order)
    items = [
        (
            contracts[task],
            [jobs[k][1] for k in positions[task]],
            [verdicts[k].passed for k in positions[task]],
        )
        for task in tasks
    ]

    def progress(done: int, total: int) -> None:
        if show_progress:
            sys.stderr.write(f"\r{done}/{total} probe jobs")
            sys.stderr.flush()

    probes = probe_contracts(oracle, items, settings, progress)
    if show_progress:
        sys.stderr.write("\n")
    return [
        (probe, positions[task]) for probe, task in zip(probes, tasks)
    ], time.perf_counter() - start
