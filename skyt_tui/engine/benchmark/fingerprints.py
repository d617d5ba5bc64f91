"""Item fingerprints and the 13-gram contamination check (docs/benchmark.md).

Fingerprint, in the seed's format: `content_hash` = first 16 hex digits of
sha256(f"{title}::{body}") with a missing title or body as the empty string;
`solution_hash` = the same over f"::{solution}" (the seed hashed the solution as a
body with no title), or None when the item has no solution (the seed wrote "", which
reads like a hash); `created_at` from the data (None when absent — the seed stamped
the time of fingerprinting, which says nothing about the item); `added_to_training`
from the rotation history.

Contamination: an item's text (title, body and solution, each tokenized on its own)
is cut into 13-grams of lower-cased word tokens (`\\w+`); an item is flagged when any
of its 13-grams occurs in the given file. Items without text, or with fewer than 13
tokens, cannot be checked and are reported as such.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.errors import InputError

NGRAM = 13
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Fingerprint:
    issue_id: str
    content_hash: str
    solution_hash: str | None
    created_at: str | None
    added_to_training: str | None
    has_text: bool


def short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprint(item: Item, added_to_training: str | None = None) -> Fingerprint:
    return Fingerprint(
        issue_id=item.id,
        content_hash=short_hash(f"{item.title or ''}::{item.body or ''}"),
        solution_hash=short_hash(f"::{item.solution}") if item.solution is not None else None,
        created_at=item.created_at,
        added_to_training=added_to_training,
        has_text=item.has_text,
    )


def fingerprints(items: Sequence[Item], training: Mapping[str, str]) -> tuple[Fingerprint, ...]:
    return tuple(fingerprint(item, training.get(item.id)) for item in items)


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ngrams(words: Sequence[str], n: int = NGRAM) -> set[str]:
    return {" ".join(words[start : start + n]) for start in range(len(words) - n + 1)}


def item_ngrams(item: Item, n: int = NGRAM) -> set[str]:
    grams: set[str] = set()
    for text in (item.title, item.body, item.solution):
        if text:
            grams |= ngrams(tokens(text), n)
    return grams


@dataclass(frozen=True)
class ItemOverlap:
    issue_id: str
    status: str
    """"checked", "no text" (no title, body or solution) or "too short" (under 13 tokens)."""
    ngrams: int
    shared: int

    @property
    def ratio(self) -> float:
        return self.shared / self.ngrams if self.ngrams else 0.0


@dataclass(frozen=True)
class ContaminationReport:
    file: str
    file_tokens: int
    items: tuple[ItemOverlap, ...]

    @property
    def contaminated(self) -> tuple[ItemOverlap, ...]:
        """Items sharing at least one 13-gram with the file, highest ratio first."""
        flagged = [overlap for overlap in self.items if overlap.shared > 0]
        return tuple(sorted(flagged, key=lambda overlap: (-overlap.ratio, overlap.issue_id)))

    def count(self, status: str) -> int:
        return sum(1 for overlap in self.items if overlap.status == status)


def _file_lines(path: Path) -> Iterable[str]:
    if str(path) == "-":
        # standard input is streamed like a file, whatever its size (never read whole)
        stream = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        try:
            yield from stream
        finally:
            stream.detach()  # standard input stays open
        return
    try:
        handle = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None
    except IsADirectoryError:
        raise InputError.at(path, "is a directory; give one text file") from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror}") from None
    with handle:
        yield from handle


def check_contamination(
    items: Sequence[Item], path: Path | str, n: int = NGRAM
) -> ContaminationReport:
    """Stream `path` once and count, per item, its n-grams that occur in the file.

    Memory is bounded by the items' n-grams, not by the file, so large dumps work.
    """
    path = Path(path)
    per_item = {item.id: item_ngrams(item, n) for item in items}
    wanted: set[str] = set().union(*per_item.values()) if per_item else set()
    first_words = {gram.split(" ", 1)[0] for gram in wanted}
    found: set[str] = set()
    window: deque[str] = deque(maxlen=n)
    file_tokens = 0
    for line in _file_lines(path):
        for word in tokens(line):
            window.append(word)
            file_tokens += 1
            if len(window) == n and window[0] in first_words:
                gram = " ".join(window)
                if gram in wanted:
                    found.add(gram)
    overlaps = []
    for item in items:
        grams = per_item[item.id]
        if not any((text or "").strip() for text in (item.title, item.body, item.solution)):
            status = "no text"
        elif not grams:
            status = "too short"
        else:
            status = "checked"
        overlaps.append(ItemOverlap(item.id, status, len(grams), len(grams & found)))
    shown = "<stdin>" if str(path) == "-" else str(path)
    return ContaminationReport(file=shown, file_tokens=file_tokens, items=tuple(overlaps))
