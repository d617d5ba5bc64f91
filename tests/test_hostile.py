"""Hostile samples: each is contained, fails with its reason within timeout + 2 s for each sandbox
run its tests took (a run per test that timed out: `judge.Oracle._judge`), and the host
(this process, its files, its network, its environment, the sandbox pool) is unaffected.

The suite runs once per isolation mode: with bubblewrap (skipped where it
cannot run) and in reduced isolation (limits, uid, seccomp, Landlock only), as
if bubblewrap were absent. One check per test keeps it spread over pytest-xdist
workers; the last test runs hostile and good samples side by side.

The per-kind cases and the neighbours test also run through the Ray executor
(marked `ray`), on the nodes of a real local cluster: there the "app" a sample
must not reach is the node's judge actor, which holds the sandbox pool, and the
raylets were started with the secret in their environment.
"""

import dataclasses
import os
import socket
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import load_contract
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sandbox import pool as sandbox
from skyt_tui.engine.sandbox.worker import cleanup as sandbox_worker
from tests.ray_cluster import SECRET

FIXTURES = Path(__file__).parent / "fixtures" / "oracle"
ROOT = Path(__file__).resolve().parents[1]
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


SYSV_HELPERS = textwrap.dedent("""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
KEY = 0x5C7713
""")


def forge_result(expression, prelude=""):
    """A sample that replaces the harness's JSON writer: its result frames carry the raw JSON
    text `expression` evaluates to (once, at load), whatever the harness meant to send."""
    return prelude + textwrap.dedent(f"""
    import json
    _dumps = json.dumps
    RESULT = {expression}
    def _forge(payload, *args, **kwargs):
        if isinstance(payload, dict) and payload.get("t") == "call":
            return '{{"t":"call","i":%d,"r":%s,"s":0}}' % (payload["i"], RESULT)
        return _dumps(payload, *args, **kwargs)
    json.dumps = _forge
    def solve(x):
        return x + 1
    """)


COLLIDING_TUPLES = """
MASK = (1 << 64) - 1
P1, P2, P5 = 11400714785074694791, 14029467366897019727, 2870177450012600261
def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK
def rotr(x, r):
    return ((x >> r) | (x << (64 - r))) & MASK
def colliding(count):
    # CPython's tuple hash (xxHash lanes) inverted: pairs (a, b) of small ints with one hash
    want = rotr(((0x5EED - (2 ^ P5 ^ 3527539)) * pow(P1, -1, 1 << 64)) & MASK, 31)
    inverse = pow(P2, -1, 1 << 64)
    pairs, a = [], 0
    while len(pairs) < count:
        a += 1
        lane = ((want - (rotl((P5 + a * P2) & MASK, 31) * P1 & MASK)) * inverse) & MASK
        if lane < (1 << 61) - 1:
            pairs.append((a, lane))
    return pairs
"""

