"""`skyt-tui run CONTRACT ...` and `skyt-tui resume RUN`: sample a model into stored runs."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_json_option,
    add_probe_options,
    apply_isolation_setting,
    probe_settings_of,
)
from skyt_tui.cli.output import (
    console,
    error_console,
    limited_lines,
    print_json,
    resolve_run,
)
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError, NotFoundError
from skyt_tui.engine.generation.providers import PROVIDERS, make_provider
from skyt_tui.engine.generation.run_options import (
    HTTP_PROVIDERS,
    MAX_CONCURRENCY,
    check_run_options,
    environment_base_url,
    provider_settings,
)
from skyt_tui.engine.generation.runner import (
    RetryEvent,
    RetryPolicy,
    RunOutcome,
    RunSettings,
    provider_for,
)
from skyt_tui.engine.generation.workflow import (
    analyse_here,
    resumable_contract,
    resume_and_analyse,
    sweep_and_analyse,
)
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.report import metrics_line
from skyt_tui.engine.runs.run_store import FAILED, SampleRecord
from skyt_tui.engine.settings import (
    DEFAULT_N,
    DEFAULT_TEMPERATURE,
    Profile,
    RunDefaults,
    get_profile,
    load_settings,
)

DEFAULT_CONCURRENCY = 4


def _add_execution_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--concurrency",
        type=int,
        help=f"requests in flight at once (default: the profile's, else {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=6,
        help="tries per sample on 429/5xx/timeouts (default: 6)",
    )
    parser.add_argument(
        "--retry-delay",
        type=float,
        default=1.0,
        metavar="S",
        help="first backoff wait in seconds; doubles per retry, with jitter (default: 1)",
    )
    parser.add_argument(
        "--retry-budget",
        type=float,
        default=600.0,
        metavar="S",
        help="most seconds one sample may take, waits included (default: 600)",
    )
    add_json_option(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    run = add_command(
        subparsers,
        "run",
        description="Sample a provider N times for one contract (one run per temperature with --sweep); "
        "every finished sample is stored at once, so an interrupted run can be resumed.",
    )
    run.add_argument(
        "contract",
        metavar="CONTRACT",
        nargs="?",
        help="contract id or path to a contract .toml (or --anchors NAME)",
    )
    run.add_argument(
        "--anchors",
        metavar="NAME",
        help="run every contract of benchmark NAME's current anchor sample, then print the "
        "model's estimated full-benchmark score (`bench estimate`)",
    )
    run.add_argument(
        "--profile",
        metavar="NAME",
        help="take what the command line leaves out from [profiles.NAME] in settings.toml "
        "(provider, model, base URL, N, temperature, ...), before the [run] defaults",
    )
    run.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="where the answers come from (default: run.provider in settings.toml)",
    )
    run.add_argument(
        "--model",
        help="model name, required for openai and anthropic (default: run.model in settings.toml "
        "when --provider is its run.provider)",
    )
    run.add_argument(
        "-n",
        "--samples",
        dest="n",
        type=int,
        help=f"samples per run (default: run.n in settings.toml, else {DEFAULT_N}; replay: all recorded)",
    )
    run.add_argument(
        "--temperature",
        type=float,
        help=f"sampling temperature (default: run.temperature in settings.toml, else "
        f"{DEFAULT_TEMPERATURE}; replay: as recorded)",
    )
    run.add_argument(
        "--sweep", metavar="T,T,...", help="one run per temperature, e.g. 0,0.3,0.7,1.0"
    )
    run.add_argument(
        "--seed", type=int, help="seed sent with every request where the provider takes one"
    )
    run.add_argument(
        "--base-url",
        help="OpenAI-compatible or Anthropic endpoint (default: $OPENAI_BASE_URL or "
        "$ANTHROPIC_BASE_URL, else run.base_url in settings.toml when --provider is its "
        "run.provider, else the provider's own)",
    )
    run.add_argument(
        "--command",
        dest="command_line",
        metavar="CMD",
        help="with --provider command: the program to run (prompt on stdin, answer on stdout)",
    )
    run.add_argument(
        "--replay",
        metavar="SOURCE",
        help="with --provider replay: recorded answers (SKYT .json, .jsonl, human-eval folder, folder of .py)",
    )
    run.add_argument("--max-tokens", type=int, help="answer length limit sent with each request")
    run.add_argument("--system", help="system prompt sent with each request")
    run.add_argument(
        "--timeout", type=float, help="seconds per request (default: 120; command: 300)"
    )
    run.add_argument("--label", default="", help="short label shown with the run")
    run.add_argument("--note", default="", help="free-text note stored with the run")
    run.add_argument("--no-analyze", action="store_true", help="do not print metrics after the run")
    add_probe_options(run)
    _add_execution_options(run)
    run.set_defaults(handler=run_command)

    resume = add_command(
        subparsers,
        "resume",
        description="Request the samples a run is missing, with the provider settings it was started with "
        "(API keys are read from the environment again).",
    )
    resume.add_argument("run", metavar="RUN", help="run id (or a unique prefix, or 'latest')")
    resume.add_argument(
        "--retry-failed",
        action="store_true",
        help="also request again the samples recorded as failed",
    )
    _add_execution_options(resume)
    resume.set_defaults(handler=resume_command)


def parse_sweep(text: str) -> list[float]:
    """The temperatures of `--sweep`, checked like every run option (`engine.generation.run_options`)."""
    temperatures = check_run_options(provider="command", target="-", temperatures=text, sweep=True)
    return list(temperatures.temperatures or ())


def _policy(args: argparse.Namespace) -> RetryPolicy:
    if args.max_attempts < 1:
        raise InputError(f"--max-attempts must be at least 1, not {args.max_attempts}")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise InputError(
            f"--concurrency: must be between 1 and {MAX_CONCURRENCY}, not {args.concurrency}"
        )
    if not args.retry_delay >= 0 or not args.retry_budget > 0:
        raise InputError("--retry-delay must be ≥ 0 and --retry-budget > 0")
    return RetryPolicy(
        max_attempts=args.max_attempts,
        base_delay_s=args.retry_delay,
        max_delay_s=max(60.0, args.retry_delay),
        max_total_s=args.retry_budget,
    )


def _provider_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run's provider settings (`run_options.provider_settings`), once every flag given is
    one the provider takes."""
    if args.provider in HTTP_PROVIDERS:
        if not args.model:
            raise InputError(f"--model is required with --provider {args.provider}")
    elif args.base_url:
        raise InputError(
            f"--base-url applies to --provider openai or anthropic, not {args.provider}"
        )
    if args.provider == "command":
        if not args.command_line:
            raise InputError(
                "--command is required with --provider command (the program that answers)"
            )
    elif args.command_line:
        raise InputError("--command applies to --provider command only")
    if args.provider == "replay":
        if not args.replay:
            raise InputError(
                "--replay SOURCE is required with --provider replay (recorded answers)"
            )
    elif args.replay:
        raise InputError("--replay applies to --provider replay only")
    return provider_settings(args.provider, _target(args), model=args.model, timeout_s=args.timeout)


