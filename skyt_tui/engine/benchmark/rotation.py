"""Held-out rotation: items move held-out → training, a fresh held-out is drawn (docs/benchmark.md).

Every item is in exactly one of three places: the *pool* (never exposed), the
*held-out* set (kept secret for honest evaluation) or *training* (exposed since the
rotation that moved it, its `added_to_training` date). A rotation moves the whole
held-out set to training and draws a new one from the pool, per difficulty stratum
~10% of the stratum (at least 5, never more than the stratum holds and never more
than its pool still has; a dry pool is reported as a shortfall, not an error).

Periods are monthly (calendar months) or weekly (ISO weeks, Monday first), computed
on the UTC calendar from a date passed in — never from the clock inside this module.
A rotation is due when the period of `now` is later than the period of the last
rotation; an early rotation needs `force`. The history is an append-only log; the
state is its replay, so nothing is ever deleted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.benchmark.sampler import DEFAULT_SEED, ceil_share, check_seed
from skyt_tui.engine.errors import SkytError, StoreError
from skyt_tui.engine.printable import counted

PERIODS = ("monthly", "weekly")
DEFAULT_PERIOD = "monthly"
HELD_OUT_SHARE = 0.10
HELD_OUT_MIN = 5


class RotationRefused(SkytError):
    """A rotation was asked for but is not allowed now (not due, or `now` is in the past)."""

    exit_code = 1


def parse_now(text: str) -> dt.datetime:
    """A date (`2024-05-31`) or ISO datetime (`2024-05-31T23:30:00+02:00`); naive means UTC."""
    try:
        if len(text.strip()) == 10:
            day = dt.date.fromisoformat(text.strip())
            return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
        return as_utc(dt.datetime.fromisoformat(text.strip()))
    except ValueError:
        raise _error(
            f"{text!r} is not a date (YYYY-MM-DD) or ISO datetime (YYYY-MM-DDTHH:MM[:SS][+HH:MM])",
            key="--now",
        ) from None


def as_utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def check_period(period: str) -> str:
    if period not in PERIODS:
        raise _error(f"{period!r} must be monthly or weekly", key="--period")
    return period


def period_start(moment: dt.datetime, period: str) -> dt.date:
    """First day of the period containing `moment` (its UTC date)."""
    day = as_utc(moment).date()
    if check_period(period) == "monthly":
        return day.replace(day=1)
    return day - dt.timedelta(days=day.weekday())


def next_period_start(start: dt.date, period: str) -> dt.date:
    if check_period(period) == "monthly":
        return dt.date(start.year + start.month // 12, start.month % 12 + 1, 1)
    return start + dt.timedelta(days=7 - start.weekday())


def period_label(start: dt.date, period: str) -> str:
    if check_period(period) == "monthly":
        return f"{start.year:04d}-{start.month:02d}"
    year, week, _ = start.isocalendar()
    return f"{year:04d}-W{week:02d}"


def held_out_target(stratum_size: int) -> int:
    return min(stratum_size, max(HELD_OUT_MIN, ceil_share(HELD_OUT_SHARE, stratum_size)))


@dataclass(frozen=True)
class RotationRecord:
    """One applied rotation, as appended to the history."""

    number: int
    at: str
    period: str
    period_start: str
    forced: bool
    seed: int
    benchmark_version: int
    moved_to_training: tuple[str, ...]
    held_out: tuple[str, ...]
    target: dict[str, int]
    drawn: dict[str, int]
    shortfall: dict[str, int]
    pool_after: int

    @property
    def moment(self) -> dt.datetime:
        return as_utc(dt.datetime.fromisoformat(self.at))

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "at": self.at,
            "period": self.period,
            "period_start": self.period_start,
            "forced": self.forced,
            "seed": self.seed,
            "benchmark_version": self.benchmark_version,
            "moved_to_training": list(self.moved_to_training),
            "held_out": list(self.held_out),
            "target": self.target,
            "drawn": self.drawn,
            "shortfall": self.shortfall,
            "pool_after": self.pool_after,
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> RotationRecord:
        return cls(
            number=int(record["number"]),
            at=str(record["at"]),
            period=str(record["period"]),
            period_start=str(record["period_start"]),
            forced=bool(record["forced"]),
            seed=int(record["seed"]),
            benchmark_version=int(record["benchmark_version"]),
            moved_to_training=tuple(record["moved_to_training"]),
            held_out=tuple(record["held_out"]),
            target={str(k): int(v) for k, v in record["target"].items()},
            drawn={str(k): int(v) for k, v in record["drawn"].items()},
            shortfall={str(k): int(v) for k, v in record["shortfall"].items()},
            pool_after=int(record["pool_after"]),
        )


HISTORY_COLUMNS = (
    "#",
    "at (UTC)",
    "period",
    "forced",
    "moved",
    "held-out",
    "short",
    "pool after",
    "version",
)
"""The rotation history as a table: `bench status` and the app's History tab (docs/benchmark.md)."""


def history_rows(history: Sequence[RotationRecord]) -> list[tuple[str, ...]]:
    """One row of `HISTORY_COLUMNS` per rotation, in the order given: its number, when (UTC, to
    the minute), the period, whether it was forced, how many ids moved to training and were drawn
    held out, the shortfall, the pool left and the benchmark version it was drawn on."""
    return [
        (
            str(record.number),
            record.moment.strftime("%Y-%m-%d %H:%M"),
            record.period,
            "yes" if record.forced else "",
            str(len(record.moved_to_training)),
            str(len(record.held_out)),
            str(sum(record.shortfall.values())),
            str(record.pool_after),
            str(record.benchmark_version),
        )
        for record in history
    ]


