"""Running a contract's prompt N times against a provider, into a stored run.

Samples are requested by a bounded pool of threads; each finished sample is
appended to the run's log (fsynced) the moment it arrives, so a kill loses
nothing finished and `resume` asks only for what is missing. Retries: on a
retryable error (429, 5xx, timeout, malformed or empty answer) wait — the
server's Retry-After when given, else exponential backoff with jitter drawn
from an RNG seeded by (run id, sample index), so the waits of a run are
reproducible whatever the thread timing — up to `max_attempts` tries and
`max_total_s` seconds per sample. A sample that still fails is recorded as
failed with its one-line error. Errors that would fail every sample (bad key,
unknown model, missing command) stop the run (status `aborted`). When such an error
comes before the provider ever answered (nothing listens at the URL, the key is refused), the run
never started: no sample is recorded, a new run is removed again and `ProviderUnavailable` says in
one line which URL or key is at fault (docs/runs.md).

Cancel with a `threading.Event`: waiting samples are not started, backoff
sleeps end at once, and requests in flight get `CANCEL_GRACE_S` to answer
(an answer that arrives in time is recorded); after that `execute` returns
without them — a hanging server cannot hold a cancel for the request timeout.
Their threads are left to end on their own and nothing they return is
recorded (`resume` asks for those samples again). Ctrl-C in the thread running
`execute` does the same within a couple of seconds. Callbacks run on worker
threads (a UI marshals them to its own thread).
"""

from __future__ import annotations

import queue
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field, replace
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError, SkytError
from skyt_tui.engine.generation.providers import Provider, ProviderError, Request, make_provider
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.runs.run_store import FAILED, OK, RunMeta, SampleRecord
from skyt_tui.engine.sources.extract import extract_for_contract


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    """Cap on one backoff wait (a server's Retry-After is honoured beyond it, within the total)."""
    max_total_s: float = 600.0
    """Cap on the time one sample may spend, waits included, before it is recorded as failed."""

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Wait before retry number `attempt` (1-based): equal jitter on a doubling delay."""
        delay: float = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return delay / 2 + rng.uniform(0.0, delay / 2)


@dataclass(frozen=True)
class RunSettings:
    """What a run asks: the run.json fields a caller chooses before the run exists."""

    provider: str
    model: str | None
    temperature: float | None
    n: int
    provider_settings: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None
    label: str = ""
    note: str = ""


@dataclass(frozen=True)
class RetryEvent:
    index: int
    attempt: int
    delay_s: float
    error: str


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    status: str
    n: int
    finished: int
    failed: int
    new_samples: int
    abort_reason: str | None = None
    sweep: str | None = None
    never_started: str | None = None
    """Why the provider could not be used before it ever answered (no sample was recorded)."""

    @property
    def complete(self) -> bool:
        return self.status == run_store.COMPLETE


class ProviderUnavailable(SkytError):
    """The provider could not be used at all (no server at the URL, a refused key, no such model
    or command) before it ever answered: the run never started."""


class AbortSignal(threading.Event):
    """Set by the first error that would fail every sample; remembers that error."""

    def __init__(self) -> None:
        super().__init__()
        self.reason: str | None = None
        self.never_started: str | None = None
        """The provider's one line when the error came before it ever answered."""

    def abort(self, reason: str, never_started: str | None = None) -> None:
        if self.reason is None:
            self.reason = reason
            self.never_started = never_started
        self.set()


INTERRUPT_GRACE_S = 2.0
CANCEL_GRACE_S = 0.8
"""How long a cancel waits for requests in flight before leaving them unrecorded."""

SampleCallback = Callable[[SampleRecord], None]
RetryCallback = Callable[[RetryEvent], None]


def request_for(contract: Contract, meta: RunMeta, index: int, provider: Provider) -> Request:
    return Request(
        index=index,
        prompt=contract.prompt,
        model=meta.model or "",
        temperature=meta.temperature,
        seed=meta.seed if provider.sends_seed else None,
        max_tokens=meta.request.get("max_tokens"),
        system=meta.request.get("system"),
    )


