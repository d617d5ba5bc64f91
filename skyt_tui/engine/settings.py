"""The user's settings: `settings.toml` in the data directory, edited by hand or from the app.

It holds the app's theme and the defaults `skyt-tui run` (and the app's run dialog) use for
what a command line leaves out. A missing file means every default; a bad value is one
error line naming the file and the key. Example::

    schema_version = 1
    theme = "textual-light"

    [run]
    provider = "openai"
    model = "gpt-4o-mini"
    n = 20
    temperature = 0.7

    [profiles.local]        # `run --profile local`, and the run dialog's Profile list
    provider = "openai"
    model = "qwen2.5-coder:7b"
    base_url = "http://localhost:11434/v1"
    temperature = 0.0
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.executor.choice import EXECUTORS
from skyt_tui.engine.generation import run_options
from skyt_tui.engine.versions import DEFAULT_TAU

SCHEMA_VERSION = 1
PROVIDERS = ("openai", "anthropic", "command", "replay")
"""The provider names `run` accepts (`skyt_tui.engine.generation.providers.PROVIDERS`, which is heavier)."""
ISOLATIONS = ("auto", "bubblewrap", "reduced")
"""The sandbox isolation modes (`skyt_tui.engine.sandbox.pool.ISOLATIONS`, which is heavier)."""
MAX_WORKERS = 256
DEFAULT_N = 20
DEFAULT_TEMPERATURE = 0.7


@dataclass(frozen=True)
class RunDefaults:
    """What `run` uses when its command line (or the run dialog) leaves a value out."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    n: int = DEFAULT_N
    temperature: float = DEFAULT_TEMPERATURE
    tau: float = DEFAULT_TAU
    isolation: str = "auto"
    workers: int | None = None
    """Sandbox workers for the oracle; None lets the sandbox choose from the CPU count."""
    executor: str = "local"
    """Where analyses run: "local" (this machine) or "ray" (a Ray cluster, docs/scaling.md)."""
    ray_address: str | None = None
    """The Ray cluster's address; None: RAY_ADDRESS, else the cluster started on this machine."""


@dataclass(frozen=True)
class Profile:
    """A saved provider setup (`[profiles.NAME]`, like posting's environments): what a run
    started with `--profile NAME` (or the dialog's Profile choice) takes when not given."""

    provider: str
    model: str | None = None
    base_url: str | None = None
    """openai and anthropic only."""
    command: str | None = None
    """command only: the program that answers."""
    n: int | None = None
    temperature: float | None = None
    timeout: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None
    concurrency: int | None = None


@dataclass(frozen=True)
class Settings:
    theme: str | None = None
    """A Textual theme name; None keeps the app's default."""
    run: RunDefaults = field(default_factory=RunDefaults)
    profiles: dict[str, Profile] = field(default_factory=dict)
    """Saved provider profiles by name, in file order."""


KEYS = ("theme",) + tuple(f"run.{f.name}" for f in dataclasses.fields(RunDefaults))
"""Every key `update_setting` takes, in file order."""


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    return value


def _base_url(value: Any) -> str:
    """Checked as `run --base-url` and the run dialog check it (`engine.generation.run_options`)."""
    text = _text(value).strip()
    if reason := run_options.check_target("openai", text):
        raise ValueError(reason)
    return text


def _choice(choices: tuple[str, ...]) -> Any:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, not {value!r}")
        return str(value)

    return check


def _integer(low: int, high: int) -> Any:
    def check(value: Any) -> int:
        """A whole number; a string of one is read (a form's text), the file's reader refuses it
        first (`_refuse_text`)."""
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise ValueError(f"must be a whole number, not {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number, not {value!r}")
        if not low <= value <= high:
            raise ValueError(f"must be between {low} and {high}, not {value}")
        return value

    return check


