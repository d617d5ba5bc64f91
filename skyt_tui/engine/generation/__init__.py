"""The generation room: asking a model for samples (docs/runs.md).

`runner` runs a contract's prompt N times into a stored run, `run_options` is the one
validator of a run's options (CLI and app), `providers` the model back-ends.

May import: `runs`, `sources`, `contracts` and the shared leaves.
"""
