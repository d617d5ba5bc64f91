"""Left behind by the split of the app's calls of the engine (issue 38): they live in modules of
their own now (`canon_data`, `store_watch`, `run_data`, `bench_data`, `demo_data`, `run_form`,
`theme_data`, `run_execution`, `probe_data`). `screens/families.py`, changed by other work at the
same time, still reads `witness_as_test` here; this module goes when it imports `probe_data`."""

from skyt_tui.ui.probe_data import witness_as_test as witness_as_test
