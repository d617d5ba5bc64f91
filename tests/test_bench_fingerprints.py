"""Fingerprints in the seed's hash format and the 13-gram contamination check."""

import hashlib
import json

import pytest

from skyt_tui.cli import main
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.fingerprints import (
    check_contamination,
    fingerprint,
    fingerprints,
    item_ngrams,
    tokens,
)
from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.errors import InputError

WORDS = (
    "the quick brown fox jumps over the lazy dog while seven wizards quietly hex a jolly vexed king"
)


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_fingerprint_uses_title_colons_body_and_solution_as_a_titleless_body():
    item = Item(
        id="x",
        difficulty="easy",
        title="Two sum",
        body="Find two numbers.",
        solution="def f(): pass",
        created_at="2023-05-08",
    )
    fp = fingerprint(item, added_to_training="2024-05-20T00:00:00+00:00")
    assert fp.content_hash == sha16("Two sum::Find two numbers.")
    assert fp.solution_hash == sha16("::def f(): pass")
    assert (
        fp.created_at == "2023-05-08"
        and fp.added_to_training == "2024-05-20T00:00:00+00:00"
        and fp.has_text
    )


def test_missing_fields_hash_as_empty_strings_and_no_solution_is_none():
    fp = fingerprint(Item(id="y", difficulty="hard", body="only a body"))
    assert fp.content_hash == sha16("::only a body")
    assert fp.solution_hash is None and fp.created_at is None and fp.added_to_training is None
    assert not fingerprint(Item(id="z", difficulty="hard")).has_text
    assert fingerprint(Item(id="z", difficulty="hard")).content_hash == sha16("::")


def test_fingerprints_take_added_to_training_from_the_rotation_state():
    items = (Item(id="a", difficulty="easy"), Item(id="b", difficulty="easy"))
    prints = fingerprints(items, {"b": "2024-06-01T00:00:00+00:00"})
    assert [fp.added_to_training for fp in prints] == [None, "2024-06-01T00:00:00+00:00"]


def test_tokens_and_ngrams():
    assert tokens("Hello, World! x_1 2nd") == ["hello", "world", "x_1", "2nd"]
    item = Item(id="a", difficulty="easy", body=WORDS)  # 18 words → 6 13-grams
    assert len(item_ngrams(item)) == 6


def test_contamination_counts_shared_13grams_across_lines_and_case(tmp_path):
    # 14 words → 2 of the item's 13-grams
    leaked = " ".join(WORDS.split()[:14]).upper().replace(" OVER ", "\nover ")
    dump = tmp_path / "dump.txt"
    dump.write_text(f"noise before\n{leaked}\nnoise after\n")
    items = (
        Item(id="leaky", difficulty="easy", body=WORDS),
        Item(id="clean", difficulty="easy", body=" ".join(reversed(WORDS.split()))),
        Item(id="short", difficulty="easy", title="Two sum", body="find two numbers"),
        Item(id="empty", difficulty="easy"),
    )
    report = check_contamination(items, dump)
    by_id = {overlap.issue_id: overlap for overlap in report.items}
    assert (by_id["leaky"].shared, by_id["leaky"].ngrams) == (2, 6) and by_id[
        "leaky"
    ].ratio == pytest.approx(2 / 6)
    assert by_id["clean"].shared == 0 and by_id["clean"].status == "checked"
    assert by_id["short"].status == "too short" and by_id["empty"].status == "no text"
    assert [overlap.issue_id for overlap in report.contaminated] == ["leaky"]
    assert report.count("checked") == 2 and report.file_tokens == 18


def test_solution_text_is_checked_too(tmp_path):
    dump = tmp_path / "dump.txt"
    dump.write_text(WORDS)
    report = check_contamination((Item(id="s", difficulty="easy", solution=WORDS),), dump)
    assert report.contaminated[0].shared == 6


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="nope.txt: no such file"):
        check_contamination((), tmp_path / "nope.txt")


def test_cli_fingerprints_and_contamination(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    issues = tmp_path / "issues.jsonl"
    issues.write_text(
        json.dumps(
            {
                "id": "a",
                "difficulty": "easy",
                "title": "T",
                "body": WORDS,
                "created_at": "2024-01-01",
            }
        )
        + "\n"
        + json.dumps({"id": "b", "difficulty": "hard"})
        + "\n"
    )
    bench.import_benchmark("demo", issues)
    assert main(["bench", "fingerprints", "demo", "--json"]) == 0
    prints = json.loads(capsys.readouterr().out)["fingerprints"]
    assert prints[0] == {
        "issue_id": "a",
        "content_hash": sha16(f"T::{WORDS}"),
        "solution_hash": None,
        "created_at": "2024-01-01",
        "added_to_training": None,
        "has_text": True,
    }
    dump = tmp_path / "dump.txt"
    dump.write_text(WORDS)
    assert main(["bench", "contamination", "demo", str(dump), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["contaminated"] == [{"issue_id": "a", "shared": 6, "ngrams": 6, "ratio": 1.0}]
    assert report["no_text"] == 1 and report["checked"] == 1
    assert main(["bench", "contamination", "demo", str(dump)]) == 0
    out = capsys.readouterr().out
    assert (
        "1 of 1 checked item shares 13-grams" in out
        and "cannot check 1 item: 1 without text" in out
    )
