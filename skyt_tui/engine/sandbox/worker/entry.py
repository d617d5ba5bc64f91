"""The script the pool starts: `python -s -P -B <the worker's folder>/entry.py` (see `__init__`).

It is run by path, never imported, in a process where skyt_tui cannot be imported. It registers
the folder above its own as the private package `_skyt_sandbox` (a bare package: no
`__init__.py` there is run), imports the zygote as `_skyt_sandbox.worker.zygote`, so relative
imports work as they do in the app, and runs it. `-P` keeps the script's folder off `sys.path`,
and so does this: a sample's `import` finds only the standard library.

`entry.py checker <fd> <settings>` starts the warm checker instead (`checker.exec_main`), in the
fresh interpreter a fork of the zygote execs; it imports the checker's modules, not the zygote.
"""

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import types

PACKAGE = "_skyt_sandbox"


def load(name: str = "zygote") -> types.ModuleType:
    """A worker module (the zygote), loaded from this file's folder under the private package
    name."""
    worker_dir = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
    spec.submodule_search_locations = [os.path.dirname(worker_dir)]
    sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{PACKAGE}.{os.path.basename(worker_dir)}.{name}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["checker"]:
        load("checker").exec_main(sys.argv[2:])
    sys.exit(load().main())
