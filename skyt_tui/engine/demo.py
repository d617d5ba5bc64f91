"""The offline demo: stored runs made from the hand-written example samples shipped with skyt-tui.

`skyt_tui/bundled/examples/<contract_id>/NN.py` holds samples written by hand
to imitate how model output varies (see the README there); no model produced
them. Each set becomes one run of its bundled contract — provider `replay`,
model `hand-written-examples`, labelled as such — and is analysed once, so a
newcomer without a network or an API key sees every screen with real numbers.
`create_demo` also imports the bundled contracts as a small benchmark (items
with a difficulty and no per-system scores: nothing is invented), draws its
anchor sample and rotates it once.
The demo lives in its own store (`locations.demo_dir()`, opened with
`SKYT_STORE=demo`): its canons are hand-written samples, and a real run must
never be measured against them, so `create_demo` never writes to the user's
store. Running the demo again adds nothing unless an example set or contract changed.
Times (run creation, canon, benchmark) come from the `now` passed in, and run
ids end in a digest of their content, so a demo made with a fixed `now` is the
same store every time.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from skyt_tui import locations
from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.contracts import catalog
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.run_store import OK, RunMeta, SampleRecord
from skyt_tui.engine.versions import ORACLE_VERSION

DEMO_MODEL = "hand-written-examples"
DEMO_LABEL = "hand-written examples (not model output)"
DEMO_NOTE = (
    "Samples written by hand for the skyt-tui demo to imitate the variation of real "
    "model output; no model produced them."
)
DEMO_BENCHMARK = "bundled-contracts"
DEMO_SAMPLE_FLOOR = 8
"""The default floor (50 items) would take all 20 bundled contracts; 8 keeps the anchor sample a sample."""


@dataclass(frozen=True)
class DemoResult:
    created: tuple[RunMeta, ...]
    existing: tuple[str, ...]
    skipped: tuple[str, ...]
    """One line per example set that could not become a run (its contract is missing)."""
    benchmark: str | None = None
    """Name of the demo benchmark (`create_demo` only)."""
    benchmark_steps: tuple[str, ...] = ()
    """What was done to it this time: imported, sample drawn, rotated (empty: it was there already)."""


def example_sets(examples_dir: Path) -> list[Path]:
    if not examples_dir.is_dir():
        return []
    return sorted(p for p in examples_dir.iterdir() if p.is_dir() and any(p.glob("*.py")))


@contextlib.contextmanager
def demo_store() -> Iterator[Path]:
    """The demo's own store in use for the duration (through the environment, so the analysis processes
    started meanwhile write there too); yields its directory."""
    before = os.environ.get(locations.STORE_ENV)
    os.environ[locations.STORE_ENV] = locations.DEMO_STORE
    try:
        yield locations.data_dir()
    finally:
        if before is None:
            os.environ.pop(locations.STORE_ENV, None)
        else:
            os.environ[locations.STORE_ENV] = before


def demo_store_has_runs() -> bool:
    return bool(run_store.run_ids(locations.demo_runs_dir()))


def create_demo(examples_dir: Path | None = None, *, now: dt.datetime | None = None) -> DemoResult:
    """The whole demo, in the demo's own store: the example runs (analysed) and the benchmark of the
    bundled contracts."""
    now = now or dt.datetime.now(dt.UTC)
    with demo_store():
        result = create_demo_runs(examples_dir, now=now)
        steps = create_demo_benchmark(now)
    return DemoResult(result.created, result.existing, result.skipped, DEMO_BENCHMARK, steps)


def create_demo_runs(
    examples_dir: Path | None = None, *, analyze: bool = True, now: dt.datetime | None = None
) -> DemoResult:
    """One run per example set whose contract is known; existing demo runs are kept, not duplicated."""
    from skyt_tui.engine.generation.providers.replay import load_replay_source
    from skyt_tui.engine.sources.extract import extract_for_contract

    now = now or dt.datetime.now(dt.UTC)
    examples_dir = (
        Path(examples_dir) if examples_dir is not None else locations.bundled_examples_dir()
    )
    sets = example_sets(examples_dir)
    if not sets:
        raise InputError.at(
            examples_dir, "no example sets found (expected <contract_id>/01.py, 02.py, …)"
        )
    existing_keys = run_store.origin_index()
    created: list[RunMeta] = []
    existing: list[str] = []
    skipped: list[str] = []
    for position, folder in enumerate(sets):
        contract = catalog.find_contract(folder.name)
        if contract is None:
            skipped.append(f"{folder}: no valid contract {folder.name!r} in the catalog")
            continue
        source = load_replay_source(folder, contract)
        texts = [answer.text or "" for answer in source.answers]
        digest = hashlib.sha256(
            "\0".join([contract.content_hash(), *texts]).encode("utf-8")
        ).hexdigest()
        key = f"demo:{contract.id}:{digest[:16]}"
        if key in existing_keys:
            existing.append(existing_keys[key])
            continue
        samples = []
        for index, text in enumerate(texts):
            extraction = extract_for_contract(
                text,
                prompt=contract.prompt,
                entry=contract.entry.name,
                prompt_style=contract.prompt_style,
            )
            samples.append(
                SampleRecord(
                    index=index,
                    status=OK,
                    response=text,
                    code=extraction.code,
                    extraction=extraction.method,
                    model=DEMO_MODEL,
                )
            )
        meta = run_store.create_run(
            contract_id=contract.id,
            contract=contract,
            provider="replay",
            model=DEMO_MODEL,
            temperature=None,
            n=len(samples),
            provider_settings={"source": str(folder.resolve()), "format": source.format},
            label=DEMO_LABEL,
            note=DEMO_NOTE,
            origin={"kind": "demo", "source": str(folder), "key": key},
            samples=samples,
            status=run_store.COMPLETE,
            created=now + dt.timedelta(seconds=position),
            id_suffix=digest[:4],
        )
        existing_keys[key] = meta.id
        created.append(meta)
    if analyze and created:
        _establish_canons([meta.contract_id for meta in created], now)
        analyses.analyze_stored_runs([meta.id for meta in created])
    return DemoResult(tuple(created), tuple(existing), tuple(skipped))


def _establish_canons(contract_ids: list[str], now: dt.datetime) -> None:
    """What the first analysis would do (docs/canon.md: first passing sample of the earliest run), stamped with `now`."""
    for contract_id in sorted(set(contract_ids)):
        contract = catalog.find_contract(contract_id)
        if contract is None or canon_store.canon_path(contract_id).exists():
            continue
        found = analyses.first_passing_stored_sample(contract, analyses.shared_oracle())
        if found is None:
            continue
        code, provenance = found
        stamp = now.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        canon = canon_store.build_canon(
            contract, code, replace(provenance, established_at=stamp), ORACLE_VERSION
        )
        try:
            canon_store.establish_canon(canon)
        except canon_store.CanonExistsError:
            pass


def create_demo_benchmark(now: dt.datetime) -> tuple[str, ...]:
    """Import the bundled contracts as a benchmark, draw its anchor sample, rotate once; each only if not done."""
    from skyt_tui.engine import benchmark

    stamp = now.astimezone(dt.UTC).isoformat(timespec="seconds")
    steps = []
    imported = benchmark.import_benchmark(
        DEMO_BENCHMARK, contracts_dir=locations.bundled_contracts_dir(), imported_at=stamp
    )
    if imported.created:
        steps.append(imported.message)
    sample = benchmark.current_sample(DEMO_BENCHMARK)
    if sample is None or sample.benchmark_version != imported.version.version:
        sample = benchmark.draw_sample(
            DEMO_BENCHMARK, benchmark.SampleConfig(floor=DEMO_SAMPLE_FLOOR), recorded_at=stamp
        )
        steps.append(f"{DEMO_BENCHMARK}: anchor sample of {sample.size} items drawn")
    if not benchmark.rotation_history(DEMO_BENCHMARK):
        plan = benchmark.apply_rotation(DEMO_BENCHMARK, now)
        steps.append(f"{DEMO_BENCHMARK}: rotation 1, {len(plan.record.held_out)} items held out")
    return tuple(steps)
