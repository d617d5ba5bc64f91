"""Verdicts: what the oracle says about one sample and how values are compared.

Comparison rules (`values_match`):
- bool is never a number: True does not equal 1;
- int and float compare by value (expected 2.0 accepts 2, and the reverse),
  nan equals nan; with rel_tol/abs_tol, `math.isclose` element-wise inside
  lists, tuples and dict values (a missing tolerance counts as 0);
- containers compare structurally and by type as the contract gives them:
  a list never equals a tuple; set and frozenset compare as sets;
- exceptions match by name against the raised type's MRO, so a sample's
  `class InvalidInput(ValueError)` satisfies `raises = "ValueError"`.

Pass rule (SKYT's): the sample ran to the end (status "ok"), every
out-of-domain input and constraint holds, and passed tests / the contract's
tests >= `pass_threshold` (float division, no rounding). `passed_all` says
whether it passed every test besides. Bump ORACLE_VERSION whenever any of
this changes.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from dataclasses import asdict, dataclass
from typing import Any

from skyt_tui.engine.oracle.compliance import Compliance
from skyt_tui.engine.sandbox import wire

ACTUAL_MAX_CHARS = 2000
"""Longer actual values are stored as a digest (equal values, equal digests: OER still works)."""


@dataclass(frozen=True)
class TestOutcome:
    """One test's result. `actual` is canonical tagged JSON of what the sample produced
    (None when it produced nothing: not run, timed out, or a constraint)."""

    __test__ = False  # not a pytest test class

    index: int
    name: str
    kind: str
    passed: bool
    actual: str | None
    error_type: str | None
    error_message: str | None
    time_s: float


@dataclass(frozen=True)
class Verdict:
    """Everything the oracle says about one sample; `to_dict` is what sample records store.

    Deterministic for a deterministic sample except the time fields
    (`duration_s`, `TestOutcome.time_s`).
    """

    passed: bool
    """Passed under the contract's rule: at least `threshold` of its tests (see the module)."""
    pass_fraction: float
    tests: tuple[TestOutcome, ...]
    status: str
    reason: str
    isolation: str
    oracle_version: str
    duration_s: float
    output: str = ""
    passed_all: bool = False
    """Ran to the end and passed every test, out-of-domain input and constraint."""
    threshold: float = 1.0
    """The contract's `pass_threshold` the verdict was reached under."""
    compliance: Compliance | None = None
    """The contract's coding-standard rules and patterns (None when it has none): separate
    from `passed`, a sample can pass its tests and break a rule."""
    runs: int = 1
    """Sandbox runs (a fresh sample and checker process each) the tests took: more than one when
    a test timed out and the tests after it ran afresh (`judge.Oracle`)."""
    unrun: int = 0
    """Tests left unrun because the verdict was decided before them (`Oracle` with
    `verdict_only`): they have no outcome in `tests` and count neither as passed nor as failed
    (`pass_fraction` counts only what ran). Such a verdict is never stored where every test's
    outcome is expected (`pass_vector` refuses it)."""

    @property
    def early(self) -> bool:
        """Decided before every test ran (see `unrun`)."""
        return self.unrun > 0

    @property
    def broken(self) -> frozenset[str] | None:
        """The keys of the coding rules and patterns the program breaks (`Violation.key`), None
        when the contract has none: what a repair candidate is judged by beside `passed`."""
        return None if self.compliance is None else self.compliance.broken

    def pass_vector(self) -> tuple[bool, ...]:
        self.require_every_outcome()
        return tuple(outcome.passed for outcome in self.tests)

    def require_every_outcome(self) -> None:
        """Raise unless every test ran: what stores or compares per-test outcomes calls this."""
        if self.unrun:
            raise ValueError(
                f"a verdict decided early ({self.unrun} tests not run) has no outcome for every"
                " test; judge without verdict_only where outcomes are kept"
            )

    def test_counts(self) -> tuple[int, int]:
        """(passed, total) over the contract's own tests (out-of-domain inputs and constraints
        not counted), the share `threshold` applies to."""
        own = [o for o in self.tests if o.kind not in ("ood", "constraint")]
        return sum(o.passed for o in own), len(own)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tests"] = [asdict(outcome) for outcome in self.tests]
        data["compliance"] = None if self.compliance is None else self.compliance.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        tests = tuple(TestOutcome(**outcome) for outcome in data["tests"])
        compliance = data.get("compliance")
        return cls(
            **{
                **data,
                "tests": tests,
                "compliance": None if compliance is None else Compliance.from_dict(compliance),
            }
        )


