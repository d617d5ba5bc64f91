"""The app's list filters: exact substring matches first, then near matches (rapidfuzz).

A filter typed in Runs, in a run's samples or in the Benchmark's items keeps every row whose text
holds it (case-insensitive), in the list's order, and after them the rows that hold it with a typo
or two (`fibonaci`, `gpt4o`), best first: `rapidfuzz.fuzz.partial_ratio`, the similarity of the
filter with the best-matching stretch of the row, at least `FUZZY_CUTOFF`. Filters shorter than
`FUZZY_MIN_LENGTH` characters match exactly only (two letters are found nearly everywhere).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

FUZZY_MIN_LENGTH = 4
"""Shorter filters match as substrings only."""
FUZZY_CUTOFF = 80.0
"""The least `partial_ratio` (0–100) of a near match: one edit in five characters."""


def ranked_matches(
    items: Sequence[T], needle: str, text: Callable[[T], str]
) -> tuple[list[T], int]:
    """The items `needle` lets through, exact ones first (in `items`' order), then near ones
    (best first, ties in `items`' order); and how many of them are exact."""
    needle = needle.strip().casefold()
    if not needle:
        return list(items), len(items)
    texts = [text(item).casefold() for item in items]
    exact = [i for i, t in enumerate(texts) if needle in t]
    if len(needle) < FUZZY_MIN_LENGTH:
        return [items[i] for i in exact], len(exact)
    from rapidfuzz import fuzz, process

    taken = set(exact)
    rest = {i: t for i, t in enumerate(texts) if i not in taken}
    near = process.extract(
        needle, rest, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_CUTOFF, limit=None
    )
    near.sort(key=lambda found: (-found[1], found[2]))
    return [items[i] for i in exact] + [items[found[2]] for found in near], len(exact)


def near_note(n_shown: int, n_exact: int) -> str:
    """` (N near)` after a filter's count when some of the rows shown are near matches."""
    return f" ({n_shown - n_exact} near, after the exact)" if n_shown > n_exact else ""