def _target(args: argparse.Namespace) -> str | None:
    """What the provider needs besides a model, from the flag that gives it for this provider."""
    flags = {"command": args.command_line, "replay": args.replay}
    target: str | None = flags.get(args.provider, args.base_url)
    return target


class _Progress:
    """A rich progress bar on stderr, fed from worker threads; shown only on a terminal."""

    def __init__(self, enabled: bool) -> None:
        self._lock = threading.Lock()
        self._failed = 0
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=error_console(),
            disable=not enabled,
        )
        self._task = None

    def start(self, run_id: str, total: int, done: int) -> None:
        self._failed = 0
        self._progress.start()
        self._task = self._progress.add_task(run_id, total=total, completed=done, status="")

    def sample(self, record: SampleRecord) -> None:
        with self._lock:
            self._failed += record.status == FAILED
            self._progress.update(
                self._task, advance=1, status=f"{self._failed} failed" if self._failed else ""
            )

    def retry(self, event: RetryEvent) -> None:
        with self._lock:
            self._progress.update(
                self._task,
                status=f"sample {event.index}: {event.error[:40]}; retry in {event.delay_s:.1f}s",
            )

    def stop(self) -> None:
        self._progress.stop()
        if self._task is not None:
            self._progress.remove_task(self._task)
            self._task = None


