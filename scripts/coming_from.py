"""Real files from other evaluation tools, read by `skyt-tui analyze` as they are.

Each installed tool is run offline against a local OpenAI-compatible server
(tests/llm_server.py) answering the project's own problems (tests/fixtures/humaneval_full,
or `--problems FILE`, and the MBPP-style tasks of tests/fixtures/mbpp) with a fixed bank of
answers (tests/fixtures/formats); the server applies the request's stop sequences as an API
does. The file the tool writes is then read with `python3 -m skyt_tui analyze FILE --json` and
the script prints, per file: tool and version, task, samples read, pass rate by skyt-tui and
by the tool, disagreements, and whether the run is complete. Tools (each flag may be given
once per installed version, each version in its own environment):

- inspect   — `inspect eval` (inspect-ai) from --inspect-python: a human-eval style task, an
  MBPP task laid out as inspect_evals' mbpp (tests in the sample metadata), a task whose
  scorer raises (the run stops on an error) and a run cancelled mid-way (SIGINT);
- promptfoo — `promptfoo eval -o results.jsonl` and `-o results.json`, from --promptfoo;
- lm-eval   — `lm_eval --log_samples` from --lm-eval-python: a local human-eval task, and
  lm-eval's own `humaneval_instruct` (--apply_chat_template), `humaneval_64` and `mbpp`
  task definitions over local copies of the project's problems (their filters and metrics
  as lm-eval ships them; --code-eval names a folder holding Hugging Face evaluate's
  `code_eval` metric, which lm-eval's utils load by name and which cannot be downloaded
  here);
- evalplus  — `evalplus.evaluate` from --evalplus-python on the answers, with the project's
  HumanEval+ and MBPP+ style datasets (tests/fixtures/formats/evalplus/StudyPlus.jsonl,
  tests/fixtures/mbpp/MbppStudyPlus.jsonl) as its datasets.

A tool that is not given is skipped (said so). `--keep DIR` copies every file written to
DIR as `<tool>-<version>-<task>.<ext>`. Exit 1 when a tool's pass rate and skyt-tui's differ
by more than the disagreements explain.

    python3 scripts/coming_from.py --inspect-python /venvs/inspect-0.3.90/bin/python \
        --inspect-python /venvs/inspect-0.3.285/bin/python --keep /tmp/real
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.formats import mbpp_study  # noqa: E402
from tests.fixtures.formats.write_fixtures import CHAT, CONTINUATIONS  # noqa: E402
from tests.llm_server import FakeLLMServer  # noqa: E402

PROBLEMS = ROOT / "tests" / "fixtures" / "humaneval_full" / "problems.jsonl"
EVALPLUS_DATASET = ROOT / "tests" / "fixtures" / "formats" / "evalplus" / "StudyPlus.jsonl"
MBPP_ORIGINAL = ROOT / "tests" / "fixtures" / "mbpp" / "mbpp.jsonl"
MBPP_SANITIZED = ROOT / "tests" / "fixtures" / "mbpp" / "mbpp_sanitized.jsonl"
MBPP_PLUS = ROOT / "tests" / "fixtures" / "mbpp" / "MbppStudyPlus.jsonl"
MODEL = "fake-model"

INSPECT_TASK = """
import re, subprocess, sys
from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer
from inspect_ai.solver import generate

INSTRUCTION = ("Read the following function signature and docstring, and fully implement the "
               "function described. Your response should only contain the code for this function.\\n")


def record(r):
    return Sample(id=r["task_id"], input=INSTRUCTION + r["prompt"], target=r["canonical_solution"],
                  metadata={"prompt": r["prompt"], "test": r["test"], "entry_point": r["entry_point"]})


def find_code(completion):
    found = re.findall(r"```python\\n(.*?)```", completion, re.DOTALL)
    found += re.findall(r"```\\n(.*?)```", completion, re.DOTALL)
    return found[0] if found else completion


@scorer(metrics=[accuracy()])
def verify():
    async def score(state, target):
        answer = find_code(state.output.completion)
        program = (state.metadata["prompt"] + answer + "\\n" + state.metadata["test"]
                   + "\\ncheck(" + state.metadata["entry_point"] + ")\\n")
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=30)
        return Score(value=CORRECT if done.returncode == 0 else INCORRECT, answer=answer)
    return score


@task
def humaneval_study(problems: str, epochs: int = 3):
    return Task(dataset=json_dataset(problems, record), solver=[generate()], scorer=verify(),
                epochs=epochs)


