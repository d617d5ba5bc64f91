"""The sandbox pool: what a sample's process looks like, and how the pool survives its workers."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from skyt_tui import locations
from skyt_tui.engine.contracts.contract import load_contract
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.plan import Prechecks, _frames
from skyt_tui.engine.sandbox import pool as sandbox
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sandbox.pool import Limits, SandboxError, SandboxPool, resolve_isolation

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "oracle"
SECRET_NAME = "SKYT_TEST_SECRET_TOKEN"


def modes():
    problem = sandbox._bwrap_probe()
    return [
        pytest.param(
            "bubblewrap", marks=pytest.mark.skipif(problem is not None, reason=str(problem))
        ),
        "reduced",
    ]


@pytest.fixture(scope="module", params=modes())
def pool(request):
    os.environ[SECRET_NAME] = "do-not-leak"
    try:
        with SandboxPool(workers=2, isolation=request.param) as instance:
            yield instance
    finally:
        os.environ.pop(SECRET_NAME, None)


def probe(pool, program, timeout=2.0, args=()):
    """Run `probe(*args)` of `program` in the sandbox and return its decoded result (or the raised type name)."""
    payload = {
        "program": textwrap.dedent(program),
        "entry": "probe",
        "entry_kind": "function",
        "tests": [{"i": 0, "op": "call", "args": wire.encode(list(args)), "kwargs": {}}],
        "checks": [],
    }
    result = pool.run([(payload, timeout)])[0]
    frames, _, _ = _frames(result.sample_stream)
    call = next(f for f in frames if f.get("t") == "call")
    return wire.decode(call["r"]) if "r" in call else ("raised", call["x"]["type"])


def test_environment_is_empty_and_stdin_closed(pool):
    keys = probe(pool, "import os\ndef probe():\n    return sorted(os.environ)")
    assert SECRET_NAME not in keys
    assert set(keys) <= {
        "PYTHONHASHSEED",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "LC_CTYPE",
        "TMPDIR",
        "HOME",
        "PWD",
    }
    assert probe(pool, "def probe():\n    return input()") == ("raised", "EOFError")


def test_each_job_gets_a_fresh_empty_working_directory(pool):
    program = """
        import os
        def probe():
            before = sorted(os.listdir("."))
            open("mark", "w").write("x")
            return before, os.getcwd() == os.environ["TMPDIR"]
        """
    assert probe(pool, program) == ([], True)
    assert probe(pool, program) == ([], True)


def test_workers_do_not_hold_the_apps_environment(pool):
    for slot in pool._slots:
        environ = Path(f"/proc/{slot.proc.pid}/environ").read_bytes()
        assert SECRET_NAME.encode() not in environ
        assert b"PYTHONHASHSEED=0" in environ


def test_samples_run_unprivileged_when_the_app_is_root(pool):
    uid = probe(
        pool, "import os\ndef probe():\n    return os.getuid(), os.getgid(), os.getgroups()"
    )
    if os.geteuid() == 0:
        assert uid[0] != 0 and uid[0] >= sandbox.SAMPLE_UID_BASE and uid[2] == []
        assert "uid" in pool.layers
    assert "rlimits" in pool.layers


def test_a_sample_cannot_import_the_worker_or_skyt_tui(pool):
    """The worker's modules are imported under a private package name, from a folder that is not
    on `sys.path`: a sample's `import` finds neither them nor skyt_tui."""
    program = """
        import importlib, os, sys
        def probe(folders):
            found = []
            for name in ("entry", "zygote", "framing", "wire", "worker", "skyt_tui"):
                try:
                    importlib.import_module(name)
                    found.append(name)
                except ImportError:
                    pass
            on_path = [p for p in sys.path if os.path.abspath(p or ".") in folders]
            loaded = [m for m in sys.modules if m.split(".")[0] == "skyt_tui"]
            return on_path, found, loaded
        """
    worker = sandbox.WORKER_DIR
    folders = [
        str(worker),
        str(worker.parent),
        sandbox.SANDBOX_MOUNT,
        f"{sandbox.SANDBOX_MOUNT}/worker",
    ]
    assert probe(pool, program, args=[folders]) == ([], [], [])


