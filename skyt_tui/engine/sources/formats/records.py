"""Sample records of your own: a JSONL (or a JSON list) with one sample a record, `--map` naming fields.

Default fields: `code` (string, or null for a failed generation) and `run_id` or
`contract_id` (+ optional `model`, `temperature`, `sample`). `--map` names others:

- a value is a path into the record: field names and list indexes joined by dots
  (`output.text`, `resps.0.0`); `*` takes every item of a list, each a sample of its own
  (`code=resps.0.*`: N answers in one record);
- `records=PATH` says where the list of records is in a JSON document (`records=samples`);
- `where=PATH=VALUE` keeps only the records whose PATH holds VALUE (compared as text:
  `where=filter=none`).

Lines are grouped into runs by `run_id`, else by (contract_id, model, temperature), keeping
first-appearance order (or the `sample` field's order when given). Every answer goes through
the one extraction rule (`resolve_contracts`), fenced chat answers included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted
from skyt_tui.engine.sources import files
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import temperature as checked_temperature
from skyt_tui.engine.sources.formats.tasks import with_problem
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput

MAP_FIELDS = ("run", "task", "code", "model", "temperature", "sample")
MAP_SELECTORS = ("records", "where")
_DEFAULT_FIELDS = {
    "run": "run_id",
    "task": "contract_id",
    "code": "code",
    "model": "model",
    "temperature": "temperature",
    "sample": "sample",
}
MAX_PATH_PARTS = 32


class Missing:
    """A path that leads nowhere, and why (`resps.0.5`: `resps.0` has 1 item)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def follow(value: Any, path: str) -> Any:
    """The value at a dotted path (names and list indexes), or a `Missing` saying where it stops."""
    walked: list[str] = []
    for part in path.split("."):
        here = ".".join(walked) or "the record"
        if isinstance(value, dict):
            if part not in value:
                return Missing(f"{here} has no field {part!r}")
            value = value[part]
        elif isinstance(value, list):
            if not part.isdigit():
                return Missing(f"{here} is a list; {part!r} is not an index")
            position = int(part)
            if position >= len(value):
                return Missing(f"{here} has {counted(len(value), 'item')}, no index {position}")
            value = value[position]
        else:
            return Missing(f"{here} is a {type(value).__name__}, not an object or a list")
        walked.append(part)
    return value


@dataclass(frozen=True)
class FieldMap:
    """Where each sample field is in a study's own records (`--map task=problem,code=output.text`).

    Keys: run, task (the contract id), code, model, temperature, sample (order within a run),
    records (where the list of records is), where (a filter, `PATH=VALUE`). Unmapped keys use
    the default names (run_id, contract_id, code, model, temperature, sample).
    """

    fields: tuple[tuple[str, str], ...] = ()

    def path(self, key: str) -> str:
        return dict(self.fields).get(key, _DEFAULT_FIELDS.get(key, ""))

    def given_key(self, key: str) -> bool:
        return key in dict(self.fields)

    def get(self, row: dict[str, Any], key: str) -> tuple[bool, Any]:
        """(present, value) of `key` in `row`, following the path."""
        value = follow(row, self.path(key))
        if isinstance(value, Missing):
            return False, None
        return True, value

    def missing(self, row: dict[str, Any], key: str) -> str:
        value = follow(row, self.path(key))
        return value.reason if isinstance(value, Missing) else ""

    def codes(self, row: dict[str, Any]) -> tuple[list[Any], str]:
        """The code value(s) of a record (`*` expands a list), or ([], why it is missing)."""
        path = self.path("code")
        if "*" not in path.split("."):
            value = follow(row, path)
            if isinstance(value, Missing):
                return [], value.reason
            return [value], ""
        head, _, tail = path.partition(".*")
        listed = follow(row, head) if head != "*" else row
        if isinstance(listed, Missing):
            return [], listed.reason
        if not isinstance(listed, list):
            return [], f"{head} is a {type(listed).__name__}, not a list for '*'"
        tail = tail.lstrip(".")
        values = []
        for position, item in enumerate(listed):
            value = follow(item, tail) if tail else item
            if isinstance(value, Missing):
                return [], f"{head}.{position}: {value.reason}"
            values.append(value)
        return values, ""

    def keeps(self, row: dict[str, Any]) -> bool:
        """Whether the record passes the `where` filter (always, without one)."""
        condition = dict(self.fields).get("where")
        if condition is None:
            return True
        path, _, wanted = condition.partition("=")
        value = follow(row, path)
        if isinstance(value, Missing):
            return False
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        return shown == wanted

    @property
    def given(self) -> bool:
        return bool(self.fields)


