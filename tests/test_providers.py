"""Providers against a real local HTTP server, a real subprocess and real files."""

import json
import shlex
import sys
import time
import tomllib
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers import make_provider
from skyt_tui.engine.generation.providers.base import (
    ProviderError,
    Request,
    one_line,
    parse_retry_after,
)
from skyt_tui.engine.generation.providers.command import CommandProvider
from skyt_tui.engine.generation.providers.openai_compat import OpenAICompatProvider
from skyt_tui.engine.generation.providers.replay import ReplayProvider, load_replay_source
from tests.llm_server import FakeLLMServer
from tests.run_helpers import CONTRACT_TOML

CONTRACT = contract_from_dict(tomllib.loads(CONTRACT_TOML))
SECRET = "sk-test-SECRET0123456789"


def request(index=0, **kw):
    values = {"index": index, "prompt": "Write f.", "model": "m1", "temperature": 0.7}
    values.update(kw)
    return Request(**values)


@pytest.fixture
def openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_openai_records_text_finish_usage_model_and_sends_seed(openai_key):
    with FakeLLMServer([("ok", "```python\ndef f(x):\n    return x + 1\n```")]) as server:
        provider = OpenAICompatProvider(base_url=server.url + "/v1", timeout_s=5)
        response = provider.complete(request(seed=42, max_tokens=300, system="Be terse."))
    assert (
        response.text.startswith("```python")
        and response.finish_reason == "stop"
        and not response.truncated
    )
    assert response.usage == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    assert response.model == "served-m1" and response.seed == 42
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["authorization"] == f"Bearer {SECRET}"
    assert (
        sent["body"]["seed"] == 42
        and sent["body"]["temperature"] == 0.7
        and sent["body"]["max_tokens"] == 300
    )
    assert sent["body"]["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Write f."},
    ]


def test_openai_omits_what_was_not_asked(openai_key):
    with FakeLLMServer([("length", "def f(x):\n    return (")]) as server:
        response = OpenAICompatProvider(base_url=server.url + "/v1").complete(
            request(temperature=None)
        )
    assert response.truncated and response.finish_reason == "length" and response.seed is None
    assert {"seed", "temperature", "max_tokens"}.isdisjoint(server.requests[0]["body"])


@pytest.mark.parametrize(
    "step, retryable, abort, text",
    [
        (("429", 3), True, False, "HTTP 429: rate limited"),
        (("500",), True, False, "HTTP 500: internal error"),
        (("malformed",), True, False, "malformed response"),
        (("timeout", 1.5), True, False, "request timed out after 0.5s"),
        (("401",), False, True, "HTTP 401: invalid api key"),
    ],
)
def test_openai_errors_are_typed(openai_key, step, retryable, abort, text):
    with FakeLLMServer([step]) as server:
        provider = OpenAICompatProvider(base_url=server.url + "/v1", timeout_s=0.5)
        with pytest.raises(ProviderError) as caught:
            provider.complete(request())
    error = caught.value
    assert (error.retryable, error.abort_run) == (retryable, abort)
    assert text in str(error) and "\n" not in str(error) and SECRET not in str(error)
    assert error.retry_after_s == (3.0 if step[0] == "429" else None)
    assert len(server.requests) == 1, "the SDK must not retry on its own"


