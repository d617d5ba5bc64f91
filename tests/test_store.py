"""The store's primitives: atomic writes, append-only logs, schema versions, the errors for corrupt files,
and the lock."""

import json
import multiprocessing
import os

import pytest

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.errors import StoreError


def test_write_and_read_json_round_trip(tmp_path):
    path = tmp_path / "run.json"
    store.write_json(path, {"id": "r1", "metrics": {"R_raw": 0.5}}, kind="run")
    document = store.read_json(path, kind="run")
    assert document["schema_version"] == store.SCHEMA_VERSION and document["metrics"] == {
        "R_raw": 0.5
    }
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temp file left behind"


def test_failed_write_leaves_old_file_intact(tmp_path):
    path = tmp_path / "run.json"
    store.write_json(path, {"id": "old"}, kind="run")
    with pytest.raises(TypeError):
        store.write_json(path, {"id": object()}, kind="run")
    assert store.read_json(path)["id"] == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "corrupt JSON at line 1"),
        ("[1, 2]", "expected a JSON object"),
        ('{"kind": "run"}', "missing or invalid schema_version"),
        ('{"schema_version": 99, "kind": "run"}', "newer skyt-tui"),
        ('{"schema_version": 1, "kind": "canon"}', "expected 'run'"),
    ],
)
def test_corrupt_json_names_the_file_and_is_not_overwritten(tmp_path, content, reason):
    path = tmp_path / "run.json"
    path.write_text(content)
    with pytest.raises(StoreError) as info:
        store.read_json(path, kind="run")
    message = str(info.value)
    assert str(path) in message and reason in message and "\n" not in message
    assert path.read_text() == content


def test_non_utf8_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(StoreError, match="not UTF-8"):
        store.read_json(path)


def test_jsonl_append_and_torn_tail(tmp_path):
    path = tmp_path / "samples.jsonl"
    store.append_jsonl(path, {"index": 0})
    store.append_jsonl(path, {"index": 1})
    with open(path, "ab") as handle:  # what a kill mid-append leaves behind
        handle.write(b'{"index": 2, "co')
    assert [r["index"] for r in store.read_jsonl(path)] == [0, 1]
    store.append_jsonl(path, {"index": 2})
    assert [r["index"] for r in store.read_jsonl(path)] == [0, 1, 2]
    assert b'{"index": 2, "co\n' in path.read_bytes(), "the torn fragment is kept, not deleted"


def test_jsonl_corruption_in_the_middle_is_reported(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text('{"index": 0}\nGARBAGE\n{"index": 2}\n')
    with pytest.raises(StoreError, match=r"samples.jsonl: corrupt record at line 2"):
        store.read_jsonl(path)


def test_jsonl_rejects_newer_schema(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"schema_version": 7, "index": 0}) + "\n")
    with pytest.raises(StoreError, match="newer skyt-tui"):
        store.read_jsonl(path)


def test_toml_round_trip_and_error(tmp_path):
    path = tmp_path / "settings.toml"
    store.write_toml(path, {"provider": {"model": "m"}})
    assert store.read_toml(path) == {"schema_version": 1, "provider": {"model": "m"}}
    path.write_text("provider = [")
    with pytest.raises(StoreError, match="settings.toml: invalid TOML"):
        store.read_toml(path)


def _hold_lock(ready, release):
    with store.store_lock():
        ready.set()
        release.wait(10)


def test_lock_excludes_a_second_process():
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold_lock, args=(ready, release))
    holder.start()
    try:
        assert ready.wait(10)
        with pytest.raises(StoreError, match=r"locked by another skyt-tui process \(pid \d+\)"):
            with store.store_lock(timeout_s=0.3):
                pass
    finally:
        release.set()
        holder.join(10)
    with store.store_lock(timeout_s=1):
        assert locations.lock_file().read_text() == str(os.getpid())
