"""Confining one process of a job: the layers every sample process S and the checker C get.

`confine` runs in the process being confined, before it runs anything from a job. Its settings
are plain values (see `Zygote.confinement`), so the same code confines a process forked from the
zygote and the checker C, which is a fresh interpreter exec'd by a fork of the zygote and gets
them on its command line (`checker.exec_main`).
"""

from __future__ import annotations

import os
import random
import resource
import signal
import sys
from typing import Any

from .kernel import PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, Kernel

_CONFINED: dict[str, Any] = {}
"""How `confine` confined this process (its kernel handle, the scopes in force): what a process
it forks for a job needs to put that job in a scope of its own (`job_scope`)."""


def confine(
    kernel: Kernel,
    settings: dict[str, Any],
    cpu_s: int | None,
    output_fd: int | None,
    keep: list[int],
) -> None:
    """Own session, killed with the zygote, only `keep` (and 0-2) open, rlimits (`cpu_s` of CPU,
    or none: the warm checker sets its children's per job), the role's uid, no_new_privs, the
    role's Landlock ruleset, the seccomp filter (prepared in `kernel`), never dumpable.

    A process without a CPU limit of its own (`cpu_s` None) is the warm checker, which forks a
    process per job: it keeps the Landlock scope ruleset its children restrict themselves with.

    `settings`: "zygote_pid", "workdir", "limits", "nproc_base", "oom_volunteer", "uid" (None:
    keep this one), "ruleset" (an fd, or None), "seccomp", "landlock_scope" (the kernel's
    Landlock scopes apply: ABI >= 6).

    Both the ruleset and the seccomp filter put this process in a scope of its own: it can signal
    only itself and its own process group, and name no other process (`job_scope`)."""
    if os.getsid(0) != os.getpid():  # the exec'd checker made its session before the exec
        os.setsid()
    kernel.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != settings["zygote_pid"]:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(output_fd if output_fd is not None else null, 1)
    os.dup2(output_fd if output_fd is not None else null, 2)
    ruleset: int | None = settings["ruleset"]
    keep_set = sorted({0, 1, 2, *keep, *((ruleset,) if ruleset is not None else ())})
    low = 3
    for fd in keep_set:
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], low))
    # A write past RLIMIT_FSIZE then fails with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if settings["oom_volunteer"]:  # before the uid changes: /proc/self is then no longer ours
        adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(adjust, b"1000")
        finally:
            os.close(adjust)
    limits = settings["limits"]
    if cpu_s is None:
        cpu_limit = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    else:
        cpu_limit = (cpu_s, cpu_s + 1)
    for which, value in (
        (resource.RLIMIT_CPU, cpu_limit),
        (resource.RLIMIT_AS, (limits["memory_bytes"],) * 2),
        (resource.RLIMIT_FSIZE, (limits["file_size_bytes"],) * 2),
        (resource.RLIMIT_NPROC, (limits["processes"] + settings["nproc_base"],) * 2),
        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
    ):
        resource.setrlimit(which, value)
    workdir: str = settings["workdir"]
    os.chdir(workdir)
    uid: int | None = settings["uid"]
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        kernel.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of uid clears it
        if os.getppid() != settings["zygote_pid"]:
            os._exit(0)
    kernel.prctl(PR_SET_NO_NEW_PRIVS, 1)
    if ruleset is not None:
        kernel.landlock_restrict(ruleset)
        os.close(ruleset)
    if settings["seccomp"]:
        kernel.install_seccomp(os.getpid())
    kernel.prctl(PR_SET_DUMPABLE, 0)
    scoped = bool(ruleset is not None and settings.get("landlock_scope"))
    _CONFINED.update(kernel=kernel, seccomp=bool(settings["seccomp"]), landlock_scope=scoped)
    if scoped and cpu_s is None:  # the warm checker: its children's scope, made once
        _CONFINED["scope_ruleset"] = kernel.landlock_scope_ruleset()
    os.environ["TMPDIR"] = workdir
    os.environ["HOME"] = workdir
    if "tempfile" in sys.modules:  # else its first import reads TMPDIR
        setattr(sys.modules["tempfile"], "tempdir", workdir)  # noqa: B010
    random.seed(0)


def job_scope() -> None:
    """In a process just forked for one job from a long-lived confined process (the check child
    of the warm checker C): leave C's scope for one of this process's own, so that nothing the
    job runs can signal, trace or otherwise name C, C's process group, or any process outside
    the job — before anything of the job runs.

    - Landlock (ABI >= 6): a new domain, scoped for signals and abstract unix sockets: C and
      every process outside this one's descendants are outside it (a nested domain per job).
    - seccomp: a second filter naming only this process (C's names C): no kill, tgkill,
      sigqueue, prlimit, scheduling or priority call on C or on C's process group.

    Either holds on its own against signals; the seccomp filter also holds against the calls
    Landlock does not scope (limits, scheduling). A failure ends the process: its job's checks
    then never run, and the job fails as a checker that died.
    """
    kernel: Kernel | None = _CONFINED.get("kernel")
    if kernel is None:  # never confined (a test's direct call): nothing to leave
        return
    try:
        if _CONFINED["landlock_scope"]:
            ruleset = _CONFINED.pop("scope_ruleset", None)  # the warm checker's (`confine`)
            if ruleset is None:
                ruleset = kernel.landlock_scope_ruleset()
            try:
                kernel.landlock_restrict(ruleset)
            finally:
                os.close(ruleset)  # this process's copy: the checker keeps its own
        if _CONFINED["seccomp"]:
            kernel.install_seccomp_scope(os.getpid())
    except Exception:
        os._exit(71)