def test_openai_needs_a_key_unless_a_base_url_is_given(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(
        InputError, match=r"^OPENAI_API_KEY is not set \(needed by --provider openai"
    ):
        OpenAICompatProvider()
    with FakeLLMServer() as server:
        provider = OpenAICompatProvider(base_url=server.url + "/v1")
        assert provider.complete(request()).text
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        assert OpenAICompatProvider().complete(request()).text
    assert provider.describe() == {"base_url": server.url + "/v1", "timeout_s": 120.0}


def test_describe_never_holds_credentials(openai_key):
    provider = OpenAICompatProvider(base_url="http://user:pw@127.0.0.1:9/v1")
    assert provider.describe()["base_url"] == "http://127.0.0.1:9/v1" and SECRET not in json.dumps(
        provider.describe()
    )


def test_anthropic_provider_against_the_server(monkeypatch):
    pytest.importorskip("anthropic")
    from skyt_tui.engine.generation.providers.anthropic_provider import AnthropicProvider

    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeLLMServer([("length", "def f(x):"), ("401",)]) as server:
        provider = AnthropicProvider(base_url=server.url, timeout_s=5)
        response = provider.complete(request(seed=9, system="Only code."))
        with pytest.raises(ProviderError) as caught:
            provider.complete(request())
    assert (response.text, response.finish_reason, response.truncated) == (
        "def f(x):",
        "max_tokens",
        True,
    )
    assert (
        response.usage == {"input_tokens": 11, "output_tokens": 7} and response.model == "served-m1"
    )
    assert response.seed is None, "Anthropic takes no seed, so none is recorded"
    body = server.requests[0]["body"]
    assert (
        server.requests[0]["path"] == "/v1/messages"
        and body["temperature"] == 0.7
        and body["system"] == "Only code."
    )
    assert body["max_tokens"] == 4096 and "seed" not in body
    assert caught.value.abort_run and SECRET not in str(caught.value)


def test_anthropic_without_a_key_is_one_line(monkeypatch):
    # the optional extra; without it the next test's message comes first
    pytest.importorskip("anthropic")
    from skyt_tui.engine.generation.providers import anthropic_provider

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(InputError, match=r"^ANTHROPIC_API_KEY is not set"):
        anthropic_provider.AnthropicProvider()


def test_anthropic_without_its_sdk_says_how_to_install_it(monkeypatch):
    from skyt_tui.engine.generation.providers import anthropic_provider

    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(InputError, match=r"pip install 'skyt-tui\[anthropic\]'"):
        anthropic_provider.AnthropicProvider()


def test_under_pipx_the_missing_sdk_message_says_pipx_inject(monkeypatch, tmp_path):
    from skyt_tui.engine.generation.providers import anthropic_provider, sdk

    assert sdk.under_pipx("/home/u/.local/share/pipx/venvs/skyt-tui")
    assert sdk.under_pipx("/home/u/.local/pipx/venvs/skyt-tui")
    assert not sdk.under_pipx("/home/u/project/.venv")
    monkeypatch.setattr(sys, "prefix", "/home/u/.local/share/pipx/venvs/skyt-tui")
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(InputError) as err:
        anthropic_provider.AnthropicProvider()
    assert str(err.value) == (
        "--provider anthropic needs the anthropic SDK: pipx inject skyt-tui anthropic"
    )


def python_command(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def test_command_gets_prompt_on_stdin_and_request_in_env():
    code = (
        "import os, sys; p = sys.stdin.read(); "
        "print(repr(p), os.environ['SKYT_MODEL'], os.environ['SKYT_TEMPERATURE'], os.environ['SKYT_SEED'], "
        "os.environ['SKYT_SAMPLE_INDEX'], 'SKYT_MAX_TOKENS' in os.environ)"
    )
    response = CommandProvider(command=python_command(code)).complete(request(index=3, seed=5))
    assert response.text == "'Write f.' m1 0.7 5 3 False\n" and response.seed == 5


@pytest.mark.parametrize(
    "code, retryable, text",
    [
        ("import sys; print('busy', file=sys.stderr); sys.exit(75)", True, "status 75: busy"),
        ("import sys; print('one\\ntwo', file=sys.stderr); sys.exit(3)", False, "status 3: two"),
    ],
)
def test_command_exit_status(code, retryable, text):
    with pytest.raises(ProviderError) as caught:
        CommandProvider(command=python_command(code)).complete(request())
    assert caught.value.retryable == retryable and text in str(caught.value)


def test_command_timeout_kills_the_process_group(tmp_path):
    marker = tmp_path / "child-finished"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').close()\n")
    code = f"import subprocess, sys, time; subprocess.Popen([sys.executable, {str(child)!r}]); time.sleep(30)"
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out after 0.5s") as caught:
        CommandProvider(command=python_command(code), timeout_s=0.5).complete(request())
    assert caught.value.retryable and time.monotonic() - started < 5
    time.sleep(3.5)
    assert not marker.exists(), "the grandchild survived the timeout"


def test_command_not_found_stops_the_run():
    with pytest.raises(ProviderError, match="command not found: no-such-program-skyt") as caught:
        CommandProvider(command="no-such-program-skyt --x").complete(request())
    assert caught.value.abort_run
    with pytest.raises(InputError, match="--command: empty command"):
        CommandProvider(command="  ")


def test_replay_py_folder_in_natural_order(tmp_path):
    for name, text in (("10.py", "ten"), ("2.py", "two"), ("1.py", "one"), ("notes.txt", "x")):
        (tmp_path / name).write_text(text)
    provider = ReplayProvider.from_path(tmp_path, CONTRACT, default_model="hand")
    assert [provider.complete(request(i)).text for i in range(3)] == ["one", "two", "ten"]
    assert provider.complete(request(0)).model == "hand" and len(provider) == 3
    with pytest.raises(ProviderError, match="has 3 answers; none for sample 3"):
        provider.complete(request(3))


def test_replay_skyt_experiment_file_and_folder(tmp_path):
    experiment = {
        "experiment_id": "e1",
        "contract_id": "add_one",
        "model": "gpt-x",
        "temperature": 0.3,
        "raw_outputs": ["def f(x):\n    return x + 1", None],
    }
    (tmp_path / "e1.json").write_text(json.dumps(experiment))
    source = load_replay_source(tmp_path / "e1.json", CONTRACT)
    assert (source.format, source.model, source.temperature, len(source.answers)) == (
        "skyt",
        "gpt-x",
        0.3,
        2,
    )
    provider = ReplayProvider(source)
    assert provider.complete(request(0)).model == "gpt-x"
    with pytest.raises(ProviderError, match="recorded generation failed"):
        provider.complete(request(1))
    assert load_replay_source(tmp_path, CONTRACT).answers == source.answers
    (tmp_path / "e2.json").write_text(json.dumps({**experiment, "experiment_id": "e2"}))
    with pytest.raises(
        InputError, match="holds 2 experiments for contract 'add_one'; give one experiment file"
    ):
        load_replay_source(tmp_path, CONTRACT)
    (tmp_path / "other.json").write_text(json.dumps({**experiment, "contract_id": "gcd"}))
    with pytest.raises(InputError, match="is an experiment for contract 'gcd', not 'add_one'"):
        load_replay_source(tmp_path / "other.json", CONTRACT)


def test_replay_humaneval_samples_and_answer_jsonl(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in [
                {"task_id": "HumanEval/1", "completion": "    return 1\n"},
                {"task_id": "add_one", "completion": "    return x + 1\n"},
                {"task_id": "add_one", "completion": "    return 1 + x\n"},
            ]
        )
    )
    assert [a.text for a in load_replay_source(samples, CONTRACT).answers] == [
        "    return x + 1\n",
        "    return 1 + x\n",
    ]
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        '{"response": "a"}\n{"text": null, "model": "m"}\n{"contract_id": "gcd", "code": "b"}\n\n{"code": "c"}\n'
    )
    source = load_replay_source(answers, CONTRACT)
    assert [(a.text, a.model) for a in source.answers] == [("a", None), (None, "m"), ("c", None)]
    (tmp_path / "bad.jsonl").write_text('{"answer": "x"}\n')
    with pytest.raises(
        InputError,
        match=r"bad.jsonl: line 1: needs one of the fields response, text, completion, code",
    ):
        load_replay_source(tmp_path / "bad.jsonl", CONTRACT)


