"""One validator for what a run is started with, shared by `skyt-tui run` and the app's run dialog.

`check_run_options` takes the values either as typed values (the CLI's parsed options; None means
"not given, use the default") or as text (the dialog's fields; a blank optional field means not
given, a blank N, temperature or concurrency is "required") and returns the normalised
`RunOptions`, or raises `RunOptionsError` with one reason per bad field. Its message is one line
naming the CLI option (`--temperature: 5 is outside [0, 2]`); the dialog shows `errors` next to
its fields. The same limits therefore hold wherever a run starts.

Fields: provider, model, target (the base URL for openai/anthropic, the program for command, the
recording for replay), n, temperatures, concurrency, timeout, seed, max_tokens, system.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError

PROVIDERS = ("openai", "anthropic", "command", "replay")
HTTP_PROVIDERS = ("openai", "anthropic")
MAX_SAMPLES = 1000
MAX_CONCURRENCY = 64
MAX_TEMPERATURE = 2.0
MIN_TIMEOUT_S = 0.5
MAX_TIMEOUT_S = 3600.0
MAX_SEED = 2**31 - 1
MAX_TOKENS = 1_000_000

FIELDS = (
    "provider",
    "model",
    "target",
    "n",
    "temperatures",
    "concurrency",
    "timeout",
    "seed",
    "max_tokens",
    "system",
)
CLI_OPTIONS = {
    "provider": "--provider",
    "model": "--model",
    "n": "-n",
    "temperatures": "--temperature",
    "concurrency": "--concurrency",
    "timeout": "--timeout",
    "seed": "--seed",
    "max_tokens": "--max-tokens",
    "system": "--system",
}
TARGET_OPTIONS = {
    "openai": "--base-url",
    "anthropic": "--base-url",
    "command": "--command",
    "replay": "--replay",
}
TARGET_SETTINGS = {
    "openai": "base_url",
    "anthropic": "base_url",
    "command": "command",
    "replay": "source",
}
"""Where each provider's target goes in its `provider_settings` (what `make_provider` takes and
run.json stores)."""
BASE_URL_ENVS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
"""The environment variable each HTTP provider reads its base URL from when none is given."""


def environment_base_url(provider: str) -> tuple[str, str] | None:
    """(variable, value) when the environment sets `provider`'s base URL, else None. It comes
    after a flag and before settings.toml's `run.base_url` (docs/state.md)."""
    import os

    variable = BASE_URL_ENVS.get(provider)
    value = os.environ.get(variable) if variable else None
    return (variable, value) if variable and value else None


def provider_settings(
    provider: str, target: str | None, *, model: str | None = None, timeout_s: float | None = None
) -> dict[str, Any]:
    """A run's `provider_settings` from its checked options, for `skyt-tui run` and the app alike:
    the target under the provider's key (an HTTP provider's only when given: its default URL
    applies otherwise), the timeout when given, and for replay the model to record when the
    recording names none."""
    settings: dict[str, Any] = {}
    if timeout_s is not None:
        settings["timeout_s"] = timeout_s
    if provider in TARGET_SETTINGS and (target or provider not in HTTP_PROVIDERS):
        settings[TARGET_SETTINGS[provider]] = target
    if provider == "replay":
        settings["model"] = model or None
    return settings


def settings_target(provider: str, settings: dict[str, Any]) -> str:
    """A stored run's target back from its `provider_settings` (to run it again)."""
    target = settings.get(TARGET_SETTINGS.get(provider, ""))
    return target if isinstance(target, str) else ""


@dataclass(frozen=True)
class RunOptions:
    """Checked run options; None where a value was not given (the caller's default applies)."""

    provider: str
    model: str = ""
    target: str = ""
    n: int | None = None
    temperatures: tuple[float, ...] | None = None
    concurrency: int | None = None
    timeout_s: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    system: str = ""


class RunOptionsError(InputError):
    """Every bad field with its reason; `str()` is one line naming the first one's CLI option."""

    def __init__(self, errors: dict[str, str], provider: str = "", sweep: bool = False) -> None:
        self.errors = errors
        field, reason = next(iter(errors.items()))
        super().__init__(f"{option_name(field, provider, sweep)}: {reason}")


