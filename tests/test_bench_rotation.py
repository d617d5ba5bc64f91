"""Rotation: periods and dates, the held-out draw, invariants over any sequence, the append-only history."""

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.cli import main
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.benchmark.rotation import (
    RotationRefused,
    RotationState,
    held_out_target,
    next_period_start,
    parse_now,
    period_label,
    period_start,
    plan_rotation,
    replay,
)
from skyt_tui.engine.errors import InputError, StoreError

UTC = dt.UTC
D = dt.date


def at(text: str) -> dt.datetime:
    return parse_now(text)


@pytest.mark.parametrize(
    ("moment", "monthly", "weekly"),
    [
        ("2024-01-31", D(2024, 1, 1), D(2024, 1, 29)),
        ("2024-02-29", D(2024, 2, 1), D(2024, 2, 26)),  # leap day, a Thursday
        ("2024-03-01", D(2024, 3, 1), D(2024, 2, 26)),  # a week spanning the month end
        ("2024-12-31", D(2024, 12, 1), D(2024, 12, 30)),  # Tuesday; week started Monday 30th
        ("2025-01-01", D(2025, 1, 1), D(2024, 12, 30)),  # same week as above, across the year end
        # a Sunday belongs to the week that began Monday
        ("2024-06-02", D(2024, 6, 1), D(2024, 5, 27)),
        ("2024-06-03", D(2024, 6, 1), D(2024, 6, 3)),  # a Monday starts its own week
        ("2024-03-01T01:00:00+02:00", D(2024, 2, 1), D(2024, 2, 26)),  # still 29 Feb in UTC
        ("2024-02-29T23:30:00-05:00", D(2024, 3, 1), D(2024, 2, 26)),  # already 1 March in UTC
        ("2024-06-02T23:00:00-03:00", D(2024, 6, 1), D(2024, 6, 3)),  # Sunday there, Monday in UTC
        ("2024-05-31T23:59:59", D(2024, 5, 1), D(2024, 5, 27)),  # naive = UTC
    ],
)
def test_period_starts(moment, monthly, weekly):
    assert period_start(at(moment), "monthly") == monthly
    assert period_start(at(moment), "weekly") == weekly


def test_next_period_start_and_labels():
    assert next_period_start(D(2024, 12, 1), "monthly") == D(2025, 1, 1)
    assert next_period_start(D(2024, 1, 1), "monthly") == D(2024, 2, 1)
    assert next_period_start(D(2024, 12, 30), "weekly") == D(2025, 1, 6)
    assert next_period_start(D(2024, 2, 26), "weekly") == D(2024, 3, 4)
    # ISO week of the year it mostly lies in
    assert period_label(D(2024, 12, 30), "weekly") == "2025-W01"
    assert period_label(D(2024, 2, 1), "monthly") == "2024-02"


def test_parse_now_forms():
    assert parse_now("2024-02-29") == dt.datetime(2024, 2, 29, tzinfo=UTC)
    assert parse_now("2024-02-29T10:00") == dt.datetime(2024, 2, 29, 10, tzinfo=UTC)
    assert parse_now("2024-02-29T10:00:00Z") == dt.datetime(2024, 2, 29, 10, tzinfo=UTC)
    assert parse_now("2024-03-01T01:00:00+02:00") == dt.datetime(2024, 2, 29, 23, tzinfo=UTC)
    for bad in ("2023-02-29", "yesterday", "2024-13-01", ""):
        with pytest.raises(InputError, match="^--now: "):
            parse_now(bad)


def test_held_out_target_is_ten_percent_at_least_five_never_more_than_the_stratum():
    assert [held_out_target(n) for n in (0, 3, 5, 49, 50, 51, 142, 1000)] == [
        0,
        3,
        5,
        5,
        5,
        6,
        15,
        100,
    ]


def items_of(easy: int, medium: int, hard: int) -> tuple[Item, ...]:
    items = [Item(id=f"e{i:03d}", difficulty="easy") for i in range(easy)]
    items += [Item(id=f"m{i:03d}", difficulty="medium") for i in range(medium)]
    items += [Item(id=f"h{i:03d}", difficulty="hard") for i in range(hard)]
    return tuple(sorted(items, key=lambda item: item.id))


EMPTY = RotationState(held_out=(), training={}, history=())


def rotate(items, state, when, **kwargs):
    plan = plan_rotation(items, state, at(when), **kwargs)
    assert plan.allowed, plan.refusal
    return replay((*state.history, plan.record)), plan


