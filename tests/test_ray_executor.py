"""The Ray executor on a real local cluster (a head and a second raylet on 127.0.0.1): the same
bytes as the local executor, nothing lost or counted twice when a raylet dies mid-run, a node
without bubblewrap that says so, Ctrl-C that stops the cluster's work, and one line when no
cluster or no `ray` extra is there. The hostile suite runs through it in tests/test_hostile.py.

Data are small slices of ../shared/corpus (bench/scale_ray.py runs the whole corpora).
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.executor.choice import Executor, ExecutorError, choose_executor
from tests.corpus import require
from tests.ray_cluster import free_ports
from tests.run_helpers import popen_interruptible

ROOT = Path(__file__).resolve().parents[1]
SKYT_FILES = 9
"""SKYT experiment files in the slice: every 27th of the 240, so every contract appears."""
HUMANEVAL_TASKS = ("HumanEval/0", "HumanEval/2", "HumanEval/4")
HUMANEVAL_SAMPLES = 40
"""Samples per task in the slice (the first ones, in generation order)."""


def skyt_slice() -> list[str]:
    files = sorted(require("skyt-msr2026", "outputs").glob("*.json"))
    return [str(path) for path in files[:: len(files) // SKYT_FILES]][:SKYT_FILES]


def humaneval_slice(
    folder: Path, samples: int = HUMANEVAL_SAMPLES, tasks: tuple[str, ...] = HUMANEVAL_TASKS
) -> Path:
    """A human-eval folder with a few tasks of the corpus (its own problems.jsonl and samples.jsonl)."""
    source = require("humaneval-codegen16b")
    folder.mkdir(parents=True, exist_ok=True)
    problems = [
        line
        for line in (source / "problems.jsonl").read_text().splitlines()
        if json.loads(line)["task_id"] in tasks
    ]
    kept: dict[str, int] = {}
    lines = []
    for line in (source / "samples.jsonl").read_text().splitlines():
        task = json.loads(line)["task_id"]
        if task in tasks and kept.get(task, 0) < samples:
            kept[task] = kept.get(task, 0) + 1
            lines.append(line)
    (folder / "problems.jsonl").write_text("\n".join(problems) + "\n")
    (folder / "samples.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def cli(*args, home, env=None, timeout=600):
    """`python -m skyt_tui ARGS` from the checkout, with its own store; the completed process."""
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        cwd=ROOT,
        env={**os.environ, "SKYT_HOME": str(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def back_to_local():
    """In-process commands choose the executor for the process: the next test starts local."""
    yield
    choose_executor("local")


def unreachable_address() -> str:
    return f"127.0.0.1:{free_ports(1)[0]}"


# ---- one line, exit 2: no cluster, no extra, options that do not apply ------------------------


def test_no_cluster_reachable_is_one_line_exit_2(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is not installed")
    source = skyt_slice()[0]
    address = unreachable_address()
    by_option = cli("analyze", source, "--executor", "ray", "--ray-address", address, home=tmp_path)
    assert by_option.returncode == 2
    assert by_option.stdout == ""
    assert by_option.stderr.startswith(f"skyt-tui: error: no Ray cluster reachable at {address}")
    assert by_option.stderr.count("\n") == 1
    by_env = cli(
        "analyze", source, "--executor", "ray", home=tmp_path, env={"RAY_ADDRESS": address}
    )
    assert by_env.returncode == 2 and by_env.stderr.count("\n") == 1
    assert f"no Ray cluster reachable at {address}" in by_env.stderr
    (tmp_path / "settings.toml").write_text(
        f'schema_version = 1\n[run]\nexecutor = "ray"\nray_address = "{address}"\n'
    )
    by_settings = cli("oracle", "--humaneval", str(humaneval_slice(tmp_path / "he")), home=tmp_path)
    assert by_settings.returncode == 2 and by_settings.stderr.count("\n") == 1
    assert f"no Ray cluster reachable at {address}" in by_settings.stderr


def test_a_missing_ray_extra_is_one_line_exit_2(tmp_path):
    """A `ray` that cannot be imported (here a stand-in that raises ImportError, first on the path)."""
    fake = tmp_path / "fake" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    done = cli(
        "analyze",
        skyt_slice()[0],
        "--executor",
        "ray",
        home=tmp_path,
        env={"PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), str(ROOT)])},
    )
    assert done.returncode == 2
    assert done.stderr == (
        "skyt-tui: error: the Ray executor needs the ray extra: pip install 'skyt-tui[ray]'\n"
    )


def test_options_that_do_not_apply_are_refused(tmp_path, capsys):
    assert main(["analyze", skyt_slice()[0], "--ray-address", "127.0.0.1:1"]) == 2
    assert "--ray-address applies to --executor ray" in capsys.readouterr().err
    assert main(["import", skyt_slice()[0], "--executor", "ray"]) == 2
    assert "--executor and --ray-address apply to --analyze" in capsys.readouterr().err
    (tmp_path / "skyt-home").mkdir(exist_ok=True)
    (tmp_path / "skyt-home" / "settings.toml").write_text('[run]\nexecutor = "spark"\n')
    assert main(["analyze", skyt_slice()[0]]) == 2
    assert "run.executor: must be one of local, ray, not 'spark'" in capsys.readouterr().err


def test_choosing_an_unknown_executor_is_refused():
    with pytest.raises(ExecutorError, match="executor must be one of local, ray"):
        choose_executor("spark")


def test_rays_cluster_messages_go_to_stderr(capsys):
    """Ray's driver prints a node's death or a task's retry to stdout, which is `--json`'s."""
    pytest.importorskip("ray", reason="the ray extra is not installed")
    from ray._private import worker

    from skyt_tui.engine.executor.ray_executor import cluster_messages_to_stderr

    message = {"lines": ["a node was marked dead"], "pid": "raylet", "is_err": False}
    original = worker.print_to_stdstream
    try:
        cluster_messages_to_stderr()
        worker.print_to_stdstream(message, ignore_prefix=False)
        out, err = capsys.readouterr()
        assert out == ""
        assert "a node was marked dead" in err
    finally:
        worker.print_to_stdstream = original


def test_a_judge_gives_up_rays_oom_preference():
    """Ray starts its workers at oom_score_adj 1000; the sandbox's zygotes would inherit it and be
    the OOM killer's choice over the sample filling their cgroup. The judge goes back to 0."""
    code = (
        "import pathlib\n"
        "path = pathlib.Path('/proc/self/oom_score_adj')\n"
        "path.write_text('1000')\n"
        "from skyt_tui.engine.executor.ray_judge import give_up_oom_preference\n"
        "give_up_oom_preference()\n"
        "print(path.read_text().strip())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "0"


# ---- the same bytes ---------------------------------------------------------------------------


def _analyze_json(sources, capsys, *options):
    assert main(["analyze", *sources, "--json", "--samples", *options]) == 0
    return capsys.readouterr().out


@pytest.mark.ray
@pytest.mark.corpus
def test_analyze_prints_the_same_bytes_on_ray_skyt(
    ray_cluster, ray_executor, back_to_local, capsys
):
    sources = skyt_slice()
    local = _analyze_json(sources, capsys)
    on_ray = _analyze_json(
        sources, capsys, "--executor", "ray", "--ray-address", ray_cluster.address
    )
    assert json.loads(local)["runs"] and len(json.loads(local)["runs"]) == SKYT_FILES
    assert on_ray == local


@pytest.mark.ray
@pytest.mark.corpus
def test_analyze_prints_the_same_bytes_on_ray_humaneval(
    ray_cluster, ray_executor, back_to_local, capsys, tmp_path
):
    folder = str(humaneval_slice(tmp_path / "he", samples=30))
    local = _analyze_json([folder], capsys)
    on_ray = _analyze_json(
        [folder], capsys, "--executor", "ray", "--ray-address", ray_cluster.address
    )
    runs = json.loads(local)["runs"]
    assert [run["n"] for run in runs] == [30] * len(HUMANEVAL_TASKS)
    assert any(
        step
        for run in runs
        for s in run["samples"]
        for step in s.get("repair", {}).get("steps", [])
    )
    assert on_ray == local


STRICT = ROOT / "tests" / "fixtures" / "strict"
STRICT_NOTES = (
    "the overflow-prone midpoint",  # passes, complies with nothing: the canon
    "SKYT's required midpoint, without the parentheses rule 12.1 asks for",
    "a result bound only inside the loop",
    "a helper that checks nothing",
)
"""tests/test_compliance.py's strict binary-search samples, none of them compliant, so the canon
is the first that passes: `(left + right) // 2`, which the contract forbids."""


def strict_records(home: Path) -> Path:
    """The strict contract in `home`'s contracts and STRICT_NOTES' samples as records of it."""
    (home / "contracts").mkdir(parents=True, exist_ok=True)
    name = "binary_search_strict.toml"
    (home / "contracts" / name).write_bytes((STRICT / name).read_bytes())
    samples = {}
    for line in (STRICT / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        samples[sample["note"]] = sample
    path = home / "strict.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "contract_id": "binary_search_strict",
                    "model": "hand-written",
                    "temperature": 0.0,
                    "code": samples[note]["code"],
                }
            )
            + "\n"
            for note in STRICT_NOTES
        ),
        encoding="utf-8",
    )
    return path


