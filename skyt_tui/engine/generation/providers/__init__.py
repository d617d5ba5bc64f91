"""Model providers: OpenAI-compatible HTTP, Anthropic, any command, recorded answers.

`make_provider(name, settings, contract)` builds one from the settings a run
stores (`Provider.describe()`), so `resume` rebuilds exactly the provider a run
started with; keys come from the environment each time and are never stored.
"""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import Provider, ProviderError, Request, Response

PROVIDERS = ("openai", "anthropic", "command", "replay")

__all__ = ["PROVIDERS", "Provider", "ProviderError", "Request", "Response", "make_provider"]


def make_provider(name: str, settings: dict[str, Any], contract: Contract) -> Provider:
    timeout = settings.get("timeout_s")
    timeout_kw = {"timeout_s": float(timeout)} if isinstance(timeout, int | float) else {}
    if name == "openai":
        from skyt_tui.engine.generation.providers.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(base_url=settings.get("base_url"), **timeout_kw)
    if name == "anthropic":
        from skyt_tui.engine.generation.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(base_url=settings.get("base_url"), **timeout_kw)
    if name == "command":
        from skyt_tui.engine.generation.providers.command import CommandProvider

        command = settings.get("command")
        if not isinstance(command, str) or not command.strip():
            raise InputError(
                "--command is required with --provider command (the program that answers)"
            )
        return CommandProvider(command=command, **timeout_kw)
    if name == "replay":
        from skyt_tui.engine.generation.providers.replay import ReplayProvider

        source = settings.get("source")
        if not isinstance(source, str) or not source:
            raise InputError(
                "--replay SOURCE is required with --provider replay (recorded answers)"
            )
        return ReplayProvider.from_path(source, contract, default_model=settings.get("model"))
    raise InputError(f"--provider: unknown provider {name!r}; choose one of {', '.join(PROVIDERS)}")
