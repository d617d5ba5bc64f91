"""Shared output helpers: rich tables for people, canonical JSON for machines."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from skyt_tui.engine.printable import json_printable
from skyt_tui.engine.report import fmt3
from skyt_tui.engine.report import json_safe as _json_safe

__all__ = ["console", "error_console", "fmt3", "print_json", "_json_safe"]


def console() -> Console:
    return Console(highlight=False)


def error_console() -> Console:
    return Console(stderr=True, highlight=False)


def print_json(obj: Any) -> None:
    """JSON on stdout; characters a terminal would act on (C1 controls, bidirectional
    overrides) are written as \\u escapes, so a sample's text cannot reach the terminal raw."""
    text = json.dumps(_json_safe(obj), indent=2, sort_keys=True, ensure_ascii=False)
    sys.stdout.write(json_printable(text) + "\n")