def _refused_midpoint(samples):
    """The second sample keeps the required midpoint; bringing it to the canon's would break
    two pattern rules it keeps, so the midpoint step is refused and it stays at a distance."""
    kept = samples[1]
    return kept["repair_steps"] and "midpoint" not in kept["repair_steps"] and kept["d_post"] > 0


@pytest.mark.ray
def test_repair_on_ray_refuses_a_step_that_breaks_a_kept_rule_as_local_does(
    ray_cluster, ray_executor, back_to_local, isolated_home, capsys
):
    """Issue 24 on the Ray executor: a repair candidate that passes but breaks a coding rule the
    sample kept is refused on the cluster too, so `analyze` prints the same bytes (before, the
    remote verification answered only pass/fail and took the step)."""
    records = str(strict_records(isolated_home))
    local = _analyze_json([records], capsys)
    on_ray = _analyze_json(
        [records], capsys, "--executor", "ray", "--ray-address", ray_cluster.address
    )
    [run] = json.loads(local)["runs"]
    assert run["metrics"]["compliance_rate"] == 0.0 and run["canon"]["sample_index"] == 0
    assert _refused_midpoint(run["samples"])
    assert on_ray == local


@pytest.mark.ray
def test_the_apps_analysis_on_ray_refuses_the_same_repair_steps(ray_cluster, monkeypatch, tmp_path):
    """The app's analysis process (store mode, settings.toml's executor) on the strict samples:
    the same stored documents on both executors, the rule-breaking step refused on both."""
    from skyt_tui.engine.runs.run_import import import_runs
    from skyt_tui.ui import run_data

    documents = []
    for name, settings in (
        ("local", ""),
        ("ray", f'[run]\nexecutor = "ray"\nray_address = "{ray_cluster.address}"\n'),
    ):
        home = tmp_path / name
        records = strict_records(home)
        (home / "settings.toml").write_text(settings)
        monkeypatch.setenv("SKYT_HOME", str(home))
        [run_id] = [meta.id for meta in import_runs([str(records)]).created]
        [analysis] = run_data.analyze_runs([run_id])
        # the run's id and folder differ between the two stores, and so does the canon's run
        document = {k: v for k, v in analysis.document.items() if k not in ("id", "source")}
        document["canon"] = {k: v for k, v in document["canon"].items() if k != "run_id"}
        documents.append(document)
    local, on_ray = documents
    assert _refused_midpoint(local["samples"]), local["samples"]
    assert on_ray == local


