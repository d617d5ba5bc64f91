"""Shared output helpers: rich tables for people, canonical JSON for machines."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from rich.console import Console


def console() -> Console:
    return Console(highlight=False)


def error_console() -> Console:
    return Console(stderr=True, highlight=False)


def _json_safe(value: Any) -> Any:
    """nan/inf are not JSON; write them as null so every consumer can parse the output."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(_json_safe(obj), indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def fmt3(value: float | None) -> str:
    """Metrics are stored at full precision and shown with 3 decimals (SPEC §6)."""
    if value is None:
        return "–"
    return f"{value:.3f}"
