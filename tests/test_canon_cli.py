"""`skyt-tui canon list|show|history|reestablish` over a store filled by the demo."""

import json

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.demo import create_demo_runs
from skyt_tui.engine.runs.run_store import list_runs

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture
def demo_store(isolated_home):
    create_demo_runs()
    return {s.meta.contract_id: s.id for s in list_runs()}


def test_list_and_show(demo_store, capsys):
    assert main(["canon", "list", "--json"]) == 0
    canons = {c["contract_id"]: c for c in json.loads(capsys.readouterr().out)["canons"]}
    assert set(canons) == set(demo_store) and all(c["status"] == "ok" for c in canons.values())
    assert canons["slugify"]["provenance"]["run_id"] == demo_store["slugify"]
    assert main(["canon", "show", "slugify"]) == 0
    assert "def slugify" in capsys.readouterr().out


def test_show_unknown_contract_is_a_clear_error(demo_store, capsys):
    assert main(["canon", "show", "nope"]) == 2
    assert "has no canon yet" in capsys.readouterr().err


def test_reestablish_keeps_history(demo_store, capsys):
    before = canon_store.load_canon("slugify").canon
    assert main(["canon", "reestablish", "slugify", "--from", demo_store["slugify"]]) == 0
    assert "previous canon is kept" in capsys.readouterr().out
    assert main(["canon", "history", "slugify", "--json"]) == 0
    events = json.loads(capsys.readouterr().out)["events"]
    assert [e["event"] for e in events] == ["established", "reestablished"]
    assert events[1]["previous"]["content_hash"] == before.content_hash


def test_reestablish_from_a_run_of_another_contract_is_refused(demo_store, capsys):
    before = canon_store.canon_path("slugify").read_bytes()
    assert main(["canon", "reestablish", "slugify", "--from", demo_store["lru_cache"]]) == 2
    assert "is for contract 'lru_cache', not 'slugify'" in capsys.readouterr().err
    assert canon_store.canon_path("slugify").read_bytes() == before


def test_tampered_canon_shows_as_tampered_and_is_not_used(demo_store, capsys):
    path = canon_store.canon_path("slugify")
    document = json.loads(path.read_text())
    document["code"] += "\n# edited by hand\n"
    path.write_text(json.dumps(document))
    assert main(["canon", "list", "--json"]) == 0
    states = {c["contract_id"]: c["status"] for c in json.loads(capsys.readouterr().out)["canons"]}
    assert states["slugify"] == "tampered"
    assert main(["report", demo_store["slugify"], "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["canon"]["status"] == "tampered" and report["metrics"]["R_anchor_pre"] is None