@pytest.mark.ray
@pytest.mark.corpus
def test_analyze_with_probe_on_ray_probes_on_the_cluster_and_prints_the_same_bytes(
    ray_cluster, ray_executor, back_to_local, capsys, tmp_path, monkeypatch
):
    """Probing runs where judging runs: its calls go to the cluster's judges (none runs on this
    machine's pool), and the output is the local executor's, byte for byte."""
    from skyt_tui.engine.executor import choice
    from skyt_tui.engine.oracle.judge import Oracle

    folder = str(humaneval_slice(tmp_path / "he", samples=6))
    probe = ["--probe", "--probe-inputs", "12"]
    local = _analyze_json([folder], capsys, *probe)

    def not_here(*args, **kwargs):
        raise AssertionError("a probe's calls ran on this machine's pool")

    monkeypatch.setattr(Oracle, "calls_iter", not_here)
    plain = _analyze_json(
        [folder], capsys, "--executor", "ray", "--ray-address", ray_cluster.address
    )
    judged = choice.current_executor().oracle().stats.jobs_submitted
    on_ray = _analyze_json(
        [folder], capsys, *probe, "--executor", "ray", "--ray-address", ray_cluster.address
    )
    runs = json.loads(local)["runs"]
    assert all("probe" in run for run in runs) and json.loads(plain)["runs"]
    assert on_ray == local
    stats = choice.current_executor().oracle().stats
    probed = sum(run["probe"]["probed"] + 1 for run in runs)  # passing samples and the reference
    assert stats.jobs_submitted >= 2 * judged + probed, "the probe's calls ran on the cluster"
    assert stats.verdicts_filled == stats.jobs_submitted
    assert (
        main(["analyze", folder, *probe, "--executor", "ray", "--ray-address", ray_cluster.address])
        == 0
    )
    assert "probing ran on this machine" not in capsys.readouterr().err