READ_ATTEMPT = """
    import os
    def probe(paths):
        seen = []
        for path in paths:
            try:
                if os.path.isdir(path):
                    seen.append(["listed", sorted(os.listdir(path))])
                else:
                    with open(path, "rb") as handle:
                        seen.append(["read", handle.read(16).hex()])
            except OSError as exc:
                seen.append(["refused", type(exc).__name__])
        return seen
    """


def hiding_cases():
    """(isolation, install, layers switched off): each way of hiding, on its own where it can be."""
    problem = sandbox._bwrap_probe()
    skip = [pytest.mark.skipif(problem is not None, reason=str(problem))]
    cases = [
        ("bubblewrap", "as-here", ()),
        ("bubblewrap", "readable-folders", ()),
        ("bubblewrap", "readable-folders", ("landlock",)),
        ("reduced", "as-here", ()),
        ("reduced", "readable-folders", ()),
        ("reduced", "readable-folders", ("landlock",)),
        ("reduced", "readable-folders", ("namespaces",)),
    ]
    return [
        pytest.param(
            *case,
            marks=skip if case[0] == "bubblewrap" else [],
            id="-".join([case[0], case[1], *(f"no-{layer}" for layer in case[2])]),
        )
        for case in cases
    ]


@pytest.mark.parametrize(("mode", "install", "without"), hiding_cases())
def test_a_sample_never_reads_skyt_tuis_package_or_store(mode, install, without, monkeypatch):
    """What a sample may never read comes from `locations`: the whole skyt_tui package and the
    store, wherever they are. "readable-folders" puts the package's folder and the store's among
    the folders samples may read (as a plain install into site-packages would), so only the
    hiding keeps them out: a hidden set that shrank (say to the engine's folder after a file
    moved) fails here, and reading the files beside them shows those folders really are readable.
    The mounts (bubblewrap's, or the private root of `namespaces`) and Landlock each hide them
    on their own."""
    package = locations.package_dir()
    secrets = [package / "__init__.py", package / "engine" / "sandbox" / "pool.py", package]
    controls = []
    if install == "readable-folders":
        if not os.path.isdir("/var/tmp"):
            pytest.skip("no /var/tmp for a store outside the sandbox's private /tmp")
        beside = Path(tempfile.mkdtemp(prefix="skyt-hidden-test-", dir="/var/tmp"))
        home = beside / "skyt-home"
        home.mkdir()
        (home / "settings.toml").write_text("secret = 1\n")
        (beside / "visible.txt").write_text("visible\n")
        for path in (beside, home):
            path.chmod(0o755)
        monkeypatch.setenv("SKYT_HOME", str(home))
        outside = [str(package.parent), str(beside)]
        dirs = sandbox.python_dirs()
        monkeypatch.setattr(sandbox, "python_dirs", lambda: sorted({*dirs, *outside}))
        secrets += [home / "settings.toml", home]
        hidden = set(sandbox.hidden_paths())
        sibling = next(
            p for p in sorted(package.parent.iterdir()) if p.is_file() and str(p) not in hidden
        )
        controls = [sibling, beside / "visible.txt"]
    else:
        beside = None
        home = locations.home_dir()
        home.mkdir(parents=True, exist_ok=True)
        (home / "settings.toml").write_text("secret = 1\n")
        secrets += [home / "settings.toml", home]
    try:
        with SandboxPool(workers=1, isolation=mode, without=without) as pool:
            layers = {layer.split("-")[0] for layer in pool.layers}
            if not {"bubblewrap", "namespaces", "landlock"} & layers:
                pytest.skip(f"no layer in force here hides files ({', '.join(sorted(layers))})")
            seen = probe(pool, READ_ATTEMPT, args=[[str(p) for p in [*secrets, *controls]]])
    finally:
        if beside is not None:
            shutil.rmtree(beside)
    for path, (how, what) in zip(secrets, seen):
        assert how == "refused" or (how == "listed" and what == []), (str(path), how, what)
    assert [how for how, _ in seen[len(secrets) :]] == ["read"] * len(controls)