def option_name(field: str, provider: str = "", sweep: bool = False) -> str:
    """The command-line option for a field (`target` depends on the provider)."""
    if field == "target":
        return TARGET_OPTIONS.get(provider, "--base-url")
    if field == "temperatures" and sweep:
        return "--sweep"
    return CLI_OPTIONS.get(field, field)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _integer(value: Any, low: int, high: int) -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ValueError(f"must be a whole number, not {value.strip()!r}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"must be between {low} and {high}, not {value}")
    return value


def _temperature(part: Any) -> float:
    text = part.strip() if isinstance(part, str) else f"{part:g}"
    try:
        value = float(part)
    except (TypeError, ValueError):
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0.0 <= value <= MAX_TEMPERATURE:
        raise ValueError(f"{text} is outside [0, {MAX_TEMPERATURE:g}]")
    return value


def _temperatures(value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        parts: Sequence[Any] = [part.strip() for part in value.replace(";", ",").split(",")]
        if not any(parts):
            raise ValueError("required, e.g. 0.0 or 0, 0.5, 1.0")
    elif isinstance(value, int | float):
        parts = [value]
    else:
        parts = list(value)
    values: list[float] = []
    for part in parts:
        if isinstance(part, str) and not part:
            raise ValueError("empty value between commas")
        number = _temperature(part)
        if number in values:
            raise ValueError(f"{part if isinstance(part, str) else f'{part:g}'} is given twice")
        values.append(number)
    return tuple(values)


def _timeout(value: Any) -> float:
    text = value.strip() if isinstance(value, str) else value
    try:
        number = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"seconds, not {text!r}") from None
    if not (math.isfinite(number) and MIN_TIMEOUT_S <= number <= MAX_TIMEOUT_S):
        raise ValueError(f"must be between {MIN_TIMEOUT_S:g} and {MAX_TIMEOUT_S:g} seconds")
    return number


def check_target(provider: str, text: str) -> str | None:
    """The reason `text` is no valid target for `provider`, or None."""
    if provider in HTTP_PROVIDERS:
        if text and not text.startswith(("http://", "https://")):
            return f"a base URL starts with http:// or https://, not {text!r}"
    elif provider == "command":
        if not text:
            return "required: the program that answers"
    elif provider == "replay":
        if not text:
            return "required: the file or folder of recorded answers"
        if text != "-" and not Path(text).expanduser().exists():
            return f"no such file or folder: {text}"
    return None


def check_run_options(
    *,
    provider: Any,
    model: Any = None,
    target: Any = None,
    n: Any = None,
    temperatures: Any = None,
    concurrency: Any = None,
    timeout: Any = None,
    seed: Any = None,
    max_tokens: Any = None,
    system: Any = None,
    sweep: bool = False,
) -> RunOptions:
    """The normalised options, or RunOptionsError naming every bad field (see the module doc)."""
    errors: dict[str, str] = {}
    provider = str(provider or "").strip()
    if provider not in PROVIDERS:
        errors["provider"] = f"choose one of {', '.join(PROVIDERS)}" + (
            f", not {provider!r}" if provider else ""
        )
    model_text = "" if model is None else str(model).strip()
    if not model_text and provider in HTTP_PROVIDERS:
        errors["model"] = f"required with {provider}: the model name"
    target_text = "" if target is None else str(target).strip()
    if provider in PROVIDERS and (reason := check_target(provider, target_text)):
        errors["target"] = reason

    out: dict[str, Any] = {}
    required = {
        "n": lambda v: _integer(v, 1, MAX_SAMPLES),
        "temperatures": _temperatures,
        "concurrency": lambda v: _integer(v, 1, MAX_CONCURRENCY),
    }
    optional = {
        "timeout": _timeout,
        "seed": lambda v: _integer(v, 0, MAX_SEED),
        "max_tokens": lambda v: _integer(v, 1, MAX_TOKENS),
    }
    given = {
        "n": n,
        "temperatures": temperatures,
        "concurrency": concurrency,
        "timeout": timeout,
        "seed": seed,
        "max_tokens": max_tokens,
    }
    for field, check in (required | optional).items():
        value = given[field]
        if value is None:
            out[field] = None
        elif _blank(value):
            if field in required:
                errors[field] = (
                    "required, e.g. 0.0 or 0, 0.5, 1.0" if field == "temperatures" else "required"
                )
            out[field] = None
        else:
            try:
                out[field] = check(value)
            except ValueError as exc:
                errors[field] = str(exc)
    if errors:
        ordered = {field: errors[field] for field in FIELDS if field in errors}
        raise RunOptionsError(ordered, provider, sweep)
    return RunOptions(
        provider=provider,
        model=model_text,
        target=target_text,
        n=out["n"],
        temperatures=out["temperatures"],
        concurrency=out["concurrency"],
        timeout_s=out["timeout"],
        seed=out["seed"],
        max_tokens=out["max_tokens"],
        system="" if system is None else str(system).strip(),
    )
