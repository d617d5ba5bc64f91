"""Hostile samples: each is contained, fails with its reason within timeout + 2 s, and the host
(this process, its files, its network, its environment, the sandbox pool) is unaffected.

The suite runs once per isolation mode: with bubblewrap (skipped where it
cannot run) and in reduced isolation (limits, uid, seccomp, Landlock only), as
if bubblewrap were absent. One check per test keeps it spread over pytest-xdist
workers; the last test runs hostile and good samples side by side.
"""

import os
import socket
import textwrap
import time
from pathlib import Path

import pytest

from skyt_tui.engine import sandbox
from skyt_tui.engine.contract import load_contract
from skyt_tui.engine.oracle import Oracle

FIXTURES = Path(__file__).parent / "fixtures" / "oracle"
ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-skyt-hostile-test-0123456789"
SOLVE = "\ndef solve(x):\n    return x + 1\n"

# kind: (contract, program, statuses it may end with, what its reason must mention)
HOSTILE = {
    "infinite_loop": (
        "hostile",
        "def solve(x):\n    while True:\n        pass\n",
        {"timeout"},
        "timeout",
    ),
    "busy_thread": (
        "hostile",
        textwrap.dedent("""
        import threading
        def spin():
            while True:
                pass
        def solve(x):
            worker = threading.Thread(target=spin)
            worker.start()
            worker.join()
        """),
        {"timeout", "cpu_limit"},
        "",
    ),
    "fork_bomb": (
        "hostile",
        textwrap.dedent("""
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """)
        + SOLVE,
        {"timeout", "cpu_limit"},
        "",
    ),
    "memory_bomb": (
        "hostile",
        "hoard = [bytearray(1 << 30) for _ in range(64)]\n" + SOLVE,
        {"load_error"},
        "MemoryError",
    ),
    "memory_creep": (
        "hostile",
        textwrap.dedent("""
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
        """)
        + SOLVE,
        {"load_error", "timeout"},
        "",
    ),
    "disk_fill": (
        "hostile",
        textwrap.dedent("""
        chunk = b"x" * (1 << 20)
        index = 0
        while True:
            with open(f"fill-{index}", "wb") as handle:
                handle.write(chunk)
            index += 1
        """)
        + SOLVE,
        {"disk_limit", "load_error"},
        "",
    ),
    "big_file": (
        "hostile",
        "open('big', 'wb').write(b'x' * (24 << 20))\n" + SOLVE,
        {"load_error"},
        "File too large",
    ),
    "stdout_flood": (
        "hostile",
        "while True:\n    print('x' * 10000)\n" + SOLVE,
        {"output_limit"},
        "output limit",
    ),
    "deep_recursion": (
        "hostile",
        textwrap.dedent("""
        import sys
        sys.setrecursionlimit(10 ** 8)
        def down(n):
            return down(n + 1) + 1
        down(0)
        """)
        + SOLVE,
        {"timeout", "load_error", "crashed"},
        "",
    ),
    "c_stack_overflow": (
        "hostile",
        textwrap.dedent("""
        import json, sys
        sys.setrecursionlimit(10 ** 8)
        nested = []
        for _ in range(10 ** 5):
            nested = [nested]
        json.dumps(nested)
        """)
        + SOLVE,
        {"crashed"},
        "SIGSEGV",
    ),
    "segfault": ("hostile", "import ctypes\nctypes.string_at(0)\n" + SOLVE, {"crashed"}, "SIGSEGV"),
    "kill_parent": (
        "hostile",
        textwrap.dedent("""
        import os, signal
        for pid in (os.getppid(), @app_pid@, 1):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        os.kill(-1, signal.SIGKILL)
        """)
        + SOLVE,
        {"load_error"},
        "PermissionError",
    ),
    "read_api_key": (
        "hostile",
        textwrap.dedent("""
        import os
        def solve(x):
            for path in ("/proc/@app_pid@/environ", "/proc/self/environ", f"/proc/{os.getppid()}/environ"):
                try:
                    print(open(path, "rb").read())
                except OSError:
                    pass
            return os.environ["OPENAI_API_KEY"]
        """),
        {"ok"},
        "KeyError",
    ),
    "write_outside": (
        "hostile",
        textwrap.dedent("""
        import os
        def solve(x):
            for path in (@outside@, @repo_file@, "/tmp/skyt-hostile-escape"):
                try:
                    open(path, "w").write("escaped")
                except OSError:
                    pass
            open(@outside@, "w").write("escaped")
            return x + 1
        """),
        {"ok"},
        "Error",
    ),
    "read_contracts": (
        "hostile",
        textwrap.dedent("""
        def solve(x):
            return open(@contract_file@).read()
        """),
        {"ok"},
        "Error",
    ),
    "network": (
        "hostile",
        textwrap.dedent("""
        import socket
        def solve(x):
            connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            connection.settimeout(0.5)
            connection.connect(("127.0.0.1", @port@))
            connection.sendall(b"exfiltrated")
            return x + 1
        """),
        {"ok"},
        "PermissionError",
    ),
    "subprocess": (
        "hostile",
        textwrap.dedent("""
        import subprocess
        def solve(x):
            return int(subprocess.run(["/bin/sh", "-c", "echo 2"], capture_output=True).stdout)
        """),
        {"ok"},
        "PermissionError",
    ),
    "sys_exit_early": (
        "hostile",
        "import sys\nsys.exit(0)\n" + SOLVE,
        {"load_error"},
        "SystemExit",
    ),
    "os_exit_early": ("hostile", "import os\nos._exit(0)\n" + SOLVE, {"exited"}, "exited"),
    "exit_in_call": (
        "hostile",
        "import os\ndef solve(x):\n    os._exit(0)\n",
        {"exited"},
        "exited",
    ),
    "always_equal": (
        "hostile",
        textwrap.dedent("""
        class Anything(int):
            pass
        class Equal:
            def __eq__(self, other):
                return True
            __hash__ = object.__hash__
        def solve(x):
            return Equal()
        """),
        {"ok"},
        "unencodable",
    ),
    "prints_passed": (
        "hostile",
        textwrap.dedent("""
        import json, os, struct
        for fd in range(3, 40):
            for frame in ({"t": "tests_done"}, {"t": "check", "i": 0, "passed": True, "calls": []},
                          {"t": "checks_done"}):
                body = json.dumps(frame).encode()
                try:
                    os.write(fd, struct.pack(">I", len(body)) + body)
                except OSError:
                    pass
        print("passed")
        print("2 passed in 0.01s")
        def solve(x):
            return None
        """),
        {"protocol_error"},
        "unexpected 'tests_done' frame",
    ),
    "patch_builtins": (
        "hostile_check",
        textwrap.dedent("""
        import builtins, math
        builtins.abs = lambda value: 0
        math.isclose = lambda *args, **kwargs: True
        builtins.AssertionError = type("AssertionError", (Exception,), {})
        def half(x):
            return 0.0 if x == 3 else x / 2
        """),
        {"ok"},
        "assertion failed at line 2",
    ),
    "sabotage_harness": (
        "hostile_check",
        textwrap.dedent("""
        import builtins, json
        builtins.isinstance = lambda *args: True
        json.dumps = lambda *args, **kwargs: '{"t": "check", "i": 0, "passed": true}'
        def half(x):
            return "not a number"
        """),
        {"exited", "protocol_error", "ok"},
        "",
    ),
    "exit_before_check": (
        "hostile_check",
        "import os\nos._exit(0)\ndef half(x):\n    return x / 2\n",
        {"exited"},
        "exited",
    ),
}


