"""Every version, every task (issue 35): files written by other releases of the tools, MBPP and
MBPP+, chat templates, pass@k and crashed runs, read as their tools scored them.

The files under tests/fixtures/formats/real/<tool>-<version>/ were written by the tools
themselves (`python3 scripts/coming_from.py`, each release in its own environment, against the
project's fake server); the MBPP tasks are the project's own (tests/fixtures/mbpp,
tests/fixtures/formats/mbpp_study.py). Each observed defect of the issue has its test here,
named after it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.sources.extract import assemble_completion
from skyt_tui.engine.sources.humaneval import load_problems, problem_contract
from tests.ui_support import pilot_test

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "formats" / "real"
FORMATS = ROOT / "tests" / "fixtures" / "formats"
MBPP = ROOT / "tests" / "fixtures" / "mbpp"
STUDY_PLUS = FORMATS / "evalplus" / "StudyPlus.jsonl"


def analyze(capsys, *args: str) -> dict:
    assert main(["analyze", *args, "--json", "--samples", "--no-repair"]) == 0
    return json.loads(capsys.readouterr().out)


def one_source(capsys, *args: str) -> dict:
    [entry] = analyze(capsys, *args)["sources"]
    return entry


def samples_file(folder: Path) -> str:
    [found] = folder.glob("samples_*.jsonl")
    return str(found)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


# ---- 1. inspect_ai 0.3.90: the answer is in output.choices, not output.completion ---------


@pytest.mark.parametrize("log", ["humaneval.eval", "humaneval-study0.json"])
def test_1_inspect_0_3_90_answers_are_read_from_the_first_choice(capsys, log):
    """Before: every answer lost (n=0, pass 0.000 by skyt-tui beside 0.556 by inspect)."""
    out = analyze(capsys, str(REAL / "inspect-0.3.90" / log))
    [entry] = out["sources"]
    samples = [s for run in out["runs"] for s in run["samples"]]
    assert all(s.get("extraction") for s in samples)  # every sample has its answer
    if log.endswith(".eval"):
        assert entry["samples"] == 9
        assert entry["pass_rate"] == pytest.approx(6 / 9)
        assert entry["tool_pass_rate"] == pytest.approx(5 / 9)
        assert entry["disagreements"] == 1  # the prose-then-function answer, as documented
    else:  # the .json log (inspect log convert), sliced to Study/0's three epochs
        assert entry["samples"] == 3
        assert entry["pass_rate"] == pytest.approx(2 / 3)
        assert entry["tool_pass_rate"] == pytest.approx(1 / 3)


def test_1_an_imported_inspect_0_3_90_run_keeps_its_answers(isolated_home, capsys):
    assert main(["import", str(REAL / "inspect-0.3.90" / "humaneval.eval"), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)["created"]
    stored = [run_store.load_run(run_id) for run_id in created]
    assert sum(run.n_ok for run in stored) == 9  # before: 0, every sample "no output recorded"


# ---- 2. lm-eval humaneval_instruct with --apply_chat_template: the closing fence ------------


@pytest.mark.parametrize("version", ["0.4.10", "0.4.13"])
def test_2_lm_eval_instruct_answers_end_at_the_fence_the_prefill_opened(capsys, version):
    """Before: 0.000 by skyt-tui against lm-eval's 1.000 (every program a syntax error)."""
    out = analyze(capsys, samples_file(REAL / f"lm-eval-{version}" / "humaneval_instruct"))
    [entry] = out["sources"]
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"]) == pytest.approx(1.0)
    assert entry["disagreements"] == 0
    methods = {s["extraction"] for run in out["runs"] for s in run["samples"]}
    assert methods == {"completion-fence-closed"}  # the rule applied is recorded


def test_2_the_fence_rule_cuts_as_lm_evals_filter_and_only_after_an_open_fence():
    prompt = "def f(x):\n"
    answer = "    return x\n```\n\nThis defines f.\ndef g(): pass\n"
    closed = assemble_completion(answer, prompt=prompt, entry="f", open_fence=True)
    assert closed.code == "def f(x):\n    return x\n"
    assert closed.kind == "truncated_at" and closed.cut_at == "```"
    plain = assemble_completion("    return x\n", prompt=prompt, entry="f", open_fence=True)
    assert plain.code == "def f(x):\n    return x\n"


