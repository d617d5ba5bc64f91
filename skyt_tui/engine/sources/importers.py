"""Importers that turn other projects' task definitions into skyt-tui contracts.

- SKYT `templates.json` (a JSON object of templates keyed by id, or a list of
  them): prompt, `constraints.function_name` / `class_name`, test cases with an
  `input` (a JSON list is spread into positional arguments, any other value is
  the single argument) or an `operations` list run on a class instance.
- human-eval / EvalPlus `problems.jsonl`: each problem by `humaneval.problem_contract`, the
  one converter every command uses (completion-style prompt, the `check` split into one test
  per assert, reference = prompt + canonical solution).

Neither format records a difficulty, so `--difficulty` overrides it and otherwise
a fixed, documented rule picks one (`SKYT_DIFFICULTY_RULE`,
`humaneval.HUMANEVAL_DIFFICULTY_RULE`). Everything is validated before anything is
written: `write_contracts` writes no file when any contract is invalid or would
overwrite a different existing file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from skyt_tui.engine import store
from skyt_tui.engine.contracts.coding_rules import CODING_RULES, skyt_rule_id
from skyt_tui.engine.contracts.contract import (
    CONTRACT_SCHEMA_VERSION,
    DIFFICULTIES,
    IDENTIFIER,
    STYLES,
    Contract,
    contract_from_dict,
    contract_to_toml_dict,
    load_contract,
    write_contract,
)
from skyt_tui.engine.contracts.values import LiteralError, is_toml_faithful, to_toml_fields
from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.sources import humaneval

SKYT_DIFFICULTY_RULE = (
    "hard if any test is a class (operations) test; medium if recursion is required "
    "or any test passes a list or dict argument; easy otherwise"
)

SKYT_DEFAULT_PASS_RATE = 0.8
"""What SKYT's oracle requires when a template gives no `required_pass_rate`."""

_SKYT_OPERATION_KEYS = {"op", "args", "kwargs", "expected", "description"}
_SKYT_POLICIES = {
    "must_return": "must_return",
    "must_raise": "must_raise",
    "ignore": "ignore",
    "none": "ignore",
}


def _check_difficulty(difficulty: str | None) -> None:
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise InputError(
            f"--difficulty: must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r}"
        )


def _toml_safe(value: Any) -> Any:
    """A value a TOML `source` table can hold: nulls dropped, anything else odd as JSON text."""
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, list) and all(v is not None for v in value):
        items = [_toml_safe(v) for v in value]
        if is_toml_faithful(items):
            return items
    if is_toml_faithful(value):
        return value
    return json.dumps(value, sort_keys=True)


def _value_fields(name: str, value: Any, fail: Any) -> dict[str, Any]:
    try:
        return to_toml_fields(name, value)
    except LiteralError as exc:
        raise fail(str(exc)) from None


def _skyt_templates(path: Path, data: Any) -> list[tuple[str, dict[str, Any]]]:
    """(key, template) pairs from a dict keyed by id, a list, or a single template."""
    if isinstance(data, dict) and isinstance(data.get("prompt"), str):
        data = [data]
    if isinstance(data, dict):
        pairs = list(data.items())
    elif isinstance(data, list):
        pairs = [
            (item.get("id", f"[{i}]") if isinstance(item, dict) else f"[{i}]", item)
            for i, item in enumerate(data)
        ]
    else:
        raise InputError.at(
            path, "expected a JSON object of SKYT templates keyed by id (or a list of templates)"
        )
    if not pairs:
        raise InputError.at(path, "contains no templates")
    for key, template in pairs:
        if not isinstance(template, dict):
            raise InputError.at(path, "must be a JSON object (a SKYT template)", key=str(key))
    return [(str(key), template) for key, template in pairs]


def import_skyt_templates(path: Path | str, *, difficulty: str | None = None) -> list[Contract]:
    """Every template in a SKYT `templates.json`, as validated contracts (in file order)."""
    _check_difficulty(difficulty)
    path = Path(path)
    return [
        skyt_template_to_contract(template, key=key, file=path, difficulty=difficulty)
        for key, template in _skyt_templates(path, store.read_json_file(path))
    ]


