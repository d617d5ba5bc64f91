"""SKYT experiment files (`experiment_id`, `contract_id`, `raw_outputs`, the embedded contract).

One file is one run; a folder of them is many. The contract embedded in the file judges its
samples: it becomes a versioned contract with its own namespaced id
(`importers.embedded_skyt_contract`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.sources import files
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import temperature as checked_temperature
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput

KEYS = ("experiment_id", "contract_id", "raw_outputs")


def recognise(source: Source) -> bool:
    if source.is_dir:
        return (
            any(Path(source.path).glob("*.json"))
            and not (Path(source.path) / "problems.jsonl").is_file()
        )
    document = source.json_or_none()
    return isinstance(document, dict) and all(key in document for key in KEYS)


def resembles(source: Source) -> bool:
    """A JSON object with a key of SKYT's own (`contract_id` alone is every record format's)."""
    document = source.json_or_none()
    return isinstance(document, dict) and any(
        key in document for key in ("experiment_id", "raw_outputs")
    )


def load_experiment(path: str | Path, data: Any = None) -> RunInput:
    """One SKYT experiment file as a run (`data`: its JSON, when already read)."""
    where = files.label(path)
    if data is None:
        data = files.read_json(path)
    if not isinstance(data, dict):
        raise InputError.at(where, "not a SKYT experiment file (expected a JSON object)")
    for key in KEYS:
        if key not in data:
            raise InputError.at(where, "missing (not a SKYT experiment file?)", key=key)
    outputs = data["raw_outputs"]
    if not isinstance(outputs, list) or not all(
        item is None or isinstance(item, str) for item in outputs
    ):
        raise InputError.at(where, "must be a list of code strings", key="raw_outputs")
    for key in ("experiment_id", "contract_id"):
        if not isinstance(data[key], str) or not data[key]:
            raise InputError.at(where, "must be a non-empty string", key=key)
    if data.get("contract") is not None and not isinstance(data["contract"], dict):
        raise InputError.at(where, "must be SKYT's contract object (or null)", key="contract")
    contract: dict[str, Any] = data.get("contract") or {}  # none: the catalog's, and said so
    constraints: dict[str, Any] = (
        contract["constraints"] if isinstance(contract.get("constraints"), dict) else {}
    )
    naming: dict[str, Any] = (
        constraints["variable_naming"]
        if isinstance(constraints.get("variable_naming"), dict)
        else {}
    )
    fixed = naming.get("fixed_variables")
    kept = {
        name
        for name in (
            constraints.get("function_name"),
            constraints.get("class_name"),
            *(fixed if isinstance(fixed, list) else []),
        )
        if isinstance(name, str)
    }
    model = data.get("model")
    extra: dict[str, Any] = {
        "skyt_contract": contract,
        "skyt_metrics": data.get("metrics"),
        "timestamp": data.get("timestamp"),
        "skyt_contract_id": data["contract_id"],
    }
    contract_id = data["contract_id"]
    if contract:
        from skyt_tui.engine.sources.importers import embedded_skyt_contract

        try:
            embedded = embedded_skyt_contract(contract, key=data["contract_id"], file=Path(where))
        except (ContractError, InputError) as exc:
            extra["contract_error"] = f"{where}: the embedded contract is not usable: {exc}"
        else:
            extra["contract"] = embedded
            extra["contract_origin"] = "embedded"
            contract_id = embedded.id
    try:
        temperature = checked_temperature(where, data.get("temperature"))
    except InputError:
        raise InputError.at(
            where,
            f"must be a number between 0 and 10, not {data.get('temperature')!r}",
            key="temperature",
        ) from None
    return RunInput(
        id=data["experiment_id"],
        contract_id=contract_id,
        model=model if isinstance(model, str) else None,
        temperature=temperature,
        codes=tuple(outputs),
        kept_names=frozenset(kept),
        source=where,
        source_format="skyt",
        extra=extra,
        responses=tuple(outputs),
    )


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if source.is_dir:
        found = sorted(Path(source.path).glob("*.json"))
        if not found:
            raise InputError.at(source.name, "contains no SKYT experiment files (*.json)")
        return [load_experiment(f) for f in found]
    return [load_experiment(source.path, source.json())]


FORMAT = Format(
    name="skyt",
    title="SKYT experiment files",
    command="skyt-tui analyze EXPERIMENT.json (or a folder of them)",
    keeps="experiment id, model, temperature, timestamp, the embedded contract (which judges "
    "the samples), SKYT's own metrics",
    loses="SKYT's repaired outputs and distances (recomputed by skyt-tui's own rules)",
    recognise=recognise,
    load=load,
    resembles=resembles,
)