def test_replay_bad_sources(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        load_replay_source(tmp_path / "missing", CONTRACT)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="unsupported replay source"):
        load_replay_source(tmp_path / "notes.txt", CONTRACT)
    with pytest.raises(InputError, match="holds no .py answers"):
        load_replay_source(tmp_path, CONTRACT)


def test_make_provider_requires_its_settings():
    with pytest.raises(InputError, match="--command is required"):
        make_provider("command", {}, CONTRACT)
    with pytest.raises(InputError, match="--replay SOURCE is required"):
        make_provider("replay", {}, CONTRACT)
    with pytest.raises(InputError, match="unknown provider 'gemini'"):
        make_provider("gemini", {}, CONTRACT)


def test_retry_after_and_secret_masking():
    assert (
        parse_retry_after("3") == 3.0
        and parse_retry_after(" 0.25 ") == 0.25
        and parse_retry_after("-1") == 0.0
    )
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert (
        one_line(f"bad key {SECRET}\nsecond line", secrets=(SECRET,)) == "bad key *** second line"
    )
    assert (
        one_line("Incorrect API key provided: sk-proj-abc123def456")
        == "Incorrect API key provided: sk-***"
    )


def test_a_command_still_running_when_the_process_exits_is_killed(tmp_path):
    """The app quit mid-run: a request's program, in a session of its own, was left running."""
    import os
    import subprocess
    import time

    pid_file = tmp_path / "pid"
    hang = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    driver = (
        "import sys, threading, time\n"
        "from skyt_tui.engine.generation.providers.base import Request\n"
        "from skyt_tui.engine.generation.providers.command import CommandProvider\n"
        f"provider = CommandProvider(command={python_command(hang)!r})\n"
        "request = Request(index=0, prompt='p', model='m', temperature=None)\n"
        "threading.Thread(target=provider.complete, args=(request,), daemon=True).start()\n"
        f"while not __import__('os').path.exists({str(pid_file)!r}): time.sleep(0.02)\n"
        "time.sleep(0.2)\n"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", driver], cwd=root, check=True, timeout=60)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}")