# As inspect_evals' mbpp lays out its samples (its record_to_sample and verify scorer).
def mbpp_record(r):
    return Sample(input=r["prompt"] + "\\n\\n" + "\\n".join(r["test_list"]), target=r["test_list"],
                  id=r["task_id"],
                  metadata={"prompt": r["prompt"], "test_list": r["test_list"],
                            "test_list_str": "\\n".join(r["test_list"]),
                            "source_file": r["source_file"], "code": r["code"],
                            "test_imports": r["test_imports"], "task_id": r["task_id"]})


@scorer(metrics=[accuracy()])
def mbpp_verify():
    async def score(state, target):
        code = find_code(state.output.completion)
        for test_case in target.target:
            code += f"\\n{test_case}, {repr(test_case[len('assert ') :])}"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
        return Score(value=CORRECT if done.returncode == 0 else INCORRECT,
                     answer=state.output.completion)
    return score


@task
def mbpp_study(problems: str, epochs: int = 3):
    return Task(dataset=json_dataset(problems, mbpp_record), solver=[generate()],
                scorer=mbpp_verify(), epochs=epochs)


@scorer(metrics=[accuracy()])
def breaking():
    async def score(state, target):
        if state.sample_id == "Study/2":
            raise RuntimeError("the scorer's sandbox went away")
        return Score(value=CORRECT)
    return score


@task
def humaneval_breaks(problems: str, epochs: int = 3):
    return Task(dataset=json_dataset(problems, record), solver=[generate()], scorer=breaking(),
                epochs=epochs)
"""


def problems(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class AnswerBank:
    """The next answer for the task a request is about (cycling the bank), cut at the request's
    stop sequences as an API does.

    human-eval tasks (found by their signature): chat answers, or continuations of the prompt
    (`mode` "completion"), or continuations that close the fence a prefill opened ("instruct":
    lm-eval's humaneval_instruct). MBPP tasks (found by their first test): fenced code, or bare
    code followed by MBPP's `[DONE]` when the prompt ends with `[BEGIN]` (lm-eval's mbpp)."""

    def __init__(self, tasks: list[dict]) -> None:
        self.tasks = tasks
        self.served: dict[str, int] = {}
        self.mode = "chat"
        self.hold: threading.Event | None = None
        self.answered = 0

    def next_of(self, task_id: str, bank: list[str]) -> str:
        count = self.served.get(task_id, 0)
        self.served[task_id] = count + 1
        return bank[count % len(bank)]

    def answer(self, body: dict) -> str:
        if self.hold is not None:
            self.hold.wait(120)
        self.answered += 1
        return cut_at_stops(self._answer(body), body.get("stop"))

    def _answer(self, body: dict) -> str:
        text = json.dumps(body.get("messages") or body.get("prompt") or "")
        for task in mbpp_study.TASKS:
            if json.dumps(task["test_list"][0])[1:-1] in text:
                code = self.next_of(
                    mbpp_study.task_id(task), mbpp_study.ANSWERS[mbpp_study.task_id(task)]
                )
                if last_message(body).endswith("[BEGIN]\n"):
                    return code + "[DONE]\n"
                return "```python\n" + code + "```\n"
        for task in self.tasks:
            signature = task["prompt"].strip().splitlines()[-1]
            if task["entry_point"] in text and json.dumps(signature)[1:-1] in text:
                if self.mode == "chat":
                    bank = CHAT.get(task["task_id"]) or [task["canonical_solution"]]
                    return self.next_of(task["task_id"], bank)
                bank = CONTINUATIONS.get(task["task_id"]) or [task["canonical_solution"]]
                answer = self.next_of(task["task_id"], bank)
                if self.mode == "instruct":
                    return answer + "```\n\nThis completes the function."
                return answer
        return "I do not know."


def last_message(body: dict) -> str:
    messages = body.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        content = messages[-1].get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return content if isinstance(content, str) else ""
    return body.get("prompt") if isinstance(body.get("prompt"), str) else ""


def cut_at_stops(text: str, stop) -> str:
    stops = [stop] if isinstance(stop, str) else [s for s in stop or [] if isinstance(s, str) and s]
    cut = min((text.find(s) for s in stops if s in text), default=len(text))
    return text[:cut]


def serve(tasks: list[dict]) -> tuple[FakeLLMServer, AnswerBank]:
    bank = AnswerBank(tasks)
    server = FakeLLMServer()
    server.default = lambda number: ("ok", bank.answer(server.requests[number]["body"]))
    return server, bank


LM_EVAL_TASK = """task: study_humaneval
dataset_path: json
dataset_kwargs:
  data_files:
    test: {problems}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{test}}}}\\ncheck({{{{entry_point}}}})"
