"""`run` takes what its command line leaves out from settings.toml, and checks numbers first."""

import json

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.settings import update_setting
from tests.llm_server import FakeLLMServer
from tests.run_helpers import CONTRACT_ID, install_contract, run_cli

SECRET = "sk-test-SECRET0123456789"


def test_a_bad_n_is_reported_before_the_missing_key(isolated_home, monkeypatch, capsys):
    install_contract(isolated_home)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(["run", CONTRACT_ID, "--provider", "openai", "--model", "m", "-n", "-3"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "skyt-tui: error: -n: must be between 1 and 1000, not -3\n"


def test_without_provider_or_settings_the_error_says_where_to_set_it(isolated_home, capsys):
    install_contract(isolated_home)
    assert main(["run", CONTRACT_ID]) == 2
    err = capsys.readouterr().err
    assert "--provider is required (or set run.provider in settings.toml" in err


def test_run_uses_the_settings_provider_model_url_n_and_temperature(isolated_home):
    install_contract(isolated_home)
    with FakeLLMServer() as server:
        update_setting("run.provider", "openai")
        update_setting("run.model", "from-settings")
        update_setting("run.base_url", server.url + "/v1")
        update_setting("run.n", 3)
        update_setting("run.temperature", 0.2)
        result = run_cli(isolated_home, "run", CONTRACT_ID, "--json", OPENAI_API_KEY=SECRET)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    [outcome] = document["runs"]
    meta = run_store.load_run(outcome["run_id"]).meta
    assert (meta.provider, meta.model, meta.n, meta.temperature) == (
        "openai",
        "from-settings",
        3,
        0.2,
    )


def test_flags_win_and_the_settings_model_stays_with_its_provider(isolated_home, capsys):
    install_contract(isolated_home)
    update_setting("run.provider", "openai")
    update_setting("run.model", "gpt-x")
    assert main(["run", CONTRACT_ID, "--provider", "anthropic", "-n", "2"]) == 2
    assert "--model: required with anthropic" in capsys.readouterr().err


def test_a_bad_settings_file_is_one_line_naming_the_key(isolated_home, capsys):
    install_contract(isolated_home)
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text("[run]\nn = 0\n")
    assert main(["run", CONTRACT_ID, "--provider", "openai", "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.toml: run.n: must be between 1 and" in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            ["--base-url", "localhost:1"],
            "--base-url: a base URL starts with http:// or https://, not 'localhost:1'",
        ),
        (["--temperature", "5"], "--temperature: 5 is outside [0, 2]"),
    ],
)
def test_run_rejects_what_the_run_dialog_rejects(isolated_home, capsys, option, message):
    """Old code: the CLI accepted `--base-url localhost:1` and `--temperature 5` that the app's run
    form rejected (the first then failed on connection, the second was sent to the provider)."""
    install_contract(isolated_home)
    code = main(["run", CONTRACT_ID, "--provider", "openai", "--model", "m", *option])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"skyt-tui: error: {message}\n"


# (field, text, the CLI flag): each value is accepted or rejected alike by `run` and the dialog.
SAME_VERDICT = [
    ("target", "localhost:1", "--base-url", False),
    ("target", "http://localhost:1/v1", "--base-url", True),
    ("temperatures", "5", "--temperature", False),
    ("temperatures", "-0.1", "--temperature", False),
    ("temperatures", "2", "--temperature", True),
    ("temperatures", "0,0.5", "--sweep", True),
    ("temperatures", "0,0", "--sweep", False),
    ("temperatures", "0,9", "--sweep", False),
    ("n", "0", "-n", False),
    ("n", "1001", "-n", False),
    ("n", "1000", "-n", True),
    ("concurrency", "0", "--concurrency", False),
    ("concurrency", "65", "--concurrency", False),
    ("concurrency", "64", "--concurrency", True),
    ("timeout", "0.1", "--timeout", False),
    ("timeout", "5000", "--timeout", False),
    ("timeout", "30", "--timeout", True),
    ("seed", "-1", "--seed", False),
    ("seed", "7", "--seed", True),
    ("max_tokens", "0", "--max-tokens", False),
    ("max_tokens", "256", "--max-tokens", True),
]


@pytest.mark.parametrize(("field", "text", "flag", "ok"), SAME_VERDICT)
def test_cli_and_run_dialog_accept_and_reject_the_same_values(
    isolated_home, monkeypatch, field, text, flag, ok
):
    from skyt_tui.cli import build_parser
    from skyt_tui.cli.run_cmd import check_cli_options
    from skyt_tui.engine.errors import InputError
    from skyt_tui.ui.run_request import RunFormError, parse_run_form

    form = {"provider": "openai", "model": "m", "n": "3", "temperatures": "0.0"}
    form["concurrency"] = "4"
    try:
        parse_run_form("c", **{**form, field: text}, environ={"OPENAI_API_KEY": "k"})
        form_ok, form_error = True, ""
    except RunFormError as exc:
        form_ok, form_error = False, exc.errors[field]
    args = build_parser("run").parse_args(
        ["run", "c", "--provider", "openai", "--model", "m", f"{flag}={text}"]
    )
    try:
        check_cli_options(args)
        cli_ok, cli_error = True, ""
    except InputError as exc:
        cli_ok, cli_error = False, str(exc)
    assert (form_ok, cli_ok) == (ok, ok)
    if not ok:
        assert cli_error == f"{flag}: {form_error}"


def test_run_profile_takes_provider_model_url_and_numbers_and_flags_win(isolated_home):
    install_contract(isolated_home)
    with FakeLLMServer() as server:
        (isolated_home / "settings.toml").write_text(
            f'[run]\nprovider = "anthropic"\nmodel = "claude"\n\n'
            f'[profiles.local]\nprovider = "openai"\nmodel = "from-profile"\n'
            f'base_url = "{server.url}/v1"\nn = 2\ntemperature = 0.3\n'
        )
        result = run_cli(
            isolated_home,
            "run",
            CONTRACT_ID,
            "--profile",
            "local",
            "-n",
            "3",
            "--json",
            OPENAI_API_KEY=SECRET,
        )
    assert result.returncode == 0, result.stderr
    [outcome] = json.loads(result.stdout)["runs"]
    meta = run_store.load_run(outcome["run_id"]).meta
    assert (meta.provider, meta.model, meta.n, meta.temperature) == (
        "openai",
        "from-profile",
        3,
        0.3,
    )


def test_an_unknown_profile_is_one_line_naming_the_known_ones(isolated_home, capsys):
    install_contract(isolated_home)
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text(
        '[profiles.local]\nprovider = "command"\ncommand = "python3 a.py"\n'
    )
    assert main(["run", CONTRACT_ID, "--profile", "nope"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "skyt-tui: error: --profile: no profile 'nope' in settings.toml (known: local)\n"
    )


@pytest.mark.parametrize(
    ("provider", "model", "flag", "target"),
    [
        ("openai", "m", "base_url", "http://127.0.0.1:9/v1"),
        ("openai", "m", "base_url", None),
        ("anthropic", "m", "base_url", "http://127.0.0.1:9"),
        ("command", None, "command_line", "python3 answer.py"),
        ("replay", None, "replay", "RECORDING"),
    ],
)
def test_the_cli_and_the_app_give_a_run_the_same_provider_settings(
    tmp_path, provider, model, flag, target
):
    """One mapping from (provider, target, model, timeout) to the settings stored in run.json: a
    replay with a timeout used to keep it from `run` and lose it from the app's dialog."""
    import argparse

    from skyt_tui.cli.run_cmd import _provider_settings
    from skyt_tui.ui import run_form
    from skyt_tui.ui.run_request import parse_run_form

    target = str(tmp_path) if target == "RECORDING" else target
    args = argparse.Namespace(
        provider=provider, model=model, base_url=None, command_line=None, replay=None, timeout=7.0
    )
    setattr(args, flag, target)
    request = parse_run_form(
        contract_id="c",
        provider=provider,
        model=model or "",
        n="2",
        temperatures="0",
        concurrency="1",
        target=target or "",
        timeout="7",
        environ={"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"},
    )
    assert _provider_settings(args) == run_form.provider_settings(request)
    assert _provider_settings(args)["timeout_s"] == 7.0


def test_the_environment_base_url_comes_before_the_settings_file_and_a_flag_before_both(
    isolated_home,
):
    """Issue 27.4: flag > environment > settings.toml, the order people expect."""
    install_contract(isolated_home)
    update_setting("run.provider", "openai")
    update_setting("run.model", "m")
    update_setting("run.base_url", "http://127.0.0.1:9/v1")  # nothing listens there
    with FakeLLMServer() as from_env, FakeLLMServer() as from_flag:
        env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": from_env.url + "/v1"}
        by_env = run_cli(isolated_home, "run", CONTRACT_ID, "-n", "2", "--json", **env)
        by_flag = run_cli(
            isolated_home,
            *("run", CONTRACT_ID, "-n", "2", "--json", "--base-url", from_flag.url + "/v1"),
            **env,
        )
        served = (len(from_env.requests), len(from_flag.requests))
    assert by_env.returncode == 0, by_env.stderr
    assert by_flag.returncode == 0, by_flag.stderr
    assert served == (2, 2)
    urls = [
        run_store.load_meta(json.loads(done.stdout)["runs"][0]["run_id"]).provider_settings[
            "base_url"
        ]
        for done in (by_env, by_flag)
    ]
    assert urls == [from_env.url + "/v1", from_flag.url + "/v1"]


def test_the_run_dialog_leaves_the_settings_base_url_out_when_the_environment_sets_one(
    isolated_home, monkeypatch
):
    from skyt_tui.ui import run_form

    update_setting("run.provider", "openai")
    update_setting("run.base_url", "http://localhost:1/v1")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert run_form.run_form_defaults()[0]["target"] == "http://localhost:1/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:2/v1")
    assert "target" not in run_form.run_form_defaults()[0]
