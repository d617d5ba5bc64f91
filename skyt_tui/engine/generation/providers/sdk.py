"""What the two SDK-backed providers (OpenAI-compatible, Anthropic) share: the SDK imported
when used, the key from the environment, a client without its own retries, and the SDK's
exceptions turned into `ProviderError`s the runner knows how to retry."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers.base import (
    ProviderError,
    one_line,
    parse_retry_after,
    status_error,
    strip_userinfo,
)


def under_pipx(prefix: str | None = None) -> bool:
    """Whether this skyt-tui runs from a pipx-managed environment (…/pipx/venvs/NAME)."""
    path = Path(sys.prefix if prefix is None else prefix)
    return path.parent.name == "venvs" and any("pipx" in part for part in path.parts)


def install_hint(package: str, extra: str | None = None) -> str:
    """How to add `package` (skyt-tui's optional `extra`, if it is one) to the environment
    skyt-tui runs in: pipx keeps each app in its own, which `pipx inject` adds to."""
    if under_pipx():
        return f"pipx inject skyt-tui {package}"
    if extra:
        return f"python3 -m pip install 'skyt-tui[{extra}]'"
    return f"python3 -m pip install {package}"


def import_sdk(module: str, provider: str, extra: str | None = None) -> Any:
    """The SDK module; InputError with the install command when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"--provider {provider} needs the {module} SDK: {install_hint(module, extra)}"
        ) from None


def status_detail(exc: Any) -> str:
    """The service's own error message from an SDK status error, if it sent one."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", "") or "")


class SDKProvider:
    """Base of the SDK providers; a subclass sets `_sdk`, `_base_error`, `_client`, `_secret`,
    `key_env` and `base_url_env`."""

    name: str
    base_url: str | None
    timeout_s: float
    key_env: str
    """The environment variable the key comes from."""
    base_url_env: str
    _sdk: Any
    _base_error: type[Exception]
    _secret: str
    _client: Any

    def _where(self) -> str:
        """The URL requests go to, without credentials (the SDK's default when none was given)."""
        url = str(getattr(self._client, "base_url", "") or self.base_url or "")
        return strip_userinfo(url).rstrip("/") or f"the {self.name} API"

    def _unreachable(self, cause: BaseException) -> str | None:
        """The first-contact line for a connection that could not be made at all (refused, no such
        host, no route); None for other failures (a timeout, a dropped connection), which retry."""
        # the SDKs' HTTP client (httpx, or a fork of it) raises its ConnectError for these
        if not any(kind.__name__ == "ConnectError" for kind in type(cause).__mro__):
            return None
        return (
            f"cannot connect to {self._where()} ({self._line(cause)}): start the server, or point "
            f"--base-url (or {self.base_url_env}, or run.base_url in settings.toml) at one"
        )

    def _refused(self, status: int, detail: str, model: str | None) -> str | None:
        """The first-contact line for a key the service refuses (401, 403) or a model it does not
        have (404)."""
        said = f"HTTP {status}" + (f": {detail}" if detail else "")
        if status in (401, 403):
            key = (
                f"the key in {self.key_env}"
                if self._secret
                else f"no key ({self.key_env} is unset)"
            )
            return f"{self._where()} refused {key} ({said}): set {self.key_env} to a valid key"
        if status == 404:
            return f"{self._where()} ({said}): check --model {model!r} and the base URL"
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "base_url": strip_userinfo(self.base_url) if self.base_url else None,
            "timeout_s": self.timeout_s,
        }

    def _line(self, text: Any) -> str:
        return one_line(str(text), secrets=(self._secret,))

    def _call(self, create: Callable[..., Any], **kwargs: Any) -> Any:
        """`create(**kwargs)` with the SDK's failures as ProviderErrors (timeouts, lost
        connections, 429/5xx and malformed answers retryable; 401/403/404 stop the run)."""
        sdk = self._sdk
        try:
            return create(**kwargs)
        except sdk.APITimeoutError:
            raise ProviderError(
                f"request timed out after {self.timeout_s:g}s", retryable=True
            ) from None
        except sdk.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise ProviderError(
                f"connection failed: {self._line(cause)}",
                retryable=True,
                before_contact=self._unreachable(cause),
            ) from None
        except sdk.APIStatusError as exc:
            response = getattr(exc, "response", None)
            retry_after = (
                parse_retry_after(response.headers.get("retry-after"))
                if response is not None
                else None
            )
            detail = self._line(status_detail(exc))
            error = status_error(exc.status_code, detail, retry_after_s=retry_after)
            if error.abort_run:
                error.before_contact = self._refused(exc.status_code, detail, kwargs.get("model"))
            raise error from None
        except sdk.APIResponseValidationError as exc:
            raise ProviderError(f"malformed response: {self._line(exc)}", retryable=True) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ProviderError(
                f"malformed response: not JSON ({self._line(exc)})", retryable=True
            ) from None
        except self._base_error as exc:
            raise ProviderError(self._line(exc)) from None
