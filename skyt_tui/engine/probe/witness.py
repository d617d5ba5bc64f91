"""A witness becomes a test: a new version of the contract whose new call test is the witness
input with the reference's output as expected - or, without a reference, the chosen canon's
(docs/probe.md).

The expected value is computed afresh here, by running the reference (or the canon) on the
input in the sandbox: nothing stored in a probe file is trusted to be an expected value. The
new version is written to the user's contracts folder, the version it replaces is kept under
`contracts/history/`, and - since the contract's content hash changes - a canon made under the
old version is stale, as after any change of a contract (docs/canon.md).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.contracts.contract import CallTest, Contract, load_contract, write_contract
from skyt_tui.engine.contracts.values import LiteralError, literal_text, parse_literal
from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.outputs import RETURNED, Call
from skyt_tui.engine.printable import printable

HISTORY_DIR = "history"


def witness_call(args_py: str | None, kwargs_py: str | None) -> Call:
    """The input of a witness record (its `args_py`, `kwargs_py`), read as Python literals."""
    try:
        args = parse_literal(str(args_py))
        kwargs = parse_literal(str(kwargs_py or "{}"))
    except LiteralError as exc:
        raise InputError(f"witness: args_py/kwargs_py: {exc}") from None
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise InputError("witness: args_py must be a list and kwargs_py a dict")
    if not all(isinstance(key, str) and key.isidentifier() for key in kwargs):
        raise InputError("witness: kwargs_py keys must be Python names")
    return Call(tuple(args), tuple(kwargs.items()))


def expected_output(oracle: Oracle, contract: Contract, program: str, call: Call) -> Any:
    """What `program` (the reference or the canon) returns on `call`, run in the sandbox."""
    result = next(oracle.calls_iter([(contract, program, (call,))]))
    output = result.outputs[0]
    if output.status != RETURNED:
        why = f"raises {output.raised}" if output.raised else f"gives no result ({result.reason})"
        raise InputError(f"the expected output cannot be had: the program {why} on this input")
    return output.value


def with_witness_test(contract: Contract, call: Call, expected: Any, from_what: str) -> Contract:
    """The next version of `contract` with one more call test: `call` → `expected`."""
    shown = ", ".join(
        [literal_text(a) for a in call.args] + [f"{k}={literal_text(v)}" for k, v in call.kwargs]
    )
    name = printable(f"probe witness {contract.entry.name}({shown})")
    if len(name) > 120:
        name = name[:119] + "…"
    rel = max((t.rel_tol or 0.0 for t in contract.tests if isinstance(t, CallTest)), default=0.0)
    abs_ = max((t.abs_tol or 0.0 for t in contract.tests if isinstance(t, CallTest)), default=0.0)
    test = CallTest(
        name=name,
        args=call.args,
        kwargs=dict(call.kwargs),
        expected=expected,
        rel_tol=rel or None,
        abs_tol=abs_ or None,
    )
    source = dict(contract.source)
    history = list(source.get("probe_witnesses", []))
    history.append(f"v{contract.version + 1}: {name} (expected from the {from_what})")
    source["probe_witnesses"] = history
    return replace(
        contract, version=contract.version + 1, tests=(*contract.tests, test), source=source
    )


def save_new_version(new: Contract, old: Contract) -> Path:
    """Write `new` as the user's contract of its id, keeping `old` under contracts/history/."""
    directory = locations.user_contracts_dir()
    target = directory / f"{new.id}.toml"
    if target.is_symlink():
        raise ContractError.at(target, "is a symbolic link; not written")
    history = directory / HISTORY_DIR
    store.make_dirs(history)  # no folder made through a link planted in the store
    kept = history / f"{old.id}.v{old.version}.toml"
    if not kept.exists():
        write_contract(replace(old, path=None), kept)
    if target.exists():
        current = load_contract(target)
        if current.version != old.version:
            raise ContractError.at(
                target,
                f"version {current.version} is stored, not {old.version}: the contract changed "
                "since this probe; probe again",
            )
    write_contract(new, target)
    return target