def sleeping(seconds: float) -> dict:
    """A job whose one test sleeps `seconds`."""
    return {
        "program": f"import time\ndef probe():\n    time.sleep({seconds})\n",
        "entry": "probe",
        "entry_kind": "function",
        "tests": [{"i": 0, "op": "call", "args": [], "kwargs": {}}],
        "checks": [],
    }


def test_jobs_run_in_parallel(pool):
    payload = sleeping(0.4)
    start = time.monotonic()
    results = pool.run([(payload, 2.0)] * 4)
    assert time.monotonic() - start < 1.4  # 2 workers: ~0.8 s; one after another would take 1.6 s
    assert all(r.sample_exit.code == 0 for r in results)


def test_a_job_submitted_first_runs_before_the_queued_ones():
    """The oracle's run after a timeout goes before every job not yet handed to a worker (a
    sample's verdict waits on it). Before, it waited behind the whole queue: on the 1,000
    human-eval samples of bench/oracle_peers.py one sample looping in its 3 tests ran its last
    two runs after every other job, one worker idle for 6 s."""

    done: list[str] = []
    with SandboxPool(workers=1, isolation="reduced") as one:
        futures = {"long": one.submit(sleeping(0.6), 5.0)}
        time.sleep(0.2)  # the long job is running; the next goes to the zygote's pipe (depth 2)
        for name in ("second", "third", "fourth"):
            futures[name] = one.submit(sleeping(0.05), 5.0)
        futures["urgent"] = one.submit(sleeping(0.05), 5.0, first=True)
        for name, future in futures.items():
            future.add_done_callback(lambda _, name=name: done.append(name))
        for future in futures.values():
            assert future.result().sample_exit.code == 0
    assert done.index("urgent") < done.index("third") < done.index("fourth"), done


def test_a_job_submitted_first_waits_for_a_free_worker_not_behind_a_long_job():
    """A run after a timeout is of a sample that ran out of time: queued in the pipe of a worker
    busy with a long job, it would wait for that job while another worker comes free. Before,
    the oracle's two runs after HumanEval/2's first timeout were queued on one worker one
    time in two (`oracle --humaneval --all-outcomes` took 9.2 s instead of 6.2 s)."""

    done: list[str] = []
    with SandboxPool(workers=2, isolation="reduced") as two:
        futures = {
            "long": two.submit(sleeping(4.0), 10.0),
            "short": two.submit(sleeping(1.0), 10.0),
        }
        time.sleep(0.3)  # both running: the urgent job finds no idle worker
        futures["urgent"] = two.submit(sleeping(0.05), 10.0, first=True)
        for name, future in futures.items():
            future.add_done_callback(lambda _, name=name: done.append(name))
        for future in futures.values():
            assert future.result().sample_exit.code == 0
    # it ran on the worker the short job left, not after the long job
    assert done == ["short", "urgent", "long"], done


def test_output_keeps_only_the_head():
    with SandboxPool(workers=1, isolation="reduced", limits=Limits(output_keep=10)) as small:
        payload = {
            "program": "print('0123456789abcdef')\ndef probe():\n    return 1\n",
            "entry": "probe",
            "entry_kind": "function",
            "tests": [],
            "checks": [],
        }
        result = small.run([(payload, 2.0)])[0]
    assert result.output == b"0123456789" and result.output_total == 17


def check_job(program, check=None):
    """A job whose one check hands the checker's pid and uid to the sample's `f`, which answers
    with both and its own: [checker pid, checker uid, sample pid, sample uid]."""
    return {
        "program": textwrap.dedent(program),
        "entry": "f",
        "entry_kind": "function",
        "tests": [],
        "checks": [
            {
                "i": 0,
                "code": check
                or "import os\ndef check(candidate):\n    candidate(os.getpid(), os.getuid())\n",
            }
        ],
    }


IDS = "import os\ndef f(pid, uid):\n    return [pid, uid, os.getpid(), os.getuid()]\n"


def check_ids(result):
    """The ids `IDS` reported, from the checker's frame (its log of the sample's answers)."""
    frames, broken, _ = _frames(result.checker_stream)
    assert broken is None and frames[-1] == {"t": "checks_done"}, frames
    check = frames[0]
    assert check["t"] == "check" and check["passed"], check
    return wire.decode(check["calls"][0])


