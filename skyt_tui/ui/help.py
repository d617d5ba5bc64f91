"""The `?` screen: every key active where it was pressed, grouped by where it applies."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from skyt_tui.ui.widgets.section_bar import section_title


@dataclass(frozen=True)
class KeyAction:
    scope: str
    keys: str
    description: str
    action: str
    node: DOMNode
    shown: bool
    """Shown in the footer; the palette offers these plus every app-wide action."""


def _scope(node: DOMNode, screen: Screen) -> str:
    if node is screen.app:
        return "Everywhere"
    if isinstance(node, Screen):
        scope = getattr(node, "SCOPE", "")
        if scope:
            return str(scope)
        return (
            section_title(getattr(node, "SECTION", ""))
            if getattr(node, "SECTION", "")
            else "This dialog"
        )
    return type(node).__name__


def key_actions(screen: Screen) -> list[KeyAction]:
    """The screen's active bindings, one entry per (node, action) with all its keys joined."""
    app = screen.app
    grouped: dict[tuple[int, str], dict] = {}
    for active in screen.active_bindings.values():
        binding, node = active.binding, active.node
        if binding.system:
            continue
        entry = grouped.setdefault(
            (id(node), binding.action),
            {
                "scope": _scope(node, screen),
                "keys": [],
                "description": binding.description or binding.action,
                "action": binding.action,
                "node": node,
                "shown": binding.show,
            },
        )
        key = app.get_key_display(binding)
        if key not in entry["keys"]:
            entry["keys"].append(key)
        entry["shown"] = entry["shown"] or binding.show
    actions = [
        KeyAction(
            scope=e["scope"],
            keys=" / ".join(e["keys"]),
            description=e["description"],
            action=e["action"],
            node=e["node"],
            shown=e["shown"],
        )
        for e in grouped.values()
    ]

    def rank(action: KeyAction) -> int:
        return 2 if action.node is app else 0 if isinstance(action.node, Screen) else 1

    return sorted(actions, key=rank)


def help_table(actions: list[KeyAction]) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False, expand=False)
    table.add_column("key", no_wrap=True)
    table.add_column("does")
    table.add_column("where", style="dim")
    for action in actions:
        table.add_row(Text(action.keys, style="bold"), Text(action.description), Text(action.scope))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,enter", "dismiss", "Close", key_display="esc")]

    def __init__(self, actions: list[KeyAction]) -> None:
        super().__init__(id="help-screen")
        self.actions = actions

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(Text("Keys", style="bold"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(help_table(self.actions), id="help-table")
                yield Static(
                    Text(
                        "ctrl+p opens the command palette: every action above is there too. "
                        "With a mouse, click a section name on the top line or a key in the footer.",
                        style="dim",
                    ),
                    id="help-note",
                )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