# Class 1 of issue 13: results whose decoding or comparison in the parent would not end.
RESULT_BOMBS = {
    "fraction_bomb": (
        forge_result(
            """'{"$fraction":[{"$int":"%s"},{"$int":"%s"}]}' % (hex((1 << 8_400_000) + 1), hex(3 ** 250_000))"""
        ),
        {"too_large"},
        "bits",
    ),
    "colliding_big_ints": (
        forge_result(
            "_dumps({'$set': [{'$int': hex(k * ((1 << 61) - 1) + 7)} for k in range(8, 20_000)]})"
        ),
        {"too_large"},
        "hash",
    ),
    "colliding_tuples": (
        forge_result(
            "_dumps({'$set': [{'$tuple': list(pair)} for pair in colliding(20_000)]})",
            COLLIDING_TUPLES,
        ),
        {"too_large"},
        "hash",
    ),
    "colliding_dict_keys": (
        forge_result(
            "_dumps({'$dict': [[{'$tuple': list(pair)}, 0] for pair in colliding(12_000)]})",
            COLLIDING_TUPLES,
        ),
        {"too_large"},
        "hash",
    ),
    "nested_set_bomb": (
        forge_result(
            "_dumps(__import__('functools').reduce(lambda node, level: {'$frozenset': [node, level]},"
            " range(95), {'$frozenset': list(range(1000, 101_000))}))"
        ),
        {"ok"},
        "expected 2, got frozenset({",
    ),
    "deep_nesting": (
        forge_result("'[' * 200_000 + ']' * 200_000"),
        {"protocol_error"},
        "malformed",
    ),
    "many_values": (
        forge_result("'[' + '[],' * 4_100_000 + '0]'"),
        {"too_large"},
        "values",
    ),
    # issue 26 class 1: a frame under 1 MiB whose value counting would backtrack for hours (its
    # string never closes: the frame's own quotes would otherwise end it, as forge_result's do)
    "escaped_quotes": (
        textwrap.dedent("""
        import json
        _dumps = json.dumps
        def _forge(payload, *args, **kwargs):
            if isinstance(payload, dict) and payload.get("t") == "call":
                return '{"t":"call","i":%d,"r":"' % payload["i"] + '\\\\",' * 300_000
            return _dumps(payload, *args, **kwargs)
        json.dumps = _forge
        def solve(x):
            return x + 1
        """),
        {"protocol_error"},
        "malformed",
    ),
    "huge_json_number": (
        forge_result("'9' * 5_000_000"),
        {"protocol_error"},
        "JSON integer",
    ),
    "huge_decimal": (
        forge_result("""'{"$decimal":"%s"}' % ('9' * 3_000_000)"""),
        {"too_large"},
        "decimal",
    ),
    "spaced_string": (
        "def solve(x):\n    return 'a ' * 3_500_000\n",
        {"ok"},
        "expected 2, got 'a a a",
    ),
    "frame_flood": (
        textwrap.dedent("""
        import gc, os, struct
        def solve(x):
            harness = next(o for o in gc.get_objects() if type(o).__name__ == "SampleHarness")
            frame = struct.pack(">I", 2) + b"{}"
            os.write(harness.results_fd, frame * 1_000_000)
            return x + 1
        """),
        {"protocol_error"},
        "frame from the sample",
    ),
}
for _kind, (_program, _statuses, _mention) in RESULT_BOMBS.items():
    HOSTILE[_kind] = ("hostile", _program, _statuses, _mention)