@pytest.mark.parametrize("mode", modes())
def test_one_fork_per_sample_the_checker_stays_warm(mode):
    """Each job forks its sample process from the zygote; the check process is forked once per
    worker and serves job after job (as a uid of its own when the app is root), each job's
    checks in a child it forks, so no check's state reaches another job (issue 26.3)."""
    parent = "import os\ndef check(candidate):\n    candidate(os.getppid(), os.getuid())\n"
    with SandboxPool(workers=1, isolation=mode) as pool:
        ids = [check_ids(result) for result in pool.run([(check_job(IDS), 5.0)] * 4)]
        parents = [check_ids(r) for r in pool.run([(check_job(IDS, parent), 5.0)] * 4)]
    checker_pids = {checker_pid for checker_pid, _, _, _ in ids}
    warm_pids = {warm_pid for warm_pid, _, _, _ in parents}
    sample_pids = {sample_pid for _, _, sample_pid, _ in ids}
    assert len(warm_pids) == 1 and len(checker_pids) == 4 and len(sample_pids) == 4
    assert not (checker_pids | warm_pids) & sample_pids
    if os.geteuid() == 0:
        (checker_uid,) = {uid for _, uid, _, _ in ids}
        (sample_uid,) = {uid for _, _, _, uid in ids}
        assert checker_uid != sample_uid and 0 not in (checker_uid, sample_uid)


@pytest.mark.parametrize("mode", modes())
def test_jobs_without_checks_leave_the_warm_checker_alone(mode):
    """A job with no check (every contract of call tests) once took the zygote's warm checker
    for a child its sample left behind and killed it, so the zygote exec'd a new interpreter
    after every such job (issue 34: most of a SKYT analysis's sandbox time)."""
    parent = "import os\ndef check(candidate):\n    candidate(os.getppid(), os.getuid())\n"
    calls = {
        "program": "def f(x):\n    return x\n",
        "entry": "f",
        "entry_kind": "function",
        "tests": [{"i": 0, "op": "call", "args": [1], "kwargs": {}}],
        "checks": [],
    }
    with SandboxPool(workers=1, isolation=mode) as pool:
        before = check_ids(pool.run([(check_job(IDS, parent), 5.0)])[0])[0]
        plain = pool.run([(calls, 5.0)] * 3)
        after = check_ids(pool.run([(check_job(IDS, parent), 5.0)])[0])[0]
    assert all(result.sample_exit is not None for result in plain)
    assert before == after


def _descendant_commands(pid):
    """The command lines of every process below `pid`."""
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for task in Path(f"/proc/{parent}/task").iterdir():
            for child in (task / "children").read_text().split():
                try:
                    found.append(Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" "))
                except OSError:
                    continue
                frontier.append(int(child))
    return found


@pytest.mark.parametrize("mode", modes())
def test_the_checker_starts_with_the_first_job_that_has_checks(mode):
    """A pool that judges call tests only (and checks the app compares itself) never starts a
    checker; the first job with checks starts it, before that job's clock runs (issue 34)."""
    calls = {
        "program": "def f(x):\n    return x\n",
        "entry": "f",
        "entry_kind": "function",
        "tests": [{"i": 0, "op": "call", "args": [1], "kwargs": {}}],
        "checks": [],
    }
    with SandboxPool(workers=1, isolation=mode) as pool:
        pool.run([(calls, 5.0)] * 2)
        before = _descendant_commands(pool._slots[0].proc.pid)
        checked = pool.run([(check_job(IDS), 5.0)])
        after = _descendant_commands(pool._slots[0].proc.pid)
        hello = pool._slots[0].hello
    assert not any(b"checker" in command for command in before), before
    assert any(b"entry.py checker" in command for command in after), after
    assert check_ids(checked[0]) and hello["checker"] == "exec"