@pytest.mark.ray
def test_calls_on_the_cluster_are_the_local_pools_outputs(ray_executor):
    """`RayOracle.calls_iter` (probing's jobs): the outputs and statuses of this machine's pool,
    in input order, a hang and a raise included."""
    from skyt_tui.engine.contracts.contract import contract_from_dict
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.oracle.outputs import Call

    contract = contract_from_dict(
        {
            "schema_version": 1,
            "id": "halve",
            "title": "halve",
            "difficulty": "easy",
            "prompt": "f(x) halves x",
            "entry": {"kind": "function", "name": "f"},
            "oracle": {"timeout_s": 1.0},
            "tests": [{"kind": "call", "args": [4], "expected": 2}],
        }
    )
    calls = tuple(Call((x,)) for x in (4, 3, -1, 0, 10))
    programs = [
        "def f(x):\n    return x // 2\n",
        "def f(x):\n    return 10 // x\n",
        "def f(x):\n    while x < 0:\n        pass\n    return x / 2\n",
    ] * 3
    jobs = [(contract, code, calls) for code in programs]
    with Oracle(workers=2) as here:
        expected = [(r.status, r.outputs) for r in here.calls_iter(jobs)]
    found = [(r.status, r.outputs) for r in ray_executor.oracle().calls_iter(jobs)]
    assert found == expected
    assert [status for status, _ in found[:3]] == ["ok", "ok", "timeout"]


@pytest.mark.ray
@pytest.mark.corpus
def test_a_fresh_process_connects_and_prints_the_same_bytes(ray_cluster, tmp_path):
    """The real command line: a new interpreter that connects, judges and disconnects."""
    sources = skyt_slice()[:3]
    local = cli("analyze", *sources, "--json", "--samples", home=tmp_path / "a")
    on_ray = cli(
        "analyze",
        *sources,
        "--json",
        "--samples",
        "--executor",
        "ray",
        home=tmp_path / "b",
        env={"RAY_ADDRESS": ray_cluster.address},
    )
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local.stdout


