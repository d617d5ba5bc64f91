"""The sandbox worker: what runs inside the sandbox, the only code that executes sample code.

The pool (`sandbox.pool`) starts it as a script, `python -s -P -B <this folder>/entry.py`, inside
bubblewrap (this folder ro-bound at /skyt-sandbox/worker, `wire.py` at /skyt-sandbox/wire.py) or
as a plain child in reduced isolation, with an almost empty environment. It imports the standard
library alone, plus its own modules and `wire` (one level up); never skyt_tui, which the sandbox
hides (the import-linter contract and tests/test_layout.py check every import).

`entry` gives this folder's parent a private package name (`_skyt_sandbox`), so the modules import
each other relatively (`from .framing import ...`, `from .. import wire`) exactly as they do in
the app, where they are `skyt_tui.engine.sandbox.worker.*`; the folder is never on `sys.path`,
where a sample's `import` could find it. Every module is imported before the zygote confines
itself (a private root, Landlock), after which the folder may be out of reach.

- `framing`: the length-prefixed frames on every pipe (`FRAME_HEADER`, shared with the pool).
- `kernel`: prctl, namespaces and mounts, System V IPC, the hand-assembled seccomp filter and
  Landlock rulesets, through libc.
- `sample`: the sample harness, run in S, forked afresh for every job.
- `check`: the check harness, run in the checker C: `check(candidate)` against proxies of S.
- `checker`: the warm checker process, the zygote's handle on it and its serving loop; C is a
  fresh interpreter, exec'd by a fork of the zygote (`entry.py checker ...`).
- `confine`: the layers every S and C gets, from plain settings (the exec'd C has no zygote).
- `zygote`: the zygote, which reads jobs, confines and forks S and C, relays results, cleans up.
- `watch`: one job's watch (deadline, caps, killing and reaping); `processes`: exits, groups,
  children.
- `cleanup`: measuring and removing what a job wrote (`disk_usage`, `remove_tree`).
- `entry`: the script the pool starts.
"""
