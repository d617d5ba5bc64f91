"""settings.toml: read with defaults, validated key by key, updated one key at a time."""

import pytest

from skyt_tui import locations
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.settings import (
    KEYS,
    RunDefaults,
    Settings,
    load_settings,
    save_settings,
    update_setting,
)


def test_missing_file_gives_the_defaults():
    settings = load_settings()
    assert settings == Settings()
    assert settings.run.n == 20
    assert settings.run.temperature == 0.7
    assert settings.run.tau == 0.10
    assert settings.theme is None


def test_hand_written_file_is_read():
    locations.settings_file().parent.mkdir(parents=True)
    locations.settings_file().write_text(
        'theme = "textual-light"\n[run]\nprovider = "openai"\nmodel = "m"\nn = 7\n'
        'temperature = 0\ntau = 0.2\nisolation = "reduced"\nworkers = 3\n'
    )
    settings = load_settings()
    assert settings.theme == "textual-light"
    assert settings.run == RunDefaults(
        provider="openai", model="m", n=7, temperature=0.0, tau=0.2, isolation="reduced", workers=3
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[run]\nn = -3\n", "run.n"),
        ("[run]\nn = 2.5\n", "run.n"),
        ('[run]\nprovider = "gpt"\n', "run.provider"),
        ("[run]\ntemperature = 3\n", "run.temperature"),
        ("[run]\ntau = 1.5\n", "run.tau"),
        ('[run]\nisolation = "none"\n', "run.isolation"),
        ("[run]\ncolour = 1\n", "run.colour"),
        ("theme = 3\n", "theme"),
        ("run = 3\n", "run"),
        # a number written as a string was read as the number (n = "3" ran 3 samples)
        ('[run]\nn = "3"\n', "run.n"),
        ('[run]\ntau = "0.5"\n', "run.tau"),
        ('[run]\nworkers = "2"\n', "run.workers"),
        ('[profiles.p]\nprovider = "replay"\nn = "4"\n', "profiles.p.n"),
        ('[profiles.p]\nprovider = "replay"\ntimeout = "30"\n', "profiles.p.timeout"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_key(text, key):
    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_settings()
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}: ")


def test_invalid_toml_is_one_line_naming_the_file():
    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("[run\n")
    with pytest.raises(InputError, match="settings.toml"):
        load_settings()


def test_update_one_key_keeps_the_others_and_round_trips():
    update_setting("run.model", "gpt-4o-mini")
    settings = update_setting("theme", "textual-light")
    assert settings.run.model == "gpt-4o-mini"
    assert load_settings() == settings
    text = locations.settings_file().read_text()
    assert "schema_version = 1" in text
    assert "workers" not in text  # unset keys are left out


def test_update_parses_strings_from_a_form_and_refuses_bad_ones():
    assert update_setting("run.n", "12").run.n == 12
    assert update_setting("run.workers", "").run.workers is None
    before = locations.settings_file().read_bytes()
    with pytest.raises(InputError, match=r"run\.temperature: must be"):
        update_setting("run.temperature", "hot")
    with pytest.raises(InputError, match="unknown key"):
        update_setting("run.colour", "red")
    assert locations.settings_file().read_bytes() == before


def test_save_then_load_is_identity_for_every_key():
    settings = Settings(
        theme="nord",
        run=RunDefaults(
            provider="anthropic",
            model="claude",
            base_url="http://localhost:1",
            n=5,
            temperature=1.0,
            tau=0.05,
            isolation="bubblewrap",
            workers=2,
        ),
    )
    save_settings(settings)
    assert load_settings() == settings
    assert KEYS[0] == "theme" and "run.workers" in KEYS


def test_choices_match_the_modules_that_own_them():
    from skyt_tui.engine import settings
    from skyt_tui.engine.generation.providers import PROVIDERS
    from skyt_tui.engine.sandbox import pool as sandbox

    assert settings.PROVIDERS == PROVIDERS
    assert settings.ISOLATIONS == sandbox.ISOLATIONS
    assert settings.MAX_WORKERS == sandbox.MAX_WORKERS


PROFILES = """
[run]
n = 5

[profiles.local]
provider = "openai"
model = "qwen"
base_url = "http://localhost:11434/v1"
temperature = 0.0

[profiles.mine]
provider = "command"
command = "python3 answer.py"
timeout = 60
"""


def test_profiles_are_read_and_kept_when_one_key_is_updated():
    from skyt_tui.engine.settings import Profile

    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(PROFILES)
    expected = {
        "local": Profile(
            provider="openai", model="qwen", base_url="http://localhost:11434/v1", temperature=0.0
        ),
        "mine": Profile(provider="command", command="python3 answer.py", timeout=60.0),
    }
    assert load_settings().profiles == expected
    assert update_setting("theme", "textual-light").profiles == expected
    assert load_settings().profiles == expected


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[profiles.x]\nmodel = "m"\n', "profiles.x.provider"),
        ('[profiles.x]\nprovider = "openai"\n', "profiles.x.model"),
        ('[profiles.x]\nprovider = "gpt"\n', "profiles.x.provider"),
        (
            '[profiles.x]\nprovider = "openai"\nmodel = "m"\nbase_url = "localhost:1"\n',
            "profiles.x.base_url",
        ),
        (
            '[profiles.x]\nprovider = "command"\ncommand = "a"\nbase_url = "http://h"\n',
            "profiles.x.base_url",
        ),
        ('[profiles.x]\nprovider = "command"\n', "profiles.x.command"),
        ('[profiles.x]\nprovider = "replay"\ntemperature = 5\n', "profiles.x.temperature"),
        ('[profiles.x]\nprovider = "replay"\ncolour = 1\n', "profiles.x.colour"),
        ("[profiles]\nx = 3\n", "profiles.x"),
        ("profiles = 3\n", "profiles"),
    ],
)
def test_a_bad_profile_is_one_line_naming_its_key(text, key):
    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_settings()
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}: ")