@pytest.mark.ray
@pytest.mark.corpus
def test_the_oracle_command_gives_the_same_verdicts_on_ray(
    ray_cluster, ray_executor, back_to_local, capsys, tmp_path
):
    folder = str(humaneval_slice(tmp_path / "he", samples=15))
    reports = []
    for options in ([], ["--executor", "ray", "--ray-address", ray_cluster.address]):
        assert main(["oracle", "--humaneval", folder, "--json", *options]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    local, on_ray = reports
    for key in ("verdicts", "tasks", "pass_at_k", "statuses", "isolation", "layers", "samples"):
        assert on_ray[key] == local[key], key
    assert on_ray["workers"] == 2  # one sandbox worker on each of the two 1-CPU nodes


@pytest.mark.ray
@pytest.mark.corpus
def test_import_analyze_and_study_report_on_ray_match_local(
    ray_cluster, ray_executor, back_to_local, capsys, monkeypatch, tmp_path
):
    """`import --analyze` on the cluster caches what a local `study report` computes, and a
    `study report` on the cluster computes it too."""
    from skyt_tui.engine.runs.analyses import cached_analysis
    from skyt_tui.engine.runs.run_store import load_run

    sources = skyt_slice()[:2]
    on_ray = ["--executor", "ray", "--ray-address", ray_cluster.address]

    def study_table(name, import_options, report_options):
        monkeypatch.setenv("SKYT_HOME", str(tmp_path / name))
        choose_executor("local")
        assert main(["import", *sources, "--json", *import_options]) == 0
        imported = json.loads(capsys.readouterr().out)
        assert len(imported["created"]) == len(sources)
        if import_options:
            assert imported["analysed"] == imported["created"]
            assert all(cached_analysis(load_run(run_id)) for run_id in imported["created"])
        ids = tmp_path / f"{name}-ids.txt"
        ids.write_text("".join(f"{run_id}\n" for run_id in imported["created"]))
        choose_executor("local")
        assert main(["study", "report", "--ids-from", str(ids), "--json", *report_options]) == 0
        return json.loads(capsys.readouterr().out)["table"]

    local = study_table("local", [], [])
    assert study_table("import-on-ray", ["--analyze", *on_ray], []) == local
    assert study_table("report-on-ray", [], on_ray) == local


@pytest.mark.ray
@pytest.mark.corpus
def test_the_apps_background_analysis_runs_where_the_settings_say(
    ray_cluster, monkeypatch, tmp_path
):
    """The app's analysis process takes `executor` and `ray_address` from settings.toml."""
    from skyt_tui.engine.runs.run_import import import_runs
    from skyt_tui.ui import run_data

    sources = skyt_slice()[:1]
    results = []
    for name, settings in (
        ("local", ""),
        ("ray", f'[run]\nexecutor = "ray"\nray_address = "{ray_cluster.address}"\n'),
    ):
        home = tmp_path / name
        home.mkdir()
        (home / "settings.toml").write_text(settings)
        monkeypatch.setenv("SKYT_HOME", str(home))
        ids = [meta.id for meta in import_runs(sources).created]
        results.append([run_data.analyze_runs([run_id])[0] for run_id in ids])
    local, on_ray = results
    where = ("id", "source")  # the run's id and folder differ between the two stores

    def strip(analyses):
        """The stored documents the app's typed records were read from, less what names the store."""
        return [
            {key: value for key, value in a.document.items() if key not in where} for a in analyses
        ]

    assert strip(on_ray) == strip(local)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "settings.toml").write_text(
        f'[run]\nexecutor = "ray"\nray_address = "{unreachable_address()}"\n'
    )
    monkeypatch.setenv("SKYT_HOME", str(broken))
    [run_id] = [meta.id for meta in import_runs(sources[:1]).created]
    with pytest.raises(Exception, match="no Ray cluster reachable"):
        run_data.analyze_runs([run_id])


# ---- run by run on the cluster (issue 39) ----------------------------------------------------

STREAM_TASKS = tuple(f"HumanEval/{n}" for n in (0, 2, 4, 7, 12, 13, 16, 22))
"""Eight human-eval tasks, one run each: more runs than the window of a small cluster."""


def _runs(folder: Path):
    from skyt_tui.engine.sources.recorded import load_sources, resolve_contracts

    return resolve_contracts(load_sources([str(folder)]), override=None, require=True)


def _as_json(analyses) -> str:
    return json.dumps([a.to_dict() for a in analyses], sort_keys=True, allow_nan=True)


