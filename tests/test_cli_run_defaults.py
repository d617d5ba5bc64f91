"""`run` takes what its command line leaves out from settings.toml, and checks numbers first."""

import json

from skyt_tui.cli import main
from skyt_tui.engine import runs
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
    assert err == "skyt-tui: error: -n must be at least 1, not -3\n"


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
    meta = runs.load_run(outcome["run_id"]).meta
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
    assert "--model is required with --provider anthropic" in capsys.readouterr().err


def test_a_bad_settings_file_is_one_line_naming_the_key(isolated_home, capsys):
    install_contract(isolated_home)
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings.toml").write_text("[run]\nn = 0\n")
    assert main(["run", CONTRACT_ID, "--provider", "openai", "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.toml: run.n: must be between 1 and" in err
