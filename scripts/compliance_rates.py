"""Compliance with coding-standard contracts: skyt-tui's check next to SKYT's raw-text check.

For each contract with coding rules or patterns, over its samples: how many comply by
skyt-tui's check (rules on the syntax tree, patterns on the formatted program), how many
by the patterns alone, how many by SKYT's check as its src/contract_compliance.py does it
(patterns as substrings of the raw text; MISRA 15.5/15.4/17.2/21.3 and Power of 10
rules 1 and 3 read as SKYT reads them, the other rules not at all), and how many samples
break each rule.

    python3 scripts/compliance_rates.py                   # the strict samples skyt-tui's tests use
    python3 scripts/compliance_rates.py DIR_OR_FILE ...   # SKYT experiment files (embedded contracts)
    python3 scripts/compliance_rates.py --json out.json

Parsing only: no sample runs. Exits 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.contracts.contract import Contract, load_contract  # noqa: E402
from skyt_tui.engine.errors import SkytError  # noqa: E402
from skyt_tui.engine.oracle.compliance import check_compliance  # noqa: E402
from skyt_tui.engine.sources.recorded import load_sources  # noqa: E402

STRICT = ROOT / "tests" / "fixtures" / "strict"


def skyt_raw_text_check(code: str, template: dict[str, Any]) -> bool:
    """What SKYT's checker answers (compliant or not), as its source reads; written here from
    that reading, for comparison only."""
    constraints = template.get("constraints") or {}
    if any(p in code for p in constraints.get("forbidden_patterns") or []):
        return False
    if any(p not in code for p in constraints.get("required_patterns") or []):
        return False
    misra = constraints.get("misra_c_rules") or {}
    nasa = constraints.get("nasa_power_of_10") or {}
    if not (misra or nasa):
        return True
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]

    def recursive() -> bool:
        return any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == f.name
            for f in functions
            for c in ast.walk(f)
        )

    def imports_collections() -> bool:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == "collections" for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and node.module and "collections" in node.module:
                return True
        return False

    if "rule_15_5" in misra:
        for f in functions:
            if sum(isinstance(n, ast.Return) for n in ast.walk(f)) > 1:
                return False
            for n in ast.walk(f):
                if isinstance(n, ast.If) and any(isinstance(c, ast.Return) for c in n.body):
                    return False
    if "rule_15_4" in misra and any(
        isinstance(n, ast.Break | ast.Continue) for n in ast.walk(tree)
    ):
        return False
    if ("rule_17_2" in misra or "p10_1" in nasa) and recursive():
        return False
    return not (("rule_21_3" in misra or "p10_3" in nasa) and imports_collections())


def patterns_only(contract: Contract) -> Contract:
    from dataclasses import replace

    return replace(contract, constraints=replace(contract.constraints, coding_rules=()))


def as_skyt_template(contract: Contract) -> dict[str, Any]:
    """The contract's rules and patterns under SKYT's keys (`MISRA-15.4` → `rule_15_4`)."""
    c = contract.constraints
    misra = {
        "rule_" + rule.removeprefix("MISRA-").replace(".", "_"): rule
        for rule in c.coding_rules
        if rule.startswith("MISRA-")
    }
    nasa = {
        "p10_" + rule.removeprefix("P10-"): rule
        for rule in c.coding_rules
        if rule.startswith("P10-")
    }
    return {
        "constraints": {
            "misra_c_rules": misra,
            "nasa_power_of_10": nasa,
            "required_patterns": list(c.required_patterns),
            "forbidden_patterns": list(c.forbidden_patterns),
        }
    }


def fixture_samples() -> list[tuple[Contract, dict[str, Any] | None, str]]:
    contracts = {p.stem: load_contract(p) for p in sorted(STRICT.glob("*.toml"))}
    out = []
    for line in (STRICT / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        contract = contracts[sample["contract_id"]]
        out.append((contract, as_skyt_template(contract), sample["code"]))
    return out


def recorded_samples(paths: list[Path]) -> list[tuple[Contract, dict[str, Any] | None, str]]:
    out = []
    for run in load_sources(paths):
        contract = run.extra.get("contract")
        if not isinstance(contract, Contract) or not contract.constraints.has_compliance_rules:
            continue
        template = run.extra.get("skyt_contract")
        out.extend((contract, template, code) for code in run.codes if code is not None)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="SKYT experiment files or folders")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    try:
        samples = recorded_samples(args.paths) if args.paths else fixture_samples()
    except SkytError as exc:
        print(f"compliance_rates: {exc}", file=sys.stderr)
        return 2
    rows: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"samples": 0, "compliant": 0, "patterns_only": 0, "skyt": 0, "rules": Counter()}
    )
    for contract, template, code in samples:
        name = str(contract.source.get("original_id") or contract.id)
        row = rows[name]
        record = check_compliance(contract, code)
        assert record is not None
        row["samples"] += 1
        row["compliant"] += record.compliant
        only = check_compliance(patterns_only(contract), code)
        row["patterns_only"] += bool(only is None or only.compliant)
        row["rules"].update({v.key for v in record.violations})
        if template is not None:
            row["skyt"] += skyt_raw_text_check(code, template)
        else:
            row["skyt"] = None
    out = {}
    for name in sorted(rows):
        row = rows[name]
        n = row["samples"]
        skyt = "–" if row["skyt"] is None else f"{row['skyt']}/{n}"
        print(
            f"{name}: {n} samples; skyt-tui compliant {row['compliant']}/{n} "
            f"({row['compliant'] / n:.3f}); patterns alone {row['patterns_only']}/{n}; "
            f"SKYT's raw-text check {skyt}"
        )
        for rule, count in sorted(row["rules"].items(), key=lambda item: (-item[1], item[0])):
            print(f"    {count:>5}  {rule}")
        out[name] = {**row, "rules": dict(row["rules"])}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