def skyt_template_to_contract(
    template: dict[str, Any],
    *,
    key: str,
    file: Path | str = "<templates>",
    difficulty: str | None = None,
) -> Contract:
    """One SKYT template as a contract; errors name the file and `key.field`."""
    _check_difficulty(difficulty)
    file = Path(file)

    def fail(field: str, reason: str) -> InputError:
        return InputError.at(file, reason, key=f"{key}.{field}" if field else key)

    def get(
        table: dict[str, Any],
        field: str,
        kind: type | tuple[type, ...],
        where: str,
        default: Any = ...,
    ) -> Any:
        if field not in table or table[field] is None:
            if default is ...:
                raise fail(f"{where}{field}", "missing required field")
            return default
        value = table[field]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise fail(f"{where}{field}", f"has the wrong type ({type(value).__name__})")
        return value

    contract_id = str(get(template, "id", str, "", key))
    prompt = get(template, "prompt", str, "")
    constraints = get(template, "constraints", dict, "", {})
    function_name = get(constraints, "function_name", str, "constraints.", None)
    class_name = get(constraints, "class_name", str, "constraints.", None)
    if class_name is None and function_name is None:
        raise fail(
            "constraints.function_name", "missing required field (or constraints.class_name)"
        )
    naming = get(constraints, "variable_naming", dict, "constraints.", {})
    fixed = get(naming, "fixed_variables", list, "constraints.variable_naming.", [])

    style = _skyt_style(constraints, fail)
    oracle_reqs = get(template, "oracle_requirements", dict, "", None)
    if oracle_reqs is None:
        raise fail("oracle_requirements", "missing required field")
    cases = get(oracle_reqs, "test_cases", list, "oracle_requirements.")
    if not cases:
        raise fail("oracle_requirements.test_cases", "is empty; a contract needs at least one test")
    tests = [_skyt_test(case, i, fail) for i, case in enumerate(cases)]
    is_class = any(test["kind"] == "stateful" for test in tests)
    if is_class and class_name is None:
        raise fail("constraints.class_name", "missing: operations tests run on a class")
    if not is_class and function_name is None:
        raise fail("constraints.function_name", "missing: input/expected tests call a function")
    if is_class and any(test["kind"] != "stateful" for test in tests):
        raise fail(
            "oracle_requirements.test_cases", "mixes operations tests with input/expected tests"
        )

    ood, max_checks = _skyt_out_of_domain(get(template, "out_of_domain", dict, "", {}), fail)
    rescue = get(template, "rescue_bounds", dict, "", {})
    max_transformations = get(rescue, "max_transformations", int, "rescue_bounds.", 5)
    # SKYT's oracle passes a sample at `required_pass_rate` (0.8 when absent) and never reads
    # `correctness_threshold`: the threshold is the one SKYT applies.
    threshold = get(oracle_reqs, "required_pass_rate", (int, float), "oracle_requirements.", None)
    threshold_rule = "oracle_requirements.required_pass_rate, as SKYT's oracle applies it"
    if threshold is None:
        threshold = SKYT_DEFAULT_PASS_RATE
        threshold_rule = (
            f"SKYT's default {SKYT_DEFAULT_PASS_RATE:g} (the template has no required_pass_rate)"
        )
    if isinstance(threshold, bool) or not 0 < threshold <= 1:
        raise fail(
            "oracle_requirements.required_pass_rate", f"must be in (0, 1]; got {threshold!r}"
        )
    rules, unchecked, rule_texts = _skyt_rules(constraints, fail)
    patterns = {
        name: _skyt_patterns(get(constraints, name, list, "constraints.", []), name, fail)
        for name in ("required_patterns", "forbidden_patterns")
    }

    chosen = difficulty or _skyt_difficulty(cases, style)
    source: dict[str, Any] = {
        "format": "skyt-templates",
        "file": file.name,
        "original_id": key,
        "difficulty_rule": "given with --difficulty" if difficulty else SKYT_DIFFICULTY_RULE,
    }
    for field in ("task_intent", "algorithm_family", "domain", "normalization_rules"):
        if template.get(field) is not None:
            source[field] = template[field]
    source["pass_threshold_rule"] = threshold_rule
    for field in ("correctness_threshold",):
        if oracle_reqs.get(field) is not None:
            source[field] = oracle_reqs[field]
    if rule_texts:
        source["rule_texts"] = rule_texts
    if unchecked:
        source["unchecked_rules"] = unchecked
    for field in ("output_type", "requires_recursion", "implementation_style"):
        if constraints.get(field) is not None:
            source[field] = constraints[field]
    for field in ("flexible_variables", "naming_policy"):
        if naming.get(field) is not None:
            source[field] = naming[field]
    extra_rescue = {k: v for k, v in rescue.items() if k != "max_transformations"}
    if extra_rescue:
        source["rescue_bounds"] = extra_rescue
    if max_checks is not None:
        source["out_of_domain_max_checks"] = max_checks

    doc: dict[str, Any] = {
        "schema_version": CONTRACT_SCHEMA_VERSION,
        "id": contract_id,
        "version": 1,
        "title": template.get("task_intent")
        if isinstance(template.get("task_intent"), str)
        else contract_id,
        "description": template.get("description")
        if isinstance(template.get("description"), str)
        else "",
        "difficulty": chosen,
        "prompt": prompt,
        "prompt_style": "instruction",
        "entry": {
            "kind": "class" if is_class else "function",
            "name": class_name if is_class else function_name,
        },
        "constraints": {
            "fixed_names": fixed,
            "style": style,
            **({"coding_rules": rules} if rules else {}),
            **{name: values for name, values in patterns.items() if values},
        },
        "oracle": {"pass_threshold": threshold},
        "out_of_domain": ood,
        "rescue": {"max_transformations": max_transformations},
        "tests": tests,
        "source": _toml_safe(source),
    }
    if isinstance(template.get("algorithm_family"), str):
        doc["tags"] = [template["algorithm_family"]]
    return replace(contract_from_dict(doc, f"{file} [{key}]"), path=None)