# ---- 3. lm-eval humaneval_64: pass@2 is not pass@1 ------------------------------------------


@pytest.mark.parametrize("version", ["0.4.10", "0.4.13"])
def test_3_lm_eval_pass_at_k_is_read_back_as_pass_at_1(capsys, version):
    """Before: skyt-tui's pass@1 compared with lm-eval's pass@2 (0.630 vs 0.836, 39
    disagreements on counts that were in fact identical)."""
    entry = one_source(capsys, samples_file(REAL / f"lm-eval-{version}" / "humaneval_64"))
    assert entry["samples"] == 64
    assert entry["tool_metric"] == "pass@1 (from pass@2)"
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"])
    assert entry["disagreements"] == 0
    assert "read back" in entry["tool_note"]


def test_3_a_pass_at_k_is_read_back_only_when_one_count_gives_it():
    from skyt_tui.engine.sources.formats.lm_eval import passing_from_pass_at_k

    assert passing_from_pass_at_k(0.8854166666666666, 64, 2) == 42
    assert passing_from_pass_at_k(0.5, 64, 2) is None  # no count gives exactly 0.5
    assert passing_from_pass_at_k(1.0, 64, 8) is None  # 57 … 64 all give 1.0
    assert passing_from_pass_at_k(0.0, 64, 8) == 0


# ---- 4. crashed runs: an error, a cancelled run --------------------------------------------


@pytest.mark.parametrize(
    ("log", "status", "recorded"),
    [
        ("inspect-0.3.90/error.eval", "error", 3),
        ("inspect-0.3.285/error.eval", "error", 4),
        ("inspect-0.3.285/cancelled.eval", "cancelled", 6),
    ],
)
def test_4_a_run_that_stopped_says_so_and_no_pass_rate_is_complete(capsys, log, status, recorded):
    """Before: pass 0.000 (or a rate over what was recorded) with no word of the error."""
    out = analyze(capsys, str(REAL / log))
    [entry] = out["sources"]
    assert entry["complete"] is False
    ended = entry["tool_run"]
    assert ended["status"] == status and ended["samples_expected"] == 9
    assert ended["samples_recorded"] == recorded == entry["samples"]
    assert "recorded samples only" in entry["pass_rate_covers"]
    if status == "error":
        assert "went away" in ended["error"]  # the scorer's own exception, as Inspect logged it
    assert all(run["tool_run"]["complete"] is False for run in out["runs"])
    assert main(["analyze", str(REAL / log), "--no-repair"]) == 0
    printed = capsys.readouterr().out
    assert "INCOMPLETE: the inspect run" in printed
    assert f"{recorded} of 9 samples recorded" in printed


