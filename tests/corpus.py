"""Locating ../shared/corpus for integration tests; skip when absent."""

import os
from pathlib import Path

import pytest


def corpus_dir() -> Path:
    env = os.environ.get("SKYT_CORPUS")
    if env:
        return Path(env)
    return (
        Path("/work/shared/corpus")
        if Path("/work/shared/corpus").is_dir()
        else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    )


def require(*parts: str) -> Path:
    path = corpus_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus not available: {path}")
    return path