SKYT_NAMESPACE = "skyt"


def judging_hash(contract: Contract) -> str:
    """SHA-256 of what decides a verdict: the contract without its id and provenance."""
    doc = contract_to_toml_dict(contract)
    doc.pop("id", None)
    doc.pop("source", None)
    canonical = json.dumps(doc, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def embedded_contract_id(original_id: str, contract: Contract) -> str:
    """`skyt.binary_search.947220f0`: an embedded contract's own id, never a bundled or user id."""
    return f"{SKYT_NAMESPACE}.{original_id}.{judging_hash(contract)[:8]}"


def embedded_skyt_contract(template: dict[str, Any], *, key: str, file: Path | str) -> Contract:
    """The contract a SKYT experiment was generated under, as a stored, versioned contract.

    Its id is namespaced by the hash of its judging content (`embedded_contract_id`),
    so it neither shadows nor is shadowed by a bundled or user contract with the
    same SKYT id; equal embedded contracts in many files get the same id. Its
    `[source]` records the provenance: the experiment file, the SHA-256 of the
    embedded template, and the SKYT id.
    """
    base = skyt_template_to_contract(template, key=key, file=file)
    template_hash = hashlib.sha256(
        json.dumps(template, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()
    source = dict(base.source)
    source.update(
        {
            "format": "skyt-experiment",
            "file": str(Path(file).resolve()),
            "template_sha256": template_hash,
            "original_id": base.id,
        }
    )
    return replace(base, id=embedded_contract_id(base.id, base), source=source)


def _skyt_rules(
    constraints: dict[str, Any], fail: Any
) -> tuple[list[str], list[str], dict[str, str]]:
    """SKYT's `misra_c_rules` and `nasa_power_of_10` as (rule ids skyt-tui checks, ids it does
    not check, each id's text in the template)."""
    checked: list[str] = []
    unchecked: list[str] = []
    texts: dict[str, str] = {}
    for table in ("misra_c_rules", "nasa_power_of_10"):
        rules = constraints.get(table)
        if rules is None:
            continue
        if not isinstance(rules, dict):
            raise fail(f"constraints.{table}", "must be an object of rules keyed by rule name")
        for name, text in rules.items():
            rule = skyt_rule_id(str(name)) or f"{table}.{name}"
            if isinstance(text, str):
                texts[rule] = text
            target = checked if rule in CODING_RULES else unchecked
            if rule not in target:
                target.append(rule)
    return checked, unchecked, texts


def _skyt_patterns(values: list[Any], name: str, fail: Any) -> list[str]:
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise fail(f"constraints.{name}", "must be a list of code fragments (strings)")
    return list(values)


def _skyt_style(constraints: dict[str, Any], fail: Any) -> str:
    style = constraints.get("implementation_style")
    if style is not None:
        if style not in STYLES:
            raise fail(
                "constraints.implementation_style",
                f"must be one of {', '.join(STYLES)}; got {style!r}",
            )
        return str(style)
    if constraints.get("requires_recursion") is True:
        return "recursive"
    return "any"


def _spread(raw_input: Any) -> list[Any]:
    """SKYT's rule: a JSON list is the positional arguments, any other value the single argument."""
    return raw_input if isinstance(raw_input, list) else [raw_input]


def _skyt_test(case: Any, index: int, fail: Any) -> dict[str, Any]:
    where = f"oracle_requirements.test_cases[{index}]"
    if not isinstance(case, dict):
        raise fail(where, "must be an object with input/expected or operations")
    description = case.get("description")
    name = description if isinstance(description, str) else f"case {index}"
    if "operations" in case:
        return _skyt_operations_test(case["operations"], name, f"{where}.operations", fail)
    if "input" in case:
        if "expected" not in case:
            raise fail(f"{where}.expected", "missing required field")
        test = {"kind": "call", "name": name}
        test.update(
            _value_fields(
                "args", _spread(case["input"]), lambda reason: fail(f"{where}.input", reason)
            )
        )
        test.update(
            _value_fields(
                "expected", case["expected"], lambda reason: fail(f"{where}.expected", reason)
            )
        )
        return test
    raise fail(
        where,
        f"unknown test shape (keys {', '.join(sorted(case)) or 'none'}); expected input/expected or operations",
    )


def _skyt_operations_test(operations: Any, name: str, where: str, fail: Any) -> dict[str, Any]:
    if not isinstance(operations, list) or not operations:
        raise fail(where, "must be a non-empty list of {op, args, expected}")
    init: dict[str, Any] = {}
    steps = []
    for j, operation in enumerate(operations):
        at = f"{where}[{j}]"
        if not isinstance(operation, dict) or not isinstance(operation.get("op"), str):
            raise fail(at, "must be an object with a string op")
        unknown = sorted(set(operation) - _SKYT_OPERATION_KEYS)
        if unknown:
            raise fail(
                f"{at}.{unknown[0]}",
                "unknown field in an operation (expected op, args, kwargs, expected)",
            )
        args = operation.get("args", [])
        if args is None:
            args = []
        if not isinstance(args, list):
            raise fail(f"{at}.args", "must be a list of positional arguments")
        kwargs = operation.get("kwargs") or {}
        if not isinstance(kwargs, dict):
            raise fail(f"{at}.kwargs", "must be an object of keyword arguments")
        call: dict[str, Any] = {}
        if args:
            call.update(
                _value_fields("args", args, lambda reason, at=at: fail(f"{at}.args", reason))
            )
        if kwargs:
            call.update(
                _value_fields("kwargs", kwargs, lambda reason, at=at: fail(f"{at}.kwargs", reason))
            )
        if operation["op"] == "init":
            if j != 0:
                raise fail(f"{at}.op", "init must be the first operation")
            init = call
            continue
        if not IDENTIFIER.fullmatch(operation["op"]):
            raise fail(f"{at}.op", f"{operation['op']!r} is not a method name")
        step = {"call": operation["op"], **call}
        if operation.get("expected") is not None:
            step.update(
                _value_fields(
                    "expected",
                    operation["expected"],
                    lambda reason, at=at: fail(f"{at}.expected", reason),
                )
            )
        steps.append(step)
    if not steps:
        raise fail(where, "has no operation after init")
    return {"kind": "stateful", "name": name, "init": init, "steps": steps}


def _skyt_out_of_domain(ood: dict[str, Any], fail: Any) -> tuple[dict[str, Any], int | None]:
    """The [out_of_domain] table, and SKYT's max_checks (kept in [source])."""
    if not ood:
        return {"policy": "ignore"}, None
    policy_name = ood.get("policy", "ignore")
    if policy_name not in _SKYT_POLICIES:
        raise fail(
            "out_of_domain.policy",
            f"unknown policy {policy_name!r} (known: {', '.join(sorted(_SKYT_POLICIES))})",
        )
    policy = _SKYT_POLICIES[policy_name]
    examples = ood.get("examples", [])
    if not isinstance(examples, list) or not all(isinstance(example, dict) for example in examples):
        raise fail("out_of_domain.examples", "must be a list of objects of keyword arguments")
    max_checks = ood.get("max_checks")
    if max_checks is not None:
        if isinstance(max_checks, bool) or not isinstance(max_checks, int) or max_checks < 0:
            raise fail("out_of_domain.max_checks", "must be a non-negative integer")
        examples = examples[:max_checks]
    result: dict[str, Any] = {"policy": policy}
    inputs = []
    for i, example in enumerate(examples):
        bad = [name for name in example if not IDENTIFIER.fullmatch(str(name))]
        if bad:
            raise fail(f"out_of_domain.examples[{i}]", f"{bad[0]!r} is not a parameter name")
        inputs.append(
            _value_fields(
                "kwargs", example, lambda reason, i=i: fail(f"out_of_domain.examples[{i}]", reason)
            )
        )
    if policy != "ignore":
        result["inputs"] = inputs
    if policy == "must_return":
        if "return_value" not in ood:
            raise fail("out_of_domain.return_value", "missing: policy must_return needs it")
        result.update(
            _value_fields(
                "return_value",
                ood["return_value"],
                lambda reason: fail("out_of_domain.return_value", reason),
            )
        )
    if policy == "must_raise" and isinstance(ood.get("exception"), str):
        result["raises"] = ood["exception"]
    return result, max_checks


def _skyt_difficulty(cases: list[dict[str, Any]], style: str) -> str:
    """SKYT_DIFFICULTY_RULE, applied to the (already validated) test cases."""
    if any("operations" in case for case in cases):
        return "hard"
    if style == "recursive":
        return "medium"
    arguments = [arg for case in cases for arg in _spread(case["input"])]
    return "medium" if any(isinstance(arg, list | dict) for arg in arguments) else "easy"


def import_humaneval_problems(path: Path | str, *, difficulty: str | None = None) -> list[Contract]:
    """Every problem of a human-eval `problems.jsonl`, as validated completion-style contracts."""
    _check_difficulty(difficulty)
    path = Path(path)
    problems = humaneval.load_problems(path)
    if not problems:
        raise InputError.at(path, "contains no problems")
    return [
        humaneval.problem_contract(problem, file=path, difficulty=difficulty)
        for problem in problems.values()
    ]


@dataclass(frozen=True)
class WriteOutcome:
    """What `write_contracts` did with one contract."""

    contract_id: str
    path: Path
    action: Literal["written", "unchanged", "overwritten"]


def contract_file_name(contract: Contract) -> str:
    return f"{contract.id}.toml"


def _same_content(path: Path, contract: Contract) -> bool:
    try:
        existing = load_contract(path)
    except ContractError:
        return False
    return existing.content_hash() == contract.content_hash()


def plan_writes(
    contracts: Sequence[Contract], out_dir: Path | str, *, force: bool = False
) -> list[WriteOutcome]:
    """Validate every contract and decide each file's fate; raise (one line) before any write."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError.at(out_dir, "is not a directory")
    seen: dict[str, str] = {}
    for contract in contracts:
        origin = str(
            contract.source.get("original_id") or contract.source.get("task_id") or contract.id
        )
        if contract.id in seen:
            raise ContractError(
                f"id {contract.id!r}: produced twice (from {seen[contract.id]!r} and {origin!r})"
            )
        seen[contract.id] = origin
        doc = contract_to_toml_dict(contract)
        label = out_dir / contract_file_name(contract)
        check = contract_from_dict({"schema_version": CONTRACT_SCHEMA_VERSION, **doc}, label)
        if check.content_hash() != contract.content_hash():
            raise ContractError.at(
                label, "internal error: contract does not survive a TOML round trip"
            )
    others = _ids_in(out_dir)
    plan = []
    for contract in contracts:
        path = out_dir / contract_file_name(contract)
        other = others.get(contract.id)
        if other is not None and other != path:
            raise ContractError.at(
                other,
                f"already defines id {contract.id!r}; remove it or import elsewhere",
                key="id",
            )
        if not path.exists():
            plan.append(WriteOutcome(contract.id, path, "written"))
        elif _same_content(path, contract):
            plan.append(WriteOutcome(contract.id, path, "unchanged"))
        elif force:
            plan.append(WriteOutcome(contract.id, path, "overwritten"))
        else:
            raise InputError.at(path, "exists with different content; use --force to overwrite")
    return plan


def _ids_in(directory: Path) -> dict[str, Path]:
    ids: dict[str, Path] = {}
    if not directory.is_dir():
        return ids
    for path in sorted(directory.glob("*.toml")):
        try:
            ids.setdefault(load_contract(path).id, path)
        except ContractError:
            continue
    return ids


def write_contracts(
    contracts: Iterable[Contract], out_dir: Path | str, *, force: bool = False
) -> list[WriteOutcome]:
    """Write each contract to `out_dir/<id>.toml`; nothing is written unless all are valid.

    A file with the same content is left alone ("unchanged"); a file with
    different content is refused unless `force`.
    """
    contracts = list(contracts)
    plan = plan_writes(contracts, out_dir, force=force)
    by_id = {contract.id: contract for contract in contracts}
    for outcome in plan:
        if outcome.action != "unchanged":
            write_contract(by_id[outcome.contract_id], outcome.path)
    return plan
