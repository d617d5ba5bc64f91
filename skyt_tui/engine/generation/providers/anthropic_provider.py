"""Anthropic's Messages API through the official `anthropic` SDK (optional extra).

The SDK is imported only when this provider is used, so skyt-tui works
without it; asking for it without the extra installed is one clear error.
The key comes from `ANTHROPIC_API_KEY` only and is never stored. Temperature is
sent in the request body (`extra_body`), which works with SDK versions that
dropped it from `messages.create`'s signature; the API has no seed parameter,
so none is sent or recorded. The SDK's own retries are off.
"""

from __future__ import annotations

import os
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response
from skyt_tui.engine.generation.providers.sdk import SDKProvider, import_sdk
from skyt_tui.engine.generation.run_options import BASE_URL_ENVS

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_TOKENS = 4096
KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = BASE_URL_ENVS["anthropic"]


class AnthropicProvider(SDKProvider):
    name = "anthropic"
    key_env = KEY_ENV
    base_url_env = BASE_URL_ENV
    sends_seed = False
    deterministic = False

    def __init__(
        self, *, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        anthropic = import_sdk("anthropic", "anthropic", extra="anthropic")
        api_key = os.environ.get(KEY_ENV) or None
        if api_key is None:
            raise InputError(f"{KEY_ENV} is not set (needed by --provider anthropic)")
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        self.timeout_s = float(timeout_s)
        self._secret = api_key
        self._sdk = anthropic
        self._base_error = anthropic.AnthropicError
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.timeout_s,
        )

    def complete(self, request: Request) -> Response:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        if request.system:
            kwargs["system"] = request.system
        if request.temperature is not None:
            kwargs["extra_body"] = {"temperature": request.temperature}
        message = self._call(self._client.messages.create, **kwargs)
        blocks = getattr(message, "content", None)
        if not isinstance(blocks, list):
            raise ProviderError("malformed response: no content", retryable=True)
        text = "".join(
            block.text
            for block in blocks
            if getattr(block, "type", None) == "text"
            and isinstance(getattr(block, "text", None), str)
        )
        usage = None
        raw_usage = getattr(message, "usage", None)
        if raw_usage is not None:
            usage = {
                key: value
                for key in ("input_tokens", "output_tokens")
                if isinstance(value := getattr(raw_usage, key, None), int)
            }
        model = getattr(message, "model", None)
        return Response(
            text=text,
            finish_reason=getattr(message, "stop_reason", None),
            usage=usage or None,
            model=model if isinstance(model, str) else None,
        )