@dataclass(frozen=True)
class RotationState:
    held_out: tuple[str, ...]
    training: dict[str, str]
    """Item id → `added_to_training` (the `at` of the rotation that moved it)."""
    history: tuple[RotationRecord, ...]

    @property
    def last(self) -> RotationRecord | None:
        return self.history[-1] if self.history else None


def replay(history: Sequence[RotationRecord], source: str = "rotation history") -> RotationState:
    """The state after `history`; a history that breaks the invariants is reported as corrupt."""
    held_out: tuple[str, ...] = ()
    training: dict[str, str] = {}
    previous: RotationRecord | None = None
    for index, record in enumerate(history, start=1):
        where = f"{source}: rotation {record.number}"
        if record.number != index:
            raise StoreError(f"{where}: corrupt: expected rotation number {index}")
        if record.moved_to_training != held_out:
            raise StoreError(f"{where}: corrupt: moved items differ from the previous held-out set")
        if previous is not None and record.moment < previous.moment:
            raise StoreError(f"{where}: corrupt: dated before rotation {previous.number}")
        for item_id in record.moved_to_training:
            training[item_id] = record.at
        overlap = [item_id for item_id in record.held_out if item_id in training]
        if overlap or len(set(record.held_out)) != len(record.held_out):
            raise StoreError(
                f"{where}: corrupt: held-out set repeats or overlaps training ({overlap[:3]})"
            )
        held_out = record.held_out
        previous = record
    return RotationState(held_out=held_out, training=training, history=tuple(history))


@dataclass(frozen=True)
class RotationPlan:
    """What a rotation would do at `now`, computed without applying it (the preview)."""

    record: RotationRecord
    due: bool
    refusal: str | None
    next_due: str | None
    pool_before: int
    warnings: tuple[str, ...]

    @property
    def allowed(self) -> bool:
        return self.refusal is None


def due_info(
    state: RotationState, now: dt.datetime, period: str
) -> tuple[bool, str | None, str | None]:
    """(due, refusal reason if not due, date of the next due rotation)."""
    last = state.last
    if last is None:
        return True, None, None
    last_start = period_start(last.moment, period)
    if period_start(now, period) > last_start:
        return True, None, None
    upcoming = next_period_start(last_start, period).isoformat()
    reason = (
        f"already rotated in period {period_label(last_start, period)} "
        f"(rotation {last.number} at {last.at}); the next {period} rotation is due on {upcoming}; "
        f"use --force to rotate now"
    )
    return False, reason, upcoming


def plan_rotation(
    items: Sequence[Item],
    state: RotationState,
    now: dt.datetime,
    period: str = DEFAULT_PERIOD,
    force: bool = False,
    seed: int = DEFAULT_SEED,
    benchmark_version: int = 1,
) -> RotationPlan:
    """Preview the next rotation; `refusal` says why it may not be applied (then nothing may change)."""
    check_period(period)
    check_seed(seed)
    now = as_utc(now)
    due, refusal, next_due = due_info(state, now, period)
    if force:
        refusal = None
    last = state.last
    if last is not None and now < last.moment:
        refusal = f"now ({now.isoformat()}) is before the last rotation ({last.at}); rotations are recorded in date order"

    number = len(state.history) + 1
    exposed = set(state.training) | set(state.held_out)
    strata: dict[str, list[str]] = {}
    for item in items:
        strata.setdefault(item.difficulty, []).append(item.id)
    rng = np.random.default_rng([seed, number])
    target: dict[str, int] = {}
    drawn: dict[str, int] = {}
    shortfall: dict[str, int] = {}
    chosen: list[str] = []
    pool_before = 0
    for name in sorted(strata):
        members = sorted(strata[name])
        pool = [item_id for item_id in members if item_id not in exposed]
        pool_before += len(pool)
        target[name] = held_out_target(len(members))
        drawn[name] = min(target[name], len(pool))
        shortfall[name] = target[name] - drawn[name]
        picks: Sequence[int] | np.ndarray = (
            rng.choice(len(pool), drawn[name], replace=False) if drawn[name] else []
        )
        chosen.extend(pool[int(index)] for index in picks)

    record = RotationRecord(
        number=number,
        at=now.isoformat(),
        period=period,
        period_start=period_start(now, period).isoformat(),
        forced=bool(force and not due),
        seed=seed,
        benchmark_version=benchmark_version,
        moved_to_training=state.held_out,
        held_out=tuple(sorted(chosen)),
        target=target,
        drawn=drawn,
        shortfall=shortfall,
        pool_after=pool_before - len(chosen),
    )
    return RotationPlan(
        record=record,
        due=due,
        refusal=refusal,
        next_due=next_due,
        pool_before=pool_before,
        warnings=_warnings(record, items),
    )


def _warnings(record: RotationRecord, items: Sequence[Item]) -> tuple[str, ...]:
    notes = []
    if not record.held_out:
        notes.append(
            "the pool is empty: the new held-out set is empty; import new items (a new version) to refill it"
        )
    else:
        for name, missing in record.shortfall.items():
            if missing:
                notes.append(
                    f"the pool ran dry in stratum {name}: drew {record.drawn[name]} of {record.target[name]}"
                )
    known = {item.id for item in items}
    stale = [item_id for item_id in record.moved_to_training if item_id not in known]
    if stale:
        notes.append(
            f"{counted(len(stale), 'held-out item', verb='are')} not in benchmark version {record.benchmark_version} "
            f"(moved to training all the same): {', '.join(stale[:5])}"
        )
    return tuple(notes)