@pytest.mark.corpus
def test_replaying_another_contracts_experiment_is_refused(isolated_home, capsys):
    """`run gcd --provider replay --replay slugify_….json` said "judging by skyt.slugify…, the
    contract embedded in the recorded experiment (not the catalog's 'gcd')" and stored a slugify
    run with exit 0: a typo in a script gave runs of another contract."""
    from skyt_tui.cli import main
    from skyt_tui.engine.runs import run_store
    from tests.corpus import require

    path = require("skyt-msr2026", "outputs", "slugify_temp1.0_20260123_103849.json")
    assert main(["run", "gcd", "--provider", "replay", "--replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: is an experiment for contract 'slugify', not 'gcd'" in err
    assert err.count("\n") == 1 and run_store.run_ids() == []
    assert main(["run", "slugify", "--provider", "replay", "--replay", str(path), "--json"]) == 0
    [run_id] = run_store.run_ids()
    assert run_store.load_meta(run_id).contract_id.startswith("skyt.slugify.")


@pytest.mark.corpus
def test_a_replayed_experiment_keeps_its_recorded_model_as_import_does(isolated_home, capsys):
    """`run --provider replay` of a SKYT file that records `model: gpt-4o` stored no model, where
    `import` of the same file stores gpt-4o: one system became two in studies and benchmarks."""
    from skyt_tui.cli import main
    from skyt_tui.engine.runs import run_store
    from tests.corpus import require

    path = require("skyt-msr2026", "outputs", "merge_sort_temp1.0_20260123_125922.json")
    assert main(["run", "merge_sort", "--provider", "replay", "--replay", str(path), "--json"]) == 0
    assert main(["import", str(path), "--json"]) == 0
    models = {run_store.load_meta(run_id).model for run_id in run_store.run_ids()}
    assert models == {"gpt-4o"}
    assert (
        main(
            [
                "run",
                "merge_sort",
                "--provider",
                "replay",
                "--replay",
                str(path),
                "--model",
                "x",
                "--json",
            ]
        )
        == 0
    )
    assert "x" in {run_store.load_meta(run_id).model for run_id in run_store.run_ids()}