def sample_once(
    provider: Provider,
    contract: Contract,
    meta: RunMeta,
    index: int,
    *,
    policy: RetryPolicy,
    cancel: threading.Event,
    abort: AbortSignal | None = None,
    on_retry: RetryCallback | None = None,
    sleep: Callable[[float], bool] | None = None,
    contact: threading.Event | None = None,
) -> SampleRecord | None:
    """One sample with retries; None when cancelled before it finished (it stays missing), or when
    the provider cannot be used at all and has not answered yet (`contact` unset: the run never
    started, `abort` says why)."""
    request = request_for(contract, meta, index, provider)
    rng = random.Random(f"{meta.id}/{index}")
    wait = sleep or cancel.wait
    started = time.monotonic()
    attempts = 0
    while True:
        if cancel.is_set() or (abort is not None and abort.is_set()):
            return None
        attempts += 1
        began = time.monotonic()
        try:
            response = provider.complete(request)
            if not response.text.strip():
                raise ProviderError(
                    "empty answer", retryable=not provider.deterministic, response=response
                )
        except ProviderError as exc:
            error = exc
        except Exception as exc:  # a provider bug must not kill the run silently
            error = ProviderError(f"{type(exc).__name__}: {exc}")
        else:
            if contact is not None:
                contact.set()
            extraction = extract_for_contract(
                response.text,
                prompt=contract.prompt,
                entry=contract.entry.name,
                prompt_style=contract.prompt_style,
            )
            return SampleRecord(
                index=index,
                status=OK,
                response=response.text,
                code=extraction.code,
                extraction=extraction.method,
                finish_reason=response.finish_reason,
                truncated=response.truncated,
                usage=response.usage,
                latency_s=round(time.monotonic() - began, 6),
                model=response.model,
                seed=response.seed,
                attempts=attempts,
                finished=run_store.utc_now(),
            )
        delay = None
        reason = error.args[0] if error.args else "failed"
        if contact is not None and not contact.is_set():
            if error.before_contact is not None and abort is not None:
                abort.abort(reason, never_started=error.before_contact)
                return None  # nothing came back: the sample stays missing, not failed
            if error.response is not None or not error.before_contact:
                contact.set()  # the provider answered, if only with an error
        if error.abort_run and abort is not None:
            abort.abort(reason)
        if error.retryable and not error.abort_run and attempts < policy.max_attempts:
            delay = (
                error.retry_after_s
                if error.retry_after_s is not None
                else policy.backoff(attempts, rng)
            )
            if time.monotonic() - started + delay > policy.max_total_s:
                reason = f"{reason} (retry budget of {policy.max_total_s:g}s used up)"
                delay = None
        elif error.retryable and attempts >= policy.max_attempts:
            reason = f"{reason} (gave up after {attempts} attempts)"
        if delay is None:
            last = error.response
            return SampleRecord(
                index=index,
                status=FAILED,
                response=last.text if last else None,
                finish_reason=last.finish_reason if last else None,
                usage=last.usage if last else None,
                model=last.model if last else None,
                seed=request.seed,
                attempts=attempts,
                error=reason,
                finished=run_store.utc_now(),
            )
        if on_retry is not None:
            on_retry(RetryEvent(index=index, attempt=attempts, delay_s=delay, error=reason))
        if wait(delay):
            return None


