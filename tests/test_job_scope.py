"""No confined process reaches a process outside its own job (issue 36): not the sample, not the
check child that runs a contract's `check(candidate)`, not a probe's run of a sample.

Each role runs the same attack against every process it could name: its parent (the zygote
for a sample, the warm checker C for a check child), its sibling (C, for a sample), the zygote,
the other worker's zygote and checker, the app and the app's parent. An attack is every call
that signals, traces or acts on a process by pid: kill, killpg, tgkill, sigqueue, a pidfd's
signal, ptrace, process_vm_readv, prlimit, setpriority, scheduling, affinity, I/O priority; and
towards the app also a SIGIO through a file owner and a connection to an abstract unix socket
it listens on (the app counts what arrives). A signal sent to the attacker's whole process
group (which holds C for a check child) must leave C alive; a process cloned beside the
attacker (CLONE_PARENT) must not outlive the job.

Both isolation modes, each with the job scope the kernel gives here (Landlock ABI >= 6 and
seccomp), with the fallback forced (Landlock as before its scopes: seccomp's scope alone), and
with Landlock's scope alone (no seccomp). What a configuration cannot hold is named and checked
to be exactly that.
"""

from __future__ import annotations

import os
import signal
import socket
import textwrap
import time
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import load_contract
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.outputs import Call
from tests.test_hostile import FIXTURES, isolation_modes

ATTACK = textwrap.dedent(r'''
import ctypes, errno, fcntl, os, resource, signal, socket, time

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _call(number, *args):
    result = _libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    if result < 0:
        raise OSError(ctypes.get_errno(), "")
    return result


def _sigqueue(pid):
    info = ctypes.create_string_buffer(128)
    ctypes.memmove(info, (ctypes.c_int * 3)(0, 0, -1), 12)  # si_code SI_QUEUE
    return _call(129, pid, 0, ctypes.addressof(info))


def _pidfd_signal(pid):
    fd = os.pidfd_open(pid)
    try:
        signal.pidfd_send_signal(fd, 0)
    finally:
        os.close(fd)


def _ptrace(pid):
    _call(101, 0x4206, pid, 0, 0)  # PTRACE_SEIZE: the target keeps running
    _call(101, 17, pid, 0, 0)  # PTRACE_DETACH


def _vm_read(pid):
    buffer = ctypes.create_string_buffer(8)
    local = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 8)
    remote = (ctypes.c_void_p * 2)(4096, 8)
    try:
        _call(310, pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0)
    except OSError as exc:
        if exc.errno != errno.EFAULT:  # EFAULT: allowed in, the address was just not mapped
            raise


def _killpg(pid):
    if pid == os.getpgid(0):  # its own group: it may (a check child's holds C: see below)
        raise OSError(errno.EPERM, "")
    os.killpg(pid, 0)


def _ioprio(pid):
    _call(251, 1, pid, _call(252, 1, pid))


ATTEMPTS = {
    "kill": lambda pid: os.kill(pid, 0),
    "killpg": _killpg,
    "tgkill": lambda pid: _call(234, pid, pid, 0),
    "sigqueue": _sigqueue,
    "pidfd_signal": _pidfd_signal,
    "ptrace": _ptrace,
    "vm_read": _vm_read,
    "prlimit": lambda pid: resource.prlimit(pid, resource.RLIMIT_CORE),
    "priority": lambda pid: os.setpriority(
        os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid)
    ),
    "affinity": lambda pid: os.sched_setaffinity(pid, os.sched_getaffinity(pid)),
    "scheduler": lambda pid: os.sched_setscheduler(
        pid, os.sched_getscheduler(pid), os.sched_getparam(pid)
    ),
    "ioprio": _ioprio,
}


def attack(targets):
    """Every call that reaches a process, at every target; what got through."""
    targets = dict(targets, parent=os.getppid())
    reached = []
    for name, pid in sorted(targets.items()):
        if not pid or pid == os.getpid():
            continue
        for what, attempt in ATTEMPTS.items():
            try:
                attempt(pid)
            except Exception:
                continue
            reached.append(f"{what}@{name}")
    app = targets["app"]
    try:  # the app counts SIGWINCH: sent directly, and through a file owner
        os.kill(app, signal.SIGWINCH)
    except OSError:
        pass
    try:
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, app)
        fcntl.fcntl(r, 10, signal.SIGWINCH)  # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
        os.write(w, b"x")
    except OSError:
        pass
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(0.5)
        connection.connect(ABSTRACT)
        reached.append("abstract@app")
    except OSError:
        pass
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:  # the whole process group: for a check child, the warm checker is in it
        os.kill(0, signal.SIGTERM)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, previous)
    try:  # a child of the parent, beside this process: the job's clean-up would not find it
        if _call(56, 0x8000 | signal.SIGCHLD, 0, 0, 0, 0) == 0:
            os.closerange(3, 4096)  # the job's pipes close: it ends as if nothing was left
            time.sleep(30)
            os._exit(0)
    except OSError:
        pass
    return ",".join(reached)
''')