@pytest.mark.parametrize("mode", modes())
def test_a_checker_stopped_mid_check_is_never_reused(mode):
    """A job that ends inside a check (here a timeout) kills the warm checker; the next job gets a
    fresh one, and its check runs as before."""
    hang = "import time\ndef check(candidate):\n    time.sleep(30)\n"
    with SandboxPool(workers=1, isolation=mode) as pool:
        first = check_ids(pool.run([(check_job(IDS), 5.0)])[0])[0]
        stuck = pool.run([(check_job(IDS, hang), 0.5)])[0]
        assert stuck.timed_out
        assert stuck.checker_exit is not None and stuck.checker_exit.signal == signal.SIGKILL
        second = check_ids(pool.run([(check_job(IDS), 5.0)])[0])[0]
    assert first != second


@pytest.mark.parametrize("mode", modes())
def test_check_state_does_not_outlive_its_job(mode):
    """The warm checker gives every check body a fresh namespace and the same random draws, and
    what the previous sample returned is nowhere to be found."""
    check = textwrap.dedent("""
        import random
        def check(candidate):
            assert "seen" not in globals()
            globals()["seen"] = True
            candidate(random.random(), 0)
    """)
    with SandboxPool(workers=1, isolation=mode) as pool:
        results = pool.run([(check_job(IDS, check), 5.0)] * 3)
    draws = {check_ids(result)[0] for result in results}
    assert len(draws) == 1


ZYGOTE_ONLY = ("statistics", "difflib", "calendar", "tempfile", "subprocess", "site")
"""Modules the zygote has imported (preloaded, or by site) that the checker's own never import."""

CHECKER_REPORT = textwrap.dedent(f"""
    import os, resource, sys
    def attempt(action):
        try:
            action()
            return "allowed"
        except BaseException as exc:
            return type(exc).__name__
    def check(candidate):
        import ctypes, socket
        prctl = ctypes.CDLL(None).prctl
        candidate({{
            "dumpable": prctl(3, 0, 0, 0, 0),
            "no_new_privs": prctl(39, 0, 0, 0, 0),
            "seccomp_mode": prctl(21, 0, 0, 0, 0),
            "zygote_only": sorted(m for m in {ZYGOTE_ONLY!r} if m in sys.modules),
            "no_site": sys.flags.no_site,
            "hash": hash("skyt"),
            "uid": os.getuid(),
            "session_of_c": os.getsid(0) == os.getppid(),
            "memory": resource.getrlimit(resource.RLIMIT_AS)[0],
            "open_files": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            "socket": attempt(lambda: socket.socket()),
            "exec": attempt(lambda: os.execv("/bin/true", ["true"])),
            "write": attempt(lambda: open("from-the-checker", "w").close()),
        }})
""")


