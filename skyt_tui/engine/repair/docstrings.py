"""Drop a docstring (module, class or function) — the canon's are never copied in.

Matters only at the `raw` and `format` levels; `nodoc` already ignores docstrings.
"""

from __future__ import annotations

import ast

from skyt_tui.engine.repair.base import Transformer, docstring_offset

_Owner = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


class Docstrings(Transformer):
    name = "docstrings"
    summary = "remove a docstring (visible at the raw and format levels only)"

    def _strip(self, node: _Owner) -> _Owner:
        choice = self.offer() if node.body and docstring_offset(node.body) else None
        self.generic_visit(node)
        if choice is not None:
            node.body = node.body[1:] or [ast.Pass()]
        return node

    visit_Module = _strip
    visit_ClassDef = _strip
    visit_FunctionDef = _strip
    visit_AsyncFunctionDef = _strip