def _number(low: float, high: float) -> Any:
    def check(value: Any) -> float:
        """A number; a string of one is read (a form's text), the file's reader refuses it first
        (`_refuse_text`)."""
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ValueError(f"must be a number, not {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"must be a number, not {value!r}")
        number = float(value)
        if not math.isfinite(number) or not low <= number <= high:
            raise ValueError(f"must be between {low:g} and {high:g}, not {number:g}")
        return number

    return check


_CHECKS: dict[str, Any] = {
    "theme": _text,
    "run.provider": _choice(PROVIDERS),
    "run.model": _text,
    "run.base_url": _base_url,
    "run.n": _integer(1, run_options.MAX_SAMPLES),
    "run.temperature": _number(0.0, run_options.MAX_TEMPERATURE),
    "run.tau": _number(0.0, 1.0),
    "run.isolation": _choice(ISOLATIONS),
    "run.workers": _integer(1, MAX_WORKERS),
    "run.executor": _choice(EXECUTORS),
    "run.ray_address": _text,
}
_PROFILE_CHECKS: dict[str, Any] = {
    "provider": _choice(PROVIDERS),
    "model": _text,
    "base_url": _base_url,
    "command": _text,
    "n": _integer(1, run_options.MAX_SAMPLES),
    "temperature": _number(0.0, run_options.MAX_TEMPERATURE),
    "timeout": _number(run_options.MIN_TIMEOUT_S, run_options.MAX_TIMEOUT_S),
    "seed": _integer(0, run_options.MAX_SEED),
    "max_tokens": _integer(1, run_options.MAX_TOKENS),
    "system": _text,
    "concurrency": _integer(1, run_options.MAX_CONCURRENCY),
}
_WHOLE, _REAL = "a whole number", "a number"
_NUMBERS = {
    "n": _WHOLE,
    "workers": _WHOLE,
    "seed": _WHOLE,
    "max_tokens": _WHOLE,
    "concurrency": _WHOLE,
    "temperature": _REAL,
    "tau": _REAL,
    "timeout": _REAL,
}
"""The number keys of `[run]` and of a profile (without `run.`): TOML numbers in the file."""


def _refuse_text(key: str, value: Any) -> None:
    """In the file, a number key holding a string (`n = "3"`) is a mistake to say, not to read:
    the same file refuses `n = 2.5` and `n = true`."""
    kind = _NUMBERS.get(key.removeprefix("run."))
    if kind is not None and isinstance(value, str):
        raise ValueError(f"must be {kind}, not the string {value!r} (write it without quotes)")


PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_OPTIONAL = {
    "theme",
    "run.provider",
    "run.model",
    "run.base_url",
    "run.workers",
    "run.ray_address",
}
"""Keys that may be unset (None): they are then left out of the file."""


def check_value(key: str, value: Any, where: str | Path = "settings", *, form: bool = True) -> Any:
    """`value` converted for `key`; InputError naming the key. From a form (`form`), strings are
    parsed; from the file, a number key must hold a number."""
    if key not in _CHECKS:
        raise InputError.at(where, f"unknown key (known: {', '.join(KEYS)})", key)
    if value is None or (isinstance(value, str) and not value.strip() and key in _OPTIONAL):
        if key in _OPTIONAL:
            return None
        raise InputError.at(where, "must be set (delete the line for the default)", key)
    try:
        if not form:
            _refuse_text(key, value)
        return _CHECKS[key](value)
    except ValueError as exc:
        raise InputError.at(where, str(exc), key) from None


def settings_from_dict(document: dict[str, Any], where: str | Path = "settings") -> Settings:
    """Settings from a parsed settings.toml; the first bad or unknown key is an InputError."""
    version = document.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise InputError.at(
            where, f"schema_version {version!r} is not one this skyt-tui reads ({SCHEMA_VERSION})"
        )
    values: dict[str, Any] = {}
    profiles: dict[str, Profile] = {}
    for key, value in document.items():
        if key == "schema_version":
            continue
        if key == "profiles":
            profiles = _profiles(value, where)
            continue
        if key == "run":
            if not isinstance(value, dict):
                raise InputError.at(where, "must be a table ([run])", "run")
            for sub_key, sub_value in value.items():
                values[f"run.{sub_key}"] = check_value(
                    f"run.{sub_key}", sub_value, where, form=False
                )
        else:
            values[key] = check_value(key, value, where, form=False)
    run = RunDefaults(**{k[4:]: v for k, v in values.items() if k.startswith("run.")})
    return Settings(theme=values.get("theme"), run=run, profiles=profiles)


def _profiles(value: Any, where: str | Path) -> dict[str, Profile]:
    """The `[profiles.NAME]` tables; the first bad one is an InputError naming its key."""
    if not isinstance(value, dict):
        raise InputError.at(where, "must be tables ([profiles.NAME])", "profiles")
    profiles: dict[str, Profile] = {}
    for name, table in value.items():
        at = f"profiles.{name}"
        if not PROFILE_NAME.fullmatch(name):
            raise InputError.at(where, "a profile name is letters, digits, '_', '-' and '.'", at)
        if not isinstance(table, dict):
            raise InputError.at(where, f"must be a table ([{at}])", at)
        if "provider" not in table:
            raise InputError.at(
                where, "must be set (openai, anthropic, command or replay)", f"{at}.provider"
            )
        checked: dict[str, Any] = {}
        for key, item in table.items():
            if key not in _PROFILE_CHECKS:
                known = ", ".join(_PROFILE_CHECKS)
                raise InputError.at(where, f"unknown key (known: {known})", f"{at}.{key}")
            try:
                _refuse_text(key, item)
                checked[key] = _PROFILE_CHECKS[key](item)
            except ValueError as exc:
                raise InputError.at(where, str(exc), f"{at}.{key}") from None
        provider = checked["provider"]
        if "base_url" in checked and provider not in run_options.HTTP_PROVIDERS:
            raise InputError.at(
                where, f"applies to openai or anthropic, not {provider}", f"{at}.base_url"
            )
        if "command" in checked and provider != "command":
            raise InputError.at(
                where, f"applies to provider command, not {provider}", f"{at}.command"
            )
        if "model" not in checked and provider in run_options.HTTP_PROVIDERS:
            raise InputError.at(where, f"must be set for provider {provider}", f"{at}.model")
        if "command" not in checked and provider == "command":
            raise InputError.at(where, "must be set for provider command", f"{at}.command")
        profiles[name] = Profile(**checked)
    return profiles


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    """The TOML document for `settings`; unset keys are left out."""
    document: dict[str, Any] = {}
    if settings.theme is not None:
        document["theme"] = settings.theme
    run = {k: v for k, v in dataclasses.asdict(settings.run).items() if v is not None}
    document["run"] = run
    if settings.profiles:
        document["profiles"] = {
            name: {k: v for k, v in dataclasses.asdict(profile).items() if v is not None}
            for name, profile in settings.profiles.items()
        }
    return document


def load_settings(path: Path | None = None) -> Settings:
    """The settings in `path` (default: the data directory's settings.toml); defaults if absent."""
    path = locations.settings_file() if path is None else Path(path)
    try:
        document = store.read_toml(path)
    except FileNotFoundError:
        return Settings()
    except Exception as exc:  # StoreError: unreadable or invalid TOML, already one line
        raise InputError(str(exc)) from None
    return settings_from_dict(document, path)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write `settings` atomically (creating the data directory); the path written."""
    path = locations.settings_file() if path is None else Path(path)
    store.write_toml(path, settings_to_dict(settings))
    return path


def with_value(settings: Settings, key: str, value: Any) -> Settings:
    """`settings` with one key (`theme`, `run.model`, ...) changed; validated like the file."""
    value = check_value(key, value)
    if key.startswith("run."):
        return dataclasses.replace(
            settings, run=dataclasses.replace(settings.run, **{key[4:]: value})
        )
    return dataclasses.replace(settings, **{key: value})


def update_setting(key: str, value: Any, path: Path | None = None) -> Settings:
    """Change one key in the settings file and save it; the new settings.

    The app calls this (e.g. `update_setting("theme", "textual-light")`); an invalid value
    raises InputError naming the key and the file is left as it was.
    """
    settings = with_value(load_settings(path), key, value)
    save_settings(settings, path)
    return settings


def with_profile(
    settings: Settings, name: str, table: dict[str, Any], replace: bool = False
) -> Settings:
    """`settings` with `[profiles.NAME]` added (at the end), checked like the file's profiles;
    InputError naming the key when a value is bad, or when NAME exists and `replace` is false."""
    if name in settings.profiles and not replace:
        raise InputError.at("settings", "exists already: choose another name", f"profiles.{name}")
    profile = _profiles({name: table}, "settings")[name]
    profiles = {k: v for k, v in settings.profiles.items() if k != name} | {name: profile}
    return dataclasses.replace(settings, profiles=profiles)


def save_profile(
    name: str, table: dict[str, Any], path: Path | None = None, replace: bool = False
) -> Settings:
    """Add `[profiles.NAME]` to the settings file and save it (the file is left as it was on error)."""
    settings = with_profile(load_settings(path), name, table, replace)
    save_settings(settings, path)
    return settings


def get_profile(settings: Settings, name: str) -> Profile:
    """The profile called `name`; InputError listing the known ones when there is none."""
    if name in settings.profiles:
        return settings.profiles[name]
    known = ", ".join(settings.profiles) or "none; add a [profiles.NAME] table to settings.toml"
    raise InputError(f"--profile: no profile {name!r} in settings.toml (known: {known})")