@pytest.mark.parametrize("mode", modes())
def test_the_checker_is_a_fresh_interpreter_confined_as_before(mode):
    """The warm checker C is exec'd (issue 29): its per-job children carry none of the zygote's
    preloaded modules, and every layer still holds in them (uid, rlimits, seccomp, Landlock,
    own session), with the workers' fixed hash seed."""
    with SandboxPool(workers=1, isolation=mode) as pool:
        hello = pool._slots[0].hello
        (result,) = pool.run(
            [(check_job("def f(report):\n    return report\n", CHECKER_REPORT), 5.0)]
        )
        layers = pool.layers
    report = check_ids(result)
    seeded = subprocess.run(
        [sys.executable, "-c", "print(hash('skyt'))"],
        env={"PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert report["zygote_only"] == [] and report["no_site"] == 1
    assert hello["checker"] == "exec" and hello["checker_problem"] is None, hello
    assert report["hash"] == int(seeded.stdout)
    assert report["session_of_c"] and report["dumpable"] == 0 and report["no_new_privs"] == 1
    limits = Limits()
    assert report["memory"] == limits.memory_bytes and report["open_files"] == limits.open_files
    if os.geteuid() == 0 or any(layer.startswith("landlock") for layer in layers):
        assert report["write"] == "PermissionError"
    if os.geteuid() == 0:
        assert report["uid"] >= sandbox.SAMPLE_UID_BASE
    if "seccomp" in layers:
        assert report["socket"] == "PermissionError" and report["exec"] == "PermissionError"
        assert report["seccomp_mode"] == 2


@pytest.mark.parametrize("mode", modes())
def test_a_confined_process_still_dies_with_the_zygote(mode):
    """The parent-death signal survives the change to the samples' uid (the kernel clears it
    on a uid change, so it is set again after)."""
    program = """
        import ctypes
        def probe():
            value = ctypes.c_int()
            ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)
            return value.value
        """
    with SandboxPool(workers=1, isolation=mode) as pool:
        assert probe(pool, program) == signal.SIGKILL


@pytest.mark.parametrize("mode", modes())
def test_a_sample_that_never_serves_ends_its_check_the_same_way_every_time(mode):
    """Whether the sample's process is gone before or after the check's first call, the check
    fails with the same message (the checker waits for the sample to say it serves)."""
    slow_failure = "import time\ntime.sleep(0.05)\nraise ValueError('no')\n"
    fast_failure = "raise ValueError('no')\n"
    with SandboxPool(workers=1, isolation=mode) as pool:
        results = pool.run(
            [(check_job(program), 5.0) for program in [slow_failure, fast_failure] * 3]
        )
    messages = set()
    for result in results:
        frames, broken, _ = _frames(result.checker_stream)
        assert broken is None and frames[-1] == {"t": "checks_done"}
        messages.add(frames[0]["x"]["msg"])
    assert messages == {"the sample process ended before answering"}


@pytest.mark.parametrize("mode", modes())
def test_the_next_job_waits_in_the_workers_pipe(mode):
    """Two jobs go to a zygote at once, so it never waits for the dispatcher between jobs; a job
    queued behind one whose worker dies has not started, and runs on the replacement."""
    contract = load_contract(FIXTURES / "hostile.toml")
    with Oracle(workers=1, isolation=mode) as oracle:
        pool = oracle._pool
        slot = pool._slots[0]
        first_pid = slot.proc.pid
        payload = oracle._plan(contract).payload
        hang = pool.submit({**payload, "program": "import time\ntime.sleep(5)\n"}, 10.0)
        queued = pool.submit({**payload, "program": contract.reference}, 10.0)
        deadline = time.monotonic() + 5
        # the dispatcher hands the second job over on its own thread: wait for it (a design with
        # one job per zygote never gets there), then both must be in the slot while the first runs
        while (not slot.pgids or len(slot.jobs) < 2) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(slot.jobs) == 2
        os.killpg(first_pid, signal.SIGKILL)
        assert hang.result(timeout=10).lost == "the sandbox worker died"
        result = queued.result(timeout=10)
        assert result.lost is None
        assert oracle._plan(contract).verdict(result, Prechecks([], None), oracle.isolation).passed


@pytest.mark.parametrize("mode", modes())
def test_a_dead_worker_loses_only_its_job_and_is_replaced(mode):
    contract = load_contract(FIXTURES / "hostile.toml")
    with Oracle(workers=1, isolation=mode) as oracle:
        slot = oracle._pool._slots[0]
        first_pid = slot.proc.pid
        future = oracle._pool.submit(
            {
                **oracle._plan(contract).payload,
                "program": "import time\ntime.sleep(5)\ndef solve(x):\n    return x + 1\n",
            },
            10.0,
        )
        deadline = time.monotonic() + 5
        while not slot.pgids and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(first_pid, signal.SIGKILL)
        result = future.result(timeout=10)
        assert result.lost == "the sandbox worker died"
        verdict = oracle._plan(contract).verdict(result, Prechecks([], None), oracle.isolation)
        assert verdict.status == "worker_lost" and not verdict.passed
        assert oracle.check(contract, contract.reference).passed
        assert oracle._pool._slots[0].proc.pid != first_pid


def test_an_unresponsive_worker_is_killed_after_timeout_and_grace():
    contract = load_contract(FIXTURES / "hostile.toml")
    with SandboxPool(workers=1, isolation="reduced", limits=Limits(grace_s=0.2)) as pool:
        os.kill(pool._slots[0].proc.pid, signal.SIGSTOP)
        payload = {
            "program": contract.reference,
            "entry": "solve",
            "entry_kind": "function",
            "tests": [],
            "checks": [],
        }
        start = time.monotonic()
        result = pool.run([(payload, 0.5)])[0]
        assert result.lost == "the sandbox worker stopped answering and was restarted"
        assert time.monotonic() - start < 0.5 + 0.2 + 1.0 + 1.0
        assert pool.run([(payload, 0.5)])[0].sample_exit.code == 0


@pytest.mark.parametrize("mode", modes())
def test_workers_die_with_the_app(mode):
    script = textwrap.dedent(f"""
        import sys, time
        from skyt_tui.engine.oracle.judge import Oracle
        oracle = Oracle(workers=2, isolation={mode!r})
        print(" ".join(str(s.proc.pid) for s in oracle._pool._slots), flush=True)
        time.sleep(60)
        """)
    app = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    pids = [int(p) for p in app.stdout.readline().split()]
    assert len(pids) == 2
    app.kill()
    app.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_landlock_alone_still_blocks_network_and_signals():
    with SandboxPool(workers=1, isolation="reduced", without=("seccomp",)) as pool:
        abi = next(
            (
                int(layer.removeprefix("landlock-abi"))
                for layer in pool.layers
                if layer.startswith("landlock")
            ),
            0,
        )
        if abi < 6:
            pytest.skip("needs Landlock ABI 6 (TCP and signal scoping)")
        assert "seccomp" not in pool.layers
        connect = """
            import socket
            def probe():
                s = socket.socket()
                s.connect(("127.0.0.1", 9))
            """
        assert probe(pool, connect) == ("raised", "PermissionError")
        kill = "import os, signal\ndef probe():\n    os.kill(os.getppid(), signal.SIGKILL)"
        assert probe(pool, kill) == ("raised", "PermissionError")
        write = "def probe():\n    open('/tmp/skyt-landlock-escape', 'w')"
        assert probe(pool, write) == ("raised", "PermissionError")
        assert not Path("/tmp/skyt-landlock-escape").exists()


def test_isolation_resolution(monkeypatch):
    monkeypatch.setenv("SKYT_SANDBOX", "reduced")
    assert resolve_isolation("auto") == "reduced"
    assert sandbox.isolation_available() == "reduced"
    monkeypatch.setenv("SKYT_SANDBOX", "chroot")
    with pytest.raises(SandboxError, match="SKYT_SANDBOX must be one of"):
        resolve_isolation("auto")
    with pytest.raises(SandboxError, match="isolation must be one of"):
        resolve_isolation("docker")
    monkeypatch.delenv("SKYT_SANDBOX")
    monkeypatch.setattr(sandbox, "_bwrap_probe", lambda: "bubblewrap (bwrap) is not installed")
    assert resolve_isolation("auto") == "reduced"
    with pytest.raises(SandboxError, match="not installed"):
        resolve_isolation("bubblewrap")


def test_a_closed_pool_refuses_work():
    pool = SandboxPool(workers=1, isolation="reduced")
    pool.close()
    pool.close()
    with pytest.raises(SandboxError, match="closed"):
        pool.submit({}, 1.0)


@pytest.mark.parametrize("mode", modes())
def test_what_a_terminated_app_left_is_removed_at_the_next_start(mode, tmp_path, monkeypatch):
    """SIGTERM gives the pool no chance to clean up: its folder (and memory cgroups) stay. The
    next pool removes them, and only them: not a live pool's, not another user's, not a folder of
    another naming, and never through a symlink."""
    script = textwrap.dedent(f"""
        import sys, time
        from skyt_tui.engine.sandbox.pool import SandboxPool
        pool = SandboxPool(workers=1, isolation={mode!r})
        cgroup = pool._cgroups.root if pool._cgroups else ""
        print(pool._base, cgroup, pool._slots[0].proc.pid, flush=True)
        time.sleep(60)
        """)
    app = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)},
    )
    base, cgroup, zygote = app.stdout.readline().split(" ")
    app.send_signal(signal.SIGTERM)
    app.wait()
    deadline = time.monotonic() + 5
    while _alive(int(zygote)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert Path(base).is_dir() and Path(base).parent == tmp_path
    # the dead pool's memory cgroup is not under tmp_path: a pool starting meanwhile in another
    # test process may already have swept it (seen with pytest -n 2), which is what is tested here

    tag = sandbox.cgroups.owner_tag()
    dead_tag = base.rsplit("/", 1)[1].removeprefix("skyt-sandbox-").rsplit("-", 1)[0]
    live = tmp_path / f"skyt-sandbox-{tag}-live0000"
    other_naming = tmp_path / "skyt-sandbox-ab12cd34"
    target = tmp_path / "precious"
    link = tmp_path / f"skyt-sandbox-{dead_tag}-link0000"
    for folder in (live, other_naming, target):
        folder.mkdir()
        (folder / "keep").write_text("x")
    link.symlink_to(target)
    others = tmp_path / f"skyt-sandbox-{dead_tag}-other000"
    if os.geteuid() == 0:
        others.mkdir()
        os.chown(others, 12345, 12345)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sandbox.sweep_stale_folders.cache_clear()
    with SandboxPool(workers=1, isolation=mode):
        pass
    assert not Path(base).exists()
    if cgroup.strip():
        assert not Path(cgroup.strip()).exists()
    assert all((folder / "keep").exists() for folder in (live, other_naming, target))
    assert link.is_symlink()
    assert os.geteuid() != 0 or others.is_dir()
    sandbox.sweep_stale_folders.cache_clear()


@pytest.mark.skipif(os.geteuid() != 0, reason="private namespaces need root")
def test_reduced_isolation_goes_on_without_a_private_root_the_kernel_refuses(monkeypatch):
    """A mount the kernel refuses (a container may forbid some) leaves plain reduced isolation,
    with its other layers, rather than no sandbox at all."""
    layout = sandbox.root_layout()
    monkeypatch.setattr(
        sandbox, "root_layout", lambda: [*layout, ("bind", "/nonexistent-skyt-source", "")]
    )
    with SandboxPool(workers=1, isolation="reduced") as pool:
        assert "namespaces" not in pool.layers and "seccomp" in pool.layers
        assert probe(pool, "def probe():\n    return 41 + 1") == 42
    monkeypatch.undo()
    with SandboxPool(workers=1, isolation="reduced") as pool:
        assert "namespaces" in pool.layers and "tmpfs-workdir" in pool.layers


VENV_PROBE = """
import json, sys
from skyt_tui.engine.sandbox import pool as sandbox
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sandbox.pool import SandboxPool
from skyt_tui.engine.oracle.plan import _frames
found = {"problem": sandbox._bwrap_probe()}
for isolation in ("bubblewrap", "reduced"):
    if isolation == "bubblewrap" and found["problem"] is not None:
        continue
    with SandboxPool(workers=1, isolation=isolation) as pool:
        payload = {
            "program": "def probe():\\n    return 41 + 1\\n",
            "entry": "probe",
            "entry_kind": "function",
            "tests": [{"i": 0, "op": "call", "args": wire.encode([]), "kwargs": {}}],
            "checks": [],
        }
        result = pool.run([(payload, 10.0)])[0]
        frames, _, _ = _frames(result.sample_stream)
        call = next(f for f in frames if f.get("t") == "call")
        found[isolation] = {"layers": list(pool.layers), "value": wire.decode(call["r"])}
print(json.dumps(found))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="private namespaces need root")
def test_an_interpreter_installed_under_tmp_keeps_every_layer(tmp_path):
    """`.ci/run` from a venv made under /tmp (as CI jobs often make them): the sandbox bound the
    venv, then mounted the sample's own tmpfs over /tmp, which hid the interpreter. bubblewrap
    failed ("execvp /tmp/.../python3: No such file or directory") and reduced isolation lost its
    private root (the layout had made /tmp already). The tmpfs now comes first, the venv is
    bound into it."""
    assert str(tmp_path).startswith("/tmp/")
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
        check=True,
    )
    done = subprocess.run(
        [str(venv / "bin" / "python3"), "-c", VENV_PROBE],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if sandbox._bwrap_probe() is None:  # bubblewrap works for this interpreter: so for the venv's
        assert found["problem"] is None, found["problem"]
        assert "bubblewrap" in found["bubblewrap"]["layers"]
    assert "namespaces" in found["reduced"]["layers"], found["reduced"]["layers"]
    assert "tmpfs-workdir" in found["reduced"]["layers"]
    assert all(found[mode]["value"] == 42 for mode in ("bubblewrap", "reduced") if mode in found)
