"""Shared output helpers: rich tables for people, one JSON envelope for machines."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from skyt_tui.engine.printable import json_printable
from skyt_tui.engine.report import envelope, fmt3
from skyt_tui.engine.report import json_safe as _json_safe

__all__ = ["JSON_HELP", "console", "error_console", "fmt3", "print_json", "_json_safe"]

JSON_HELP = "print JSON (the envelope in docs/json.md) instead of a table"


def console() -> Console:
    return Console(highlight=False)


def error_console() -> Console:
    return Console(stderr=True, highlight=False)


def print_json(kind: str, data: Any) -> None:
    """`data` on stdout in the JSON envelope (`schema_version`, `kind`, then the data).

    Characters a terminal would act on (C1 controls, bidirectional overrides) are
    written as \\u escapes, so a sample's text cannot reach the terminal raw.
    """
    text = json.dumps(
        _json_safe(envelope(kind, data)), indent=2, sort_keys=True, ensure_ascii=False
    )
    sys.stdout.write(json_printable(text) + "\n")
