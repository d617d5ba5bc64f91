"""Every filesystem path skyt-tui uses, in one place.

State lives under `platformdirs.user_data_dir("skyt-tui")` and `settings.toml` in
`platformdirs.user_config_dir("skyt-tui")`, each platform's convention; the environment
variable `SKYT_HOME` overrides both (tests and demos point it at a temp dir).
The demo keeps its own store in `demo/` there (`SKYT_STORE=demo` opens it); any other
non-empty `SKYT_STORE` is an error, never a silent fallback to the user's own store.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "skyt-tui"
_PACKAGE_DIR = Path(__file__).resolve().parent


STORE_ENV = "SKYT_STORE"
DEMO_STORE = "demo"
"""`SKYT_STORE=demo` points the store at the demo's own store (`skyt-tui demo` fills it), so demo runs and
their canons never mix with real runs."""


def package_dir() -> Path:
    """The installed `skyt_tui` package: its code, bundled contracts and examples. A sample never
    reads it (the sandbox hides it), and child processes import skyt-tui from its parent."""
    return _PACKAGE_DIR


def home_dir() -> Path:
    override = os.environ.get("SKYT_HOME")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def store_env_error() -> str | None:
    """The one-line error for a `SKYT_STORE` that names no store, or None when it is unset,
    empty or `demo`."""
    value = os.environ.get(STORE_ENV)
    if value is None or value == "" or value == DEMO_STORE:
        return None
    return (
        f"{STORE_ENV}={value!r} names no store: the only one is {DEMO_STORE!r} (the demo's); "
        f"unset {STORE_ENV} (or leave it empty) for your own store"
    )


def check_store_env() -> None:
    """Raise InputError (one line naming the variable) for a `SKYT_STORE` that names no store."""
    from skyt_tui.engine.errors import InputError

    if error := store_env_error():
        raise InputError(error)


def is_demo_store() -> bool:
    return os.environ.get(STORE_ENV) == DEMO_STORE


def demo_dir() -> Path:
    """The demo's store, inside the home directory."""
    return home_dir() / DEMO_STORE


def data_dir() -> Path:
    """The store in use: the home directory, or the demo's store under `SKYT_STORE=demo`
    (InputError for another value: a typo must not open the user's own store)."""
    check_store_env()
    return demo_dir() if is_demo_store() else home_dir()


def user_contracts_dir() -> Path:
    """The user's contracts are the same whichever store is open."""
    return home_dir() / "contracts"


RUNS = "runs"


def runs_dir() -> Path:
    return data_dir() / RUNS


def demo_runs_dir() -> Path:
    """The demo's runs, whichever store is open."""
    return demo_dir() / RUNS


def run_dir(run_id: str) -> Path:
    return runs_dir() / run_id


def canon_dir() -> Path:
    return data_dir() / "canon"


def benchmarks_dir() -> Path:
    return data_dir() / "benchmarks"


def resume_dir() -> Path:
    """What an unfinished `analyze --resume` has finished, kept until it finishes (docs/state.md)."""
    return data_dir() / "resume"


SETTINGS_FILE = "settings.toml"
RUN_DIALOG_FILE = "run-dialog.toml"


def run_dialog_file() -> Path:
    """The app's run dialog's own memory (what it last started), apart from settings.toml,
    whose `[run]` defaults the command line uses: the same file whichever store is open."""
    return home_dir() / RUN_DIALOG_FILE


def config_dir() -> Path:
    """Where the settings live: the platform's config directory (`~/.config/skyt-tui` on Linux),
    or `$SKYT_HOME` when set (then everything is in one folder)."""
    override = os.environ.get("SKYT_HOME")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def settings_file() -> Path:
    return config_dir() / SETTINGS_FILE


def legacy_settings_file() -> Path | None:
    """Where settings.toml lived before it moved to the config directory (the data directory),
    when that is another place than where it lives now."""
    old = home_dir() / SETTINGS_FILE
    return None if old == settings_file() else old


def move_legacy_settings() -> str | None:
    """Move a settings.toml left in the data directory to the config directory, once; the
    one-line notice saying so (or why it was not moved), or None when there is nothing to move."""
    old, new = legacy_settings_file(), settings_file()
    if old is None or not old.is_file() or old.is_symlink():
        return None
    if new.exists():
        return (
            f"{old} is no longer read: settings live in {new} (the platform's config directory); "
            f"move what you still need there and delete {old}"
        )
    try:
        new.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(old, new)  # refuses to replace a file that appeared meanwhile
        except OSError:
            new.write_bytes(old.read_bytes())  # another file system: copy
        os.unlink(old)
    except OSError as exc:
        return (
            f"cannot move {old} to {new} ({exc.strerror or exc}): move it by hand; until then "
            f"its settings are not used"
        )
    return (
        f"moved settings.toml from {old.parent} to {new.parent} (the platform's config directory)"
    )


def lock_file() -> Path:
    return data_dir() / ".lock"


def bundled_contracts_dir() -> Path:
    """The contracts shipped with skyt-tui.

    They live in the repository's `contracts/`; `skyt_tui/bundled/contracts` is a
    symlink to it, which a wheel build turns into a real copy, so an installed
    skyt-tui finds them at the same place.
    """
    return _PACKAGE_DIR / "bundled" / "contracts"


def bundled_examples_dir() -> Path:
    """Hand-written example samples used by `skyt-tui demo`."""
    return _PACKAGE_DIR / "bundled" / "examples"