class _FirstWord:
    """Says a run has started once the provider has answered (its first sample or retry) or the
    run has ended, so a provider that cannot be used at all gets its one error line alone."""

    def __init__(self, announce: Callable[[Any], None]) -> None:
        self._announce = announce
        self._lock = threading.Lock()
        self._pending: Any = None

    def expect(self, subject: Any) -> None:
        with self._lock:
            self._pending = subject

    def then(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        def heard(event: Any) -> None:
            with self._lock:
                subject, self._pending = self._pending, None
                if subject is not None:
                    self._announce(subject)
            callback(event)

        return heard


def _outcome_dict(outcome: RunOutcome) -> dict:
    return {
        "run_id": outcome.run_id,
        "status": outcome.status,
        "n": outcome.n,
        "finished": outcome.finished,
        "failed": outcome.failed,
        "new_samples": outcome.new_samples,
        "abort_reason": outcome.abort_reason,
    }


def _report_outcome(outcome: RunOutcome, analysis: dict[str, Any] | None) -> None:
    out = console()
    run = run_store.load_run(outcome.run_id)
    ok = outcome.finished - outcome.failed
    line = (
        f"run {outcome.run_id}: {outcome.status}, {ok} ok, {outcome.failed} failed of {outcome.n}"
    )
    if run.n_truncated:
        line += f", {run.n_truncated} truncated"
    out.print(line, markup=False, soft_wrap=True)
    for record in run.samples:
        if record.status == FAILED:
            out.print(
                f"  sample {record.index} failed after {counted(record.attempts, 'attempt')}: {record.error}",
                markup=False,
                soft_wrap=True,
            )
    if outcome.abort_reason:
        out.print(f"  stopped: {outcome.abort_reason}", markup=False, soft_wrap=True)
    if analysis is not None:
        record = StoredAnalysis.from_document(analysis)
        for line in limited_lines(run.id, record):
            out.print(f"  {line}", markup=False, soft_wrap=True)
        out.print("  " + metrics_line(record), markup=False, soft_wrap=True)


def _exit_code(outcomes: list[RunOutcome]) -> int:
    return 0 if outcomes and all(o.complete and o.failed == 0 for o in outcomes) else 1


def _interrupted(run_id: str) -> int:
    """Say how to continue an interrupted run; the exit code for it."""
    run = run_store.load_run(run_id)
    print(
        f"skyt-tui: interrupted: run {run_id} has {len(run.samples)} of {counted(run.meta.n, 'sample')}; "
        f"continue with `skyt-tui resume {run_id}`",
        file=sys.stderr,
    )
    return 130


_PROFILE_ARGS = (
    ("model", "model"),
    ("base_url", "base_url"),
    ("command_line", "command"),
    ("n", "n"),
    ("temperature", "temperature"),
    ("timeout", "timeout"),
    ("seed", "seed"),
    ("max_tokens", "max_tokens"),
    ("system", "system"),
    ("concurrency", "concurrency"),
)


def apply_profile(args: argparse.Namespace, profile: Profile) -> None:
    """Fill what the command line left out from a saved profile. Its provider is used unless
    --provider names another one; then only the provider-independent values apply."""
    if args.provider is None:
        args.provider = profile.provider
    same = args.provider == profile.provider
    for attr, key in _PROFILE_ARGS:
        value = getattr(profile, key)
        if value is None or getattr(args, attr, None) is not None:
            continue
        if key in ("model", "base_url", "command") and not same:
            continue
        if key == "temperature" and args.sweep:
            continue
        setattr(args, attr, value)


def apply_run_defaults(args: argparse.Namespace, defaults: RunDefaults) -> None:
    """Fill what the command line left out from settings.toml's [run] table, then check the
    numbers before anything else (a key or a server is only asked for after that).

    The model and base URL in the settings belong to the settings' provider: they are used
    only when the run's provider is that one.
    """
    if args.provider is None:
        if defaults.provider is None:
            raise InputError(
                "--provider is required (or set run.provider in settings.toml; `skyt-tui paths` "
                "shows where it is)"
            )
        args.provider = defaults.provider
    if args.provider == defaults.provider or defaults.provider is None:
        if args.model is None and args.provider in HTTP_PROVIDERS:
            args.model = defaults.model
        if (
            args.base_url is None
            and args.provider in HTTP_PROVIDERS
            and environment_base_url(args.provider) is None  # a flag, then the environment
        ):
            args.base_url = defaults.base_url
    if args.concurrency is None:
        args.concurrency = DEFAULT_CONCURRENCY
    check_cli_options(args)
    args.default_n = defaults.n
    args.default_temperature = defaults.temperature


def check_cli_options(args: argparse.Namespace) -> None:
    """Check every run option with the validator the app's run dialog uses (one line naming the
    option, exit 2); the checked values replace the parsed ones."""
    if args.sweep and args.temperature is not None:
        raise InputError("give --temperature or --sweep, not both")
    options = check_run_options(
        provider=args.provider,
        model=args.model,
        target=_target(args),
        n=args.n,
        temperatures=args.sweep if args.sweep else args.temperature,
        concurrency=args.concurrency,
        timeout=args.timeout,
        seed=args.seed,
        max_tokens=args.max_tokens,
        system=args.system,
        sweep=bool(args.sweep),
    )
    args.n = options.n
    args.timeout = options.timeout_s


def run_command(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    if (args.contract is None) == (args.anchors is None):
        raise InputError("give a CONTRACT or --anchors NAME, not both or neither")
    settings = load_settings()
    if args.profile is not None:
        apply_profile(args, get_profile(settings, args.profile))
    apply_run_defaults(args, settings.run)
    probe = probe_settings_of(args)
    if args.anchors is not None:
        if probe is not None:
            raise InputError("--probe works on a contract's run, not with --anchors")
        return _run_anchors(args)
    outcomes = _run_contract(get_contract(args.contract), args)
    if outcomes is None:
        return 130
    probes: dict[str, dict] = {}
    if probe is not None:
        from skyt_tui.cli.probe_cmd import print_run_probe
        from skyt_tui.engine.runs.probe_record import StoredProbe
        from skyt_tui.engine.runs.probes import probe_stored_run

        for outcome in outcomes:
            if outcome.finished > outcome.failed:
                probes[outcome.run_id] = probe_stored_run(outcome.run_id, probe)
                if not args.json:
                    console().print(f"probe of {outcome.run_id}:", markup=False)
                    print_run_probe(StoredProbe.from_document(probes[outcome.run_id]))
    if args.json:
        print_json(
            "run",
            {
                "runs": [
                    {
                        **_outcome_dict(o),
                        **({"probe": probes[o.run_id]["run"]} if o.run_id in probes else {}),
                    }
                    for o in outcomes
                ],
                "sweep": outcomes[0].sweep if outcomes else None,
            },
        )
    return _exit_code(outcomes)


def _run_contract(contract: Contract, args: argparse.Namespace) -> list[RunOutcome] | None:
    """Run one contract at every temperature asked for; None when interrupted (reported)."""
    if args.sweep and args.temperature is not None:
        raise InputError("give --temperature or --sweep, not both")
    temperatures = parse_sweep(args.sweep) if args.sweep else [args.temperature]
    settings = _provider_settings(args)
    policy = _policy(args)
    if args.provider == "replay":
        contract = _recorded_contract(contract, args)
    provider = make_provider(args.provider, settings, contract)
    n = args.n
    if args.provider == "replay":
        n = len(provider) if n is None else n
        temperatures = [provider.source.temperature if t is None else t for t in temperatures]
        if args.model is None:  # as recorded, as import stores it (and the temperature above)
            args.model = provider.source.model
    else:
        n = getattr(args, "default_n", DEFAULT_N) if n is None else n
        default_t = getattr(args, "default_temperature", DEFAULT_TEMPERATURE)
        temperatures = [default_t if t is None else t for t in temperatures]
    if n < 1:
        raise InputError(f"-n must be at least 1, not {n}")
    if args.seed is not None and not provider.sends_seed and not args.json:
        error_console().print(
            f"note: --provider {args.provider} takes no seed; it is not sent or recorded",
            markup=False,
        )
    run_settings = RunSettings(
        provider=args.provider,
        model=args.model,
        temperature=None,
        n=n,
        provider_settings=settings,
        seed=args.seed,
        max_tokens=args.max_tokens,
        system=args.system,
        label=args.label,
        note=args.note,
    )
    progress = _Progress(enabled=not args.json and sys.stderr.isatty())
    current: list[str] = []

    def announce(meta: run_store.RunMeta) -> None:
        if not args.json:
            where = args.provider + (f"/{args.model}" if args.model else "")
            t = "–" if meta.temperature is None else f"{meta.temperature:g}"
            console().print(
                f"run {meta.id}: {contract.id} × {meta.n} via {where} at T={t}",
                markup=False,
                soft_wrap=True,
            )
        progress.start(meta.id, meta.n, 0)

    heard = _FirstWord(announce)

    def started(meta: run_store.RunMeta) -> None:
        current.append(meta.id)
        heard.expect(meta)

    try:
        generated = sweep_and_analyse(
            contract,
            run_settings,
            temperatures,
            analyse=None if args.json or args.no_analyze else analyse_here,
            provider=provider,
            concurrency=args.concurrency,
            policy=policy,
            on_sample=heard.then(progress.sample),
            on_retry=heard.then(progress.retry),
            on_run_start=started,
            on_run_end=heard.then(lambda _: progress.stop()),
        )
    except KeyboardInterrupt:
        progress.stop()
        if not current:
            raise
        _interrupted(current[-1])
        return None
    if not args.json:
        for outcome in generated.outcomes:
            _report_outcome(outcome, generated.analyses.get(outcome.run_id))
    return list(generated.outcomes)


def _recorded_contract(contract: Contract, args: argparse.Namespace) -> Contract:
    """Replayed SKYT samples are judged by the contract embedded in their file (as by `analyze`
    and `import`), stored in the catalog under its namespaced id; the switch is printed."""
    from skyt_tui.engine.generation.providers.replay import recorded_contract
    from skyt_tui.engine.runs.run_import import store_embedded_contract

    embedded = recorded_contract(args.replay, contract)
    if embedded is None or embedded.id == contract.id:
        return contract
    stored = store_embedded_contract(embedded)
    if not args.json:
        error_console().print(
            f"note: judging by {stored.id}, the contract embedded in the recorded experiment "
            f"(not the catalog's {contract.id!r})",
            markup=False,
            soft_wrap=True,
        )
    return stored


def _run_anchors(args: argparse.Namespace) -> int:
    """`run --anchors NAME`: the model on the anchor contracts only, then its estimated score."""
    from skyt_tui.cli.bench_cmd.anchors import estimate_dict, print_estimates
    from skyt_tui.engine import benchmark as bench
    from skyt_tui.engine.benchmark.from_runs import scores_by_contract

    sample = bench.current_sample_or_error(args.anchors)
    contracts = []
    for contract_id in sample.ids:
        try:
            contracts.append(get_contract(contract_id))
        except NotFoundError:
            raise InputError(
                f"--anchors: anchor {contract_id!r} of benchmark {args.anchors!r} is not a contract "
                f"(benchmarks made with `bench import NAME --contracts` or `--from-runs` have "
                "contracts as items)"
            ) from None
    score = bench.benchmark_score_metric(args.anchors)
    outcomes: list[RunOutcome] = []
    for contract in contracts:
        made = _run_contract(contract, args)
        if made is None:
            return 130
        outcomes.extend(made)
    stored = [run_store.load_run(outcome.run_id) for outcome in outcomes]
    records = analyses.stored_analyses(stored)
    items = [item.id for item in bench.load_benchmark(args.anchors, with_scores=False).items]
    observed = scores_by_contract(stored, records, score, items)
    estimate = None
    if observed.systems:
        estimate = bench.estimate_systems(args.anchors, observed)
    if args.json:
        print_json(
            "anchor_run",
            {
                "runs": [_outcome_dict(o) for o in outcomes],
                "score": score,
                "estimate": None if estimate is None else estimate_dict(estimate),
            },
        )
    elif estimate is None:
        error_console().print(
            f"no run produced a {score}: nothing to estimate", markup=False, soft_wrap=True
        )
    else:
        print_estimates(estimate)
    return _exit_code(outcomes)


def resume_command(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    if args.concurrency is None:
        args.concurrency = DEFAULT_CONCURRENCY
    run_id = resolve_run(args.run)
    run = run_store.load_run(run_id)
    pending = len(run.missing_indexes) + (run.n_failed if args.retry_failed else 0)
    if pending == 0:
        status = run_store.RUN_FAILED if run.meta.n > 0 and run.n_ok == 0 else run_store.COMPLETE
        if run.meta.status != status:
            with run_store.run_lock(run_id):
                run_store.set_status(run_id, status)
        if args.json:
            print_json("run", {"runs": [{"run_id": run_id, "status": status, "new_samples": 0}]})
        else:
            console().print(
                f"run {run_id}: nothing to resume ({len(run.samples)} of {counted(run.meta.n, 'sample')} stored)",
                markup=False,
                soft_wrap=True,
            )
        return 0 if status == run_store.COMPLETE else 1
    contract = resumable_contract(run)
    policy = _policy(args)
    provider = provider_for(run, contract)
    progress = _Progress(enabled=not args.json and sys.stderr.isatty())

    def announce(_: object) -> None:
        if not args.json:
            console().print(
                f"run {run_id}: resuming, {pending} of {counted(run.meta.n, 'sample')} to go",
                markup=False,
                soft_wrap=True,
            )
        progress.start(run_id, run.meta.n, run.meta.n - pending)

    heard = _FirstWord(announce)
    heard.expect(run_id)
    try:
        generated = resume_and_analyse(
            run,
            analyse=None if args.json else analyse_here,
            provider=provider,
            concurrency=args.concurrency,
            policy=policy,
            on_sample=heard.then(progress.sample),
            on_retry=heard.then(progress.retry),
            retry_failed=args.retry_failed,
            on_run_end=heard.then(lambda _: progress.stop()),
        )
    except KeyboardInterrupt:
        progress.stop()
        return _interrupted(run_id)
    [outcome] = generated.outcomes
    if args.json:
        print_json("run", {"runs": [_outcome_dict(outcome)]})
    else:
        _report_outcome(outcome, generated.analyses.get(run_id))
    return _exit_code([outcome])
