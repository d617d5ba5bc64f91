"""A real local Ray cluster for the tests and bench/scale_ray.py: a head and more raylets on
this machine, each started with `ray start --block` in its own process group.

Every port is chosen free, the temporary dir is private, and `stop` ends only the processes
this cluster started (never `ray stop`, which would end every Ray process on the machine,
another engineer's included). `kill_node(i)` SIGKILLs one raylet's processes, as a machine
that is switched off mid-run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READY_LINE = b"Ray runtime started"
START_TIMEOUT_S = 180.0
START_ATTEMPTS = 3
"""`ray start` gives a raylet 30 s (hard-coded) to register; on a loaded machine it may not, so
a node is started up to this many times."""
SECRET = "sk-skyt-hostile-test-0123456789"
"""An API key in every raylet's environment, hence its judges' (tests/test_hostile.py: samples
on a node must not read it)."""
HEALTH_CHECK = '{"health_check_period_ms": 500, "health_check_failure_threshold": 4, "health_check_timeout_ms": 1000}'
"""A lost raylet is declared dead within ~3 s (Ray's default is ~30 s)."""


PR_SET_PDEATHSIG = 1


def _end_with_this_process() -> None:
    """In the child: SIGTERM when the test process dies, so `ray start --block` takes its raylet
    (and the raylet its workers) down with it even when pytest is killed."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def ray_command() -> list[str]:
    """`ray` of this interpreter (the console script next to it, else `python -m ray`)."""
    script = Path(sys.executable).with_name("ray")
    if script.exists():
        return [str(script)]
    found = shutil.which("ray")
    if found:
        return [found]
    return [sys.executable, "-m", "ray.scripts.scripts"]


def ray_client_installed() -> bool:
    """Whether `ray[client]` is installed: only then does a head start Ray Client's server (on a
    port of its own, which `ray start` refuses to be given without it)."""
    try:
        from ray._private.utils import get_ray_client_dependency_error
    except ImportError:
        return True
    return get_ray_client_dependency_error() is None


def free_ports(count: int) -> list[int]:
    """`count` distinct ports nobody listens on right now (bound, then released)."""
    sockets = []
    try:
        for _ in range(count):
            handle = socket.socket()
            handle.bind(("127.0.0.1", 0))
            sockets.append(handle)
        return [handle.getsockname()[1] for handle in sockets]
    finally:
        for handle in sockets:
            handle.close()


def free_port_range(width: int) -> int:
    """The first of `width` consecutive free ports (for the worker ports of one raylet)."""
    for _ in range(200):
        start = int.from_bytes(os.urandom(2), "big") % 20000 + 30000
        try:
            held = []
            for port in range(start, start + width):
                handle = socket.socket()
                held.append(handle)
                handle.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for handle in held:
                handle.close()
        return start
    raise RuntimeError("no free port range")


class LocalCluster:
    """`nodes` raylets (the first is the head) with `cpus` CPUs each, on 127.0.0.1."""

    def __init__(
        self,
        nodes: int = 2,
        cpus: int = 1,
        *,
        object_store_bytes: int = 96 << 20,
        env: dict[str, str] | None = None,
    ) -> None:
        """`env`: set in every raylet's environment (and so its workers')."""
        self.env = env or {}
        self.cpus = cpus
        self.object_store_bytes = object_store_bytes
        self.temp_dir = tempfile.mkdtemp(prefix="skyt-ray-")
        self.port = free_ports(1)[0]
        self.address = f"127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen[bytes] | None] = []
        self.logs: list[Path] = []
        self.wanted = nodes

    def start(self) -> LocalCluster:
        try:
            for _ in range(self.wanted):
                self.add_node()
        except BaseException:
            self.stop()
            raise
        return self

    def add_node(self, env: dict[str, str] | None = None) -> int:
        """Start one more raylet (the head first), with `env` over this process's environment;
        its index."""
        index = len(self.processes)
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                process = self._start(index, env)
            except RuntimeError:
                if attempt == START_ATTEMPTS:
                    raise
                continue
            self.processes.append(process)
            return index
        raise AssertionError("unreachable")

    def _start(self, index: int, env: dict[str, str] | None) -> subprocess.Popen[bytes]:
        """`ray start --block` for node `index`, once it says it started; its processes are
        ended when it does not."""
        head = index == 0
        if head:
            self.port = free_ports(1)[0]
            self.address = f"127.0.0.1:{self.port}"
        ports = free_ports(8)
        worker_start = free_port_range(40)
        command = [
            *ray_command(),
            "start",
            "--block",
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            str(self.cpus),
            "--num-gpus",
            "0",
            "--object-store-memory",
            str(self.object_store_bytes),
            "--disable-usage-stats",
            "--node-manager-port",
            str(ports[0]),
            "--object-manager-port",
            str(ports[1]),
            "--min-worker-port",
            str(worker_start),
            "--max-worker-port",
            str(worker_start + 39),
            "--dashboard-agent-listen-port",
            str(ports[2]),
            "--dashboard-agent-grpc-port",
            str(ports[3]),
            "--runtime-env-agent-port",
            str(ports[4]),
            "--metrics-export-port",
            str(ports[5]),
        ]
        if head:
            command += [
                "--head",
                "--port",
                str(self.port),
                "--temp-dir",
                self.temp_dir,
                "--include-dashboard",
                "false",
                "--system-config",
                HEALTH_CHECK,
            ]
            if ray_client_installed():  # else Ray starts no client server, and refuses the port
                command += ["--ray-client-server-port", str(ports[6])]
        else:
            command += ["--address", self.address]
        log = Path(self.temp_dir) / f"node-{index}-{len(self.logs)}.log"
        env = {
            **os.environ,
            # the workers import this checkout's skyt_tui, as a node would its installed one
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_memory_monitor_refresh_ms": "0",
            **self.env,
            **(env or {}),
        }
        with open(log, "wb") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_end_with_this_process,
            )
        self.logs.append(log)
        deadline = time.monotonic() + START_TIMEOUT_S
        while READY_LINE not in log.read_bytes():
            problem = None
            if process.poll() is not None:
                problem = f"ray start (node {index}) exited with {process.returncode}: "
                problem += log.read_text(errors="replace")[-2000:]
            elif time.monotonic() > deadline:
                problem = f"ray start (node {index}) did not start in time"
            if problem is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                raise RuntimeError(problem)
            time.sleep(0.2)
        return process

    def kill_node(self, index: int) -> None:
        """SIGKILL every process of raylet `index` (its agents too): the node is gone."""
        process = self.processes[index]
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self.processes[index] = None

    def stop(self) -> None:
        """End every process this cluster started (workers end with their raylet), remove its files."""
        for index in reversed(range(len(self.processes))):
            process = self.processes[index]
            if process is None:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            self.processes[index] = None
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def ray_cluster():
    """A head and a second raylet (1 CPU each) for the whole session, stopped at its end."""
    pytest.importorskip("ray", reason="the ray extra is not installed")
    cluster = LocalCluster(nodes=2, cpus=1, env={"OPENAI_API_KEY": SECRET}).start()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def ray_executor(ray_cluster):
    """This test process connected to `ray_cluster` as a driver (the Ray executor's own connect)."""
    from skyt_tui.engine.executor.ray_executor import RayExecutor

    executor = RayExecutor.connect(ray_cluster.address)
    yield executor
    executor.close()
