"""Probing a stored run's passing samples on generated inputs, its stored probe, and a witness
written as a test (docs/probe.md)."""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.printable import counted


def probe_run(run_id: str, max_inputs: int | None = None) -> dict[str, Any]:
    """Probe a stored run's passing samples on generated inputs and store it (docs/probe.md)."""
    from skyt_tui.engine.probe.behaviour import ProbeSettings
    from skyt_tui.engine.runs.probes import probe_stored_run

    settings = ProbeSettings() if max_inputs is None else ProbeSettings(max_inputs=max_inputs)
    return probe_stored_run(run_id, settings)


def load_probe(run_id: str) -> dict[str, Any] | None:
    from skyt_tui.engine.runs.probes import load_stored_probe

    return load_stored_probe(run_id)


def witness_as_test(run_id: str, sample_index: int) -> dict[str, Any]:
    """Write the sample's witness as a test: a new contract version (asked for by the user)."""
    from skyt_tui.engine.runs.probes import witness_as_test as add

    return add(run_id, sample_index, write=True)


def probe_line(document: dict[str, Any]) -> str:
    """One headline of a run's probe, for the run's outcome."""
    figures = document.get("run") or {}
    line = (
        f"probe: {counted(figures.get('probed', 0), 'passing sample')}, "
        f"{counted(figures.get('behaviour_classes', 0), 'behaviour class')}"
    )
    if figures.get("plausible_but_wrong"):
        line += f", {counted(figures['plausible_but_wrong'], 'sample', verb='differ')} from the reference"
    return line