def _check_path(where: str, key: str, value: Any) -> None:
    parts = value.split(".") if isinstance(value, str) else []
    if not isinstance(value, str) or not value or any(not p for p in parts):
        raise InputError(f"{where}: {key} must name a field (or a dotted path), not {value!r}")
    if len(parts) > MAX_PATH_PARTS:
        raise InputError(f"{where}: {key}: a path of more than {MAX_PATH_PARTS} parts")
    if parts.count("*") > 1 or ("*" in parts and key != "code"):
        raise InputError(f"{where}: {key}: '*' may appear once, in the code path only")


def parse_field_map(text: str | None) -> FieldMap:
    """`task=problem,code=output.text` or the path of a TOML file with a [map] table (or top-level keys)."""
    if text is None:
        return FieldMap()
    pairs: dict[str, Any]
    if "=" not in text:
        path = Path(text)
        if not path.is_file():
            raise InputError(f"--map: {text!r} is neither KEY=FIELD pairs nor a TOML mapping file")
        document = store.parse_toml(files.read_text(path), f"{path}: --map")
        pairs = document.get("map", document)
        if not isinstance(pairs, dict):
            raise InputError.at(path, '--map: [map] must be a table of KEY = "FIELD"')
        where = str(path)
    else:
        pairs = {}
        for item in text.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise InputError(f"--map: {item.strip()!r} is not KEY=FIELD")
            if key.strip() in pairs:
                raise InputError(f"--map: {key.strip()!r} is given twice")
            pairs[key.strip()] = value.strip()
        where = "--map"
    for key, value in pairs.items():
        if key not in MAP_FIELDS + MAP_SELECTORS:
            known = ", ".join(MAP_FIELDS + MAP_SELECTORS)
            raise InputError(f"{where}: unknown key {key!r} (known: {known})")
        if key == "where":
            target, sep, _ = value.partition("=") if isinstance(value, str) else ("", "", "")
            if not sep:
                raise InputError(f"{where}: where must be PATH=VALUE, not {value!r}")
            _check_path(where, key, target)
            continue
        _check_path(where, key, value)
    if not {"code", "task", "run", "records"} & pairs.keys():
        raise InputError(f"{where}: maps none of code, task, run, records; nothing to map")
    return FieldMap(tuple(sorted(pairs.items())))


def _is_records_row(row: dict[str, Any] | None) -> bool:
    return (
        isinstance(row, dict)
        and "code" in row
        and (isinstance(row.get("run_id"), str) or isinstance(row.get("contract_id"), str))
    )


def resembles(source: Source) -> bool:
    """A JSONL whose first line has one of the default field names (a record missing another)."""
    if isinstance(source.json_or_none(), list):
        return False
    first = source.first_row()
    return first is not None and bool({"code", "run_id", "contract_id"} & first.keys())


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    document = source.json_or_none()
    if isinstance(document, list):
        return bool(document) and _is_records_row(document[0] if document else None)
    return _is_records_row(source.first_row())