NEEDS = {
    "read_contracts": {"bubblewrap", "landlock"},
    "write_outside": {"bubblewrap", "landlock"},
    "network": {"bubblewrap", "seccomp", "landlock"},
    "kill_parent": {"uid", "seccomp", "landlock"},
    "read_api_key": {"bubblewrap", "uid", "landlock"},
    "subprocess": {"seccomp"},
}
"""Kinds that only some layers can contain: any one of them suffices. Reduced isolation on a
kernel without Landlock (or seccomp) cannot, and the test says so instead of failing."""


def fill_in(template, values):
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    return template


def isolation_modes():
    problem = sandbox._bwrap_probe()
    return [
        pytest.param(
            "bubblewrap", marks=pytest.mark.skipif(problem is not None, reason=str(problem))
        ),
        "reduced",
    ]


class Host:
    """One isolation mode's oracle, plus the things on the host that samples must not reach."""

    def __init__(self, mode, tmp_path):
        self.mode = mode
        self.outside = tmp_path / "escaped.txt"
        self.repo_file = ROOT / "hostile-escape.txt"
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.setblocking(False)
        self.fill = {
            "app_pid": str(os.getpid()),
            "outside": repr(str(self.outside)),
            "repo_file": repr(str(self.repo_file)),
            "port": str(self.listener.getsockname()[1]),
            "contract_file": repr(str(FIXTURES / "hostile.toml")),
        }
        self.contracts = {
            name: load_contract(FIXTURES / f"{name}.toml") for name in ("hostile", "hostile_check")
        }
        self.oracle = Oracle(workers=2, isolation=mode)

    def job(self, kind):
        contract_name, template = HOSTILE[kind][:2]
        return self.contracts[contract_name], fill_in(template, self.fill)

    def zygotes(self):
        return [slot.proc.pid for slot in self.oracle._pool._slots]

    def connected(self):
        try:
            connection, _ = self.listener.accept()
        except BlockingIOError:
            return False
        connection.close()
        return True

    def survivors(self):
        """Processes still running under the sample uids (only when the app is root)."""
        uids = {slot.uid for slot in self.oracle._pool._slots if slot.uid is not None}
        deadline = time.monotonic() + 2
        while True:
            found = [pid for pid in os.listdir("/proc") if pid.isdigit() and _uid_of(pid) in uids]
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def leftover_bytes(self):
        return sum(
            f.stat().st_size for f in Path(self.oracle._pool._base).rglob("*") if f.is_file()
        )

    def close(self):
        self.oracle.close()
        self.listener.close()


