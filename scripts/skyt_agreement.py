"""Per-sample verdict agreement with the verdicts SKYT recorded in its experiment files.

Every SKYT experiment file records, per sample, what SKYT's oracle said
(`metrics.oracle_results[i].passed`, or `metrics.behavioral_stats.oracle_results`
in the unslimmed files of SKYT's repository). This script judges the same samples
with skyt-tui's oracle, each by the contract embedded in its file (as `analyze`,
`import` and replay do), and prints per SKYT contract id: files, samples compared,
samples on which the two verdicts agree, and the disagreements each way.

    python3 scripts/skyt_agreement.py                          # the SKYT corpus
    python3 scripts/skyt_agreement.py DIR_OR_FILE [...] --json out.json

Exits 0 when every sample agrees, 1 when some disagree, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.errors import SkytError  # noqa: E402
from skyt_tui.engine.oracle.judge import Oracle  # noqa: E402
from skyt_tui.engine.sources.recorded import RunInput, load_sources  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "skyt-msr2026" / "outputs"


def recorded_verdicts(run: RunInput) -> list[bool | None] | None:
    """SKYT's verdict per sample of `run`, or None when the file records none."""
    metrics = run.extra.get("skyt_metrics")
    if not isinstance(metrics, dict):
        return None
    results = metrics.get("oracle_results")
    if results is None and isinstance(metrics.get("behavioral_stats"), dict):
        results = metrics["behavioral_stats"].get("oracle_results")
    if not isinstance(results, list):
        return None
    return [r.get("passed") if isinstance(r, dict) else None for r in results]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="SKYT experiment files or folders")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    paths = args.paths or [
        CORPUS if CORPUS.is_dir() else Path("/work/shared/corpus/skyt-msr2026/outputs")
    ]
    try:
        runs = load_sources(paths)
    except SkytError as exc:
        print(f"skyt_agreement: {exc}", file=sys.stderr)
        return 2
    rows: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "files": 0,
            "samples": 0,
            "agree": 0,
            "skyt_only": 0,
            "tui_only": 0,
            "thresholds": set(),
        }
    )
    jobs: list[tuple[Any, str]] = []
    where: list[tuple[str, bool]] = []
    skipped = 0
    for run in runs:
        contract = run.extra.get("contract")
        recorded = recorded_verdicts(run)
        original = str(run.extra.get("skyt_contract_id") or run.contract_id)
        if contract is None or recorded is None or len(recorded) != len(run.codes):
            skipped += 1
            continue
        row = rows[original]
        row["files"] += 1
        row["thresholds"].add(contract.oracle.pass_threshold)
        for code, skyt_passed in zip(run.codes, recorded):
            if code is None or skyt_passed is None:
                continue
            jobs.append((contract, code))
            where.append((original, bool(skyt_passed)))
    with Oracle() as oracle:
        verdicts = oracle.check_many(jobs, dedupe=True)
    for (original, skyt_passed), verdict in zip(where, verdicts):
        row = rows[original]
        row["samples"] += 1
        if verdict.passed == skyt_passed:
            row["agree"] += 1
        elif skyt_passed:
            row["skyt_only"] += 1
        else:
            row["tui_only"] += 1
    header = f"{'contract':<24} {'files':>5} {'samples':>7} {'agree':>7} {'share':>7} {'SKYT only':>9} {'ours only':>9}  threshold"
    print(header)
    total = {"files": 0, "samples": 0, "agree": 0, "skyt_only": 0, "tui_only": 0}
    out = []
    for original in sorted(rows):
        row = rows[original]
        share = row["agree"] / row["samples"] if row["samples"] else 0.0
        thresholds = ",".join(f"{t:g}" for t in sorted(row["thresholds"]))
        print(
            f"{original:<24} {row['files']:>5} {row['samples']:>7} {row['agree']:>7} {share:>7.3f}"
            f" {row['skyt_only']:>9} {row['tui_only']:>9}  {thresholds}"
        )
        for key in total:
            total[key] += row[key]
        out.append(
            {
                "contract": original,
                **{k: v for k, v in row.items() if k != "thresholds"},
                "thresholds": sorted(row["thresholds"]),
            }
        )
    share = total["agree"] / total["samples"] if total["samples"] else 0.0
    print(
        f"{'all':<24} {total['files']:>5} {total['samples']:>7} {total['agree']:>7} {share:>7.3f}"
        f" {total['skyt_only']:>9} {total['tui_only']:>9}"
    )
    exact = sum(1 for r in rows.values() if r["agree"] == r["samples"])
    print(
        f"contracts in full agreement: {exact} of {len(rows)}; files without recorded verdicts: {skipped}"
    )
    if args.json:
        args.json.write_text(json.dumps({"contracts": out, "all": total}, indent=2) + "\n")
    return 0 if total["agree"] == total["samples"] else 1


if __name__ == "__main__":
    sys.exit(main())
