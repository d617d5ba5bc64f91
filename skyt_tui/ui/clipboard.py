"""Copying from the app: the terminal's clipboard (OSC 52) where it takes it, a file where not.

The app cannot ask a terminal whether it honours OSC 52 (most ignore it silently), so it judges
from the environment (`osc52_support`): terminals known to take it (kitty, WezTerm, iTerm2,
Windows Terminal, Alacritty, foot, ghostty) get the escape sequence alone; where it is known not
to work (macOS Terminal, the Linux console, no terminal at all) or cannot be known (tmux and
GNU screen pass it on only when configured to; any other terminal), the text is also written to
`clipboard.txt` in the store's folder, and the notification says which happened and where the
file is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from textual.app import App

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import printable

Support = Literal["yes", "no", "unknown"]

CLIPBOARD_FILE = "clipboard.txt"
YES_TERM = ("xterm-kitty", "xterm-ghostty", "alacritty", "foot", "wezterm")
YES_TERM_PROGRAM = ("WezTerm", "iTerm.app", "ghostty")
YES_VARIABLES = ("KITTY_WINDOW_ID", "WEZTERM_PANE", "ALACRITTY_WINDOW_ID", "WT_SESSION")
NO_TERM_PROGRAM = ("Apple_Terminal",)
NO_TERM = ("linux", "dumb")
NO_TERMINAL = "no terminal"


def osc52_support(env: Mapping[str, str], *, terminal: bool = True) -> tuple[Support, str]:
    """Whether the terminal takes OSC 52 copies, and the name it is judged by."""
    if not terminal:
        return "no", NO_TERMINAL
    term = env.get("TERM", "")
    program = env.get("TERM_PROGRAM", "")
    if program in NO_TERM_PROGRAM:
        return "no", program
    if term in NO_TERM:
        return "no", f"TERM={term}"
    if env.get("TMUX"):
        return "unknown", "tmux"  # only with `set-clipboard on` (its default, external, drops it)
    if env.get("STY"):
        return "unknown", "GNU screen"
    if program in YES_TERM_PROGRAM:
        return "yes", program
    if any(term.startswith(name) for name in YES_TERM):
        return "yes", term
    for variable in YES_VARIABLES:
        if env.get(variable):
            return "yes", variable
    return "unknown", program or term or "this terminal"


def clipboard_file() -> Path:
    return locations.home_dir() / CLIPBOARD_FILE


def copy_text(app: App[object], text: str, what: str) -> None:
    """Copy `text` (`what` it is, e.g. "the code of sample 3") and say what happened."""
    app.copy_to_clipboard(text)  # the escape sequence, wherever it may work
    support, name = osc52_support(os.environ, terminal=not app.is_headless)
    if support == "yes":
        app.notify(f"Copied {what}.", timeout=2, markup=False)
        return
    path = clipboard_file()
    try:
        store.atomic_write_text(path, text)
    except (SkytError, OSError) as exc:
        app.notify(
            f"Could not copy {what}: {name} may not take copies from apps through OSC 52, and "
            f"{printable(str(exc))}",
            severity="error",
            markup=False,
        )
        return
    if name == NO_TERMINAL:
        said = "there is no terminal to copy to"
    elif support == "no":
        said = f"{name} does not take copies from apps through OSC 52"
    else:
        said = f"also sent through the terminal with OSC 52, which {name} may not take"
    app.notify(
        f"Copied {what} to {printable(str(path))} ({said})",
        severity="warning" if support == "no" else "information",
        timeout=8,
        markup=False,
    )
