"""Any program as a provider: the prompt goes to its stdin, its stdout is the answer.

The command line is split like a shell would (`shlex`), run without a shell,
in its own process group (a timeout kills the whole group), with the user's
environment plus `SKYT_MODEL`, `SKYT_TEMPERATURE`, `SKYT_SEED`,
`SKYT_MAX_TOKENS`, `SKYT_SYSTEM` and `SKYT_SAMPLE_INDEX` describing the request
(unset when not given). Exit status 0 is an answer; 75 (EX_TEMPFAIL) asks for a
retry; anything else fails the sample with the last line of stderr.

A request nobody waits for any more is killed with its group: a cancelled run's, once its grace
for requests in flight is over (`stop_requests`, called by the runner), and every one still in
flight when the process exits (the app quit mid-run). Each runs in a session of its own, so
nothing else would ever stop a program that hangs.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import signal
import subprocess
import threading
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response, one_line

DEFAULT_TIMEOUT_S = 300.0
EX_TEMPFAIL = 75

_IN_FLIGHT: dict[subprocess.Popen[bytes], CommandProvider] = {}
"""Every request's program still running, with the provider that started it."""
_IN_FLIGHT_LOCK = threading.Lock()


class CommandProvider:
    name = "command"
    sends_seed = True
    deterministic = False

    def __init__(self, *, command: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise InputError(f"--command: cannot split {command!r}: {exc}") from None
        if not argv:
            raise InputError("--command: empty command (needed by --provider command)")
        self.command = command
        self.argv = argv
        self.timeout_s = float(timeout_s)

    def stop_requests(self) -> None:
        """Kill this provider's requests still in flight, each with its process group."""
        with _IN_FLIGHT_LOCK:
            running = [process for process, owner in _IN_FLIGHT.items() if owner is self]
        for process in running:
            _kill_group(process)

    def describe(self) -> dict[str, Any]:
        return {"command": self.command, "timeout_s": self.timeout_s}

    def _env(self, request: Request) -> dict[str, str]:
        env = dict(os.environ)
        values = {
            "SKYT_MODEL": request.model,
            "SKYT_TEMPERATURE": None if request.temperature is None else repr(request.temperature),
            "SKYT_SEED": None if request.seed is None else str(request.seed),
            "SKYT_MAX_TOKENS": None if request.max_tokens is None else str(request.max_tokens),
            "SKYT_SYSTEM": request.system,
            "SKYT_SAMPLE_INDEX": str(request.index),
        }
        for key, value in values.items():
            if value:
                env[key] = value
            else:
                env.pop(key, None)
        return env

    def complete(self, request: Request) -> Response:
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env(request),
                start_new_session=True,
            )
        except FileNotFoundError:
            raise ProviderError(
                f"command not found: {self.argv[0]}",
                abort_run=True,
                before_contact=f"--command: {self.argv[0]!r} is not a program on PATH",
            ) from None
        except PermissionError:
            raise ProviderError(
                f"command not executable: {self.argv[0]}",
                abort_run=True,
                before_contact=f"--command: {self.argv[0]!r} is not executable",
            ) from None
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT[process] = self
        try:
            stdout, stderr = process.communicate(
                request.prompt.encode("utf-8"), timeout=self.timeout_s
            )
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.communicate()
            raise ProviderError(
                f"command timed out after {self.timeout_s:g}s", retryable=True
            ) from None
        except BaseException:
            _kill_group(process)
            process.communicate()
            raise
        finally:
            with _IN_FLIGHT_LOCK:
                _IN_FLIGHT.pop(process, None)
        if process.returncode != 0:
            tail = stderr.decode("utf-8", "replace").strip().splitlines()
            detail = f": {one_line(tail[-1])}" if tail else ""
            raise ProviderError(
                f"command exited with status {process.returncode}{detail}",
                retryable=process.returncode == EX_TEMPFAIL,
            )
        return Response(
            text=stdout.decode("utf-8", "replace"),
            seed=request.seed,
        )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@atexit.register
def _kill_in_flight() -> None:
    """At exit: no request still running has anyone to answer (the module docstring)."""
    with _IN_FLIGHT_LOCK:
        running = list(_IN_FLIGHT)
    for process in running:
        _kill_group(process)