def _rows(source: Source, mapping: FieldMap) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    document = source.json_or_none()
    if (
        isinstance(document, dict)
        and not mapping.given_key("records")
        and not any(
            isinstance(value, list) and value and isinstance(value[0], dict)
            for value in document.values()
        )
    ):
        document = None  # a JSONL of one record
    if document is None:
        if mapping.given_key("records"):
            raise InputError.at(
                source.name, "records= picks a list out of a JSON document, not JSONL"
            )
        return source.rows(), "line"
    if mapping.given_key("records"):
        listed = follow(document, mapping.path("records"))
        if isinstance(listed, Missing):
            raise InputError.at(
                source.name, f"--map records={mapping.path('records')}: {listed.reason}"
            )
        document = listed
    elif isinstance(document, dict):
        lists = sorted(key for key, value in document.items() if isinstance(value, list))
        if len(lists) != 1:
            choice = f" ({', '.join(lists)})" if lists else ""
            raise InputError.at(
                source.name,
                f"expected a JSON list of sample records, or an object holding one list; it holds "
                f"{len(lists)} lists{choice}: say which with --map records=NAME",
            )
        document = document[lists[0]]
    if not isinstance(document, list):
        raise InputError.at(source.name, "expected a JSON list of sample records")
    rows = []
    for number, row in enumerate(document, start=1):
        if not isinstance(row, dict):
            raise InputError.at(source.name, f"record {number}: expected a JSON object")
        rows.append((number, row))
    return rows, "record"


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    """Runs from a JSONL of samples (or a JSON list of records)."""
    mapping: FieldMap = options.mapping or FieldMap()
    rows, unit = _rows(source, mapping)
    path = source.name
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for number, row in rows:
        if not mapping.keeps(row):
            continue
        at = f"{unit} {number}"
        codes, why = mapping.codes(row)
        if why:
            raise InputError.at(path, f"{at}: field {mapping.path('code')!r} is missing: {why}")
        for code in codes:
            if not (code is None or isinstance(code, str)):
                raise InputError.at(
                    path,
                    f"{at}: field {mapping.path('code')!r} must be a string (or null for a "
                    f"failed sample), not {type(code).__name__}",
                )
        values: dict[str, Any] = {}
        for name in ("run", "task", "model"):
            present, value = mapping.get(row, name)
            if not present and mapping.given_key(name):
                raise InputError.at(
                    path,
                    f"{at}: field {mapping.path(name)!r} is missing: {mapping.missing(row, name)}",
                )
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError.at(
                    path, f"{at}: field {mapping.path(name)!r} must be a non-empty string"
                )
            values[name] = value
        run_id, contract_id, model = values["run"], values["task"], values["model"]
        if run_id is None and contract_id is None:
            raise InputError.at(
                path,
                f"{at}: needs {mapping.path('run')!r} or {mapping.path('task')!r} to group samples into runs",
            )
        _, raw_temperature = mapping.get(row, "temperature")
        try:
            temperature = checked_temperature(path, raw_temperature)
        except InputError:
            raise InputError.at(
                path,
                f"must be a number between 0 and 10, not {raw_temperature!r}",
                key=f"{at}: {mapping.path('temperature')}",
            ) from None
        _, order = mapping.get(row, "sample")
        if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
            raise InputError.at(
                path, f"{at}: field {mapping.path('sample')!r} must be an integer sample number"
            )
        if order is not None and len(codes) > 1:
            raise InputError.at(path, f"{at}: a sample number and '*' cannot both be given")
        key: tuple[Any, ...] = (
            ("run", run_id) if run_id is not None else ("contract", contract_id, model, temperature)
        )
        group = groups.setdefault(
            key,
            {
                "id": run_id or _group_id(contract_id, model, temperature),
                "contract_id": contract_id or run_id,
                "model": model,
                "temperature": temperature,
                "samples": [],
                "line": number,
            },
        )
        if order is not None and any(order == o for o, _, _ in group["samples"]):
            raise InputError.at(path, f"{at}: sample {order} of run {group['id']!r} appears twice")
        for code in codes:
            group["samples"].append((order, number, code))
    if not groups:
        raise InputError.at(path, "no samples (empty file, or no record passes --map where=)")
    runs = []
    for g in groups.values():
        samples = g["samples"]
        if any(order is not None for order, _, _ in samples):
            if any(order is None for order, _, _ in samples):
                raise InputError.at(
                    path,
                    f"run {g['id']!r}: some samples have {mapping.path('sample')!r} and some do not",
                )
            samples = sorted(samples, key=lambda item: item[0])
        answers = tuple(code for _, _, code in samples)
        runs.append(
            with_problem(
                RunInput(
                    id=g["id"],
                    contract_id=g["contract_id"],
                    model=g["model"],
                    temperature=g["temperature"],
                    codes=answers,
                    kept_names=frozenset(),
                    source=path,
                    source_format="jsonl",  # the name earlier imports' origin keys carry
                    extra={"line": g["line"], "lines": tuple(n for _, n, _ in samples)},
                    responses=answers,
                ),
                options,
            )
        )
    return runs


def _group_id(contract_id: str, model: str | None, temperature: float | None) -> str:
    parts = [contract_id, model or "unknown-model"]
    if temperature is not None:
        parts.append(f"t{temperature:g}")
    return "_".join(parts)


def load_samples_jsonl(path: str | Path, mapping: FieldMap | None = None) -> list[RunInput]:
    """Runs from a JSONL of samples (or, with a mapping, a JSON list of records)."""
    return load(Source(path), LoadOptions(mapping=mapping))


FORMAT = Format(
    name="records",
    title="your own sample records (JSONL or a JSON list; --map)",
    command="skyt-tui analyze samples.jsonl [--map task=problem,code=output.text]",
    keeps="run, contract, model, temperature and sample order as mapped",
    loses="every field not mapped",
    recognise=recognise,
    load=load,
    resembles=resembles,
)