def test_4_import_and_report_keep_the_crash(isolated_home, capsys):
    log = REAL / "inspect-0.3.90" / "error.eval"
    assert main(["import", str(log), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)["created"]
    assert created
    meta = run_store.load_meta(created[0])
    assert meta.origin["tool_run"]["status"] == "error"
    assert run_store.load_run(created[0]).state == run_store.INCOMPLETE
    assert main(["report", created[0]]) == 0
    printed = capsys.readouterr().out
    assert "INCOMPLETE: the inspect run stopped on an error" in printed
    assert main(["report", created[0], "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["provenance"]["tool_run"]["complete"] is False
    assert main(["runs", "list"]) == 0
    assert "incomplete" in capsys.readouterr().out


def test_4_a_log_never_finished_is_cut_short(tmp_path, capsys):
    """A `.eval` without header.json (only `_journal/start.json`, as Inspect leaves a run that
    never finished): cut short, the samples it holds read, the expected count from the spec."""
    import zipfile

    from skyt_tui.engine.sources.files import ZipMembers

    source = REAL / "inspect-0.3.90" / "humaneval.eval"
    members = ZipMembers(source.read_bytes(), source)
    cut = tmp_path / "cut.eval"
    with zipfile.ZipFile(cut, "w", zipfile.ZIP_DEFLATED) as new:
        for name in members.names:
            if name == "_journal/start.json" or name.startswith("samples/Study/0_"):
                new.writestr(name, members.read(name))
    entry = one_source(capsys, str(cut))
    assert entry["tool_run"]["status"] == "cut-short"
    assert entry["tool_run"]["samples_expected"] == 9
    assert entry["samples"] == entry["tool_run"]["samples_recorded"] == 3


# ---- 5. MBPP everywhere ------------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.3.90", "0.3.285"])
def test_5_inspect_mbpp_samples_carry_their_tests(capsys, version):
    """Before: refused (no contract for the integer sample ids)."""
    out = analyze(capsys, str(REAL / f"inspect-{version}" / "mbpp.eval"))
    [entry] = out["sources"]
    assert entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"]) == pytest.approx(5 / 9)
    assert {run["contract_id"] for run in out["runs"]} == {"Mbpp_901", "Mbpp_902", "Mbpp_903"}


@pytest.mark.parametrize("layout", ["mbpp.jsonl", "mbpp_sanitized.jsonl", "MbppStudyPlus.jsonl"])
def test_5_mbpp_problems_in_each_layout_become_the_same_tests(layout):
    problems = load_problems(MBPP / layout)
    assert list(problems) == ["Mbpp/901", "Mbpp/902", "Mbpp/903"]
    roots = problem_contract(problems["Mbpp/903"])
    assert roots.prompt_style == "instruction" and roots.entry.name == "roots"
    assert [t.name for t in roots.tests] == [f"Mbpp/903 check[{k}]" for k in (1, 2, 3)]
    if layout == "mbpp.jsonl":
        vowels = problem_contract(load_problems(MBPP / layout)["Mbpp/901"])
        assert vowels.source["challenge_tests_not_run"] == 1
        assert problem_contract(problems["Mbpp/903"]).source["test_setup_not_run"] == "import math"


@pytest.mark.parametrize("problems", ["mbpp.jsonl", "references"])
def test_5_bigcode_mbpp_generations(capsys, problems):
    folder = FORMATS / "bigcode" / "mbpp"
    given = MBPP / problems if problems.endswith("jsonl") else folder / "references_mbpp.json"
    entry = one_source(capsys, str(folder / "generations_mbpp.json"), "--problems", str(given))
    assert entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"]) == pytest.approx(5 / 9)


@pytest.mark.parametrize(
    ("version", "dataset_kind"),
    [("0.2.0", "humaneval"), ("0.2.0", "mbpp"), ("0.3.1", "mbpp")],
)
def test_5_6_evalplus_results_with_the_samples_beside(capsys, version, dataset_kind):
    """Before: EvalPlus 0.2.0's per-task layout refused ("a JSONL"), MBPP+ refused."""
    folder = REAL / f"evalplus-{version}" / dataset_kind
    dataset = STUDY_PLUS if dataset_kind == "humaneval" else MBPP / "MbppStudyPlus.jsonl"
    entry = one_source(
        capsys, str(folder / "samples_eval_results.json"), "--problems", str(dataset)
    )
    assert entry["samples"] == 9 and entry["disagreements"] == 0
    rates = entry["evalplus"]
    assert rates["base"]["skyt"] == pytest.approx(rates["base"]["tool"])
    assert rates["plus"]["skyt"] == pytest.approx(rates["plus"]["tool"])


@pytest.mark.parametrize(("version", "rate"), [("0.4.10", 1.0), ("0.4.13", 0.0)])
def test_5_lm_eval_mbpp_documents_are_tasks(capsys, version, rate):
    """Before: refused ("contract 'doc_0' is not known"); lm-eval's filter none runs the answer
    as it is, and so does skyt-tui (recorded as such): 0.4.13's file holds fenced answers,
    which fail there as here."""
    out = analyze(capsys, samples_file(REAL / f"lm-eval-{version}" / "mbpp"))
    [entry] = out["sources"]
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"]) == pytest.approx(rate)
    assert {run["contract_id"] for run in out["runs"]} == {"Mbpp_901", "Mbpp_902", "Mbpp_903"}
    assert {s["extraction"] for run in out["runs"] for s in run["samples"]} == {"as-recorded"}


# ---- 6. promptfoo results version 2 ---------------------------------------------------------


@pytest.mark.parametrize("given", [(), ("--format", "promptfoo")])
def test_6_promptfoo_results_version_2(capsys, given):
    """Before: unsupported, and with --format promptfoo "invalid JSON" of a valid file."""
    entry = one_source(capsys, str(REAL / "promptfoo-0.80.3" / "results.json"), *given)
    assert entry["format"] == "promptfoo" and entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(6 / 9)
    assert entry["tool_pass_rate"] == pytest.approx(5 / 9)  # the prose answer, as documented
    assert entry["disagreements"] == 1


# ---- 7. correct answers failed by the product's own rules -----------------------------------

HELPER_PROMPT = '''def encode_pairs(s: str) -> str:
    """Swap each pair of characters."""
    return "".join(s[i + 1 : i + 2] + s[i] for i in range(0, len(s), 2))


def decode_pairs(s: str) -> str:
    """Take a string encoded with encode_pairs and return the original.
    >>> decode_pairs(encode_pairs("abcd"))
    'abcd'
    """
'''


def test_7_a_whole_answer_keeps_the_helper_its_prompt_defines(tmp_path, capsys):
    """Before: the answer taken whole lost `encode_pairs`, and failed with a NameError."""
    problem = {
        "task_id": "Pairs/0",
        "prompt": HELPER_PROMPT,
        "entry_point": "decode_pairs",
        "canonical_solution": "    return encode_pairs(s)\n",
        "test": "def check(candidate):\n    assert candidate(encode_pairs('abcdef')) == 'abcdef'\n"
        "    assert candidate('') == ''\n",
    }
    answer = "def decode_pairs(s: str) -> str:\n    return encode_pairs(s)\n"
    folder = tmp_path / "pairs"
    folder.mkdir()
    (folder / "problems.jsonl").write_text(json.dumps(problem) + "\n")
    (folder / "samples.jsonl").write_text(
        json.dumps({"task_id": "Pairs/0", "completion": answer}) + "\n"
    )
    out = analyze(capsys, str(folder))
    [sample] = out["runs"][0]["samples"]
    assert sample["passed"] is True
    assembled = assemble_completion(answer, prompt=HELPER_PROMPT, entry="decode_pairs")
    assert assembled.kind == "full_function"
    assert assembled.code.index("def encode_pairs") < assembled.code.index("def decode_pairs")


# ---- 8. messages -----------------------------------------------------------------------------


def test_8_a_truncated_eval_is_named_as_such(tmp_path):
    data = (REAL / "inspect-0.3.90" / "humaneval.eval").read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(data[: len(data) // 2])
    done = run_cli("analyze", str(cut))
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "an Inspect log (.eval) that cannot be opened" in line
    assert "not an Inspect log" not in line


def test_8_json_errors_keep_their_position_at_the_end_of_a_line(tmp_path):
    document = tmp_path / "cut.json"
    document.write_text('{"results": {"results": [\n  {"a": 1,\n')
    done = run_cli("analyze", str(document))
    assert done.returncode == 2
    assert "at the end of line 2" in done.stderr
    lines = tmp_path / "cut.jsonl"
    lines.write_text('{"task_id": "x", "completion": "y"}\n{"task_id": "x", "completion": \n')
    done = run_cli("analyze", str(lines), "--format", "humaneval")
    assert done.returncode == 2
    assert "line 2: invalid JSON at the end of the line" in done.stderr


def test_8_an_lm_eval_results_file_points_to_its_samples():
    [results] = (REAL / "lm-eval-0.4.10" / "humaneval_instruct").glob("results_*.json")
    done = run_cli("analyze", str(results))
    assert done.returncode == 2
    assert "give the samples_<task>_<date>.jsonl beside it" in done.stderr


def test_8_the_batch_hint_knows_problems_were_given(tmp_path):
    requests = tmp_path / "in.jsonl"
    output = tmp_path / "out.jsonl"
    body = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    requests.write_text(
        json.dumps({"custom_id": "zzz-1", "method": "POST", "url": "/v1/chat", "body": body}) + "\n"
    )
    output.write_text(json.dumps({"custom_id": "zzz-1", "response": None, "error": None}) + "\n")
    problems = ROOT / "tests" / "fixtures" / "humaneval_full" / "problems.jsonl"
    done = run_cli("analyze", str(output), "--requests", str(requests), "--problems", str(problems))
    assert done.returncode == 2
    assert "give --problems" not in done.stderr
    assert "neither starts with a task id of" in done.stderr


@pilot_test
async def test_4_the_apps_runs_list_and_run_view_say_a_run_is_incomplete(isolated_home, capsys):
    """The app's Runs list shows an imported crashed run as `incomplete 1/9`-style, and its run
    view says what happened (before: `complete`, and nothing)."""
    from textual.widgets import DataTable

    from skyt_tui.ui.app import SkytApp
    from tests.test_ui_runs import open_run
    from tests.ui_support import clock, screen_text, settle

    assert main(["import", str(REAL / "inspect-0.3.90" / "error.eval"), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)["created"]
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        screen = await open_run(pilot, created[0])
        assert "INCOMPLETE: the inspect run stopped on an error" in screen_text(app)
        assert screen is not None
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        cell = str(table.get_cell(created[0], "state"))
        assert cell.startswith("incomplete") and cell.endswith("/3")  # of its 3 epochs


def test_7_a_benchmarks_own_large_outputs_are_judged_not_refused(tmp_path, capsys):
    """Before: "returned an integer of more than 65,536 bits" (HumanEval/139's
    special_factorial on EvalPlus's inputs) and "result too large to judge: more than 16 MiB"
    (HumanEval/15's string_sequence): correct answers failed by the product's own limits.
    The same shapes here, on the project's own tasks: an integer of 79,249 bits, and 22 MB of
    results over one test's inputs."""
    tasks = [
        ("Big/0", "power_of_three", "n", "    return 3 ** n\n", [[50_000]], [[49_999]]),
        (
            "Big/1",
            "count_up",
            "n",
            "    return ' '.join(str(k) for k in range(n))\n",
            [[5]],
            [[40_000]] * 100,
        ),
    ]
    dataset = tmp_path / "BigPlus.jsonl"
    rows, results = [], {}
    for task_id, entry, argument, body, base, plus in tasks:
        prompt = f"def {entry}({argument}):\n    '''Project-written.'''\n"
        rows.append(
            {
                "task_id": task_id,
                "prompt": prompt,
                "entry_point": entry,
                "canonical_solution": body,
                "test": f"def check(candidate):\n    assert candidate(1) == {entry}(1)\n",
                "base_input": base,
                "plus_input": plus,
                "atol": 0,
            }
        )
        results[task_id] = [
            {
                "task_id": task_id,
                "solution": prompt + body,
                "base_status": "pass",
                "plus_status": "pass",
                "base_fail_tests": [],
                "plus_fail_tests": [],
            }
        ]
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    found = tmp_path / "big_eval_results.json"
    found.write_text(json.dumps({"date": "x", "hash": "x", "eval": results}))
    out = analyze(capsys, str(found), "--problems", str(dataset))
    for run in out["runs"]:
        [sample] = run["samples"]
        assert sample["passed"] is True, sample["oracle"]["reason"]


def test_5_bigcode_mbpp_against_the_whole_mbpp_runs_its_test_split(tmp_path, capsys):
    """The harness's mbpp task runs MBPP's test split (tasks 11-510): given the whole MBPP,
    generation 0 is task 11, not task 1."""
    rows = [
        {
            "task_id": k,
            "text": f"Return x ({k}).",
            "code": "",
            "test_list": [f"assert f{k}(1) == 1"] * 3,
            "test_setup_code": "",
            "challenge_test_list": [],
        }
        for k in range(1, 975)
    ]
    whole = tmp_path / "mbpp.jsonl"
    whole.write_text("".join(json.dumps(row) + "\n" for row in rows))
    folder = tmp_path / "out"
    folder.mkdir()
    generations = [[f'"""\nReturn x ({k}).\n"""\ndef f{k}(x):\n    return x\n'] for k in (11, 12)]
    (folder / "generations_mbpp.json").write_text(json.dumps(generations))
    out = analyze(capsys, str(folder / "generations_mbpp.json"), "--problems", str(whole))
    assert [run["contract_id"] for run in out["runs"]] == ["Mbpp_11", "Mbpp_12"]
    assert all(s["passed"] for run in out["runs"] for s in run["samples"])
