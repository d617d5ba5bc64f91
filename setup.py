"""The compiled tree edit distance (skyt_tui/engine/measure/_ted.c); everything else is in pyproject.toml.

The extension is optional: where it cannot be built the install goes on and the
pure-Python Zhang–Shasha in tree_distance.py is used instead (the CLI says so).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skyt_tui.engine.measure._ted",
            sources=["skyt_tui/engine/measure/_ted.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
