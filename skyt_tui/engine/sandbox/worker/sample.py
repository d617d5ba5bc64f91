"""The sample side: what runs inside the sample process S, forked afresh for every job.

`SampleHarness` loads the program, runs the call and stateful tests and streams one frame per
test; then it answers the checker's requests (names, calls) until the checker hangs up.
Everything S writes is untrusted data: the app decodes it and decides.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
import time
import types
from typing import Any

from .. import wire
from .framing import ProtocolError, read_frame, write_frame

SAMPLE_FILENAME = "<sample>"
SERVING = {"t": "serving"}
"""The sample's first frame to the checker: it loaded, ran its tests and now answers."""


def describe_exception(exc: BaseException, filename: str = SAMPLE_FILENAME) -> dict[str, Any]:
    """Type name, MRO names, message and the innermost line in `filename`; never raises."""
    try:
        kind = type(exc)
        name = str(kind.__name__)
        mro = [str(cls.__name__) for cls in kind.__mro__][:24]
    except BaseException:  # a hostile metaclass
        name, mro = "BaseException", ["BaseException"]
    try:
        message = (
            exc.msg
            if isinstance(exc, SyntaxError)
            and type(exc) in (SyntaxError, IndentationError, TabError)
            else str(exc)
        )
    except BaseException:
        message = "<str() of the exception failed>"
    info: dict[str, Any] = {
        "type": name[:120],
        "mro": [m[:120] for m in mro],
        "msg": str(message)[:500],
    }
    if (
        isinstance(exc, SyntaxError)
        and type(exc) in (SyntaxError, IndentationError, TabError)
        and isinstance(exc.lineno, int)
    ):
        info["line"] = exc.lineno
        return info
    try:
        tb = exc.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is not None:
            info["line"] = line
            text = linecache.getline(filename, line).strip()
            if text:
                info["source"] = text[:200]
    except BaseException:
        pass
    return info


def encode_result(value: Any) -> Any:
    try:
        return wire.encode(value)
    except wire.EncodeError as exc:
        return {"$unencodable": f"{wire._type_name(value)} ({exc})"[:200]}
    except BaseException as exc:  # a hostile __iter__/__len__ while encoding
        return {"$unencodable": f"{wire._type_name(value)} ({type(exc).__name__})"[:200]}