def _local_json(runs) -> str:
    """The runs' analyses by the local executor (its own, closed after)."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs

    local = Executor()
    try:
        return _as_json(analyze_runs(runs, executor=local))
    finally:
        local.close()


@contextlib.contextmanager
def _one_more_raylet(ray_cluster, ray):
    """A raylet added to the cluster for the test: (its index, its node id); killed after."""
    before = _alive_nodes(ray)
    index = ray_cluster.add_node()
    try:
        deadline = time.monotonic() + 60
        while not (_alive_nodes(ray) - before) and time.monotonic() < deadline:
            time.sleep(0.2)
        [node] = _alive_nodes(ray) - before
        yield index, node
    finally:
        ray_cluster.kill_node(index)


@pytest.mark.ray
@pytest.mark.corpus
def test_runs_go_to_the_nodes_whole_and_the_driver_judges_nothing(
    ray_cluster, ray_executor, tmp_path
):
    """Each run is one task on a node (judged on the node judges, repaired and measured there);
    the driver's own dispatcher sends no job; the analyses are the local executor's."""
    from skyt_tui.engine.analysis.stream import analyze_stream

    runs = _runs(humaneval_slice(tmp_path / "he", samples=12, tasks=STREAM_TASKS))
    expected = _local_json(runs)
    stats = ray_executor.oracle().stats
    before = (stats.jobs_submitted, stats.batches_sent)
    progress = []
    found = _as_json(
        analyze_stream(runs, executor=ray_executor, progress=lambda *event: progress.append(event))
    )
    assert found == expected
    assert (stats.jobs_submitted, stats.batches_sent) == before
    assert progress[-1] == ("runs", len(runs), len(runs))


@pytest.mark.ray
@pytest.mark.corpus
def test_a_raylet_killed_while_it_analyses_runs_loses_nothing(ray_cluster, ray_executor, tmp_path):
    """A third raylet joins, takes runs and judges, and is SIGKILLed once the first run is back:
    its runs are analysed again elsewhere (Ray retries the task), the tasks that were asking its
    judge ask another, and the analyses are byte for byte the local executor's."""
    from skyt_tui.engine.analysis.stream import analyze_stream
    from skyt_tui.engine.executor.ray_executor import RayExecutor

    ray = ray_executor.ray
    runs = _runs(humaneval_slice(tmp_path / "he", samples=12, tasks=STREAM_TASKS))
    expected = _local_json(runs)
    with _one_more_raylet(ray_cluster, ray) as (index, victim):
        executor = RayExecutor.connect(ray_cluster.address)
        try:
            assert victim in {info.node_id for info in executor.oracle().nodes}
            killed = []

            def kill_after_the_first(stage, done, total):
                if done == 1 and not killed:
                    ray_cluster.kill_node(index)
                    killed.append(victim)

            found = _as_json(analyze_stream(runs, executor=executor, progress=kill_after_the_first))
        finally:
            executor.close()
        assert killed == [victim]
        assert victim not in _alive_nodes(ray)
        assert found == expected


@pytest.mark.ray
@pytest.mark.corpus
def test_a_driver_killed_mid_study_resumes_to_the_same_bytes(ray_cluster, tmp_path):
    """`analyze --resume` on the cluster, its driver SIGKILLed once two runs are kept: run again
    with --resume, it takes the kept runs from the store (shown by one altered on purpose) and
    analyses the others; the output is the local executor's, byte for byte; nothing stays kept."""
    folder = str(humaneval_slice(tmp_path / "he", samples=10, tasks=STREAM_TASKS))
    home = tmp_path / "home"
    local = cli("analyze", folder, "--json", "--samples", home=tmp_path / "local")
    assert local.returncode == 0, local.stderr
    command = [sys.executable, "-m", "skyt_tui", "analyze", folder, "--json", "--samples"]
    command += ["--executor", "ray", "--resume"]
    env = {**os.environ, "SKYT_HOME": str(home), "RAY_ADDRESS": ray_cluster.address}
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    kept = home / "resume"
    try:
        deadline = time.monotonic() + 600
        while len(list(kept.glob("*.json"))) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, "the analysis ended before it could be killed"
            time.sleep(0.05)
        process.kill()
    finally:
        process.communicate()
    files = sorted(kept.glob("*.json"))
    assert 2 <= len(files) < len(STREAM_TASKS)
    document = json.loads(files[0].read_text())
    entry = json.loads(document["output"]["entry"])
    altered_model, model = "kept-" + str(entry["model"]), entry["model"]
    entry["model"] = altered_model
    document["output"]["entry"] = json.dumps(entry)
    files[0].write_text(json.dumps(document))
    resumed = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert resumed.returncode == 0, resumed.stderr
    altered = f'"model": {json.dumps(altered_model)}'
    assert resumed.stdout.count(altered) == 1, "the kept run was not taken"
    assert resumed.stdout.replace(altered, f'"model": {json.dumps(model)}') == local.stdout
    assert list(kept.glob("*.json")) == []


# ---- faults -------------------------------------------------------------------------------------


def _alive_nodes(ray):
    return {node["NodeID"] for node in ray.nodes() if node["Alive"]}


