"""The executor room: where the analysis's independent pieces of work run (docs/scaling.md).

`choice` is the seam: the local executor (this machine's sandbox pool and repair processes, the
default) or the Ray executor (`ray_executor`: a warm sandbox pool per node in `ray_judge`, oracle
batches streamed back in order by `ray_oracle`, repair searches and per-run analysis as Ray tasks
in `ray_tasks`). Both give the same numbers; only where the work runs changes.

May import: `oracle`, `repair`, `contracts` and the shared leaves. `ray` is imported only inside
the `ray_*` modules' functions, when the Ray executor is chosen: nothing else loads it.
"""