metric_list:
  - metric: !function study_utils.pass_at_k
    aggregation: mean
    higher_is_better: true
    k: [1]
generation_kwargs:
  until: ["\\nclass", "\\ndef", "\\n#", "\\nif", "\\nprint"]
  max_gen_toks: 512
  do_sample: true
  temperature: 0.7
repeats: 3
num_fewshot: 0
filter_list:
  - name: create_test
    filter:
      - function: custom
        filter_fn: !function study_utils.build_predictions
metadata:
  version: 1.0
"""

LM_EVAL_UTILS = """import subprocess, sys


def pass_at_k(references, predictions, k=None):
    reference, programs = references[0], predictions[0]
    passed = 0
    for program in programs:
        done = subprocess.run([sys.executable, "-c", program + "\\n" + reference], capture_output=True, timeout=30)
        passed += done.returncode == 0
    return {"pass@1": passed / len(programs)}


def build_predictions(resps, docs):
    return [[doc["prompt"] + r for r in resp] for resp, doc in zip(resps, docs)]
"""


LM_EVAL_BUILTIN = """include: {builtin}
task: study_{name}
dataset_path: json
dataset_name: null
dataset_kwargs:
  data_files:
    test: {data}
"""
"""lm-eval's own task definition (filters, metrics, prompts as shipped), over a local file."""

LM_EVAL_VARIANTS = {
    "humaneval": None,
    "humaneval_instruct": ("humaneval/humaneval_instruct.yaml", "problems", "instruct"),
    "humaneval_64": ("humaneval/humaneval_64.yaml", "problems", "completion"),
    "mbpp": ("mbpp/mbpp.yaml", "mbpp", "chat"),
}


