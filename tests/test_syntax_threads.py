"""Parsing on several threads at once (engine/syntax.py, AST_LOCK).

CPython 3.11 keeps its AST conversion's recursion depth in state every thread shares: when a
parse's conversion runs Python code midway (a finalizer the garbage collector calls) and another
thread parses meanwhile, the first raises `SystemError: AST constructor recursion depth mismatch`
(python/cpython#106905). The app parses on several threads at once — the oracle's calls for the
repair workers' candidates (`plan.early_verdict`), the repair search's threads — and a full test
run at load 4 hit it once, failing an analysis. These tests build that interleaving on purpose.
"""

from __future__ import annotations

import ast
import gc
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.plan import Plan

CODE = "\n".join(f"def f{i}(x):\n    return [x + {i} for _ in range(3)]" for i in range(200))
HANDOVER_S = 1.0
PLAN = Plan(
    contract_from_dict(
        {
            "schema_version": 1,
            "id": "threads",
            "title": "t",
            "prompt": "p",
            "difficulty": "easy",
            "entry": {"name": "f0"},
            "tests": [{"kind": "call", "args": [1], "expected": [1, 1, 1]}],
            "constraints": {"coding_rules": ["MISRA-15.4"], "forbidden_patterns": ["continue"]},
        }
    )
)


def parse_midway_while_another_thread_parses(
    first: Callable[[], Any], second: Callable[[], Any], inside: Callable[[], Any] = ast.parse
) -> tuple[bool, list[BaseException]]:
    """Run `first` on one thread until the garbage collector calls a finalizer inside
    `inside`'s conversion; that finalizer lets `second` run on another thread (for up to
    HANDOVER_S) before the first goes on. Returns whether the handover happened inside the
    conversion (CPython 3.11: the collector runs on allocation), and what each raised."""
    entered, finished = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    class HandOver:
        def __init__(self) -> None:
            self.cycle = self  # garbage only the cyclic collector frees, calling __del__

        def __del__(self) -> None:
            if entered.is_set():
                return
            caller = sys._getframe(1)
            if caller.f_code is inside.__code__:  # called from within the parser's C code
                entered.set()
                finished.wait(HANDOVER_S)
            else:
                HandOver()  # collected too early: one more for the next collection

    def run_first() -> None:
        threshold = gc.get_threshold()
        gc.set_threshold(1)
        try:
            HandOver()
            first()
        except BaseException as error:  # noqa: BLE001 - what the test reports
            errors.append(error)
        finally:
            gc.set_threshold(*threshold)

    def run_second() -> None:
        entered.wait(5)
        try:
            second()
        except BaseException as error:  # noqa: BLE001 - what the test reports
            errors.append(error)
        finally:
            finished.set()

    threads = [threading.Thread(target=run_second), threading.Thread(target=run_first)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return entered.is_set(), errors


def test_the_interleaving_is_real_for_pythons_own_parse():
    """Without the lock, the interleaving raises SystemError on 3.11 (the bug defended)."""
    entered, errors = parse_midway_while_another_thread_parses(
        lambda: ast.parse(CODE), lambda: ast.parse(CODE)
    )
    if sys.version_info >= (3, 12):  # the collector runs between bytecodes: no such midway
        pytest.skip("the collector no longer runs inside the parser's conversion")
    assert entered
    assert [type(error) for error in errors] == [SystemError]
    assert "recursion depth mismatch" in str(errors[0])


def test_two_threads_parsing_at_once_both_get_their_trees():
    entered, errors = parse_midway_while_another_thread_parses(
        lambda: syntax.parse(CODE), lambda: syntax.parse(CODE)
    )
    if sys.version_info < (3, 12):
        assert entered
    assert errors == []


@pytest.mark.parametrize(
    "second",
    [
        lambda: syntax.parse_ast(CODE),
        lambda: syntax.literal_eval("(1, [2.5, 'x'], {'a': None})"),
        lambda: PLAN.early_verdict(CODE, "reduced"),
    ],
    ids=["parse_ast", "literal_eval", "oracle plan"],
)
def test_every_parse_of_the_app_waits_for_a_conversion_in_progress(second):
    entered, errors = parse_midway_while_another_thread_parses(
        lambda: syntax.parse_ast(CODE), second
    )
    if sys.version_info < (3, 12):
        assert entered
    assert errors == []


def test_literal_eval_reads_what_pythons_does():
    for text in ("  (1, 2)", "\t[1, -2.5, 'a', b'b', None, True, {1: {2}}]", "1+2j", "-7"):
        assert syntax.literal_eval(text) == ast.literal_eval(text)
    for bad in ("f(1)", "1 +", "x"):
        with pytest.raises((ValueError, SyntaxError)) as found:
            syntax.literal_eval(bad)
        with pytest.raises(found.type):
            ast.literal_eval(bad)


def test_no_module_parses_around_the_lock():
    """Every parse in the app's process goes through `syntax` (the sandbox's worker is a
    single-threaded process of its own, standard library only)."""
    root = Path(syntax.__file__).resolve().parents[1]
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative in ("engine/syntax.py",) or relative.startswith("engine/sandbox/worker/"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:  # a bundled example's broken program, not the app's code
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "ast"
                and node.attr in ("parse", "literal_eval")
            ) or (isinstance(node, ast.Name) and node.id == "PyCF_ONLY_AST"):
                found.append(f"{relative}:{node.lineno}")
    assert found == [], "parse through skyt_tui.engine.syntax.parse_ast / literal_eval"
