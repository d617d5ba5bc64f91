"""The "start a run" form as data: field parsing and validation without any widgets.

`parse_run_form` turns the text fields into a frozen `RunRequest`, or raises
`RunFormError` holding one message per bad field, so the dialog can show every
problem next to its field at once. The "target" field means what the provider
needs besides a model: a base URL (openai, anthropic; optional), the program to
run (command) or the recorded answers (replay).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skyt_tui.engine.providers import PROVIDERS

TARGET_LABELS = {
    "openai": "Base URL",
    "anthropic": "Base URL",
    "command": "Command",
    "replay": "Recording",
}
TARGET_HINTS = {
    "openai": "optional: http://localhost:11434/v1 for Ollama; key in OPENAI_API_KEY",
    "anthropic": "optional; key in ANTHROPIC_API_KEY",
    "command": "program that reads the prompt on stdin, e.g. python3 my_model.py",
    "replay": "JSONL, SKYT .json, human-eval folder or folder of .py files",
}
MAX_SAMPLES = 1000
MAX_CONCURRENCY = 64
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True)
class RunRequest:
    contract_id: str
    provider: str
    model: str
    n: int
    temperatures: tuple[float, ...]
    concurrency: int
    target: str = ""
    timeout_s: float | None = None
    """Per request; None keeps the provider's default (120 s for HTTP, 300 s for a command)."""
    seed: int | None = None
    max_tokens: int | None = None
    system: str = ""
    stop_width: float | None = None
    """Offer to stop once the 95% intervals of pass rate and R_anchor are narrower than this."""
    resume: str | None = None
    """A stored run to complete instead of a new one (its own settings; `retry_failed` asks failed ones again)."""
    retry_failed: bool = False


class RunFormError(ValueError):
    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in errors.items()))
        self.errors = errors


def _integer(text: str, low: int, high: int) -> tuple[int | None, str | None]:
    try:
        value = int(text.strip())
    except ValueError:
        return None, f"must be a whole number, not {text.strip()!r}" if text.strip() else "required"
    if not low <= value <= high:
        return None, f"must be between {low} and {high}"
    return value, None


def _temperatures(text: str) -> tuple[tuple[float, ...] | None, str | None]:
    parts = [part.strip() for part in text.replace(";", ",").split(",")]
    if not any(parts):
        return None, "required, e.g. 0.0 or 0, 0.5, 1.0"
    values: list[float] = []
    for part in parts:
        if not part:
            return None, "empty value between commas"
        try:
            value = float(part)
        except ValueError:
            return None, f"{part!r} is not a number"
        if not 0.0 <= value <= MAX_TEMPERATURE:
            return None, f"{part} is outside [0, {MAX_TEMPERATURE:g}]"
        if value in values:
            return None, f"{part} is given twice"
        values.append(value)
    return tuple(values), None


def _target(provider: str, text: str) -> str | None:
    """The reason the target field is wrong for `provider`, or None."""
    if provider in ("openai", "anthropic"):
        if text and not text.startswith(("http://", "https://")):
            return "a base URL starts with http:// or https://"
    elif provider == "command":
        if not text:
            return "required: the program that answers"
    elif provider == "replay":
        if not text:
            return "required: the file or folder of recorded answers"
        if not Path(text).expanduser().exists():
            return f"no such file or folder: {text}"
    return None


KEY_ENVS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MAX_TIMEOUT_S = 3600.0


def _optional_integer(text: str, low: int, high: int) -> tuple[int | None, str | None]:
    if not text.strip():
        return None, None
    return _integer(text, low, high)


def _timeout(text: str) -> tuple[float | None, str | None]:
    if not text.strip():
        return None, None
    try:
        value = float(text.strip())
    except ValueError:
        return None, f"seconds, not {text.strip()!r}"
    if not 0.5 <= value <= MAX_TIMEOUT_S:
        return None, f"must be between 0.5 and {MAX_TIMEOUT_S:g} seconds"
    return value, None


def parse_run_form(
    contract_id: str,
    provider: str,
    model: str,
    n: str,
    temperatures: str,
    concurrency: str,
    target: str = "",
    timeout: str = "",
    seed: str = "",
    max_tokens: str = "",
    system: str = "",
    stop_width: str = "",
    environ: dict[str, str] | None = None,
) -> RunRequest:
    """The request, or RunFormError naming every bad field; `environ` (default os.environ) is where the
    provider's key must be, so a missing key is reported on the field that can replace it."""
    import os

    environ = dict(os.environ) if environ is None else environ
    errors: dict[str, str] = {}
    if provider not in PROVIDERS:
        errors["provider"] = f"choose one of {', '.join(PROVIDERS)}"
    model = model.strip()
    if not model and provider in ("openai", "anthropic"):
        errors["model"] = f"required with {provider}: the model name"
    target = target.strip()
    if provider in PROVIDERS and (reason := _target(provider, target)):
        errors["target"] = reason
    n_value, reason = _integer(n, 1, MAX_SAMPLES)
    if reason:
        errors["n"] = reason
    temps, reason = _temperatures(temperatures)
    if reason:
        errors["temperatures"] = reason
    workers, reason = _integer(concurrency, 1, MAX_CONCURRENCY)
    if reason:
        errors["concurrency"] = reason
    timeout_s, reason = _timeout(timeout)
    if reason:
        errors["timeout"] = reason
    seed_value, reason = _optional_integer(seed, 0, 2**31 - 1)
    if reason:
        errors["seed"] = reason
    tokens, reason = _optional_integer(max_tokens, 1, 1_000_000)
    if reason:
        errors["max_tokens"] = reason
    width: float | None = None
    if stop_width.strip():
        try:
            width = float(stop_width.strip())
        except ValueError:
            errors["stop_width"] = f"a width between 0 and 1, not {stop_width.strip()!r}"
        else:
            if not 0.0 < width < 1.0:
                errors["stop_width"] = "a width between 0 and 1 (e.g. 0.2)"
                width = None
    key = KEY_ENVS.get(provider)
    if key and not environ.get(key) and "target" not in errors:
        if provider == "anthropic":
            errors["target"] = f"{key} is not set: export it in the shell that starts skyt-tui"
        elif not target and not environ.get("OPENAI_BASE_URL"):
            errors["target"] = (
                f"{key} is not set: export it in the shell that starts skyt-tui, "
                "or give a local server's Base URL here"
            )
    if errors:
        raise RunFormError(errors)
    assert n_value is not None and temps is not None and workers is not None
    return RunRequest(
        contract_id=contract_id,
        provider=provider,
        model=model,
        n=n_value,
        temperatures=temps,
        concurrency=workers,
        target=target,
        timeout_s=timeout_s,
        seed=seed_value,
        max_tokens=tokens,
        system=system.strip(),
        stop_width=width,
    )