def execute(
    run_id: str,
    provider: Provider,
    contract: Contract,
    *,
    concurrency: int = 4,
    policy: RetryPolicy = RetryPolicy(),
    cancel: threading.Event | None = None,
    on_sample: SampleCallback | None = None,
    on_retry: RetryCallback | None = None,
    retry_failed: bool = False,
    contact: threading.Event | None = None,
) -> RunOutcome:
    """Request every missing sample of a stored run (and failed ones with `retry_failed`).

    `contact` is set once the provider answers (a sweep shares one across its runs); until then,
    an error that means the provider cannot be used ends the run with nothing recorded and
    `never_started` set, and the run's status is left as it was."""
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, not {concurrency}")
    cancel = cancel or threading.Event()
    contact = contact if contact is not None else threading.Event()
    abort = AbortSignal()
    with run_store.run_lock(run_id):
        run = run_store.load_run(run_id)
        meta = run.meta
        status_before = meta.status
        pending = run.missing_indexes
        if retry_failed:
            pending = sorted(set(pending) | {s.index for s in run.samples if s.status == FAILED})
        if meta.status != run_store.RUNNING and pending:
            meta = run_store.set_status(run_id, run_store.RUNNING)
        work: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in pending:
            work.put(index)
        append_lock = threading.Lock()
        new_samples = 0
        closed = False

        def worker() -> None:
            nonlocal new_samples
            while not cancel.is_set() and not abort.is_set():
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    return
                record = sample_once(
                    provider,
                    contract,
                    meta,
                    index,
                    policy=policy,
                    cancel=cancel,
                    abort=abort,
                    on_retry=on_retry,
                    contact=contact,
                )
                if record is None:
                    continue
                with append_lock:
                    if closed:
                        return
                    run_store.append_sample(run_id, record)
                    new_samples += 1
                if on_sample is not None:
                    on_sample(record)

        threads = [
            threading.Thread(target=worker, name=f"skyt-run-{i}", daemon=True)
            for i in range(min(concurrency, len(pending)))
        ]
        for thread in threads:
            thread.start()
        try:
            _join(threads, cancel=cancel)
        except KeyboardInterrupt:
            # Ctrl-C: stop now rather than wait out requests in flight; what they would have
            # returned is simply not recorded (resume asks again), and nothing is appended
            # once the lock is about to be released.
            cancel.set()
            _join(threads, grace_s=INTERRUPT_GRACE_S)
            with append_lock:
                closed = True
            _stop_requests(provider, threads)
            _finish(run_id, abort.reason, new_samples)
            raise
        with append_lock:
            closed = True  # requests still in flight after a cancel's grace go unrecorded
        _stop_requests(provider, threads)
        if abort.never_started is not None and new_samples == 0:
            if run_store.load_meta(run_id).status != status_before:
                run_store.set_status(run_id, status_before)
            outcome = _finish(run_id, abort.reason, new_samples, keep_status=True)
            return replace(outcome, never_started=abort.never_started)
        return _finish(run_id, abort.reason, new_samples)


def _stop_requests(provider: Any, threads: Sequence[threading.Thread]) -> None:
    """Requests still in flight once the run is closed go unrecorded: a provider that can stop
    them (`stop_requests`: the command provider kills its programs) does."""
    stop = getattr(provider, "stop_requests", None)
    if callable(stop) and any(thread.is_alive() for thread in threads):
        stop()


def _join(
    threads: Sequence[threading.Thread],
    grace_s: float | None = None,
    cancel: threading.Event | None = None,
) -> None:
    """Wait for the threads; at most `grace_s` in all, or `CANCEL_GRACE_S` once `cancel` is set."""
    deadline = None if grace_s is None else time.monotonic() + grace_s
    for thread in threads:
        while thread.is_alive():
            if deadline is None and cancel is not None and cancel.is_set():
                deadline = time.monotonic() + CANCEL_GRACE_S
            if deadline is not None and time.monotonic() >= deadline:
                return
            thread.join(0.05 if deadline is not None else 0.2)


