"""OpenAI-compatible chat completions through the official `openai` SDK.

One provider covers OpenAI and every server that speaks its API (Ollama,
vLLM, llama.cpp server, LM Studio): point `base_url` at it. The key comes from
`OPENAI_API_KEY` only and is never stored; a local server without keys needs
none (a placeholder is sent). The SDK's own retries are off (`max_retries=0`)
so the runner's retry policy is the one in force.
"""

from __future__ import annotations

import os
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import ProviderError, Request, Response
from skyt_tui.engine.generation.providers.sdk import SDKProvider, import_sdk
from skyt_tui.engine.generation.run_options import BASE_URL_ENVS

DEFAULT_TIMEOUT_S = 120.0
KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = BASE_URL_ENVS["openai"]
_PLACEHOLDER_KEY = "skyt-tui-no-key"


class OpenAICompatProvider(SDKProvider):
    name = "openai"
    key_env = KEY_ENV
    base_url_env = BASE_URL_ENV
    sends_seed = True
    deterministic = False

    def __init__(
        self, *, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        openai = import_sdk("openai", "openai")
        base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        api_key = os.environ.get(KEY_ENV) or None
        if api_key is None and base_url is None:
            raise InputError(
                f"{KEY_ENV} is not set (needed by --provider openai; or give --base-url for a local server)"
            )
        self.base_url = base_url
        self.timeout_s = float(timeout_s)
        self._secret = api_key or ""
        self._sdk = openai
        self._base_error = openai.OpenAIError
        self._client = openai.OpenAI(
            api_key=api_key or _PLACEHOLDER_KEY,
            base_url=base_url,
            max_retries=0,
            timeout=self.timeout_s,
        )

    def complete(self, request: Request) -> Response:
        messages = [{"role": "system", "content": request.system}] if request.system else []
        messages.append({"role": "user", "content": request.prompt})
        kwargs: dict[str, Any] = {"model": request.model, "messages": messages}
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        completion = self._call(self._client.chat.completions.create, **kwargs)
        return self._response(completion, request)

    def _response(self, completion: Any, request: Request) -> Response:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ProviderError("malformed response: no choices", retryable=True)
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            raise ProviderError("malformed response: message content is not text", retryable=True)
        usage = None
        raw_usage = getattr(completion, "usage", None)
        if raw_usage is not None:
            usage = {
                key: value
                for key in ("prompt_tokens", "completion_tokens", "total_tokens")
                if isinstance(value := getattr(raw_usage, key, None), int)
            }
        model = getattr(completion, "model", None)
        return Response(
            text=content or "",
            finish_reason=getattr(choice, "finish_reason", None),
            usage=usage or None,
            model=model if isinstance(model, str) else None,
            seed=request.seed,
        )
