"""Error types whose message is one line a person can act on.

Every message names the file (and key or line) at fault and the reason, so the
CLI can print it as is and exit with code 2, and the UI can show it in a toast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self


class SkytError(Exception):
    """Base class: `str(err)` is the single line shown to the user."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()) if "\n" in message else message)


class InputError(SkytError):
    """A file or argument given by the user is not acceptable."""

    @classmethod
    def at(cls, path: str | Path | None, reason: str, key: str | None = None) -> Self:
        where = str(path) if path is not None else "<input>"
        if key:
            where = f"{where}: {key}"
        return cls(f"{where}: {reason}")


class ContractError(InputError):
    """A contract file is invalid; the message names file, key and reason."""


class StoreError(SkytError):
    """The store under the data directory is corrupt, locked or unwritable."""


class NotFoundError(SkytError):
    """A named thing (contract, run, benchmark) does not exist."""
