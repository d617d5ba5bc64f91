"""The runs room: stored runs and what works on them (docs/runs.md, docs/state.md).

`run_store` is the run's files (run.json, samples.jsonl) and their lock; `analyses` the
cached analysis next to each run, written as each run finishes; `resume` what an unfinished
`analyze --resume` keeps; `run_import` turns recorded samples into stored runs;
`analysis_child` analyses stored runs in a child process for the app; `matrices` rebuilds a
run's texts and distance matrices; `report` is a run's report as data; `canon_actions`
re-establishes a canon from stored runs; `probes` a run's stored probe, read as typed records by
`probe_record`.

May import: `analysis`, `executor`, `sources`, `probe`, `contracts`, `measure` and the
shared leaves.
"""