def _finish(
    run_id: str, abort_reason: str | None, new_samples: int, keep_status: bool = False
) -> RunOutcome:
    run = run_store.load_run(run_id)
    if not run.missing_indexes and run.meta.n > 0 and run.n_ok == 0:
        status = run_store.RUN_FAILED
    elif not run.missing_indexes:
        status = run_store.COMPLETE
    elif abort_reason is not None:
        status = run_store.ABORTED
    else:
        status = run_store.INTERRUPTED
    if keep_status:
        status = run.meta.status
    elif run.meta.status != status:
        run_store.set_status(run_id, status)
    return RunOutcome(
        run_id=run_id,
        status=status,
        n=run.meta.n,
        finished=len(run.samples),
        failed=run.n_failed,
        new_samples=new_samples,
        abort_reason=abort_reason,
    )


def start_run(
    contract: Contract,
    settings: RunSettings,
    provider: Provider | None = None,
    *,
    sweep: str | None = None,
) -> tuple[RunMeta, Provider]:
    """Build the provider (failing early on a missing key) and create the stored run."""
    if settings.n < 1:
        raise InputError(f"-n must be at least 1, not {settings.n}")
    provider = provider or make_provider(settings.provider, settings.provider_settings, contract)
    recorded = len(provider) if isinstance(provider, Sized) else None
    if recorded is not None and settings.n > recorded:
        raise InputError(
            f"the replay source has {counted(recorded, 'recorded answer')}; ask for -n {recorded} "
            "or fewer"
        )
    request = {
        key: value
        for key, value in (("max_tokens", settings.max_tokens), ("system", settings.system))
        if value is not None
    }
    meta = run_store.create_run(
        contract_id=contract.id,
        contract=contract,
        provider=settings.provider,
        model=settings.model,
        temperature=settings.temperature,
        n=settings.n,
        seed=settings.seed,
        provider_settings=provider.describe(),
        request=request,
        label=settings.label,
        note=settings.note,
        origin={"kind": "live"},
        sweep=sweep,
    )
    return meta, provider


def run_sweep(
    contract: Contract,
    settings: RunSettings,
    temperatures: Sequence[float | None],
    *,
    provider: Provider | None = None,
    concurrency: int = 4,
    policy: RetryPolicy = RetryPolicy(),
    cancel: threading.Event | None = None,
    on_sample: SampleCallback | None = None,
    on_retry: RetryCallback | None = None,
    on_run_start: Callable[[RunMeta], None] | None = None,
    on_run_end: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """One stored run per temperature, in order (a sweep when more than one); what `run` does.

    Stops after a run that did not complete (aborted or cancelled). Runs of one
    sweep share a `sweep` id in their run.json.
    """
    if not temperatures:
        raise InputError("give at least one temperature")
    provider = provider or make_provider(settings.provider, settings.provider_settings, contract)
    sweep = f"sweep-{secrets.token_hex(4)}" if len(temperatures) > 1 else None
    outcomes: list[RunOutcome] = []
    contact = threading.Event()
    for temperature in temperatures:
        if cancel is not None and cancel.is_set():
            break
        meta, _ = start_run(
            contract, replace(settings, temperature=temperature), provider, sweep=sweep
        )
        if on_run_start is not None:
            on_run_start(meta)
        outcome = execute(
            meta.id,
            provider,
            contract,
            concurrency=concurrency,
            policy=policy,
            cancel=cancel,
            on_sample=on_sample,
            on_retry=on_retry,
            contact=contact,
        )
        if outcome.never_started is not None:
            run_store.remove_run(meta.id)  # it has no sample: nothing is lost
            raise ProviderUnavailable(f"{outcome.never_started}; no run was stored")
        outcomes.append(replace(outcome, sweep=sweep))
        if on_run_end is not None:
            on_run_end(outcomes[-1])
        if not outcome.complete:
            break
    return outcomes


def provider_for(run: run_store.StoredRun, contract: Contract) -> Provider:
    """Rebuild a stored run's provider for `resume` (keys from the environment again)."""
    settings = dict(run.meta.provider_settings)
    if run.meta.provider == "replay":
        settings.setdefault("model", run.meta.model)
    return make_provider(run.meta.provider, settings, contract)
