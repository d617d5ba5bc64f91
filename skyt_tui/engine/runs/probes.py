"""A stored run's probe: computed on request (`run --probe`, `probe run`, the app's action) and
kept next to the run as `probe.json` (docs/probe.md).

A stored probe is valid while its key holds: the samples file, the contract's hash, the probe's
settings and the probe and oracle versions. Which samples pass comes from the run's analysis
(cached or computed), so the probe and the run's metrics rest on the same verdicts.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui.engine import store
from skyt_tui.engine.contracts.values import literal_text
from skyt_tui.engine.errors import InputError, StoreError
from skyt_tui.engine.executor.choice import current_executor, local_oracle
from skyt_tui.engine.runs.analyses import stored_analysis
from skyt_tui.engine.runs.probe_record import StoredProbe
from skyt_tui.engine.runs.run_store import OK, SAMPLES_FILE, StoredRun, load_run
from skyt_tui.engine.versions import DEFAULT_TAU, ORACLE_VERSION, PROBE_VERSION

if TYPE_CHECKING:
    from skyt_tui.engine.probe.behaviour import CallsJudge, ProbeSettings

PROBE_FILE = "probe.json"
PROBE_KIND = "probe"


def _key(run: StoredRun, settings: ProbeSettings) -> dict[str, Any]:
    try:
        digest = hashlib.sha256(store.read_bytes(run.directory / SAMPLES_FILE)).hexdigest()
    except FileNotFoundError:
        digest = None
    return {
        "samples_sha256": digest,
        "contract_hash": run.meta.contract_hash,
        "settings": settings.to_dict(),
        "probe_version": PROBE_VERSION,
        "oracle_version": ORACLE_VERSION,
    }


def probe_stored_run(
    run: StoredRun | str,
    settings: ProbeSettings,
    *,
    oracle: CallsJudge | None = None,
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
) -> dict[str, Any]:
    """Probe a stored run's passing samples, store the result as `probe.json`, and return it:
    {"key", "run": per-run figures, "samples": [{"index", "probe"}], "entry"}."""
    from skyt_tui.engine.probe.behaviour import probe_contracts
    from skyt_tui.engine.probe.report import run_probe_figures

    stored = load_run(run) if isinstance(run, str) else run
    contract = stored.contract_object()
    if contract is None:
        raise InputError(f"run {stored.id}: has no contract, so nothing to probe against")
    analysis = stored_analysis(stored, level=level, tau=tau)
    by_index = {s.index: s for s in stored.samples if s.status == OK and s.code is not None}
    rows = [sample for sample in analysis.samples if sample.index in by_index]
    codes = [by_index[row.index].code or "" for row in rows]
    passed = [row.facts.passed is True for row in rows]
    judge = oracle if oracle is not None else current_executor().oracle()
    probe = probe_contracts(judge, [(contract, codes, passed)], settings)[0]
    canon = analysis.canon
    canon_position = next(
        (
            position
            for position, row in enumerate(rows)
            if canon.run_id == stored.id and canon.sample_index == row.index
        ),
        None,
    )
    vectors = [
        tuple(bool(t.passed) for t in (row.oracle.tests if row.oracle is not None else ()))
        if row.facts.passed is not None
        else None
        for row in rows
    ]
    figures = run_probe_figures(probe, vectors, [row.index for row in rows], canon_position)
    document = {
        "key": _key(stored, settings),
        "entry": contract.entry.name,
        "contract_id": contract.id,
        "contract_version": contract.version,
        "run": figures,
        "samples": [
            {"index": row.index, "probe": record.to_dict(contract.entry.name)}
            for row, record in zip(rows, probe.samples)
        ],
    }
    document = dict(json.loads(json.dumps(document)))
    store.write_json(stored.directory / PROBE_FILE, document, kind=PROBE_KIND)
    return document


def load_stored_probe(run: StoredRun | str) -> dict[str, Any] | None:
    """The run's stored probe, or None when it has none; `stale` is true when its key no longer
    holds (the samples or the contract changed, or another probe or oracle version), and
    `stale_because` names the key's fields that changed (`samples_sha256`, `contract_hash`,
    `settings`, `probe_version`, `oracle_version`)."""
    from skyt_tui.engine.probe.behaviour import ProbeSettings

    stored = load_run(run) if isinstance(run, str) else run
    path: Path = stored.directory / PROBE_FILE
    try:
        document = store.read_json(path, kind=PROBE_KIND)
    except FileNotFoundError:
        return None
    except StoreError:
        raise
    stored_key: dict[str, Any] = document["key"] if isinstance(document.get("key"), dict) else {}
    settings = stored_key.get("settings") or {}
    try:
        current = _key(stored, ProbeSettings(**settings))
    except TypeError:
        current = None
    document["stale"] = stored_key != current
    document["stale_because"] = (
        sorted(name for name in current if stored_key.get(name) != current[name])
        if current is not None
        else ["settings"]
    )
    return document


def witness_as_test(run: StoredRun | str, sample_index: int, *, write: bool) -> dict[str, Any]:
    """A stored run's sample's witness as a new contract version (docs/probe.md): what would
    change, and with `write` the path written. The expected output comes from running the
    contract's reference - or, without one, its usable canon - on the witness input afresh."""
    from skyt_tui.engine.analysis import canon as canon_store
    from skyt_tui.engine.probe.witness import (
        expected_output,
        save_new_version,
        with_witness_test,
        witness_call,
    )

    stored = load_run(run) if isinstance(run, str) else run
    contract = stored.contract_object()
    if contract is None:
        raise InputError(f"run {stored.id}: has no contract")
    document = load_stored_probe(stored)
    if document is None:
        raise InputError(f"run {stored.id}: not probed yet (skyt-tui probe run {stored.id})")
    probe = StoredProbe.from_document(document)
    if probe.stale:
        raise InputError(
            f"run {stored.id}: its probe is stale (samples, contract or versions changed); probe again"
        )
    record = probe.by_index.get(sample_index)
    if record is None:
        raise InputError(f"run {stored.id}: no sample {sample_index} among the probed samples")
    if record.witness is None:
        raise InputError(
            f"run {stored.id}: sample {sample_index} has no witness: it behaves like the "
            "others on every generated input"
        )
    call = witness_call(record.witness.args_py, record.witness.kwargs_py)
    if contract.reference is not None:
        program, from_what = contract.reference, "reference"
    else:
        state = canon_store.load_canon(
            contract.id, contract=contract, oracle_version=ORACLE_VERSION
        )
        if not state.usable or state.canon is None:
            raise InputError(
                f"contract {contract.id}: has no reference and no usable canon to take the "
                f"expected output from ({state.reason or state.status})"
            )
        program, from_what = state.canon.code, "canon"
    expected = expected_output(local_oracle(), contract, program, call)
    new = with_witness_test(contract, call, expected, from_what)
    summary: dict[str, Any] = {
        "contract": contract.id,
        "from_version": contract.version,
        "to_version": new.version,
        "test": new.tests[-1].name,
        "expected_from": from_what,
        "expected": literal_text(expected),
        "written": None,
        "canon": "a canon made under the old version becomes stale; re-establish it "
        f"(skyt-tui canon reestablish {contract.id} --from RUN)",
    }
    if write:
        summary["written"] = str(save_new_version(new, contract))
    return summary


def stored_probe_figures(run: StoredRun) -> dict[str, Any] | None:
    """The per-run figures of the run's stored probe as it stores them (`StoredProbe.
    stored_figures`), or None when it has none or it is stale or unreadable (a report never
    fails over a probe file)."""
    try:
        document = load_stored_probe(run)
    except StoreError:
        return None
    if document is None:
        return None
    probe = StoredProbe.from_document(document)
    if probe.stale or probe.stored_figures is None:
        return None
    return dict(probe.stored_figures)
