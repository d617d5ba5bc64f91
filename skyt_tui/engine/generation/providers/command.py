"""Any program as a provider: the prompt goes to its stdin, its stdout is the answer.

The command line is split like a shell would (`shlex`), run without a shell,
in its own process group (a timeout kills the whole group), with the user's
environment plus `SKYT_MODEL`, `SKYT_TEMPERATURE`, `SKYT_SEED`,
`SKYT_MAX_TOKENS`, `SKYT_SYSTEM` and `SKYT_SAMPLE_INDEX` describing the request
(unset when not given). Exit status 0 is an answer; 75 (EX_TEMPFAIL) asks for a
retry; anything else fails the sample with the last line of stderr.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response, one_line

DEFAULT_TIMEOUT_S = 300.0
EX_TEMPFAIL = 75


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
