"""The contracts and their canons, as the Contracts and Canon sections ask for them (from worker
threads): the catalog, each canon's state judged against its contract and the current versions,
its history as records, and re-establishing it from a run."""

from __future__ import annotations

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.contracts.catalog import CatalogEntry, get_contract, scan_contracts
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.versions import ORACLE_VERSION

CANON_NONE = "none"


def list_contracts() -> list[CatalogEntry]:
    """Bundled and user contracts, invalid files included with their one-line error."""
    return scan_contracts()


def load_canon(contract_id: str, contract: Contract | None = None) -> canon_store.CanonState:
    """The stored canon with its integrity judged against the contract (when known) and the current versions."""
    return canon_store.load_canon(contract_id, contract=contract, oracle_version=ORACLE_VERSION)


def canon_state(contract: Contract) -> str:
    """'ok', 'stale', 'tampered', 'corrupt' or 'none' for the contract's canon."""
    return canon_status(load_canon(contract.id, contract))


def canon_status(state: canon_store.CanonState) -> str:
    return CANON_NONE if state.status == canon_store.STATUS_MISSING else state.status


def canon_history(contract_id: str) -> list[canon_store.CanonEvent]:
    """The canon's history as records, oldest first (StoreError when its log is damaged)."""
    return canon_store.canon_events(contract_id)


def canon_states() -> dict[str, canon_store.CanonState]:
    """The canon state of every contract in the catalog and of every stored canon (one catalog scan)."""
    contracts = {
        entry.contract.id: entry.contract
        for entry in scan_contracts()
        if entry.contract is not None
    }
    ids = sorted(set(contracts) | set(canon_store.list_canons()))
    return {contract_id: load_canon(contract_id, contracts.get(contract_id)) for contract_id in ids}


def find_contract(contract_id: str) -> Contract | None:
    try:
        return get_contract(contract_id)
    except SkytError:
        return None


def reestablish_canon(contract_id: str, run_id: str) -> canon_store.Canon:
    """Replace the canon with the first passing sample of the run (runs the oracle: call from a worker)."""
    from skyt_tui.engine.runs.canon_actions import reestablish_from_run

    return reestablish_from_run(contract_id, run_id)
