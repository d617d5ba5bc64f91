"""The engine: everything skyt-tui computes and stores, with no UI dependency.

Nothing under this package may import Textual; `tests/test_layout.py` enforces it.
"""