class SampleHarness:
    """Runs inside S: load the program, answer each test input with its raw result."""

    def __init__(self, job: dict[str, Any], results_fd: int) -> None:
        self.job = job
        self.results_fd = results_fd
        self.pid = os.getpid()
        self.module: types.ModuleType | None = None

    def emit(self, frame: dict[str, Any]) -> None:
        if os.getpid() != self.pid:  # a process the sample forked came back up into the harness
            os._exit(0)
        write_frame(self.results_fd, frame)

    def load(self) -> Any:
        program = self.job["program"]
        linecache.cache[SAMPLE_FILENAME] = (
            len(program),
            None,
            program.splitlines(True),
            SAMPLE_FILENAME,
        )
        module = types.ModuleType("sample")
        sys.modules["sample"] = module
        self.module = module
        try:
            code = compile(program, SAMPLE_FILENAME, "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as exc:
            self.emit({"t": "load_error", "x": describe_exception(exc)})
            return None
        name, kind = self.job["entry"], self.job["entry_kind"]
        entry = module.__dict__.get(name)
        if entry is None:
            self.emit({"t": "no_entry", "why": f"the program does not define {name!r}"})
            return None
        if kind == "class" and not isinstance(entry, type):
            self.emit({"t": "no_entry", "why": f"{name!r} is not a class"})
            return None
        if kind == "function" and not callable(entry):
            self.emit({"t": "no_entry", "why": f"{name!r} is not callable"})
            return None
        self.emit({"t": "loaded"})
        return entry

    def run_tests(self, entry: Any) -> None:
        for test in self.job["tests"]:
            start = time.perf_counter()
            if test["op"] == "call":
                frame = {
                    "t": "call",
                    "i": test["i"],
                    **self.call(entry, test["args"], test["kwargs"]),
                }
            elif test["op"] == "check_call":
                frame = {"t": "call", "i": test["i"], **self.check_call(test)}
            else:
                frame = {"t": "stateful", "i": test["i"], **self.stateful(entry, test)}
            frame["s"] = time.perf_counter() - start
            flush_stdio()
            self.emit(frame)
        self.emit({"t": "tests_done"})

    @staticmethod
    def call(
        function: Any, args: Any, kwargs: Any, report_arguments: bool = False
    ) -> dict[str, Any]:
        """Call with fresh copies of the arguments; with `report_arguments`, also send back their
        state afterwards, so the checker can mirror in-place changes into its own objects."""
        call_args, call_kwargs = wire.decode(args), wire.decode(kwargs)
        try:
            value = function(*call_args, **call_kwargs)
            reply = {"r": encode_result(value)}
        except BaseException as exc:
            reply = {"x": describe_exception(exc)}
        if report_arguments:
            reply["after"] = [encode_result(call_args), encode_result(call_kwargs)]
        return reply

    def check_call(self, test: dict[str, Any]) -> dict[str, Any]:
        """A check's one call of the candidate, which the app judges (`oracle.asserts`): answered
        as the checker's request for it would be (`serve`), the entry looked up by name at the
        time of the call, the arguments' state reported back and left out of the frame."""
        request = {"name": self.job["entry"], "args": test["args"], "kwargs": test["kwargs"]}
        namespace = self.module.__dict__ if self.module is not None else {}
        try:
            reply = self.answer(namespace, request)
        except BaseException as exc:
            reply = {"x": describe_exception(exc)}
        reply.pop("after", None)
        return reply

    def stateful(self, cls: Any, test: dict[str, Any]) -> dict[str, Any]:
        init_args, init_kwargs = test["init"]
        try:
            instance = cls(*wire.decode(init_args), **wire.decode(init_kwargs))
        except BaseException as exc:
            return {"init_x": describe_exception(exc)}
        steps = []
        for method, args, kwargs in test["steps"]:
            try:
                bound = getattr(instance, method)
            except BaseException as exc:
                steps.append({"x": describe_exception(exc)})
                continue
            steps.append(self.call(bound, args, kwargs))
        return {"steps": steps}

    def serve(self, requests_fd: int, replies_fd: int) -> None:
        """Answer the checker: which names exist, and calls to them; until it hangs up."""
        namespace = self.module.__dict__ if self.module is not None else {}
        try:
            write_frame(replies_fd, SERVING)
        except OSError:
            return
        while True:
            try:
                body = read_frame(requests_fd)
            except (OSError, ProtocolError):
                return
            if body is None:
                return
            try:
                request = json.loads(body)
                reply = self.answer(namespace, request)
            except BaseException as exc:
                reply = {"x": describe_exception(exc)}
            flush_stdio()
            if os.getpid() != self.pid:
                os._exit(0)
            write_frame(replies_fd, reply)

    def answer(self, namespace: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "names":
            found: dict[str, dict[str, Any]] = {}
            for name in request["names"]:
                if name not in namespace:
                    continue
                value = namespace[name]
                if isinstance(value, types.ModuleType):
                    found[name] = {"module": str(value.__name__)}
                elif callable(value):
                    found[name] = {"callable": True}
                else:
                    found[name] = {"value": encode_result(value)}
            return {"names": found}
        target = namespace.get(request["name"])
        if target is None:
            return {
                "x": {
                    "type": "NameError",
                    "mro": ["NameError", "Exception", "BaseException", "object"],
                    "msg": f"name {request['name']!r} is not defined",
                }
            }
        return self.call(target, request["args"], request["kwargs"], report_arguments=True)


def flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
