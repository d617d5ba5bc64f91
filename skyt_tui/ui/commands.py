"""Command palette entries made from the key bindings, so every action with a key is also a command."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from skyt_tui.ui.help import KeyAction, key_actions
from skyt_tui.ui.screens.base import SectionScreen

TEXTUAL_SCREEN_ACTIONS = {"app.focus_next", "app.focus_previous", "screen.copy_text"}


class BindingCommands(Provider):
    """The calling screen's footer bindings (its own and its focused widget's) and all app bindings as commands."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        commands = []
        app = self.app
        # a section's keys kept off its footer (sort, run again, enlarge…) are commands too
        actions: list[KeyAction] = [
            a
            for a in key_actions(self.screen)
            if a.shown
            or a.node is app
            or (isinstance(a.node, SectionScreen) and a.action not in TEXTUAL_SCREEN_ACTIONS)
        ]
        for action in actions:
            name = (
                action.description
                if action.scope == "Everywhere"
                else f"{action.scope}: {action.description}"
            )
            run = partial(self.app.run_action, action.action, action.node)
            commands.append((name, f"key {action.keys}", run))
        return commands

    async def discover(self) -> Hits:
        for name, help_text, run in self._commands():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, text=name, help=help_text)