HOSTILE.update(
    {
        # Class 2: memory outside RLIMIT_AS.
        "memfd_hoard": (
            "hostile",
            textwrap.dedent("""
            import os
            hoard = []
            for _ in range(200):  # each under RLIMIT_FSIZE, 3 GB in all, none in the address space
                fd = os.memfd_create("hoard")
                os.posix_fallocate(fd, 0, 15 << 20)
                hoard.append(fd)
            """)
            + SOLVE,
            # a loaded machine may not fill 1 GiB in time
            {"memory_limit", "load_error", "timeout"},
            "",
        ),
        "memfd_mapped": (
            "hostile",
            textwrap.dedent("""
            import mmap, os
            hoard = []
            for _ in range(150):  # pages written through a mapping stay after it is closed
                fd = os.memfd_create("hoard")
                os.ftruncate(fd, 15 << 20)
                with mmap.mmap(fd, 15 << 20) as area:
                    area.write(bytes(15 << 20))
                hoard.append(fd)
            """)
            + SOLVE,
            # a loaded machine may not fill 1 GiB in time
            {"memory_limit", "load_error", "timeout"},
            "",
        ),
        "tmpfs_hoard": (
            "hostile",
            textwrap.dedent("""
            import os
            chunk = b"x" * (8 << 20)
            for directory in ("/dev/shm", "/tmp", "."):
                for index in range(256):
                    try:
                        with open(os.path.join(directory, f"hoard-{index}"), "wb") as handle:
                            handle.write(chunk)
                    except OSError:
                        break
            def solve(x):
                return None
            """),
            {"disk_limit", "ok"},
            "",
        ),
        # Class 3: System V IPC objects that outlive the sample (and carry answers).
        "sysv_leave_answers": (
            "hostile",
            SYSV_HELPERS
            + textwrap.dedent("""
            segment = libc.shmget(KEY, 4096, 0o1666)
            if segment < 0:
                raise PermissionError(ctypes.get_errno(), "shmget refused")
            address = libc.shmat(segment, None, 0)
            ctypes.memmove(address, b"answers: 2, 42", 14)
            libc.msgget(KEY, 0o1666)
            libc.semget(KEY, 1, 0o1666)
            """)
            + SOLVE,
            {"load_error"},
            "PermissionError",
        ),
        "sysv_read_answers": (
            "hostile",
            SYSV_HELPERS
            + textwrap.dedent("""
            def solve(x):
                segment = libc.shmget(KEY, 4096, 0)
                if segment < 0:
                    raise LookupError(f"no shared memory from an earlier sample (errno {ctypes.get_errno()})")
                address = libc.shmat(segment, None, 0)
                return {1: 2, 41: 42}[x] if ctypes.string_at(address, 7) == b"answers" else None
            """),
            {"ok"},
            "no shared memory",
        ),
        # Class 4: trees that break a recursive clean-up.
        "deep_tree": (
            "hostile",
            textwrap.dedent("""
            import os
            for _ in range(3000):
                os.mkdir("d")
                os.chdir("d")
            open("leaf", "w").write("x")
            def solve(x):
                return None
            """),
            # on a loaded machine the 3,000 mkdirs can outlast the time limit: still a FAIL, and
            # the clean-up of the half-built tree is what assert_contained checks
            {"ok", "disk_limit", "timeout"},
            "",
        ),
        "locked_tree": (
            "hostile",
            textwrap.dedent("""
            import os
            for top in range(20):
                path = f"locked-{top}/inner/deeper"
                os.makedirs(path)
                open(os.path.join(path, "file"), "w").write("x")
                os.symlink("/etc", os.path.join(path, "link"))
                os.chmod(os.path.join(path, "file"), 0)
                for level in (path, f"locked-{top}/inner", f"locked-{top}"):
                    os.chmod(level, 0)
            os.chmod(".", 0o500)
            def solve(x):
                return None
            """),
            {"ok"},
            "expected 2, got None",
        ),
        # Class 5: dodging the disk meter with paths longer than the path limit.
        "long_path_fill": (
            "hostile",
            textwrap.dedent("""
            import os
            for level in range(40):
                name = chr(ord("a") + level % 26) * 250
                os.mkdir(name)
                os.chdir(name)
            chunk = b"x" * (1 << 20)
            for index in range(240):
                with open(f"fill-{index}", "wb") as handle:
                    handle.write(chunk)
            """)
            + SOLVE,
            {"disk_limit", "load_error"},
            "",
        ),
        "inode_flood": (
            "hostile",
            textwrap.dedent("""
            import os
            for index in range(60_000):
                os.close(os.open(f"f{index}", os.O_CREAT | os.O_WRONLY))
            """)
            + SOLVE,
            {"disk_limit", "load_error"},
            "",
        ),
        # Class 6: terminal escapes in everything a sample names or says.
        "escape_sequences": (
            "hostile",
            textwrap.dedent("""
            print("\\x1b[2J\\x1b]0;pwned\\x07\\x9b6n")
            Evil = type("\\x1b[2J\\x1b]0;pwned\\x07Boom", (Exception,), {})
            raise Evil("\\x1b[31mred\\x1b[0m \\u202eevil\\x9b6n")
            """)
            + SOLVE,
            {"load_error"},
            "\\x1b[2J",
        ),
        # Class 7: what a sample can learn about the host.
        "host_metadata": (
            "hostile",
            textwrap.dedent("""
            import os
            def solve(x):
                leaks = []
                for path in ("/proc/@app_pid@", "/proc/@app_ppid@", "/run/user", "/home/@a_home@",
                             "/work", "/root/.ssh"):
                    try:
                        os.stat(path)
                        leaks.append(path)
                    except OSError:
                        pass
                for path in ("/home", "/run", "/proc", "/var", "/srv"):
                    try:
                        if os.listdir(path):
                            leaks.append(path + "/*")
                    except OSError:
                        pass
                return leaks
            """),
            {"ok"},
            "expected 2, got []",
        ),
    }
)

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


def executor_modes():
    """(executor, isolation) of the module's host: this machine, then a Ray cluster's nodes."""
    problem = sandbox._bwrap_probe()
    no_bwrap = pytest.mark.skipif(problem is not None, reason=str(problem))
    return [
        pytest.param(("local", "bubblewrap"), marks=no_bwrap, id="bubblewrap"),
        pytest.param(("local", "reduced"), id="reduced"),
        pytest.param(("ray", "bubblewrap"), marks=[no_bwrap, pytest.mark.ray], id="ray-bubblewrap"),
        pytest.param(("ray", "reduced"), marks=pytest.mark.ray, id="ray-reduced"),
    ]


def executor_for(request, where):
    """None for this machine's oracle, else the session's Ray executor (starting the cluster)."""
    return request.getfixturevalue("ray_executor") if where == "ray" else None


def _pool_facts(pool):
    """What the checks need of one sandbox pool (run here, or inside a node's judge actor)."""
    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "zygotes": [slot.proc.pid for slot in pool._slots],
        "uids": [slot.uid for slot in pool._slots if slot.uid is not None],
        "base": pool._base,
        "cgroup_slots": [str(path) for path in pool._cgroups.slots] if pool._cgroups else [],
    }


