"""OpenAI-compatible chat completions through the official `openai` SDK.

One provider covers OpenAI and every server that speaks its API (Ollama,
vLLM, llama.cpp server, LM Studio): point `base_url` at it. The key comes from
`OPENAI_API_KEY` only and is never stored; a local server without keys needs
none (a placeholder is sent). The SDK's own retries are off (`max_retries=0`)
so the runner's retry policy is the one in force.
"""

from __future__ import annotations

import json
import os
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.providers.base import (
    ProviderError,
    Request,
    Response,
    one_line,
    parse_retry_after,
    status_error,
    strip_userinfo,
)

DEFAULT_TIMEOUT_S = 120.0
KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
_PLACEHOLDER_KEY = "skyt-tui-no-key"


class OpenAICompatProvider:
    name = "openai"
    sends_seed = True
    deterministic = False

    def __init__(
        self, *, base_url: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        import openai

        base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        api_key = os.environ.get(KEY_ENV) or None
        if api_key is None and base_url is None:
            raise InputError(
                f"{KEY_ENV} is not set (needed by --provider openai; or give --base-url for a local server)"
            )
        self.base_url = base_url
        self.timeout_s = float(timeout_s)
        self._secret = api_key or ""
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=api_key or _PLACEHOLDER_KEY,
            base_url=base_url,
            max_retries=0,
            timeout=self.timeout_s,
        )

    def describe(self) -> dict[str, Any]:
        return {
            "base_url": strip_userinfo(self.base_url) if self.base_url else None,
            "timeout_s": self.timeout_s,
        }

    def _line(self, text: Any) -> str:
        return one_line(str(text), secrets=(self._secret,))

    def complete(self, request: Request) -> Response:
        openai = self._openai
        messages = [{"role": "system", "content": request.system}] if request.system else []
        messages.append({"role": "user", "content": request.prompt})
        kwargs: dict[str, Any] = {"model": request.model, "messages": messages}
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        try:
            completion = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError:
            raise ProviderError(
                f"request timed out after {self.timeout_s:g}s", retryable=True
            ) from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ProviderError(f"connection failed: {self._line(cause)}", retryable=True) from None
        except openai.APIStatusError as exc:
            retry_after = (
                parse_retry_after(exc.response.headers.get("retry-after"))
                if exc.response is not None
                else None
            )
            raise status_error(
                exc.status_code, self._line(_status_detail(exc)), retry_after_s=retry_after
            ) from None
        except openai.APIResponseValidationError as exc:
            raise ProviderError(f"malformed response: {self._line(exc)}", retryable=True) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ProviderError(
                f"malformed response: not JSON ({self._line(exc)})", retryable=True
            ) from None
        except openai.OpenAIError as exc:
            raise ProviderError(self._line(exc)) from None
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


def _status_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", "") or "")