def test_save_profile_appends_a_checked_profile_and_keeps_the_rest():
    from skyt_tui.engine.settings import Profile, save_profile

    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(PROFILES)
    before = path.read_text()
    settings = save_profile("new", {"provider": "openai", "model": "m", "n": 3, "seed": 7})
    assert list(settings.profiles) == ["local", "mine", "new"]
    assert load_settings().profiles["new"] == Profile(provider="openai", model="m", n=3, seed=7)
    assert load_settings().run.n == 5
    for name, table, key in (
        ("local", {"provider": "openai", "model": "m"}, "profiles.local"),
        ("x", {"provider": "openai"}, "profiles.x.model"),
        ("x", {"provider": "openai", "model": "m", "temperature": 5}, "profiles.x.temperature"),
        ("bad name", {"provider": "replay"}, "profiles.bad name"),
    ):
        saved = path.read_text()
        with pytest.raises(InputError) as err:
            save_profile(name, table)
        assert str(err.value).startswith(f"settings: {key}: "), str(err.value)
        assert path.read_text() == saved, "the file is left as it was"
    assert before != path.read_text()


def platform_dirs(tmp_path, monkeypatch):
    """No SKYT_HOME: the platform's folders, pointed into `tmp_path` by the XDG variables."""
    monkeypatch.delenv("SKYT_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "data" / "skyt-tui", tmp_path / "config" / "skyt-tui"


def test_settings_live_in_the_platform_config_directory(tmp_path, monkeypatch):
    """Issue 27.4: settings.toml in platformdirs' config directory, the data where it is."""
    data_dir, config_dir = platform_dirs(tmp_path, monkeypatch)
    assert locations.settings_file() == config_dir / "settings.toml"
    assert locations.data_dir() == data_dir
    update_setting("theme", "textual-light")
    assert (config_dir / "settings.toml").is_file() and not (data_dir / "settings.toml").exists()


def test_a_settings_file_in_the_data_directory_is_moved_once_saying_so(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    from tests.run_helpers import ROOT

    data_dir, config_dir = platform_dirs(tmp_path, monkeypatch)
    data_dir.mkdir(parents=True)
    (data_dir / "settings.toml").write_text("schema_version = 1\n\n[run]\nn = 7\n")

    def paths():
        done = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "paths", "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done

    first, second = paths(), paths()
    assert first.stderr == (
        f"skyt-tui: note: moved settings.toml from {data_dir} to {config_dir} "
        "(the platform's config directory)\n"
    )
    assert second.stderr == "", "moved once"
    assert not (data_dir / "settings.toml").exists()
    assert load_settings().run.n == 7
    assert '"settings": "' + str(config_dir / "settings.toml") in first.stdout


def test_a_settings_file_left_in_the_data_directory_beside_the_new_one_is_named(
    tmp_path, monkeypatch
):
    data_dir, config_dir = platform_dirs(tmp_path, monkeypatch)
    for directory, n in ((data_dir, 3), (config_dir, 5)):
        directory.mkdir(parents=True)
        (directory / "settings.toml").write_text(f"schema_version = 1\n\n[run]\nn = {n}\n")
    notice = locations.move_legacy_settings()
    assert notice is not None and "is no longer read" in notice and str(config_dir) in notice
    assert load_settings().run.n == 5


def test_a_number_in_quotes_is_named_as_a_string():
    path = locations.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text('[run]\nn = "3"\n')
    with pytest.raises(InputError) as err:
        load_settings()
    assert str(err.value) == (
        f"{path}: run.n: must be a whole number, not the string '3' (write it without quotes)"
    )