class Host:
    """One isolation mode's oracle, plus the things on the host that samples must not reach.

    With `executor` (the Ray executor) the oracle's pools are its nodes' judges, on this machine.
    """

    def __init__(self, mode, tmp_path, workers=1, without=(), limits=None, executor=None):
        self.mode = mode
        self.executor = executor
        if executor is None:
            self.oracle = Oracle(workers=workers, isolation=mode, limits=limits, without=without)
        else:
            self.oracle = executor.open_oracle(
                workers=workers, isolation=mode, limits=limits, without=without
            )
        app = self.pools()[0]
        app_pid, app_ppid = (app["pid"], app["ppid"]) if executor else (os.getpid(), os.getppid())
        self.outside = tmp_path / "escaped.txt"
        self.repo_file = ROOT / "hostile-escape.txt"
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.setblocking(False)
        homes = sorted(os.listdir("/home")) if os.path.isdir("/home") else []
        self.fill = {
            "app_pid": str(app_pid),
            "app_ppid": str(app_ppid),
            "a_home": homes[0] if homes else "nobody",
            "outside": repr(str(self.outside)),
            "repo_file": repr(str(self.repo_file)),
            "port": str(self.listener.getsockname()[1]),
            "contract_file": repr(str(FIXTURES / "hostile.toml")),
        }
        self.contracts = {
            name: load_contract(FIXTURES / f"{name}.toml") for name in ("hostile", "hostile_check")
        }
        self.uids = {uid for facts in self.pools() for uid in facts["uids"]}

    def pools(self):
        """`_pool_facts` of each sandbox pool behind the oracle, in a fixed order."""
        if self.executor is None:
            return [_pool_facts(self.oracle._pool)]
        ray = self.executor.ray
        judges = self.oracle.judges()
        asked = [
            judges[key].__ray_call__.remote(lambda judge: _pool_facts(judge.oracle._pool))
            for key in sorted(judges)
        ]
        return ray.get(asked)

    def check_on_every_pool(self, contract, code):
        """Whether each pool passes `code` (on a node, after the clean-up of its last job)."""
        if self.executor is None:
            return [self.oracle.check(contract, code).passed]
        key = contract.content_hash()
        judges = self.oracle.judges()
        asked = [
            judges[node].judge.remote({key: contract}, [(key, code)]) for node in sorted(judges)
        ]
        return [verdicts[0].passed for verdicts in self.executor.ray.get(asked)]

    def job(self, kind):
        contract_name, template = HOSTILE[kind][:2]
        return self.contracts[contract_name], fill_in(template, self.fill)

    def zygotes(self):
        return [pid for facts in self.pools() for pid in facts["zygotes"]]

    def connected(self):
        try:
            connection, _ = self.listener.accept()
        except BlockingIOError:
            return False
        connection.close()
        return True

    def survivors(self):
        """Processes still running under the sample uids (only when the app is root)."""
        deadline = time.monotonic() + 2
        while True:
            found = [
                pid for pid in os.listdir("/proc") if pid.isdigit() and _uid_of(pid) in self.uids
            ]
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def leftover_bytes(self):
        """What the pool's folder on the host holds (a walk that copes with any tree)."""
        return sum(sandbox_worker.disk_usage(facts["base"], 10**6, 10**5) for facts in self.pools())

    def ipc_objects(self):
        """System V IPC objects on the host (this process's namespace) owned by the sample uids."""
        found = set()
        for kind in ("shm", "msg", "sem"):
            rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
            for row in rows:
                fields = row.split()
                owners = {int(field) for field in fields[6:10] if field.isdigit()}
                if owners & self.uids:
                    found.add((kind, fields[1]))
        return found

    def shared_files(self):
        """Files in the host's /dev/shm and /tmp that the sample uids own."""
        found = []
        for directory in ("/dev/shm", tempfile.gettempdir()):
            for entry in os.scandir(directory):
                try:
                    if entry.stat(follow_symlinks=False).st_uid in self.uids:
                        found.append(entry.path)
                except OSError:
                    continue
        return found

    def held_memory(self):
        """Shared memory and tmpfs pages still charged to the pool's memory cgroups."""
        total = 0
        for slot in [Path(path) for facts in self.pools() for path in facts["cgroup_slots"]]:
            for line in (slot / "memory.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "shmem":
                    total += int(value)
        return total

    def close(self):
        self.oracle.close()
        self.listener.close()


def _uid_of(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


@pytest.fixture(scope="module", params=executor_modes())
def host(request, tmp_path_factory):
    where, mode = request.param
    executor = executor_for(request, where)
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = SECRET  # set before the workers start: they must not inherit it
    try:
        host = Host(mode, tmp_path_factory.mktemp("outside"), executor=executor)
        if executor is not None:  # the judges hold the secret, as the app's process does here
            environ = Path(f"/proc/{host.fill['app_pid']}/environ").read_bytes()
            assert SECRET.encode() in environ
        yield host
        host.close()
    finally:
        if previous is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = previous


def assert_contained(host, kind, verdict, elapsed, zygotes, before, statuses=None):
    """Everything issue 13 asks of a hostile sample, after its verdict came back."""
    contract = host.job(kind)[0]
    statuses = statuses or HOSTILE[kind][2]
    mention = HOSTILE[kind][3]
    assert not verdict.passed
    assert verdict.status in statuses, (verdict.status, verdict.reason)
    text = verdict.reason + " ".join(o.error_message or "" for o in verdict.tests)
    assert verdict.reason and mention in text, (mention, text)
    texts = [verdict.reason] + [
        t for o in verdict.tests for t in (o.name, o.error_type, o.error_message) if t
    ]
    assert all(t.isprintable() for t in texts), "sample-controlled text reached the verdict raw"
    assert verdict.runs <= 2 * len(contract.tests)
    limit = contract.oracle.timeout_s * verdict.runs + 8.0  # the slack a loaded machine needs
    assert elapsed <= limit, "the parent did not return in time"
    assert verdict.duration_s <= limit
    assert verdict.isolation == host.mode
    assert SECRET not in str(verdict.to_dict())

    assert host.zygotes() == zygotes, "a sandbox worker died: the sample reached its parent"
    assert not host.outside.exists() and not host.repo_file.exists()
    assert not Path("/tmp/skyt-hostile-escape").exists()
    assert not host.connected(), "a sample reached a listener on 127.0.0.1"
    good = host.contracts[HOSTILE[kind][0]]
    assert all(host.check_on_every_pool(good, good.reference)), (
        "the same worker no longer passes a good sample"
    )
    assert host.survivors() == [], "a sample process outlived its job"
    assert host.leftover_bytes() < 1 << 20, "a sample's files outlived its job"
    assert host.ipc_objects() <= before["ipc"], "a sample's IPC objects outlived its job"
    assert host.shared_files() == [], "a sample's files in /dev/shm or /tmp outlived its job"
    assert host.held_memory() <= before["memory"] + (4 << 20), "a sample's memory outlived its job"


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_sample_is_contained_and_fails_with_its_reason(host, kind):
    layers = {layer.split("-")[0] for layer in host.oracle.layers}
    if kind in NEEDS and not NEEDS[kind] & layers:
        pytest.skip(
            f"{host.mode} isolation here ({', '.join(sorted(layers))}) cannot contain {kind}"
        )
    contract, program = host.job(kind)
    zygotes = host.zygotes()
    before = {"ipc": host.ipc_objects(), "memory": host.held_memory()}
    start = time.monotonic()
    verdict = host.oracle.check(contract, program)
    elapsed = time.monotonic() - start
    assert_contained(host, kind, verdict, elapsed, zygotes, before)


@pytest.mark.parametrize("where", executor_modes())
def test_hostile_neighbours_do_not_change_good_verdicts(where, tmp_path, request):
    """Hostile samples running at the same time as good ones, as in a real run."""
    executor = executor_for(request, where[0])
    host = Host(where[1], tmp_path, workers=2 if executor is None else 1, executor=executor)
    try:
        contract = host.contracts["hostile"]
        kinds = ["fork_bomb", "memory_bomb", "stdout_flood", "disk_fill", "kill_parent", "segfault"]
        jobs = [job for kind in kinds for job in (host.job(kind), (contract, contract.reference))]
        verdicts = host.oracle.check_many(jobs)
        assert [v.passed for v in verdicts] == [False, True] * len(kinds)
        assert all(v.status == "ok" for v in verdicts[1::2])
    finally:
        host.close()


def run_contained(host, kind, statuses=None, timeout_s=None):
    """`timeout_s`: the contract's limit per test for this job, where the default 1.5 s may run
    out on a loaded machine before the layer under test has stopped the sample."""
    zygotes = host.zygotes()
    before = {"ipc": host.ipc_objects(), "memory": host.held_memory()}
    contract, program = host.job(kind)
    if timeout_s is not None:
        contract = dataclasses.replace(
            contract, oracle=dataclasses.replace(contract.oracle, timeout_s=timeout_s)
        )
    start = time.monotonic()
    verdict = host.oracle.check(contract, program)
    assert_contained(host, kind, verdict, time.monotonic() - start, zygotes, before, statuses)
    return verdict


# Each layer on its own: with one switched off, the others still hold.
LAYERED = [
    # memory beyond the address space: the cgroup kills the sample; without it, memfd is refused
    ((), "memfd_hoard", {"memory_limit"}),
    (("cgroup",), "memfd_hoard", {"load_error"}),
    (("cgroup",), "memfd_mapped", {"load_error"}),
    # files and trees on a disk that is not the sample's own tmpfs: the meter, which cannot be blinded
    (("namespaces",), "long_path_fill", {"disk_limit", "load_error"}),
    (("namespaces",), "inode_flood", {"disk_limit", "timeout"}),
    (("namespaces",), "deep_tree", {"disk_limit", "timeout"}),
    (("namespaces",), "locked_tree", {"ok"}),
    # no Landlock: the private /dev/shm and /tmp are writable, capped, and emptied after the job
    (("landlock",), "tmpfs_hoard", {"disk_limit", "ok"}),
    # no Landlock and no namespaces (root in a container without either): only the uid, and the
    # after-job sweep of what that uid left in /tmp and /dev/shm, remain
    (("namespaces", "landlock"), "tmpfs_hoard", {"disk_limit", "ok", "memory_limit", "timeout"}),
]


@pytest.mark.parametrize("mode", isolation_modes())
@pytest.mark.parametrize("without, kind, statuses", LAYERED)
def test_each_layer_holds_on_its_own(mode, without, kind, statuses, tmp_path):
    if "namespaces" in without and mode != "reduced":
        pytest.skip("private namespaces are a layer of reduced isolation only")
    limits = sandbox.Limits(memory_bytes=384 << 20) if "hoard" in kind or "memfd" in kind else None
    host = Host(mode, tmp_path, without=without, limits=limits)
    try:
        # a layer that must stop the sample itself (not its time limit) gets the time to do it:
        # filling 384 MiB took more than 1.5 s at load 9 (CI-like load), a timeout, not a failure
        # of the cgroup
        wait = None if "timeout" in statuses else 20.0
        verdict = run_contained(host, kind, statuses, timeout_s=wait)
        if verdict.status == "memory_limit":
            assert "384 MiB" in verdict.reason
    finally:
        host.close()


@pytest.mark.parametrize("mode", isolation_modes())
@pytest.mark.parametrize("without", [(), ("seccomp",), ("seccomp", "landlock")])
def test_no_ipc_object_reaches_the_next_sample_or_the_host(mode, without, tmp_path):
    """A sample that stores answers in System V IPC and one that reads them, in one worker: with
    seccomp the first is refused outright; without it, the IPC namespace is private to the worker
    and emptied after each job, so the reader finds nothing and the host sees nothing."""
    host = Host(mode, tmp_path, without=without)
    try:
        statuses = {"load_error"} if "seccomp" not in without else {"ok"}
        leaver = host.job("sysv_leave_answers")
        verdict = host.oracle.check(*leaver)
        assert verdict.status in statuses, verdict.reason
        assert host.ipc_objects() == set()
        run_contained(host, "sysv_read_answers")
    finally:
        host.close()


MIXED_KINDS = [
    "fraction_bomb",
    "colliding_tuples",
    "many_values",
    "deep_nesting",
    "memfd_hoard",
    "sysv_leave_answers",
    "deep_tree",
    "long_path_fill",
    "escape_sequences",
    "kill_parent",
    "stdout_flood",
    "segfault",
]


@pytest.mark.parametrize("mode", isolation_modes())
def test_analyze_gives_real_samples_the_same_verdicts_beside_hostile_ones(
    mode, tmp_path, monkeypatch, capsys
):
    """Real LLM samples (SKYT's slugify run: one passes, nineteen fail in many ways), analysed
    alone and then interleaved with hostile samples: each real sample keeps its verdict, its
    outputs and its distances to the canon, to the last digit."""
    import json

    from skyt_tui.cli import main
    from skyt_tui.engine.contracts.catalog import get_contract
    from tests.corpus import require

    source = sorted(require("skyt-msr2026", "outputs").glob("slugify_temp1.0_*.json"))[0]
    codes = [result["raw_output"] for result in json.loads(source.read_text())["llm_results"]]
    entry = get_contract("slugify").entry.name
    host = Host(mode, tmp_path)
    host.close()
    hostile = [
        fill_in(HOSTILE[kind][1], host.fill).replace("def solve(", f"def {entry}(")
        for kind in MIXED_KINDS
    ]

    def analyze(programs, name):
        rows = [
            {"contract_id": "slugify", "model": "m", "temperature": 1.0, "code": code}
            for code in programs
        ]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        monkeypatch.setenv("SKYT_HOME", str(tmp_path / f"home-{name}"))
        monkeypatch.setenv("SKYT_SANDBOX", mode)
        assert main(["analyze", str(path), "--json", "--samples"]) == 0
        [run] = json.loads(capsys.readouterr().out)["runs"]
        return run

    alone = analyze(codes, "alone")
    mixed_programs, positions = [], []
    for index, code in enumerate(codes):
        positions.append(len(mixed_programs))
        mixed_programs.append(code)
        if index < len(hostile):
            mixed_programs.append(hostile[index])
    mixed = analyze(mixed_programs, "mixed")
    assert sum(sample["passed"] for sample in alone["samples"]) >= 1
    hostile_positions = set(range(len(mixed_programs))) - set(positions)
    assert not any(mixed["samples"][p]["passed"] for p in hostile_positions)
    for index, position in enumerate(positions):
        assert mixed["samples"][position] | {"index": index} == alone["samples"][index]
    assert alone["canon"]["sample_index"] is not None
    assert positions[alone["canon"]["sample_index"]] == mixed["canon"]["sample_index"]


# Issue 26, classes 2 and 4: samples that strain the parent process rather than the sandbox.
PARENT_STRAIN = {
    # the style rule's recursion check follows a call chain as long as the program has functions
    "call_chain": "def fibonacci(n):\n    return f0(n)\n"
    + "".join(f"def f{k}(n):\n    return f{k + 1}(n)\n" for k in range(1500))
    + "def f1500(n):\n    return 0 if n <= 0 else n\n",
    # an elif chain nests the syntax tree 1,200 levels deep (normalization walks it)
    "elif_chain": "def fibonacci(n):\n    if n < 0:\n        return 0\n"
    + "".join(f"    elif n == -{k}:\n        return 0\n" for k in range(1, 1200))
    + "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    # an expression 2,000 operators deep
    "operator_chain": "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n"
    + "        a, b = b, a + b"
    + " + 0" * 2000
    + "\n    return max(a, 0)\n",
    # 4 MB of program: quadratic distances would take minutes
    "huge_program": "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n"
    + "        a, b = b, a + b\n    return max(a, 0)\n"
    + "".join(f"# {'padding ' * 12}{k}\n" for k in range(40_000)),
}


@pytest.mark.parametrize("mode", isolation_modes())
def test_samples_that_strain_the_parent_fail_alone_and_the_batch_is_judged(
    mode, tmp_path, monkeypatch, capsys
):
    """A call chain under a style rule, an elif chain and an operator chain nested past the
    interpreter's recursion limit, and a 4 MB program, among real samples: `analyze` ends with
    exit 0 in bounded time, each strained sample fails on its own or is measured within bounds
    (the huge one is judged in the sandbox and counted, with one line saying it was not parsed;
    issue 36), and every real sample keeps its verdict and distances to the last digit."""
    import json

    from skyt_tui.cli import main
    from skyt_tui.engine.sources.extract import extract_code
    from skyt_tui.locations import bundled_examples_dir

    examples = sorted((bundled_examples_dir() / "fibonacci_iterative").glob("*.py"))
    codes = [path.read_text() for path in examples]
    strained = list(PARENT_STRAIN.values())
    assert len(PARENT_STRAIN["huge_program"]) > 4_000_000

    def analyze(programs, name):
        rows = [
            {"contract_id": "fibonacci_iterative", "model": "m", "temperature": 0.7, "code": code}
            for code in programs
        ]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        monkeypatch.setenv("SKYT_HOME", str(tmp_path / f"home-{name}"))
        monkeypatch.setenv("SKYT_SANDBOX", mode)
        start = time.monotonic()
        assert main(["analyze", str(path), "--json", "--samples"]) == 0
        elapsed = time.monotonic() - start
        captured = capsys.readouterr()
        [run] = json.loads(captured.out)["runs"]
        return run, captured.err, elapsed

    alone, _, _ = analyze(codes, "alone")
    mixed_programs = [*codes[:2], *strained, *codes[2:]]
    mixed, warnings, elapsed = analyze(mixed_programs, "mixed")
    assert elapsed < 120, "the strained samples stalled the analysis"
    by_index = {sample["index"]: sample for sample in mixed["samples"]}
    huge = mixed_programs.index(PARENT_STRAIN["huge_program"])
    # the program as judged: the answer's code taken by the one extraction rule (issue 23)
    judged = extract_code(mixed_programs[huge]).code
    reason = f"the program has {len(judged):,} characters (skyt-tui parses at most 50,000)"
    assert mixed["limited"] == [{"index": huge, "reason": reason}]
    assert warnings.count("\n") == 1 and f"sample {huge}: {reason}" in warnings
    assert mixed["metrics"]["n"] == len(mixed_programs)
    assert (mixed["metrics"]["n_failed"], mixed["metrics"]["n_limited"]) == (0, 1)
    assert mixed["metrics"]["invariant_violations"] == []
    # judged in the sandbox: it runs and passes every test; its style constraint, read from a
    # tree skyt-tui does not build, is not checked, so it fails
    long = by_index[huge]
    assert long["oracle"]["status"] == "ok" and not long["passed"], long["oracle"]["reason"]
    assert long["oracle"]["tests_passed"] == long["oracle"]["tests_total"]
    assert [t["error_type"] for t in long["oracle"]["tests"] if t["kind"] == "constraint"] == [
        "NotChecked"
    ]
    assert long["parse_error"] and long["limited"].startswith(reason) and not long["d_bound"]
    for kind in ("call_chain", "elif_chain", "operator_chain"):
        sample = by_index[mixed_programs.index(PARENT_STRAIN[kind])]
        assert not sample["passed"] or sample["parse_error"], kind
    assert by_index[2]["oracle"]["status"] != "ok" or not by_index[2]["passed"]
    assert by_index[3]["parse_error"] and by_index[4]["parse_error"]
    positions = [0, 1] + list(range(2 + len(strained), len(mixed_programs)))
    for index, position in enumerate(positions):
        assert by_index[position] | {"index": index} == alone["samples"][index]
    assert alone["canon"]["sample_index"] is not None
    assert positions[alone["canon"]["sample_index"]] == mixed["canon"]["sample_index"]


# Issue 26, class 3: a contract's check code is as untrusted as a sample.
CHECK_CONTRACT = """schema_version = 1
id = "{id}"
title = "Half (a contract from a file)"
difficulty = "easy"
prompt = "Write half(x) returning x / 2."
reference = "def half(x):\\n    return x / 2\\n"

[entry]
name = "half"

[oracle]
timeout_s = 1.5

[[tests]]
kind = "check"
code = '''
{check}
'''
"""

PATCH_THE_CHECKER = """
import gc, sys
def check(candidate):
    for module in list(sys.modules.values()):
        harness = getattr(module, "CheckHarness", None)
        if isinstance(harness, type):
            harness.run_one = lambda self, code, calls: None  # every later check "passes"
    for thing in gc.get_objects():
        if isinstance(thing, type) and thing.__name__ == "CheckHarness":
            thing.run_one = lambda self, code, calls: None
    assert candidate(4) == 2
"""

REMEMBER_THE_LAST_SAMPLE = """
import json
def check(candidate):
    assert not hasattr(json, "previous"), f"a check of another sample left {json.previous!r}"
    json.previous = candidate(4)
    assert json.previous == 2
"""


@pytest.mark.parametrize("mode", isolation_modes())
def test_a_contracts_check_code_changes_no_other_verdict(mode, tmp_path):
    """A human-eval check body (contract code read from a file) that patches the checker, then a
    wrong sample of another contract on the same worker: it fails, as it does alone; a check that
    keeps state between samples finds none."""
    host = Host(mode, tmp_path, workers=1)
    try:
        contracts = {}
        for name, check in (("patch", PATCH_THE_CHECKER), ("remember", REMEMBER_THE_LAST_SAMPLE)):
            path = tmp_path / f"{name}.toml"
            path.write_text(CHECK_CONTRACT.format(id=f"check_{name}", check=check))
            contracts[name] = load_contract(path)
        other = host.contracts["hostile_check"]
        wrong = "def half(x):\n    return 0\n"
        alone = host.oracle.check(other, wrong)
        assert not alone.passed
        assert host.oracle.check(contracts["patch"], contracts["patch"].reference).passed
        after = host.oracle.check(other, wrong)
        assert not after.passed, "another contract's check code made a wrong answer pass"

        def outcomes(verdict):
            return [
                (t.name, t.passed, t.actual, t.error_type, t.error_message) for t in verdict.tests
            ]

        assert after.reason == alone.reason and outcomes(after) == outcomes(alone)
        assert host.oracle.check(other, other.reference).passed
        remember = contracts["remember"]
        verdicts = [host.oracle.check(remember, remember.reference) for _ in range(3)]
        assert all(verdict.passed for verdict in verdicts), [v.reason for v in verdicts]
    finally:
        host.close()
