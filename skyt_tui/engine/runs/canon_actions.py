"""User actions on the canon that need stored runs and the oracle: re-establishing it."""

from __future__ import annotations

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.analysis.pipeline import shared_oracle
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.executor.choice import Judge
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.runs.analyses import first_passing_sample_of_run
from skyt_tui.engine.versions import ORACLE_VERSION


def reestablish_from_run(
    contract_id: str, run_id: str, *, oracle: Judge | None = None
) -> canon_store.Canon:
    """Replace a contract's canon with the first passing sample of RUN (the only way to replace it).

    The samples are judged by the contract as it is now, under the current
    versions; the old canon goes to the history and the event is logged.
    """
    contract = get_contract(contract_id)
    run = run_store.load_run(run_store.resolve_run_id(run_id))
    if run.meta.contract_id != contract.id:
        raise InputError(
            f"run {run.id} is for contract {run.meta.contract_id!r}, not {contract.id!r}"
        )
    found = first_passing_sample_of_run(run, contract, oracle or shared_oracle())
    if found is None:
        raise InputError(
            f"run {run.id}: no sample parses and passes the oracle of {contract.id}; the canon is unchanged"
        )
    code, provenance = found
    new = canon_store.build_canon(contract, code, provenance, ORACLE_VERSION)
    previous = canon_store.load_canon(contract.id, contract=contract, oracle_version=ORACLE_VERSION)
    reason = f"re-established by the user from run {run.id} (previous canon: {previous.status})"
    return canon_store.reestablish_canon(new, reason=reason)