def test_first_rotation_draws_a_stratified_held_out_and_moves_nothing():
    items = items_of(142, 168, 90)
    state, plan = rotate(items, EMPTY, "2024-05-03")
    assert plan.record.moved_to_training == () and plan.due and not plan.record.forced
    assert plan.record.target == {"easy": 15, "hard": 9, "medium": 17} == plan.record.drawn
    assert len(state.held_out) == 41 and state.training == {}
    assert plan.pool_before == 400 and plan.record.pool_after == 359


def test_second_rotation_in_the_same_month_is_refused_then_forced():
    items = items_of(30, 30, 30)
    state, _ = rotate(items, EMPTY, "2024-05-03")
    refused = plan_rotation(items, state, at("2024-05-31T23:59:59"))
    assert not refused.allowed and refused.next_due == "2024-06-01"
    assert (
        "already rotated in period 2024-05" in refused.refusal
        and "due on 2024-06-01" in refused.refusal
    )
    forced_state, forced = rotate(items, state, "2024-05-20", force=True)
    assert forced.record.forced and forced.record.moved_to_training == state.held_out
    assert all(
        forced_state.training[item_id] == "2024-05-20T00:00:00+00:00" for item_id in state.held_out
    )
    _, june = rotate(items, forced_state, "2024-06-01")
    assert june.due and not june.record.forced


def test_weekly_rotation_is_due_on_the_next_monday():
    items = items_of(30, 30, 30)
    state, _ = rotate(items, EMPTY, "2024-06-05", period="weekly")  # Wednesday
    assert not plan_rotation(
        items, state, at("2024-06-09T23:59"), period="weekly"
    ).allowed  # Sunday
    assert plan_rotation(items, state, at("2024-06-10"), period="weekly").allowed  # Monday


def test_a_rotation_dated_before_the_last_is_refused_even_when_forced():
    items = items_of(30, 30, 30)
    state, _ = rotate(items, EMPTY, "2024-05-03")
    plan = plan_rotation(items, state, at("2024-05-02"), force=True)
    assert not plan.allowed and "before the last rotation" in plan.refusal


def test_dry_pool_is_reported_and_leaves_an_empty_held_out():
    items = items_of(6, 5, 0)  # targets 5 and 5
    state, _ = rotate(items, EMPTY, "2024-01-01")
    state, second = rotate(items, state, "2024-02-01")
    assert second.record.drawn == {"easy": 1, "medium": 0} and second.record.shortfall == {
        "easy": 4,
        "medium": 5,
    }
    assert any(
        "pool ran dry in stratum easy: drew 1 of 5" in warning for warning in second.warnings
    )
    state, third = rotate(items, state, "2024-03-01")
    assert third.record.held_out == () and any(
        "the pool is empty" in warning for warning in third.warnings
    )
    assert set(state.training) == {item.id for item in items}
    # nothing left to move or draw: still no crash
    state, fourth = rotate(items, state, "2024-04-01")
    assert fourth.record.moved_to_training == () and state.held_out == ()


def test_replay_rejects_a_tampered_history():
    items = items_of(20, 20, 20)
    state, _ = rotate(items, EMPTY, "2024-01-01")
    state, plan = rotate(items, state, "2024-02-01")
    broken = plan.record.__class__(**{**plan.record.__dict__, "moved_to_training": ()})
    with pytest.raises(StoreError, match="moved items differ"):
        replay((state.history[0], broken))


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40)),
    steps=st.lists(
        st.tuples(st.integers(0, 70), st.booleans(), st.sampled_from(["monthly", "weekly"])),
        max_size=12,
    ),
    seed=st.integers(0, 1000),
)
def test_rotation_invariants(sizes, steps, seed):
    items = items_of(*sizes)
    all_ids = {item.id for item in items}
    state = EMPTY
    day = dt.datetime(2023, 12, 25, 12, tzinfo=UTC)
    for gap_days, force, period in steps:
        day += dt.timedelta(days=gap_days)
        plan = plan_rotation(items, state, day, period=period, force=force, seed=seed)
        if not plan.allowed:
            assert not force and not plan.due
            continue
        before = state
        state = replay((*state.history, plan.record))
        held, training = set(state.held_out), set(state.training)
        pool = all_ids - held - training
        assert not held & training  # held-out never overlaps training
        assert len(held) == len(state.held_out)  # no duplicates
        assert held | training | pool == all_ids  # nothing lost
        assert set(before.training) <= training  # training only grows
        assert held <= all_ids - set(before.held_out) - set(before.training)  # fresh items only
        for (
            item_id
        ) in training:  # added_to_training set exactly when an item moves, never changed later
            expected = before.training.get(item_id, plan.record.at)
            assert state.training[item_id] == expected
            assert (item_id in before.held_out) == (item_id not in before.training)
        for name, target in plan.record.target.items():
            members = [item for item in items if item.difficulty == name]
            assert (
                plan.record.drawn[name] + plan.record.shortfall[name]
                == target
                == held_out_target(len(members))
            )