@pytest.mark.ray
@pytest.mark.corpus
def test_a_raylet_killed_mid_run_loses_and_duplicates_nothing(ray_cluster, ray_executor, tmp_path):
    """A third raylet joins, gets batches, and is SIGKILLed while it has some in flight: they are
    judged elsewhere, every job's verdict is filled once, and the analysis is byte for byte the
    local one."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs
    from skyt_tui.engine.executor.ray_executor import RayExecutor
    from skyt_tui.engine.sources.recorded import load_sources, resolve_contracts

    ray = ray_executor.ray
    runs = resolve_contracts(
        load_sources([str(humaneval_slice(tmp_path / "he", samples=50))]),
        override=None,
        require=True,
    )

    expected = _local_json(runs)
    with _one_more_raylet(ray_cluster, ray) as (index, victim):
        executor = RayExecutor.connect(ray_cluster.address)  # this process's connection, new judges
        try:
            oracle = executor.oracle()
            assert victim in {info.node_id for info in oracle.nodes}
            killed = threading.Event()

            def kill_when_busy():
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline:
                    if oracle.jobs_in_flight().get(victim) and oracle.stats.verdicts_filled:
                        ray_cluster.kill_node(index)
                        killed.set()
                        return
                    time.sleep(0.01)

            watcher = threading.Thread(target=kill_when_busy, daemon=True)
            watcher.start()
            found = _as_json(analyze_runs(runs, executor=executor))
            watcher.join(timeout=5)
        finally:
            executor.close()
        assert killed.is_set(), "the raylet was never killed mid-run"
        assert found == expected
        stats = oracle.stats
        assert stats.nodes_lost == [victim]
        assert stats.batches_lost >= 1
        assert stats.verdicts_filled == stats.jobs_submitted
        assert stats.jobs_lost_for_good == 0


def path_without(program: str, folder: Path) -> str:
    """This PATH with every directory holding `program` replaced by a copy (of links) without it."""
    entries = []
    for number, directory in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        if not (Path(directory) / program).exists():
            entries.append(directory)
            continue
        copy = folder / f"bin{number}"
        copy.mkdir(parents=True)
        for entry in Path(directory).iterdir():
            if entry.name != program:
                (copy / entry.name).symlink_to(entry)
        entries.append(str(copy))
    return os.pathsep.join(entries)


@pytest.mark.ray
def test_a_node_without_bubblewrap_says_so_and_bubblewrap_fails_there(
    ray_cluster, ray_executor, tmp_path
):
    """A raylet whose PATH has no bwrap: with auto isolation it runs reduced and says so; asked
    for bubblewrap, the cluster is refused in one line naming that node."""
    from skyt_tui.engine.contracts.catalog import get_contract
    from skyt_tui.engine.executor.ray_executor import RayExecutor
    from skyt_tui.engine.sandbox import pool

    if pool._bwrap_probe() is not None:
        pytest.skip("bubblewrap does not work on this machine: every node is reduced already")
    ray = ray_executor.ray
    before = _alive_nodes(ray)
    index = ray_cluster.add_node(env={"PATH": path_without("bwrap", tmp_path)})
    executor = None
    try:
        deadline = time.monotonic() + 60
        while not (_alive_nodes(ray) - before) and time.monotonic() < deadline:
            time.sleep(0.2)
        [bare] = _alive_nodes(ray) - before
        executor = RayExecutor.connect(ray_cluster.address)
        oracle = executor.open_oracle()
        try:
            modes = {info.node_id: info for info in oracle.nodes}
            assert modes[bare].isolation == "reduced"
            assert "reduced isolation, bubblewrap does not work there" in modes[bare].describe()
            assert {info.isolation for key, info in modes.items() if key != bare} == {"bubblewrap"}
            assert oracle.isolation == "reduced"
            assert "bubblewrap" not in oracle.layers
            lines = executor.describe(oracle)
            assert any(bare[:8] in line and "reduced" in line for line in lines)
            contract = get_contract("fibonacci_iterative")
            verdicts = oracle.check_many([(contract, contract.reference)] * 8)
            assert all(v.passed for v in verdicts)
            assert {v.isolation for v in verdicts} <= {"bubblewrap", "reduced"}
        finally:
            oracle.close()
        with pytest.raises(ExecutorError, match=rf"node .*\({bare[:8]}\): bubblewrap"):
            executor.open_oracle(isolation="bubblewrap")
    finally:
        if executor is not None:
            executor.close()
        ray_cluster.kill_node(index)


def _judge_pids():
    """Processes of Ray actors that are node judges (their title is `ray::NodeJudge...`)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                title = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::NodeJudge"):
                found.add(int(entry))
    return found


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.ray
@pytest.mark.corpus
def test_cancelling_the_apps_analysis_stops_the_judges(ray_cluster, monkeypatch, tmp_path):
    """The app cancels its analysis process (a new selection, quitting): on a cluster, the
    judges that process started go with it."""
    from skyt_tui.engine.runs.analysis_child import AnalysisCancelled, analyze_stored_runs_in_child
    from skyt_tui.engine.runs.run_import import import_runs

    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    ids = [meta.id for meta in import_runs([str(humaneval_slice(tmp_path / "he", 100))]).created]
    earlier = _judge_pids()
    seen: set[int] = set()

    def cancelled():
        seen.update(_judge_pids() - earlier)
        return len(seen) >= 2

    with pytest.raises(AnalysisCancelled):
        analyze_stored_runs_in_child(
            ids,
            level="nodoc",
            tau=0.1,
            cancelled=cancelled,
            executor="ray",
            ray_address=ray_cluster.address,
        )
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in seen), "a judge outlived the cancelled analysis"


