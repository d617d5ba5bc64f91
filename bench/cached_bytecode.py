"""Compile the measured trees' modules to bytecode before a benchmark times them.

`pip install` leaves a package's modules compiled (`__pycache__/*.pyc`), and Python writes them
on the first import of a checkout, so a user's second command reads bytecode. This machine sets
PYTHONDONTWRITEBYTECODE=1: without this step every fresh `skyt-tui` process (the command, its
repair workers, a Ray driver and its workers) compiled about 130 of its modules from source again
(0.15 s of CPU each time), while the peers it is compared with (EvalPlus, installed by pip) read
bytecode. `py_compile` writes the files whatever that variable says; both sides of a comparison
are compiled (SKYT's checkout too), so each reads bytecode as an installed program does.
"""

from __future__ import annotations

import compileall
from pathlib import Path


def compile_trees(*trees: Path) -> str:
    """Compile every module under each tree (silently; unchanged files are skipped); one line
    saying what was done, for the benchmark's output."""
    done = []
    for tree in trees:
        if tree.is_dir():
            compileall.compile_dir(
                str(tree), quiet=2, workers=1
            )  # 2: not even the files that do not parse (the bundled examples of broken samples)
            done.append(str(tree))
    return "bytecode compiled before timing (as an installed package has it): " + (
        ", ".join(done) or "nothing"
    )
