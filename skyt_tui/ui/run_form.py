"""The run dialog's values: its first values (its own memory over settings.toml's defaults), its
profiles, the provider settings a request makes, and a request to rerun or resume a stored run."""

from __future__ import annotations

from typing import Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.errors import SkytError, StoreError
from skyt_tui.engine.generation import run_options
from skyt_tui.engine.printable import printable
from skyt_tui.engine.runs import run_store
from skyt_tui.ui.run_request import FORM_FIELDS, RunRequest, form_values


def provider_settings(request: RunRequest) -> dict[str, Any]:
    """The settings `make_provider` takes, from the dialog's "where" field (as `skyt-tui run`'s)."""
    return run_options.provider_settings(
        request.provider, request.target.strip(), model=request.model, timeout_s=request.timeout_s
    )


def run_form_defaults() -> tuple[dict[str, str], str | None]:
    """The run dialog's first values: what it last started (its own memory, `run-dialog.toml`),
    over settings.toml's `[run]` defaults (provider, model, base_url, n, temperature); and the
    one-line error of a file that cannot be read (the other's values are still used)."""
    from skyt_tui.engine.settings import load_settings

    values: dict[str, str] = {}
    errors: list[str] = []
    try:
        run = load_settings().run
    except SkytError as exc:
        errors.append(str(exc))
    else:
        values = {"n": str(run.n), "temperatures": f"{run.temperature:g}"}
        if run.provider:
            values["provider"] = run.provider
        if run.model:
            values["model"] = run.model
        provider = run.provider or "openai"
        if (
            run.base_url
            and provider in run_options.HTTP_PROVIDERS
            and run_options.environment_base_url(provider) is None  # the environment comes first
        ):
            values["target"] = run.base_url
    try:
        values |= remembered_run_form()
    except SkytError as exc:
        errors.append(str(exc))
    return values, "; ".join(errors) or None


MAX_REMEMBERED_FIELD = 4096
"""The longest field value the run dialog's memory gives back (a system prompt fits)."""


def remembered_run_form() -> dict[str, str]:
    """What the run dialog last started, as its field texts (empty when it never started one).

    The file is outside input: only known fields holding text of a bounded length are taken;
    a damaged file is a StoreError naming it."""
    path = locations.run_dialog_file()
    try:
        document = store.read_toml(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
    form = document.get("form", {})
    if not isinstance(form, dict):
        raise StoreError(f"{path}: form: must be a table")
    values: dict[str, str] = {}
    for field in FORM_FIELDS:
        value = form.get(field)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > MAX_REMEMBERED_FIELD:
            raise StoreError(
                f"{path}: form.{field}: must be text of at most {MAX_REMEMBERED_FIELD} characters"
            )
        values[field] = value
    return values


def remember_run_request(request: RunRequest) -> str | None:
    """Keep the dialog's values for its next start in its own file (`run-dialog.toml`), never in
    settings.toml, whose `[run]` defaults `skyt-tui run` uses; the one-line error when the file
    cannot be written."""
    try:
        store.write_toml(locations.run_dialog_file(), {"form": form_values(request)})
    except (SkytError, OSError) as exc:
        return str(exc)
    return None


def run_form_profiles() -> dict[str, dict[str, str]]:
    """The run dialog's Profile choices: each `[profiles.NAME]` of settings.toml as the form values
    it sets (an unreadable file gives none; `run_form_defaults` reports its error)."""
    from skyt_tui.engine.settings import load_settings

    try:
        profiles = load_settings().profiles
    except SkytError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for name, profile in profiles.items():
        values = {
            "provider": profile.provider,
            "model": profile.model or "",
            "target": profile.base_url or profile.command or "",
        }
        for field, value in (
            ("n", profile.n),
            ("temperatures", profile.temperature),
            ("concurrency", profile.concurrency),
            ("timeout", profile.timeout),
            ("seed", profile.seed),
            ("max_tokens", profile.max_tokens),
        ):
            if value is not None:
                values[field] = f"{value:g}" if isinstance(value, float) else str(value)
        if profile.system is not None:
            values["system"] = profile.system
        out[name] = values
    return out


def profile_table(request: RunRequest) -> dict[str, Any]:
    """A run request as a `[profiles.NAME]` table: provider, model, where, N, temperature,
    concurrency, timeout, seed, max tokens, system prompt (unset values left out)."""
    table: dict[str, Any] = {"provider": request.provider}
    if request.model:
        table["model"] = request.model
    target = request.target.strip()
    if target and request.provider in ("openai", "anthropic"):
        table["base_url"] = target
    elif target and request.provider == "command":
        table["command"] = target
    table["n"] = request.n
    if len(request.temperatures) == 1:
        table["temperature"] = request.temperatures[0]
    table["concurrency"] = request.concurrency
    for key, value in (
        ("timeout", request.timeout_s),
        ("seed", request.seed),
        ("max_tokens", request.max_tokens),
    ):
        if value is not None:
            table[key] = value
    if request.system:
        table["system"] = request.system
    return table


def save_run_profile(name: str, request: RunRequest) -> str | None:
    """Save the dialog's values as `[profiles.NAME]` in settings.toml; the one-line error, if any."""
    from skyt_tui.engine.settings import save_profile

    try:
        save_profile(name, profile_table(request))
    except (SkytError, OSError) as exc:
        return str(exc)
    return None


def rerun_request(meta: run_store.RunMeta, concurrency: int = 4) -> RunRequest:
    """A new run with a stored run's settings (provider, model, where, N, temperature)."""
    settings = meta.provider_settings
    target = run_options.settings_target(meta.provider, settings)
    timeout = settings.get("timeout_s")
    tokens = meta.request.get("max_tokens")
    return RunRequest(
        contract_id=meta.contract_id,
        provider=meta.provider,
        model=meta.model or "",
        n=meta.n,
        temperatures=(meta.temperature if meta.temperature is not None else 0.0,),
        concurrency=concurrency,
        target=target,
        timeout_s=float(timeout) if isinstance(timeout, int | float) else None,
        seed=meta.seed,
        max_tokens=tokens if isinstance(tokens, int) else None,
        system=str(meta.request.get("system") or ""),
    )


def not_again(request: RunRequest, run_id: str) -> str | None:
    """Why a stored run cannot be run again: its answers were recorded (an import, or replayed
    from a source it did not keep), so there is no model to ask; None when it can."""
    if request.provider != "replay" or request.target:
        return None
    return (
        f"Run {printable(run_id)} holds recorded answers with no source to replay: there is no "
        "model to ask again. Press r on a contract to start a run."
    )


def resume_request(summary: run_store.RunSummary, concurrency: int = 4) -> RunRequest:
    """Complete a stored run: its missing samples, and its failed ones again."""
    assert summary.meta is not None
    meta = summary.meta
    return RunRequest(
        contract_id=meta.contract_id,
        provider=meta.provider,
        model=meta.model or "",
        n=meta.n,
        temperatures=(meta.temperature if meta.temperature is not None else 0.0,),
        concurrency=concurrency,
        resume=meta.id,
        retry_failed=summary.n_failed > 0,
    )