@pytest.mark.ray
@pytest.mark.corpus
def test_ctrl_c_stops_the_cluster_work_promptly(ray_cluster, tmp_path):
    folder = humaneval_slice(tmp_path / "he", samples=100)
    earlier = _judge_pids()
    process = popen_interruptible(
        [sys.executable, "-m", "skyt_tui", "analyze", str(folder), "--json", "--executor", "ray"],
        cwd=ROOT,
        env={**os.environ, "SKYT_HOME": str(tmp_path / "home"), "RAY_ADDRESS": ray_cluster.address},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 180
        while len(_judge_pids() - earlier) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.1)
        judges = _judge_pids() - earlier
        # one per node; a node's judge that Ray restarted counts too (seen once under load)
        assert len(judges) >= 2, "the judges did not start"
        time.sleep(1.0)  # the oracle stage is under way
        assert process.poll() is None, "the analysis ended before it could be interrupted"
        process.send_signal(signal.SIGINT)
        start = time.monotonic()
        out, err = process.communicate(timeout=30)
        assert time.monotonic() - start < 15
        assert process.returncode == 130, err
        # runs are printed as they finish: an interrupted document is never complete
        assert not out.rstrip().endswith(b"}")
        deadline = time.monotonic() + 20
        while any(_alive(pid) for pid in judges) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in judges), "a judge kept working after Ctrl-C"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_probe_job_lost_for_good_is_no_result_on_every_call():
    """A probe job whose node was lost once too often gets no result on every call, with the
    reason (as a judged sample gets a `worker_lost` verdict), not a retry loop and not a verdict."""
    import collections
    from concurrent.futures import Future

    from skyt_tui.engine.contracts.contract import contract_from_dict
    from skyt_tui.engine.executor import ray_oracle
    from skyt_tui.engine.oracle.outputs import MISSING, Call, CallsResult

    contract = contract_from_dict(
        {
            "schema_version": 1,
            "id": "lost",
            "title": "lost",
            "difficulty": "easy",
            "prompt": "f",
            "entry": {"kind": "function", "name": "f"},
            "tests": [{"kind": "call", "args": [1], "expected": 1}],
        }
    )
    oracle = ray_oracle.RayOracle.__new__(ray_oracle.RayOracle)  # the retry rule alone, no cluster
    oracle.stats = ray_oracle.Stats()
    oracle._changed = threading.Condition()
    oracle._stopped = set()
    oracle._queue = collections.deque()
    job = ray_oracle._Job("key", "def f(x): return x", Future(), contract, (Call((1,)), Call((2,))))
    batch = ray_oracle._Batch([job], call=1, losses=ray_oracle.SPLIT_AFTER_LOSSES)
    oracle._retry(batch)
    result = job.future.result(timeout=0)
    assert isinstance(result, CallsResult) and result.status == "worker_lost"
    assert [out.status for out in result.outputs] == [MISSING, MISSING]
    assert "lost with its Ray node" in result.reason
    assert oracle.stats.jobs_lost_for_good == 1 and not oracle._queue
