"""Finding contracts: the bundled ones, the user's own, or a file named directly.

A user contract with the same id as a bundled one takes precedence. Files that
fail validation are kept in the listing with their one-line error so the UI and
`contracts list` can show them instead of silently dropping them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skyt_tui import locations
from skyt_tui.engine.contracts.contract import Contract, is_contract_id, load_contract
from skyt_tui.engine.errors import ContractError, NotFoundError


@dataclass(frozen=True)
class CatalogEntry:
    path: Path
    origin: str
    contract: Contract | None = None
    error: str | None = None

    @property
    def id(self) -> str:
        return self.contract.id if self.contract else self.path.stem


def contract_dirs() -> list[tuple[str, Path]]:
    return [
        ("user", locations.user_contracts_dir()),
        ("bundled", locations.bundled_contracts_dir()),
    ]


def scan_contracts() -> list[CatalogEntry]:
    """Every contract file, valid or not, ordered by id; user files shadow bundled ones."""
    entries: dict[str, CatalogEntry] = {}
    for origin, directory in contract_dirs():
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                entry = CatalogEntry(path=path, origin=origin, contract=load_contract(path))
            except ContractError as exc:
                entry = CatalogEntry(path=path, origin=origin, error=str(exc))
            key = entry.id
            if key in entries:
                if entries[key].origin == origin:
                    entries[f"{key}@{path.name}"] = CatalogEntry(
                        path=path,
                        origin=origin,
                        error=f"{path}: id: {key!r} is already used by {entries[key].path.name}",
                    )
                continue
            entries[key] = entry
    return [entries[key] for key in sorted(entries)]


def get_contract(id_or_path: str | Path) -> Contract:
    """A contract by id (user first, then bundled) or by path to a .toml file."""
    candidate = Path(id_or_path)
    if candidate.suffix == ".toml" or candidate.is_file():
        return load_contract(candidate)
    for entry in scan_contracts():
        if entry.id == str(id_or_path):
            if entry.contract is None:
                raise ContractError(entry.error or f"{entry.path}: invalid contract")
            return entry.contract
    raise NotFoundError(f"contract {str(id_or_path)!r}: not found (see `skyt-tui contracts list`)")


def find_contract(contract_id: str) -> Contract | None:
    """Like `get_contract` by id, but None when absent or invalid (for optional lookups of ids
    read from files: an id that is not a contract id, a path, is never looked up)."""
    if not is_contract_id(contract_id):
        return None
    try:
        return get_contract(contract_id) if not contract_id.endswith(".toml") else None
    except (NotFoundError, ContractError):
        return None