SAMPLE = ATTACK + "\ndef solve(x):\n    return attack(TARGETS)\n"
CHECK_CONTRACT = """schema_version = 1
id = "scope_check"
title = "Half (job scope)"
difficulty = "easy"
prompt = "Write half(x) returning x / 2."
reference = "def half(x):\\n    return x / 2\\n"

[entry]
name = "half"

[oracle]
timeout_s = 5

[[tests]]
kind = "check"
code = '''
{attack}

def check(candidate):
    unexpected = sorted(set(attack(TARGETS).split(",")) - {{""}} - ALLOWED)
    assert unexpected == [], ",".join(unexpected)
    assert candidate(4) == 2
'''
"""

NAMING = ("prlimit", "priority", "affinity", "scheduler", "ioprio")
"""Calls Landlock does not scope: with Landlock's scope alone, only another uid stops them."""


def _children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(p) for p in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def _descendants(pid):
    found, stack = [], [pid]
    while stack:
        for child in _children(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def _cmdline(pid):
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _inner(pid):
    """The pid as the sandbox's own pid namespace numbers it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("NSpid:"):
            return int(line.split()[-1])
    raise AssertionError(f"no NSpid for {pid}")


def _worker(slot):
    """(zygote, warm checker) host pids of one pool slot, between jobs."""
    processes = [slot.proc.pid, *_descendants(slot.proc.pid)]
    zygote = next(
        pid
        for pid in processes
        if "entry.py" in _cmdline(pid) and "bwrap" not in _cmdline(pid).split()[0]
    )
    checkers = [pid for pid in _children(zygote) if "entry.py checker " in _cmdline(pid)]
    return zygote, (checkers[0] if checkers else None)


class Scene:
    """A pool of two workers; the processes each role must not reach; what reached the app."""

    def __init__(self, mode, without):
        self.oracle = Oracle(workers=2, isolation=mode, without=without)
        self.mode = mode
        self.signals = 0
        self.previous = signal.signal(signal.SIGWINCH, self._count)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.address = f"\0skyt-scope-{os.getpid()}-{time.monotonic_ns()}"
        self.listener.bind(self.address)
        self.listener.listen(8)
        self.listener.setblocking(False)
        self.contract = load_contract(FIXTURES / "hostile_check.toml")

    def _count(self, *_):
        self.signals += 1

    def _both(self, contract, code):
        return self.oracle.check_many([(contract, code), (contract, code)])

    def _check_contract(self, attack):
        path = Path(os.environ.get("TMPDIR", "/tmp")) / f"scope-{os.getpid()}-{time.time_ns()}.toml"
        path.write_text(CHECK_CONTRACT.format(attack=attack))
        try:
            return load_contract(path)
        finally:
            path.unlink()

    def workers(self):
        """(zygote, warm checker) of each worker, once each has its exec'd checker (a job
        without checks ends the warm checker, and the next one takes a moment to start)."""
        deadline = time.monotonic() + 10
        while True:
            found = [_worker(slot) for slot in self.oracle._pool._slots]
            if all(checker for _, checker in found) or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def program(self, sample, allowed=frozenset()):
        """The attack, with the pids of everything outside a job (of either worker)."""
        (zygote, checker), (other_zygote, other_checker) = self.workers()
        targets = {
            "zygote": _inner(zygote),
            "checker": _inner(checker),
            "other_zygote": _inner(other_zygote),
            "other_checker": _inner(other_checker),
            "app": os.getpid(),
            "app_parent": os.getppid(),
        }
        text = ATTACK + (
            f"\nTARGETS = {targets!r}\nABSTRACT = {self.address!r}\nALLOWED = {set(allowed)!r}\n"
        )
        return text + ("\ndef solve(x):\n    return attack(TARGETS)\n" if sample else "")

    def survivors(self):
        """Processes of the job's uids left after it, beside the warm checkers."""
        checkers = {checker for _, checker in self.workers()}
        uids = set()
        for slot in self.oracle._pool._slots:
            uids |= {slot.uid, slot.checker_uid} - {None}
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in checkers:
                try:
                    if os.stat(f"/proc/{entry}").st_uid in uids:
                        found.append(int(entry))
                except OSError:
                    continue
        return found

    def connections(self):
        count = 0
        while True:
            try:
                connection, _ = self.listener.accept()
            except BlockingIOError:
                return count
            connection.close()
            count += 1

    def close(self):
        self.oracle.close()
        self.listener.close()
        signal.signal(signal.SIGWINCH, self.previous)


CONFIGURATIONS = {
    "kernel": (),
    "fallback": ("landlock-scope",),
    "landlock-scope-only": ("seccomp",),
}


