"""The app's theme as settings.toml keeps it."""

from __future__ import annotations

from skyt_tui.engine.errors import SkytError


def load_theme() -> tuple[str | None, str | None]:
    """The theme in settings.toml (None: the default) and the file's error, if any."""
    from skyt_tui.engine.settings import load_settings

    try:
        return load_settings().theme, None
    except SkytError as exc:
        return None, str(exc)


def save_theme(theme: str) -> str | None:
    from skyt_tui.engine.settings import update_setting

    try:
        update_setting("theme", theme)
    except (SkytError, OSError) as exc:
        return str(exc)
    return None
