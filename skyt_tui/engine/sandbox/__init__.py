"""The sandbox room: running untrusted programs in confined processes (docs/oracle.md).

`pool` keeps warm zygotes (inside bubblewrap where it works, "reduced" otherwise) and hands
them jobs; `wire` is how values cross the boundary; `cgroups` bounds the memory of each worker
slot. `worker/` is what runs inside, a package split by role: `framing` (the frames on every
pipe, whose header the pool shares), `kernel` (prctl, namespaces, the hand-assembled seccomp
filter, Landlock), `sample` and `check` (the harnesses of the sample and checker processes),
`checker` (the warm checker process), `zygote`, `watch` and `processes` (forking, watching and
reaping a job), `cleanup` (measuring and removing what a job wrote) and `entry` (the script the
pool starts). The worker and `wire` import the standard library alone, because they are loaded
by path inside the sandbox, under a private package name (see `worker/__init__.py`).

May import: the standard library, `skyt_tui.locations` and the shared leaves (`errors`). Only
the oracle room imports this one; it knows nothing of contracts, runs or the store.
"""