@pytest.fixture(scope="module", params=[(m, c) for m in isolation_modes() for c in CONFIGURATIONS])
def scene(request):
    mode, configuration = request.param
    if not isinstance(mode, str):  # a pytest.param carrying the bubblewrap skip
        for mark in mode.marks:
            if mark.args and mark.args[0]:
                pytest.skip(mark.kwargs.get("reason", "bubblewrap cannot run here"))
        mode = mode.values[0]
    if os.geteuid() != 0:
        pytest.skip("the scene names the pool's uids, which exist when the app is root")
    scene = Scene(mode, CONFIGURATIONS[configuration])
    scene.configuration = configuration
    yield scene
    scene.close()


def _allowed(scene, role):
    """What this configuration cannot stop: nothing, except with Landlock's scope alone a check
    child's calls that name its parent, the warm checker (which shares its uid), without
    signalling it, and a process cloned beside it."""
    layers = set(scene.oracle.layers)
    if scene.configuration == "kernel":
        assert {"scope-landlock", "scope-seccomp"} <= layers, layers
    elif scene.configuration == "fallback":
        assert "scope-seccomp" in layers and "scope-landlock" not in layers, layers
        assert "landlock-abi5" in layers, layers
    else:
        assert "scope-landlock" in layers and "scope-seccomp" not in layers, layers
        if role == "check":
            return {
                f"{name}@{target}"
                for name in NAMING
                for target in ("parent", "checker", "other_checker")
            } | {"clone_parent"}
    return set()


@pytest.mark.parametrize("role", ["sample", "check", "probe"])
def test_no_job_process_reaches_outside_its_job(scene, role):
    before = scene.workers()
    survivors_before = set(scene.survivors())  # another test's clone (see `_allowed`) may live on
    allowed = _allowed(scene, role)
    if role == "sample":
        contract = load_contract(FIXTURES / "hostile.toml")
        verdict = scene.oracle.check(contract, scene.program(sample=True))
        assert verdict.status == "ok", verdict.reason
        reached = {test.actual for test in verdict.tests}
        assert len(reached) == 1, reached
        report = reached.pop().strip('"')
    elif role == "check":
        contract = scene._check_contract(scene.program(sample=False, allowed=allowed))
        verdict = scene.oracle.check(contract, contract.reference)
        assert verdict.status == "ok", verdict.reason
        assert verdict.passed, verdict.tests[0].error_message  # what reached beyond `allowed`
        report = ""
    else:
        contract = load_contract(FIXTURES / "hostile.toml")
        [result] = scene.oracle.calls_iter([(contract, scene.program(sample=True), [Call((1,))])])
        assert result.status == "ok", result.reason
        report = str(result.outputs[0].value)
    reached = {item for item in report.split(",") if item}
    assert reached <= allowed, (role, scene.mode, scene.configuration, sorted(reached - allowed))
    time.sleep(0.2)  # a SIGIO or signal on its way to the app
    assert scene.signals == 0, "a job process signalled the app"
    assert scene.connections() == 0, "a job process connected to the app's abstract socket"
    after = scene.workers()
    assert [z for z, _ in after] == [z for z, _ in before], "a zygote was signalled (and replaced)"
    if role == "check":  # the group signal reached no warm checker (a check job keeps it)
        assert after == before, "a warm checker was signalled (and replaced)"
    survivors = sorted(set(scene.survivors()) - survivors_before)
    if "clone_parent" in allowed:  # a check child's clone beside the warm checker stays
        assert len(survivors) <= 1, survivors
    else:
        assert survivors == [], "a process of the job outlived it"
    assert all(v.passed for v in scene._both(scene.contract, scene.contract.reference))


SIGNAL_THE_PARENT = (
    CHECK_CONTRACT.replace(
        "{attack}",
        "import os\n\ndef attack(targets):\n    os.kill(os.getppid(), 0)\n    return 'signalled'\n"
        "\nTARGETS, ALLOWED = {}, set()",
    )
    .replace("{{", "{")
    .replace("}}", "}")
)


@pytest.mark.parametrize("mode", isolation_modes())
def test_check_code_cannot_signal_the_warm_checker(mode, tmp_path):
    """Issue 36, observed: `os.kill(os.getppid(), 0)` inside `check(candidate)` succeeded in both
    modes (the check child could signal the warm checker, its parent, which serves the jobs that
    follow). Now it is refused, as a sample's is."""
    path = tmp_path / "signal.toml"
    path.write_text(SIGNAL_THE_PARENT)
    contract = load_contract(path)
    with Oracle(workers=1, isolation=mode) as oracle:
        verdict = oracle.check(contract, contract.reference)
    assert not verdict.passed
    assert verdict.tests[0].error_type == "PermissionError", verdict.tests[0].error_message
