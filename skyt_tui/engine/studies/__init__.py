"""The studies room: comparing stored runs across models and temperatures (docs/studies.md).

`study` is a study's file (a filter or ids, saved as TOML), `study_report` its rows, tables,
comparisons and exports, `stats` the significance tests and intervals (scipy.stats).

May import: `generation`, `runs`, `analysis`, `sources`, `measure` and the shared leaves.
"""