# ---- comparison ------------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _is_nan(value: Any) -> bool:
    try:
        return isinstance(value, float | complex) and value != value
    except TypeError:
        return False


def values_match(
    actual: Any, expected: Any, rel_tol: float | None = None, abs_tol: float | None = None
) -> bool:
    """Is `actual` (decoded from the sample) the `expected` contract value? See the module docstring."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is bool and type(expected) is bool and actual == expected
    if _is_number(actual) and _is_number(expected):
        if _is_nan(actual) or _is_nan(expected):
            return _is_nan(actual) and _is_nan(expected)
        if rel_tol is None and abs_tol is None:
            return bool(actual == expected)
        try:
            return math.isclose(actual, expected, rel_tol=rel_tol or 0.0, abs_tol=abs_tol or 0.0)
        except (TypeError, OverflowError):
            return bool(actual == expected)
    if isinstance(expected, list | tuple):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(values_match(a, e, rel_tol, abs_tol) for a, e in zip(actual, expected))
        )
    if isinstance(expected, set | frozenset):
        return isinstance(actual, set | frozenset) and _strict_keys(actual) == _strict_keys(
            expected
        )
    if isinstance(expected, dict):
        if type(actual) is not dict:
            return False
        actual_keys = [_strict_key(k) for k in actual]
        wire.check_hashes(actual_keys, "a dict")
        actual_by_key = dict(zip(actual_keys, actual.values()))
        expected_by_key = {_strict_key(k): v for k, v in expected.items()}
        return actual_by_key.keys() == expected_by_key.keys() and all(
            values_match(actual_by_key[k], expected_by_key[k], rel_tol, abs_tol)
            for k in expected_by_key
        )
    if expected is None:
        return actual is None
    if isinstance(expected, str | bytes | bytearray):
        return type(actual) is type(expected) and actual == expected
    return type(actual) is type(expected) and actual == expected


def _strict_key(value: Any) -> Any:
    """A hashable stand-in that keeps bool apart from numbers (Python's set treats True as 1)."""
    if isinstance(value, bool):
        return ("bool", value)
    if _is_number(value):
        return ("nan",) if _is_nan(value) else ("number", value)
    if isinstance(value, tuple):
        return ("tuple", tuple(_strict_key(item) for item in value))
    if isinstance(value, frozenset):
        return ("frozenset", _strict_keys(value))
    return (type(value).__name__, value)


def _strict_keys(items: Any) -> frozenset[Any]:
    keys = [_strict_key(item) for item in items]
    wire.check_hashes(keys)
    return frozenset(keys)


def raised_type(raised: Any) -> str:
    """The exception type name a frame reports, cut as the harness cuts it (a forged frame may not)."""
    return str(raised.get("type") if isinstance(raised, dict) else "?")[:120]


def raised_matches(raised: dict[str, Any], expected: str) -> bool:
    mro = raised.get("mro")
    names = mro if isinstance(mro, list) else [raised.get("type")]
    return expected in names and expected != "object"


def actual_text(encoded: Any) -> str:
    """The canonical text of a result as the sample encoded it.

    An honest harness encodes canonically (sets and `$dict` pairs sorted), so
    this is the text of the value; it is not re-encoded from the decoded value,
    which would cost a sorting pass per nesting level of sets. A forged,
    non-canonical encoding can only make the sample's own output look
    different from an equal one, never equal to a different one.
    """
    text = wire.canonical(encoded)
    if len(text) <= ACTUAL_MAX_CHARS:
        return text
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    return wire.canonical({"$sha256": digest, "$chars": len(text), "$head": text[:120]})


def show_value(value: Any) -> str:
    return wire.short_repr(value, 60)


# ---- pass@k (oracle --humaneval) ------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al. 2021); needs k <= n."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)
