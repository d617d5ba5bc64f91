"""The "start a run" form as data: field parsing and validation without any widgets.

`parse_run_form` turns the text fields into a frozen `RunRequest`, or raises
`RunFormError` holding one message per bad field, so the dialog can show every
problem next to its field at once. The "target" field means what the provider
needs besides a model: a base URL (openai, anthropic; optional), the program to
run (command) or the recorded answers (replay).
"""

from __future__ import annotations

from dataclasses import dataclass

from skyt_tui.engine.generation import run_options
from skyt_tui.engine.generation.run_options import FIELDS, RunOptionsError, check_run_options

TARGET_LABELS = {
    "openai": "Base URL",
    "anthropic": "Base URL",
    "command": "Command",
    "replay": "Recording",
}
TARGET_HINTS = {
    "openai": "optional: http://localhost:11434/v1 for Ollama; key in OPENAI_API_KEY",
    "anthropic": "optional; key in ANTHROPIC_API_KEY",
    "command": "program that reads the prompt on stdin, e.g. python3 my_model.py",
    "replay": "JSONL, SKYT .json, human-eval folder or folder of .py files",
}
PROVIDERS = run_options.PROVIDERS
MAX_SAMPLES = run_options.MAX_SAMPLES
MAX_CONCURRENCY = run_options.MAX_CONCURRENCY
MAX_TEMPERATURE = run_options.MAX_TEMPERATURE


@dataclass(frozen=True)
class RunRequest:
    contract_id: str
    provider: str
    model: str
    n: int
    temperatures: tuple[float, ...]
    concurrency: int
    target: str = ""
    timeout_s: float | None = None
    """Per request; None keeps the provider's default (120 s for HTTP, 300 s for a command)."""
    seed: int | None = None
    max_tokens: int | None = None
    system: str = ""
    stop_width: float | None = None
    """Offer to stop once the 95% intervals of pass rate and R_anchor are narrower than this."""
    probe_inputs: int | None = None
    """After the run, probe its passing samples on this many generated inputs (docs/probe.md)."""
    resume: str | None = None
    """A stored run to complete instead of a new one (its own settings; `retry_failed` asks failed ones again)."""
    retry_failed: bool = False


FORM_FIELDS = (*FIELDS, "stop_width", "probe_inputs")
"""The run dialog's text fields, in its order."""


def form_values(request: RunRequest) -> dict[str, str]:
    """The dialog's field texts that give `request` back (what the dialog shows again)."""
    return {
        "provider": request.provider,
        "model": request.model,
        "target": request.target,
        "n": str(request.n),
        "temperatures": ", ".join(f"{t:g}" for t in request.temperatures),
        "concurrency": str(request.concurrency),
        "timeout": f"{request.timeout_s:g}" if request.timeout_s is not None else "",
        "seed": str(request.seed) if request.seed is not None else "",
        "max_tokens": str(request.max_tokens) if request.max_tokens is not None else "",
        "system": request.system,
        "stop_width": f"{request.stop_width:g}" if request.stop_width is not None else "",
        "probe_inputs": str(request.probe_inputs) if request.probe_inputs is not None else "",
    }


class RunFormError(ValueError):
    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in errors.items()))
        self.errors = errors


KEY_ENVS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MAX_TIMEOUT_S = run_options.MAX_TIMEOUT_S


def parse_run_form(
    contract_id: str,
    provider: str,
    model: str,
    n: str,
    temperatures: str,
    concurrency: str,
    target: str = "",
    timeout: str = "",
    seed: str = "",
    max_tokens: str = "",
    system: str = "",
    stop_width: str = "",
    probe_inputs: str = "",
    environ: dict[str, str] | None = None,
    check_key: bool = True,
) -> RunRequest:
    """The request, or RunFormError naming every bad field; `environ` (default os.environ) is where the
    provider's key must be, so a missing key is reported on the field that can replace it
    (`check_key=False`: values kept for later, as a profile, need no key now)."""
    import os

    environ = dict(os.environ) if environ is None else environ
    errors: dict[str, str] = {}
    options = None
    try:
        options = check_run_options(
            provider=provider,
            model=model,
            target=target,
            n=n,
            temperatures=temperatures,
            concurrency=concurrency,
            timeout=timeout,
            seed=seed,
            max_tokens=max_tokens,
            system=system,
        )
    except RunOptionsError as exc:
        errors.update(exc.errors)
    target = target.strip()
    width: float | None = None
    if stop_width.strip():
        try:
            width = float(stop_width.strip())
        except ValueError:
            errors["stop_width"] = f"a width between 0 and 1, not {stop_width.strip()!r}"
        else:
            if not 0.0 < width < 1.0:
                errors["stop_width"] = "a width between 0 and 1 (e.g. 0.2)"
                width = None
    probe: int | None = None
    if probe_inputs.strip():
        try:
            probe = int(probe_inputs.strip())
        except ValueError:
            errors["probe_inputs"] = f"a whole number of inputs, not {probe_inputs.strip()!r}"
        else:
            if not 1 <= probe <= 100_000:
                errors["probe_inputs"] = "between 1 and 100000 inputs (e.g. 200)"
                probe = None
    key = KEY_ENVS.get(provider) if check_key else None
    if key and not environ.get(key) and "target" not in errors:
        if provider == "anthropic":
            errors["target"] = f"{key} is not set: export it in the shell that starts skyt-tui"
        elif not target and not environ.get("OPENAI_BASE_URL"):
            errors["target"] = (
                f"{key} is not set: export it in the shell that starts skyt-tui, "
                "or give a local server's Base URL here"
            )
    if errors:
        raise RunFormError(errors)
    assert options is not None
    assert options.n is not None and options.temperatures is not None
    assert options.concurrency is not None
    return RunRequest(
        contract_id=contract_id,
        provider=options.provider,
        model=options.model,
        n=options.n,
        temperatures=options.temperatures,
        concurrency=options.concurrency,
        target=options.target,
        timeout_s=options.timeout_s,
        seed=options.seed,
        max_tokens=options.max_tokens,
        system=options.system,
        stop_width=width,
        probe_inputs=probe,
    )
