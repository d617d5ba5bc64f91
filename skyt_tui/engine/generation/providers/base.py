"""What every provider takes and gives back, and the errors the runner retries on.

A provider turns one `Request` (the prompt of one sample) into one `Response`
(the full answer text plus what the service reported about it). It does not
retry: the runner owns the retry policy, so providers raise `ProviderError`
with `retryable` set for rate limits, server errors, timeouts and malformed
answers, and `abort_run` set for errors that would fail every sample alike
(bad key, unknown model), so a run stops instead of burning N failures.
"""

from __future__ import annotations

import email.utils
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Request:
    index: int
    """The sample's position in generation order (replay answers by it)."""
    prompt: str
    model: str
    temperature: float | None
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None


@dataclass(frozen=True)
class Response:
    text: str
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    model: str | None = None
    """The model id as the service returned it (may differ from the one asked for)."""
    seed: int | None = None
    """The seed actually sent to the service; None when none was sent."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        """The answer stopped at the token limit, so its code may be cut off."""
        return self.finish_reason in TRUNCATION_REASONS


TRUNCATION_REASONS = frozenset({"length", "max_tokens", "model_length"})


class ProviderError(Exception):
    """One line, free of secrets, saying why a request failed."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        abort_run: bool = False,
        retry_after_s: float | None = None,
        response: Response | None = None,
        before_contact: str | None = None,
    ) -> None:
        super().__init__(" ".join(message.split()))
        self.retryable = retryable
        self.abort_run = abort_run
        self.retry_after_s = retry_after_s
        self.response = response
        """What the service did answer, when it answered something unusable (an empty answer)."""
        self.before_contact = " ".join(before_contact.split()) if before_contact else None
        """Set for an error that means the provider cannot be used at all (nothing listens at the
        URL, the key is refused, the model or the command does not exist): when it comes before
        the provider ever answered, the run never started, and this one line says which URL, key
        or name is at fault and what to do (docs/runs.md)."""


class Provider(Protocol):
    name: str
    sends_seed: bool
    """Whether a requested seed reaches the service (recorded per sample only then)."""
    deterministic: bool
    """Whether asking again gives the same answer (replay): an empty answer is then not retried."""

    def complete(self, request: Request) -> Response: ...

    def describe(self) -> dict[str, Any]:
        """Settings to store with the run so `resume` can rebuild the provider (never secrets)."""
        ...


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if absent/bad."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:
        return None
    return max(0.0, seconds)


def status_error(status: int, detail: str, *, retry_after_s: float | None = None) -> ProviderError:
    """The error for an HTTP status: 408/409/425/429/5xx retry; 401/403/404 stop the run."""
    message = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
    if status in (408, 409, 425, 429) or status >= 500:
        return ProviderError(message, retryable=True, retry_after_s=retry_after_s)
    if status in (401, 403, 404):
        return ProviderError(message, abort_run=True)
    return ProviderError(message)


_KEY_LIKE = re.compile(r"\b(sk|pk|key)-[A-Za-z0-9_\-*]{6,}")


def one_line(text: str, limit: int = 200, *, secrets: tuple[str, ...] = ()) -> str:
    """A message fit for a sample record: one line, bounded, with keys and key-like tokens masked."""
    text = str(text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = _KEY_LIKE.sub(lambda m: f"{m.group(1)}-***", text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def strip_userinfo(url: str) -> str:
    """A URL without `user:password@`, fit to store."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
