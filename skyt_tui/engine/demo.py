"""The offline demo: stored runs made from the hand-written example samples shipped with skyt-tui.

`skyt_tui/bundled/examples/<contract_id>/NN.py` holds samples written by hand
to imitate how model output varies (see the README there); no model produced
them. Each set becomes one run of its bundled contract — provider `replay`,
model `hand-written-examples`, labelled as such — and is analysed once, so a
newcomer without a network or an API key sees every screen with real numbers.
Running the demo again adds nothing unless an example set or contract changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from skyt_tui import locations
from skyt_tui.engine import catalog, runs
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.extract import extract_for_contract
from skyt_tui.engine.providers.replay import load_replay_source
from skyt_tui.engine.runs import OK, RunMeta, SampleRecord

DEMO_MODEL = "hand-written-examples"
DEMO_LABEL = "hand-written examples (not model output)"
DEMO_NOTE = (
    "Samples written by hand for the skyt-tui demo to imitate the variation of real "
    "model output; no model produced them."
)


@dataclass(frozen=True)
class DemoResult:
    created: tuple[RunMeta, ...]
    existing: tuple[str, ...]
    skipped: tuple[str, ...]
    """One line per example set that could not become a run (its contract is missing)."""


def example_sets(examples_dir: Path) -> list[Path]:
    if not examples_dir.is_dir():
        return []
    return sorted(p for p in examples_dir.iterdir() if p.is_dir() and any(p.glob("*.py")))


def create_demo_runs(examples_dir: Path | None = None, *, analyze: bool = True) -> DemoResult:
    """One run per example set whose contract is known; existing demo runs are kept, not duplicated."""
    examples_dir = Path(examples_dir) if examples_dir is not None else locations.bundled_examples_dir()
    sets = example_sets(examples_dir)
    if not sets:
        raise InputError.at(examples_dir, "no example sets found (expected <contract_id>/01.py, 02.py, …)")
    existing_keys = runs.origin_index()
    created: list[RunMeta] = []
    existing: list[str] = []
    skipped: list[str] = []
    for folder in sets:
        contract = catalog.find_contract(folder.name)
        if contract is None:
            skipped.append(f"{folder}: no valid contract {folder.name!r} in the catalog")
            continue
        source = load_replay_source(folder, contract)
        texts = [answer.text or "" for answer in source.answers]
        digest = hashlib.sha256("\0".join([contract.content_hash(), *texts]).encode("utf-8")).hexdigest()
        key = f"demo:{contract.id}:{digest[:16]}"
        if key in existing_keys:
            existing.append(existing_keys[key])
            continue
        samples = []
        for index, text in enumerate(texts):
            extraction = extract_for_contract(text, prompt=contract.prompt, entry=contract.entry.name, prompt_style=contract.prompt_style)
            samples.append(SampleRecord(index=index, status=OK, response=text, code=extraction.code, extraction=extraction.method, model=DEMO_MODEL))
        meta = runs.create_run(
            contract_id=contract.id, contract=contract, provider="replay", model=DEMO_MODEL, temperature=None,
            n=len(samples), provider_settings={"source": str(folder.resolve()), "format": source.format},
            label=DEMO_LABEL, note=DEMO_NOTE, origin={"kind": "demo", "source": str(folder), "key": key},
            samples=samples, status=runs.COMPLETE,
        )
        existing_keys[key] = meta.id
        created.append(meta)
        if analyze:
            runs.analyze_stored_run(meta.id)
    return DemoResult(tuple(created), tuple(existing), tuple(skipped))
