"""How much repair moves real samples towards the canon: SKYT MSR 2026 corpus.

For every experiment file: the canon is the first sample (generation order)
that parses and passes the experiment's tests (all of them, or the share given
by --pass-threshold; SKYT used 0.8); every passing sample is
repaired towards it with a verifier that accepts a candidate only when its
outputs on the test inputs equal the original sample's, computed in a child
process (tests/repair_worker.py — a throwaway harness until the sandboxed
oracle is wired in). Failing samples are not repaired (d_post = d_pre).

Reports per contract: samples, passing, mean d_pre, mean d_post, rescue rate
(d_pre > 0 and d_post == 0, over all samples; resc_nc over the non-canonical
ones, as SKYT divided), how often each transformer was
kept; per (model, contract): mean Delta_rescue (R_anchor_post − R_anchor_pre)
next to SKYT's recorded `Delta_rescue`; and checks d_post ≤ d_pre and that
every repaired program still behaves like its original.

    python3 bench/repair_effect.py [--level nodoc] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.measure.normalize import normalize  # noqa: E402
from skyt_tui.engine.repair import repair  # noqa: E402
from tests.repair_helpers import OutputVerifier, skyt_experiment  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "skyt-msr2026" / "outputs"


def mean(values):
    return sum(values) / len(values) if values else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS if CORPUS.is_dir() else Path("/work/shared/corpus/skyt-msr2026/outputs"),
    )
    parser.add_argument("--level", default="nodoc")
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument(
        "--pass-threshold",
        type=float,
        default=1.0,
        help="share of the experiment's tests a sample must pass to count as passing (SKYT used 0.8)",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N experiment files")
    parser.add_argument("--json", type=Path, help="write the full results here")
    args = parser.parse_args(argv)
    files = sorted(args.corpus.glob("*.json"))
    if args.limit:
        files = files[: args.limit]
    if not files:
        print(f"no experiment files in {args.corpus}", file=sys.stderr)
        return 2
    started = time.time()
    verifiers: dict[str, OutputVerifier] = {}
    memo: dict[tuple, object] = {}
    per_contract = defaultdict(
        lambda: {
            "n": 0,
            "passing": 0,
            "d_pre": [],
            "d_post": [],
            "rescued": 0,
            "kept": Counter(),
            "violations": 0,
            "broken": 0,
            "checked": 0,
        }
    )
    per_model = defaultdict(lambda: {"ours": [], "skyt": []})
    experiments = []
    for path in files:
        experiment = skyt_experiment(path)
        verifier = verifiers.setdefault(
            experiment.contract_id,
            OutputVerifier(experiment.entry, experiment.inputs, experiment.expected),
        )
        behaviours = verifier.behaviours(list(experiment.codes))
        passing = [
            bool(b.passed)
            and sum(b.passed) / len(b.passed) >= args.pass_threshold - 1e-12
            and not normalize(code, experiment.kept_names).parse_error
            for code, b in zip(experiment.codes, behaviours)
        ]
        canon = next((code for code, ok in zip(experiment.codes, passing) if ok), None)
        stats = per_contract[experiment.contract_id]
        d_pre_list, d_post_list = [], []
        for code, ok in zip(experiment.codes, passing):
            stats["n"] += 1
            if canon is None:
                d_pre_list.append(1.0)
                d_post_list.append(1.0)
                continue
            key = (experiment.contract_id, code, canon, experiment.kept_names, args.level, ok)
            if key not in memo:
                if ok:
                    memo[key] = repair(
                        code,
                        canon,
                        kept_names=experiment.kept_names,
                        level=args.level,
                        max_steps=args.max_steps,
                        verify=verifier.same_as(code),
                    )
                else:
                    memo[key] = repair(
                        code,
                        canon,
                        kept_names=experiment.kept_names,
                        level=args.level,
                        max_steps=0,
                        verify=lambda programs: [False] * len(programs),
                    )
            result = memo[key]
            stats["passing"] += ok
            d_pre_list.append(result.d_pre)
            d_post_list.append(result.d_post)
            stats["rescued"] += result.d_pre > 0 and result.d_post == 0
            stats["kept"].update(step.transformer for step in result.steps)
            stats["checked"] += result.candidates_checked
            stats["violations"] += result.d_post > result.d_pre
            if (
                result.steps
                and verifier.behaviours([result.code])[0] != verifier.behaviours([code])[0]
            ):
                stats["broken"] += 1
        stats["d_pre"].extend(d_pre_list)
        stats["d_post"].extend(d_post_list)
        n = len(d_pre_list)
        r_pre = sum(d == 0 for d in d_pre_list) / n if n else 0.0
        r_post = sum(d == 0 for d in d_post_list) / n if n else 0.0
        model = experiment.model or "unrecorded"
        skyt_delta = experiment.skyt_metrics.get("Delta_rescue")
        per_model[(model, experiment.contract_id)]["ours"].append(r_post - r_pre)
        if isinstance(skyt_delta, int | float):
            per_model[(model, experiment.contract_id)]["skyt"].append(skyt_delta)
        experiments.append(
            {
                "file": path.name,
                "contract": experiment.contract_id,
                "model": model,
                "temperature": experiment.temperature,
                "canon": canon is not None,
                "R_anchor_pre": r_pre,
                "R_anchor_post": r_post,
                "Delta_rescue": r_post - r_pre,
                "skyt_Delta_rescue": skyt_delta,
            }
        )
    elapsed = time.time() - started

    print(
        f"{len(files)} experiment files, level {args.level}, max_steps {args.max_steps}, "
        f"pass threshold {args.pass_threshold}, {elapsed:.0f}s, "
        f"{sum(v.programs_run for v in verifiers.values())} programs run in child processes"
    )
    print(
        f"{'contract':<20} {'N':>5} {'pass':>5} {'mu_pre':>7} {'mu_post':>7} {'rescue':>7} {'resc_nc':>7} {'viol':>4} {'broken':>6}  kept steps"
    )
    total = Counter()
    for contract in sorted(per_contract):
        s = per_contract[contract]
        kept = ", ".join(
            f"{name} {count}"
            for name, count in sorted(s["kept"].items(), key=lambda kv: (-kv[1], kv[0]))
        )
        noncanonical = sum(d > 0 for d in s["d_pre"])
        print(
            f"{contract:<20} {s['n']:>5} {s['passing']:>5} {mean(s['d_pre']):>7.3f} {mean(s['d_post']):>7.3f} "
            f"{s['rescued'] / s['n']:>7.3f} {s['rescued'] / max(noncanonical, 1):>7.3f} {s['violations']:>4} {s['broken']:>6}  {kept}"
        )
        total["__noncanonical"] += noncanonical
        total.update(s["kept"])
        total["__n"] += s["n"]
        total["__rescued"] += s["rescued"]
        total["__violations"] += s["violations"]
        total["__broken"] += s["broken"]
    all_pre = [d for s in per_contract.values() for d in s["d_pre"]]
    all_post = [d for s in per_contract.values() for d in s["d_post"]]
    print(
        f"{'ALL':<20} {total['__n']:>5} {'':>5} {mean(all_pre):>7.3f} {mean(all_post):>7.3f} "
        f"{total['__rescued'] / max(total['__n'], 1):>7.3f} {total['__rescued'] / max(total['__noncanonical'], 1):>7.3f} "
        f"{total['__violations']:>4} {total['__broken']:>6}"
    )
    print(
        "\nkept steps by transformer:",
        ", ".join(
            f"{k} {v}"
            for k, v in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
            if not k.startswith("__")
        ),
    )
    print(f"\n{'model':<28} {'contract':<20} {'runs':>4} {'Δ_rescue':>9} {'SKYT Δ':>8}")
    for model, contract in sorted(per_model):
        entry = per_model[(model, contract)]
        skyt = f"{mean(entry['skyt']):>8.3f}" if entry["skyt"] else f"{'—':>8}"
        print(
            f"{model:<28} {contract:<20} {len(entry['ours']):>4} {mean(entry['ours']):>9.3f} {skyt}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "experiments": experiments,
                    "per_contract": {
                        c: {k: (dict(v) if isinstance(v, Counter) else v) for k, v in s.items()}
                        for c, s in per_contract.items()
                    },
                },
                indent=1,
                sort_keys=True,
            )
        )
    return 1 if total["__violations"] or total["__broken"] else 0


if __name__ == "__main__":
    sys.exit(main())
