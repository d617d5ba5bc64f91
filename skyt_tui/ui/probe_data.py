"""Probing a stored run's passing samples on generated inputs, its stored probe, and a witness
written as a test (docs/probe.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs.probe_record import StoredProbe


def probe_run(run_id: str, max_inputs: int | None = None) -> StoredProbe:
    """Probe a stored run's passing samples on generated inputs and store it (docs/probe.md)."""
    from skyt_tui.engine.probe.behaviour import ProbeSettings
    from skyt_tui.engine.runs.probes import probe_stored_run

    settings = ProbeSettings() if max_inputs is None else ProbeSettings(max_inputs=max_inputs)
    return StoredProbe.from_document(probe_stored_run(run_id, settings))


def load_probe(run_id: str) -> StoredProbe | None:
    """The run's stored probe as its record (stale or not), or None when it has none."""
    from skyt_tui.engine.runs.probes import load_stored_probe

    document = load_stored_probe(run_id)
    return None if document is None else StoredProbe.from_document(document)


def witness_as_test(run_id: str, sample_index: int) -> dict[str, Any]:
    """Write the sample's witness as a test: a new contract version (asked for by the user)."""
    from skyt_tui.engine.runs.probes import witness_as_test as add

    return add(run_id, sample_index, write=True)


def probe_line(probe: StoredProbe | Mapping[str, Any]) -> str:
    """One headline of a run's probe (a record or a stored document), for the run's outcome."""
    record = probe if isinstance(probe, StoredProbe) else StoredProbe.from_document(probe)
    figures = record.figures
    line = (
        f"probe: {counted(figures.probed or 0, 'passing sample')}, "
        f"{counted(figures.behaviour_classes or 0, 'behaviour class')}"
    )
    if figures.plausible_but_wrong:
        line += (
            f", {counted(figures.plausible_but_wrong, 'sample', verb='differ')} from the reference"
        )
    return line
