"""Command palette entries made from the key bindings, so every action with a key is also a command.

The palette lists the section's own commands first (its footer keys, its hidden keys, the focused
widget's), then every other section's (each section screen's own key bindings, run there after
switching to it), then the app-wide ones. While typing, another section's command scores
`OTHER_SECTION_WEIGHT` of its match, so of two equal matches the current section's comes first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from skyt_tui.ui.help import KeyAction, key_actions
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.widgets.section_bar import SECTIONS, section_title

OTHER_SECTION_WEIGHT = 0.8
"""The share of its match score another section's command gets in a search."""

TEXTUAL_SCREEN_ACTIONS = {"app.focus_next", "app.focus_previous", "screen.copy_text"}


def section_classes() -> dict[str, type[SectionScreen]]:
    """Each section's screen class (importing the ones not opened yet)."""
    from skyt_tui.ui.app import SECTION_SCREENS

    return {name: SECTION_SCREENS[name]() for name, _ in SECTIONS}


def section_bindings(
    screen_class: type[SectionScreen], display: Callable[[Binding], str]
) -> list[tuple[str, str, str]]:
    """(keys, description, action) of a section screen's own bindings, keys of one action joined."""
    grouped: dict[str, tuple[list[str], str]] = {}
    for bindings in screen_class._merge_bindings().key_to_bindings.values():
        for binding in bindings:
            if binding.system or binding.action in TEXTUAL_SCREEN_ACTIONS:
                continue
            keys, _ = grouped.setdefault(
                binding.action, ([], binding.description or binding.action)
            )
            shown = display(binding)
            if shown not in keys:
                keys.append(shown)
    return [
        (" / ".join(keys), description, action) for action, (keys, description) in grouped.items()
    ]


class BindingCommands(Provider):
    """The calling screen's footer bindings (its own and its focused widget's), every other section's
    own bindings and all app bindings as commands."""

    async def startup(self) -> None:
        # the sections not opened yet are imported off the event loop (numpy for some)
        await asyncio.to_thread(section_classes)

    def _current_section(self) -> str:
        return str(getattr(self.screen, "SECTION", "") or self.app.current_mode)

    def _other_sections(self) -> list[tuple[str, str, Callable[[], object]]]:
        current = self._current_section()
        commands = []
        for name, screen_class in section_classes().items():
            if name == current and isinstance(self.screen, screen_class):
                continue  # its commands are the screen's own (a run's detail offers the list's)
            for keys, description, action in section_bindings(
                screen_class, self.app.get_key_display
            ):
                run = partial(self._run_in, name, action)
                commands.append(
                    (
                        f"{section_title(name)}: {description}",
                        f"key {keys} in {section_title(name)}",
                        run,
                    )
                )
        return commands

    async def _run_in(self, section: str, action: str) -> None:
        """Open `section`, back to its own screen (a run's detail closed), then run its `action` there."""
        app = self.app
        if app.current_mode != section:
            await app.switch_mode(section)
        section_screen = section_classes()[section]
        while not isinstance(app.screen, section_screen) and len(app.screen_stack) > 1:
            await app.pop_screen()
        screen = app.screen
        # after the section has taken its focus back (a filter box opened now keeps the focus)
        screen.call_after_refresh(app.run_action, action, screen)

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
        app_wide = [c for c, a in zip(commands, actions, strict=True) if a.node is app]
        own = [c for c, a in zip(commands, actions, strict=True) if a.node is not app]
        return own + self._other_sections() + app_wide

    async def discover(self) -> Hits:
        for name, help_text, run in self._commands():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in self._commands():
            score = matcher.match(name)
            if score > 0:
                if isinstance(run, partial) and run.func == self._run_in:
                    score *= OTHER_SECTION_WEIGHT
                yield Hit(score, matcher.highlight(name), run, text=name, help=help_text)
