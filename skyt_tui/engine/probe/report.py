"""Figures over several contracts' probes (a human-eval folder, a study's runs) (docs/probe.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skyt_tui.engine.measure import registry
from skyt_tui.engine.probe.behaviour import ContractProbe
from skyt_tui.engine.versions import PROBE_VERSION

PROBE_METRICS = tuple(
    (m.name, m.direction, m.description) for m in registry.computed_in(registry.PROBE_MODULE)
)
"""The per-run probe figures as metrics: (name, better direction, description), from the metric
registry. Computed in `run_probe_figures`, reported only for runs that were probed
(docs/probe.md)."""


def probe_summary(probes: Sequence[ContractProbe]) -> dict[str, Any]:
    """Totals: samples probed and flagged, behaviour classes, contracts whose tests let
    behaviourally different samples pass, and why contracts were not probed."""
    probed = sum(1 for p in probes for s in p.samples if s.status == "probed")
    with_reference = [p for p in probes if p.has_reference]
    probed_with_reference = sum(
        1 for p in with_reference for s in p.samples if s.status == "probed"
    )
    flagged = sum(1 for p in probes for s in p.samples if s.differs_from_reference)
    unlike = sum(1 for p in probes for s in p.samples if s.differs_from_majority)
    not_probed: dict[str, int] = {}
    for p in probes:
        for s in p.samples:
            if s.status not in ("probed", "failed the tests"):
                not_probed[s.status] = not_probed.get(s.status, 0) + 1
    settings = probes[0].settings.to_dict() if probes else {}
    return {
        "probe_version": PROBE_VERSION,
        "settings": settings,
        "contracts": len(probes),
        "inputs_generated": sum(p.generated for p in probes),
        "inputs_generated_wide": sum(p.generated_wide for p in probes),
        "inputs_counted": sum(p.counted for p in probes),
        "probed": probed,
        # no contract with a reference: nothing was compared with one (null, as per run)
        "plausible_but_wrong": flagged if with_reference else None,
        "plausible_but_wrong_share": (
            flagged / probed_with_reference
            if probed_with_reference
            else (0.0 if with_reference else None)
        ),
        "unlike_majority": unlike,
        "behaviour_classes": sum(len(p.classes) for p in probes),
        "split_contracts": [p.contract.id for p in probes if len(p.classes) > 1],
        "not_probed": dict(sorted(not_probed.items())),
    }


def run_probe_figures(
    probe: ContractProbe,
    pass_vectors: Sequence[tuple[bool, ...] | None],
    indexes: Sequence[int],
    canon_position: int | None,
) -> dict[str, Any]:
    """Per run: plausible-but-wrong samples, behaviour classes, R_behavioral on tests and on
    probes, and which canon candidates (passing samples) behave unlike the rest.

    `pass_vectors`, `indexes` and the probe's records are aligned (one per generated sample);
    `canon_position` is the canon's position among them when the canon is one of them.
    """
    from skyt_tui.engine.measure.metrics import modal_share  # numpy: loaded when first probed
    from skyt_tui.engine.probe.behaviour import r_behavioral_probe

    figures = probe.figures()
    behaviours = [record.behaviour for record in probe.samples]
    canon_class = behaviours[canon_position] if canon_position is not None else None
    unlike = set(figures["behaviourally_unlike"])
    return {
        **probe.to_dict(),
        "classes": [[indexes[position] for position in members] for members in probe.classes],
        "R_behavioral": modal_share(pass_vectors),  # as a run's own (measure.metrics)
        "R_behavioral_probe": r_behavioral_probe(pass_vectors, behaviours),
        "behaviourally_unlike": [indexes[position] for position in sorted(unlike)],
        "canon_class": canon_class,
        "canon_unlike_rest": canon_position in unlike if canon_position is not None else None,
    }