@pytest.fixture
def lcb_like(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    issues = tmp_path / "issues.jsonl"
    issues.write_text(
        "".join(
            json.dumps({"id": item.id, "difficulty": item.difficulty}) + "\n"
            for item in items_of(40, 50, 30)
        )
    )
    bench.import_benchmark("demo", issues)
    return tmp_path / "home" / "benchmarks" / "demo"


def test_rotating_twice_by_hand_in_one_month_through_the_cli(lcb_like, capsys):
    assert main(["bench", "rotate", "demo", "--now", "2024-05-03"]) == 0
    assert main(["bench", "rotate", "demo", "--now", "2024-05-20"]) == 1
    out = capsys.readouterr().out
    assert "rotation refused" in out and "due on 2024-06-01" in out
    assert len((lcb_like / "rotations.jsonl").read_text().splitlines()) == 1
    assert main(["bench", "rotate", "demo", "--now", "2024-05-20", "--force"]) == 0
    capsys.readouterr()
    assert main(["bench", "status", "demo", "--now", "2024-05-21", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)["rotation"]
    assert [record["forced"] for record in status["history"]] == [False, True]
    first, second = status["history"]
    assert second["moved_to_training"] == first["held_out"]
    assert set(status["training"]) == set(first["held_out"])
    assert set(status["training"].values()) == {"2024-05-20T00:00:00+00:00"}
    assert status["held_out"] == second["held_out"] and status["next_rotation"] == "2024-06-01"
    exposed = set(status["training"]) | set(status["held_out"])
    assert len(exposed) == len(status["training"]) + len(status["held_out"])
    assert sum(status["pool"].values()) == 120 - len(exposed)


def test_preview_writes_nothing_and_matches_the_applied_rotation(lcb_like):
    now = at("2024-05-03")
    preview = bench.preview_rotation("demo", now)
    assert not (lcb_like / "rotations.jsonl").exists()
    applied = bench.apply_rotation("demo", now)
    assert applied.record == preview.record
    with pytest.raises(RotationRefused):
        bench.apply_rotation("demo", at("2024-05-04"))
    assert len(bench.rotation_history("demo")) == 1


def test_rotate_if_due_is_the_automatic_rotation(lcb_like):
    assert bench.rotate_if_due("demo", at("2024-05-03")).record.number == 1
    assert bench.rotate_if_due("demo", at("2024-05-31T23:59:59")) is None
    # 1 June in UTC
    assert bench.rotate_if_due("demo", at("2024-05-31T23:30:00-01:00")).record.number == 2
    assert len(bench.rotation_history("demo")) == 2


def test_dry_run_flag(lcb_like, capsys):
    assert main(["bench", "rotate", "demo", "--now", "2024-05-03", "--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["allowed"] and len(plan["rotation"]["held_out"]) == 15
    assert not (lcb_like / "rotations.jsonl").exists()


def test_new_version_without_some_held_out_items_is_reported_as_stale(lcb_like, tmp_path):
    bench.apply_rotation("demo", at("2024-05-03"))
    held = bench.rotation_state("demo").held_out
    smaller = tmp_path / "smaller.jsonl"
    kept = [item for item in items_of(40, 50, 30) if item.id != held[0]]
    smaller.write_text(
        "".join(json.dumps({"id": item.id, "difficulty": item.difficulty}) + "\n" for item in kept)
    )
    assert bench.import_benchmark("demo", smaller).version.version == 2
    status = bench.rotation_status("demo", at("2024-06-02"))
    assert status.stale == (held[0],) and status.benchmark_version == 2 and status.due
    plan = bench.apply_rotation("demo", at("2024-06-02"))
    assert held[0] in plan.record.moved_to_training and plan.record.benchmark_version == 2
    assert any("not in benchmark version 2" in warning for warning in plan.warnings)