def run_lm_eval(
    python: str, url: str, work: Path, problems_file: Path, variant: str, code_eval: Path | None
) -> Path:
    """`lm_eval --log_samples` of one task variant; the samples file it writes."""
    tasks = work / "tasks"
    tasks.mkdir()
    name = f"study_{variant}"
    if LM_EVAL_VARIANTS[variant] is None:
        (tasks / "study_humaneval.yaml").write_text(LM_EVAL_TASK.format(problems=problems_file))
        (tasks / "study_utils.py").write_text(LM_EVAL_UTILS)
    else:
        if code_eval is None:
            raise SystemExit(f"lm-eval {variant}: give --code-eval (evaluate's code_eval folder)")
        shutil.copytree(code_eval, work / "code_eval")
        builtin, data, _ = LM_EVAL_VARIANTS[variant]
        package = subprocess.run(
            [python, "-c", "import lm_eval, os; print(os.path.dirname(lm_eval.__file__))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        data_file = problems_file if data == "problems" else MBPP_ORIGINAL
        (tasks / f"{name}.yaml").write_text(
            LM_EVAL_BUILTIN.format(
                builtin=Path(package) / "tasks" / builtin, name=variant, data=data_file
            )
        )
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "OPENAI_API_KEY": "test-key",
        "HF_ALLOW_CODE_EVAL": "1",
    }
    subprocess.run(
        [
            str(Path(python).parent / "lm_eval"),
            "--model",
            "local-chat-completions",
            "--model_args",
            f"model={MODEL},base_url={url}/v1/chat/completions,tokenized_requests=False,num_concurrent=1",
            "--tasks",
            name,
            "--include_path",
            str(tasks),
            "--apply_chat_template",
            "--log_samples",
            "--output_path",
            str(work / "out"),
            "--confirm_run_unsafe_code",
        ],
        cwd=work,
        env=env,
        check=True,
        timeout=3600,
        capture_output=True,
    )
    return next((work / "out").rglob(f"samples_{name}_*.jsonl"))


def analyze(path: Path, *extra: str) -> dict | None:
    done = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "analyze", str(path), "--json", "--no-repair", *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    if done.returncode != 0:
        print(f"analyze {path}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
        return None
    return json.loads(done.stdout)


INSPECT_VARIANTS = {
    "humaneval": ("humaneval_study", "problems"),
    "mbpp": ("mbpp_study", "mbpp"),
    "error": ("humaneval_breaks", "problems"),
    "cancelled": ("humaneval_study", "problems"),
}


def run_inspect(
    python: str, url: str, work: Path, problems_file: Path, variant: str, bank: AnswerBank
) -> Path:
    """`inspect eval` of one task; "cancelled" interrupts the run (SIGINT, as Ctrl-C does)
    once 4 answers were served, the rest held back."""
    task, data = INSPECT_VARIANTS[variant]
    (work / "study_task.py").write_text(INSPECT_TASK)
    env = {**os.environ, "LOCAL_API_KEY": "test-key", "LOCAL_BASE_URL": url + "/v1"}
    command = [
        str(Path(python).parent / "inspect"),
        "eval",
        f"study_task.py@{task}",
        "--model",
        f"openai-api/local/{MODEL}",
        "-T",
        f"problems={problems_file if data == 'problems' else MBPP_SANITIZED}",
        "--temperature",
        "0.7",
        "--log-dir",
        "logs",
        "--display",
        "none",
        "--max-connections",
        "1",
    ]
    if variant != "cancelled":
        subprocess.run(command, cwd=work, env=env, timeout=1800, capture_output=True)
        return next((work / "logs").glob("*.eval"))
    gate = threading.Event()
    bank.answered = 0
    process = subprocess.Popen(command, cwd=work, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while bank.answered < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
        bank.hold = gate
        time.sleep(3)
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
    finally:
        bank.hold = None
        gate.set()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return next((work / "logs").glob("*.eval"))


def run_promptfoo(
    executable: str, url: str, work: Path, problems_file: Path, output: str = "results.jsonl"
) -> Path:
    tests = [
        {
            "vars": {
                "task_id": p["task_id"],
                "prompt": p["prompt"],
                "test": p["test"],
                "entry_point": p["entry_point"],
            },
            "assert": [{"type": "python", "value": "file://check.py"}],
        }
        for p in problems(problems_file)
    ]
    config = {
        "prompts": ["Write this Python function:\n{{prompt}}"],
        "providers": [
            {
                "id": f"openai:chat:{MODEL}",
                "config": {"apiBaseUrl": url + "/v1", "apiKey": "test-key", "temperature": 0.7},
            }
        ],
        "tests": tests,
    }
    (work / "promptfooconfig.json").write_text(json.dumps(config))
    (work / "check.py").write_text(
        "import re, subprocess, sys\n"
        "def get_assert(output, context):\n"
        "    found = re.findall(r'```(?:python)?\\n(.*?)```', output, re.DOTALL)\n"
        "    code = found[0] if found else output\n"
        "    v = context['vars']\n"
        "    program = code + '\\n' + v['test'] + '\\ncheck(' + v['entry_point'] + ')\\n'\n"
        "    done = subprocess.run([sys.executable, '-c', program], capture_output=True, timeout=30)\n"
        "    return done.returncode == 0\n"
    )
    env = {
        **os.environ,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(work / ".promptfoo"),
        "OPENAI_API_KEY": "test-key",
    }
    subprocess.run(
        [
            executable,
            "eval",
            "-c",
            "promptfooconfig.json",
            "-o",
            output,
            "--repeat",
            "3",
            "--no-cache",
            "--no-progress-bar",
            "--no-table",
            "-j",
            "1",
        ],
        cwd=work,
        env=env,
        timeout=1800,
    )
    return work / output


def run_evalplus(python: str, work: Path, dataset: Path, benchmark: str) -> Path:
    """`evalplus.evaluate` of the bank's answers against a project-written dataset; the
    results file it writes beside the samples."""
    rows = []
    if benchmark == "humaneval":
        for p in problems(dataset):
            for answer in CHAT.get(p["task_id"], []):
                found = answer.split("```")
                code = found[1].split("\n", 1)[1] if len(found) > 2 else answer
                rows.append({"task_id": p["task_id"], "solution": p["prompt"] + code})
        override = {"HUMANEVAL_OVERRIDE_PATH": str(dataset)}
    else:
        for p in problems(dataset):
            for code in mbpp_study.ANSWERS[p["task_id"]]:
                rows.append({"task_id": p["task_id"], "solution": code})
        override = {"MBPP_OVERRIDE_PATH": str(dataset)}
    samples = work / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    subprocess.run(
        [
            python,
            "-m",
            "evalplus.evaluate",
            "--dataset",
            benchmark,
            "--samples",
            str(samples),
            "--parallel",
            "2",
        ],
        env={**os.environ, **override},
        cwd=work,
        check=True,
        timeout=1800,
        capture_output=True,
        input="y\n",
        text=True,
    )
    return work / "samples_eval_results.json"


def version_of(python: str, package: str) -> str:
    return subprocess.run(
        [python, "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def report(name: str, path: Path, *extra: str) -> bool:
    """One line per file read: samples, pass rates, disagreements, whether it is complete."""
    out = analyze(path, *extra)
    if out is None:
        return False
    ok = True
    for entry in out["sources"]:
        skyt, tool = entry.get("pass_rate"), entry.get("tool_pass_rate")
        agree = entry.get("disagreements")
        shown = lambda v: "–" if v is None else f"{v:.3f}"  # noqa: E731
        line = (
            f"{name:34} {entry['samples']:4} samples · pass {shown(skyt)} by skyt-tui · "
            f"{shown(tool)} by {entry['tool']} ({entry.get('tool_metric', 'pass')}) · "
            f"disagreements {agree}"
        )
        if entry.get("evalplus"):
            rates = entry["evalplus"]
            line += (
                f" · base {shown(rates['base']['skyt'])}/{shown(rates['base']['tool'])}"
                f" plus {shown(rates['plus']['skyt'])}/{shown(rates['plus']['tool'])}"
            )
        if entry.get("tool_run"):
            ended = entry["tool_run"]
            line += (
                f" · INCOMPLETE ({ended['status']}: {ended['samples_recorded']} of "
                f"{ended['samples_expected']} samples)"
            )
        print(line)
        if agree == 0 and skyt is not None and tool is not None and abs(skyt - tool) > 1e-9:
            ok = False
    return ok


def keep(found: Path, folder: Path | None, name: str) -> None:
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    if found.is_dir():
        shutil.copytree(found, folder / name, dirs_exist_ok=True)
    else:
        shutil.copy(found, folder / name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, default=PROBLEMS)
    parser.add_argument("--inspect-python", action="append", default=[])
    parser.add_argument("--promptfoo", action="append", default=[])
    parser.add_argument("--lm-eval-python", action="append", default=[])
    parser.add_argument("--evalplus-python", action="append", default=[])
    parser.add_argument("--evalplus-dataset", type=Path, default=EVALPLUS_DATASET)
    parser.add_argument("--code-eval", type=Path, help="Hugging Face evaluate's code_eval folder")
    parser.add_argument("--only", action="append", default=[], help="run only these tasks")
    parser.add_argument("--keep", type=Path, help="copy the tools' files to this folder")
    args = parser.parse_args()
    tasks = problems(args.problems)
    chosen = set(args.only)
    wanted = lambda task: not chosen or task in chosen  # noqa: E731
    ok = True
    server, bank = serve(tasks)
    with tempfile.TemporaryDirectory() as scratch, server:
        work = Path(scratch)
        for python in args.inspect_python:
            version = version_of(python, "inspect-ai")
            for variant in INSPECT_VARIANTS:
                if not wanted(f"inspect-{variant}"):
                    continue
                folder = work / f"inspect-{version}-{variant}"
                folder.mkdir()
                bank.mode = "chat"
                log = run_inspect(
                    python, server.url, folder, args.problems.resolve(), variant, bank
                )
                keep(log, args.keep, f"inspect-{version}-{variant}.eval")
                ok &= report(f"inspect {version} {variant}", log)
        for executable in args.promptfoo:
            version = (
                subprocess.run([executable, "--version"], capture_output=True, text=True)
                .stdout.strip()
                .splitlines()[-1]
            )
            for output in ("results.jsonl", "results.json"):
                if not wanted(f"promptfoo-{output}"):
                    continue
                folder = work / f"promptfoo-{version}-{output}"
                folder.mkdir()
                bank.mode = "chat"
                results = run_promptfoo(
                    executable, server.url, folder, args.problems.resolve(), output
                )
                keep(results, args.keep, f"promptfoo-{version}-{output}")
                ok &= report(f"promptfoo {version} {output}", results)
        for python in args.lm_eval_python:
            version = version_of(python, "lm-eval")
            for variant, spec in LM_EVAL_VARIANTS.items():
                if not wanted(f"lm-eval-{variant}"):
                    continue
                folder = work / f"lm-eval-{version}-{variant}"
                folder.mkdir()
                bank.mode = spec[2] if spec else "completion"
                samples = run_lm_eval(
                    python, server.url, folder, args.problems.resolve(), variant, args.code_eval
                )
                keep(samples.parent, args.keep, f"lm-eval-{version}-{variant}")
                ok &= report(f"lm-eval {version} {variant}", samples)
        for python in args.evalplus_python:
            version = version_of(python, "evalplus")
            for benchmark, dataset in (("humaneval", args.evalplus_dataset), ("mbpp", MBPP_PLUS)):
                if not wanted(f"evalplus-{benchmark}"):
                    continue
                folder = work / f"evalplus-{version}-{benchmark}"
                folder.mkdir()
                results = run_evalplus(python, folder, dataset.resolve(), benchmark)
                keep(folder, args.keep, f"evalplus-{version}-{benchmark}")
                ok &= report(f"evalplus {version} {benchmark}", results, "--problems", str(dataset))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