def _uid_of(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


@pytest.fixture(scope="module", params=isolation_modes())
def host(request, tmp_path_factory):
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = SECRET  # set before the workers start: they must not inherit it
    try:
        host = Host(request.param, tmp_path_factory.mktemp("outside"))
        yield host
        host.close()
    finally:
        if previous is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = previous


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_sample_is_contained_and_fails_with_its_reason(host, kind):
    layers = {layer.split("-")[0] for layer in host.oracle.layers}
    if kind in NEEDS and not NEEDS[kind] & layers:
        pytest.skip(
            f"{host.mode} isolation here ({', '.join(sorted(layers))}) cannot contain {kind}"
        )
    contract, program = host.job(kind)
    statuses, mention = HOSTILE[kind][2:]
    zygotes = host.zygotes()
    start = time.monotonic()
    verdict = host.oracle.check(contract, program)
    elapsed = time.monotonic() - start

    assert not verdict.passed
    assert verdict.status in statuses, (verdict.status, verdict.reason)
    text = verdict.reason + " ".join(o.error_message or "" for o in verdict.tests)
    assert verdict.reason and mention in text, (mention, text)
    assert (
        elapsed <= contract.oracle.timeout_s + 2.0
        and verdict.duration_s <= contract.oracle.timeout_s + 2.0
    )
    assert verdict.isolation == host.mode
    assert SECRET not in str(verdict.to_dict())

    assert host.zygotes() == zygotes, "a sandbox worker died: the sample reached its parent"
    assert not host.outside.exists() and not host.repo_file.exists()
    assert not Path("/tmp/skyt-hostile-escape").exists()
    assert not host.connected(), "a sample reached a listener on 127.0.0.1"
    assert host.survivors() == [], "a sample process outlived its job"
    assert host.leftover_bytes() < 1 << 20, "a sample's files outlived its job"
    good = host.contracts[HOSTILE[kind][0]]
    assert host.oracle.check(good, good.reference).passed, "the pool no longer runs a good sample"


@pytest.mark.parametrize("mode", isolation_modes())
def test_hostile_neighbours_do_not_change_good_verdicts(mode, tmp_path):
    """Hostile samples running at the same time as good ones, as in a real run."""
    host = Host(mode, tmp_path)
    try:
        contract = host.contracts["hostile"]
        kinds = ["fork_bomb", "memory_bomb", "stdout_flood", "disk_fill", "kill_parent", "segfault"]
        jobs = [job for kind in kinds for job in (host.job(kind), (contract, contract.reference))]
        verdicts = host.oracle.check_many(jobs)
        assert [v.passed for v in verdicts] == [False, True] * len(kinds)
        assert all(v.status == "ok" for v in verdicts[1::2])
    finally:
        host.close()
