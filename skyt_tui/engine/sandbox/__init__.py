"""The sandbox room: running untrusted programs in confined processes (docs/oracle.md).

`pool` keeps warm zygotes (inside bubblewrap where it works, "reduced" otherwise) and hands
them jobs; `worker` is what runs inside (the zygote, the sample and check harnesses, the
kernel confinement) and imports the standard library alone, because it is loaded by path
inside the sandbox; `wire` is how values cross the boundary; `cgroups` bounds the memory of
each worker slot.

May import: the standard library, `skyt_tui.locations` and the shared leaves (`errors`). Only
the oracle room imports this one; it knows nothing of contracts, runs or the store.
"""
