"""`bench estimate`, `bench validate --method all`, `bench import --from-runs` and `run --anchors`."""

import json
import sys

import numpy as np
import pytest

from skyt_tui.cli import main
from skyt_tui.engine import benchmark
from skyt_tui.engine.benchmark.from_runs import RunFilter, from_runs, system_name
from skyt_tui.engine.benchmark.validation import time_split_systems
from skyt_tui.engine.errors import InputError
from tests.run_helpers import CONTRACT_TOML, install_contract, run_cli


@pytest.fixture
def scored(tmp_path, monkeypatch):
    """90 items, 24 systems drawn from a 2PL model (pass@1 over 10 samples), release dates by rank."""
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    rng = np.random.default_rng(4)
    ability = np.sort(rng.normal(size=24))
    slope, location = rng.lognormal(0, 0.3, 90), rng.normal(0, 1, 90)
    chance = 1 / (1 + np.exp(-slope * (ability[:, None] - location)))
    scores = rng.binomial(10, chance) / 10
    ids = [f"q{n:02d}" for n in range(90)]
    difficulty = np.where(location < -0.4, "easy", np.where(location < 0.6, "medium", "hard"))
    issues = tmp_path / "issues.jsonl"
    issues.write_text(
        "".join(json.dumps({"id": i, "difficulty": str(d)}) + "\n" for i, d in zip(ids, difficulty))
    )
    results = tmp_path / "results.csv"
    lines = ["system,issue_id,score"]
    for k in range(20):  # the four best systems are kept back as "new"
        lines += [f"sys{k:02d},{i},{scores[k, n]}" for n, i in enumerate(ids)]
    results.write_text("\n".join(lines) + "\n")
    systems = tmp_path / "systems.jsonl"
    systems.write_text(
        "".join(
            json.dumps({"system": f"sys{k:02d}", "release_date": f"202{k // 5}-01-01"}) + "\n"
            for k in range(20)
        )
    )
    argv = ["bench", "import", "b", str(issues), "--results", str(results)]
    assert main([*argv, "--systems", str(systems)]) == 0
    new = tmp_path / "new.csv"
    return tmp_path, ids, scores, new


def run_json(capsys, *argv):
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_new(path, ids, scores, rows, chosen):
    lines = ["system,issue_id,score"]
    for k in rows:
        lines += [f"new{k},{i},{scores[k, ids.index(i)]}" for i in chosen]
    path.write_text("\n".join(lines) + "\n")


def test_estimate_from_irt_anchors_with_interval_and_add(scored, capsys):
    tmp_path, ids, scores, new = scored
    sample = run_json(capsys, "bench", "sample", "b", "--method", "irt", "--size", "15")
    assert sample["method"] == "irt" and sample["irt"]["model"]["systems"][0] == "sys00"
    write_new(new, ids, scores, (20, 21), sample["ids"])
    report = run_json(capsys, "bench", "estimate", "b", str(new))
    assert report["method"] == "irt" and [e["system"] for e in report["estimates"]] == [
        "new20",
        "new21",
    ]
    for estimate, k in zip(report["estimates"], (20, 21)):
        assert estimate["low"] <= estimate["estimate"] <= estimate["high"]
        assert abs(estimate["estimate"] - scores[k].mean()) < 0.1
        assert (
            estimate["scored_anchors"] == 15 and not estimate["exact"] and not estimate["warnings"]
        )
    capsys.readouterr()
    assert main(["bench", "estimate", "b", str(new), "--add"]) == 0
    out = capsys.readouterr().out
    assert "new20" in out and "imported as version 2" in out
    stored = {e.system: e for e in benchmark.stored_estimates("b")}
    assert not stored["new20"].exact and stored["sys03"].exact
    assert stored["new20"].score == pytest.approx(report["estimates"][0]["estimate"])
    assert main(["bench", "estimate", "b", str(new), "--add"]) == 0
    assert "unchanged" in capsys.readouterr().out


def test_estimate_warns_with_too_few_anchors_and_conflicting_add_is_refused(scored, capsys):
    tmp_path, ids, scores, new = scored
    sample = run_json(capsys, "bench", "sample", "b", "--method", "irt", "--size", "10")
    write_new(new, ids, scores, (22,), sample["ids"][:3])
    report = run_json(capsys, "bench", "estimate", "b", str(new))
    [estimate] = report["estimates"]
    assert estimate["scored_anchors"] == 3
    assert estimate["warnings"] == [
        "scores for only 3 of the 10 anchor items: the estimate rests on 3 items and its "
        "interval is wide"
    ]
    conflict = tmp_path / "conflict.csv"
    conflict.write_text(f"system,issue_id,score\nsys00,{ids[0]},{1 - scores[0, 0]}\n")
    capsys.readouterr()
    assert main(["bench", "estimate", "b", str(conflict), "--add"]) == 2
    assert f"--add: system 'sys00' already has score {scores[0, 0]:g} for item 'q00'" in (
        capsys.readouterr().err
    )
    assert len(benchmark.benchmark_versions("b")) == 1


def test_estimate_bad_input_is_one_line_exit_2(scored, capsys):
    tmp_path, ids, scores, new = scored
    capsys.readouterr()
    new.write_text("system,issue_id,score\nnewx,q00,0.5\n")
    assert main(["bench", "estimate", "b", str(new)]) == 2
    assert "no anchor sample yet: draw one with `skyt-tui bench sample b --method irt`" in (
        capsys.readouterr().err
    )
    assert main(["bench", "sample", "b"]) == 0
    new.write_text("system,issue_id,score\nnewx,q00,0.5\nnewx,zz,0.5\n")
    capsys.readouterr()
    assert main(["bench", "estimate", "b", str(new)]) == 2
    err = capsys.readouterr().err
    assert f"{new}:3: issue_id: unknown item 'zz'" in err and err.count("\n") == 1
    assert main(["bench", "estimate", "b", str(new), "--level", "95"]) == 2
    assert "--level: 95.0 must be a number between 0 and 1" in capsys.readouterr().err


def test_stratified_sample_estimates_by_the_design(scored, capsys):
    tmp_path, ids, scores, new = scored
    sample = run_json(capsys, "bench", "sample", "b", "--method", "stratified", "--size", "12")
    write_new(new, ids, scores, (20,), sample["ids"])
    [estimate] = run_json(capsys, "bench", "estimate", "b", str(new))["estimates"]
    assert estimate["method"] == "stratified"
    strata = sample["strata"]
    weights = {}  # the design estimate is the strata-weighted mean of the anchors
    with open(tmp_path / "issues.jsonl") as handle:
        difficulty = {json.loads(line)["id"]: json.loads(line)["difficulty"] for line in handle}
    for name, size in strata.items():
        values = [scores[20, ids.index(i)] for i in sample["ids"] if difficulty[i] == name]
        weights[name] = (size / 90, np.mean(values))
    assert estimate["estimate"] == pytest.approx(sum(w * m for w, m in weights.values()))


def test_validate_all_methods_side_by_side_with_a_time_split(scored, capsys):
    report = run_json(
        capsys, "bench", "validate", "b", "--method", "all", "--size", "15", "--draws", "20"
    )
    assert [m["method"] for m in report["methods"]] == ["irt", "cluster", "stratified", "random"]
    assert report["method"] == "irt" and {m["size"] for m in report["methods"]} == {15}
    irt, stratified = report["methods"][0], report["methods"][2]
    assert irt["n_train"] == 10 and irt["n_held_out"] == 10 and irt["fallback"] is None
    assert irt["mae"]["median"] < stratified["mae"]["median"]
    split = report["time_split"]
    assert split["date"] == "2022-01-01" and len(split["train"]) == 10 and len(split["test"]) == 10
    capsys.readouterr()
    assert main(["bench", "validate", "b", "--method", "all", "--size", "15", "--draws", "5"]) == 0
    out = capsys.readouterr().out
    assert "time split: trained on the 10 systems released before 2022-01-01" in out
    assert "cover" in out and "irt: " in out
    off = run_json(capsys, "bench", "validate", "b", "--split-date", "off", "--draws", "3")
    assert off["time_split"] is None and off["time_split_note"] == "time split off"
    capsys.readouterr()
    assert main(["bench", "validate", "b", "--split-date", "soon"]) == 2
    assert "--split-date: 'soon' must be a date YYYY-MM-DD, 'auto' or 'off'" in (
        capsys.readouterr().err
    )


def test_time_split_picks_the_date_closest_to_the_holdout_share():
    used = [f"s{k}" for k in range(20)]
    dates = {f"s{k}": f"202{k // 5}-06-30" for k in range(20)}  # 5 per year 2020–2023
    dates["s19"] = None
    (train, test, date), note, undated = time_split_systems(used, dates, "auto", 0.3)
    # Cuts: 2021 leaves 5 before (< 10); 2022 → 10 / 9 (47%); 2023 → 15 / 4 (21%) — closest to 30%.
    assert date == "2023-06-30" and len(train) == 15 and len(test) == 4 and undated == ("s19",)
    (train, test, date), _, _ = time_split_systems(used, dates, "2022-01-01", 0.3)
    assert len(train) == 10 and len(test) == 9
    found, note, _ = time_split_systems(used, {}, "auto", 0.3)
    assert found is None and note.startswith("no release dates")


def test_method_and_size_options_are_checked(scored, capsys):
    capsys.readouterr()
    assert main(["bench", "sample", "b", "--random", "--method", "irt"]) == 2
    assert "--random: conflicts with --method irt" in capsys.readouterr().err
    assert main(["bench", "sample", "b", "--size", "3", "--floor", "4"]) == 2
    assert "--size: give --size or --floor, not both" in capsys.readouterr().err


class Meta:
    def __init__(self, model, temperature, contract_id, provider="command"):
        self.model, self.temperature, self.contract_id = model, temperature, contract_id
        self.provider, self.label, self.sweep = provider, "", None


class Run:
    def __init__(self, run_id, meta, contract):
        self.id, self.meta, self._contract = run_id, meta, contract

    def contract_object(self):
        return self._contract


class Analysis:
    """What `from_runs` reads of a run's `StoredAnalysis`: its metrics."""

    def __init__(self, **metrics):
        from skyt_tui.engine.measure.metrics import RunMetrics

        self.metrics = RunMetrics(n=1, level="nodoc", tau=0.1, **metrics)


def contract(contract_id, difficulty="easy", version=1):
    from skyt_tui.engine.contracts.contract import contract_from_dict

    text = CONTRACT_TOML.replace("add_one", contract_id).replace('"easy"', f'"{difficulty}"')
    text = text.replace("\nversion = 1", f"\nversion = {version}")
    import tomllib

    return contract_from_dict(tomllib.loads(text), f"{contract_id}.toml")


def test_from_runs_keeps_the_newest_run_and_skips_changed_contracts():
    a1, b1 = contract("a"), contract("b", "hard")
    a2 = contract("a", version=2)
    runs = [
        Run("r1", Meta("m", 0.5, "a"), a1),  # contract a v1: superseded by a v2 → skipped
        Run("r2", Meta("m", 0.5, "b"), b1),
        Run("r3", Meta("m", 0.5, "b"), b1),  # newer run of the same system and contract
        Run("r4", Meta("m", 0.0, "a"), a2),
        Run("r5", Meta("n", 0.5, "b"), b1),  # no pass_rate computed
    ]
    analyses = [Analysis(pass_rate=v) for v in (0.1, 0.2, 0.3, 0.4, None)]
    made = from_runs(runs, analyses)
    scores = made.data.scores
    assert [item.id for item in made.data.items] == ["a", "b"]
    assert made.data.items[1].difficulty == "hard"
    assert scores.systems == ("m@T0", "m@T0.5")
    np.testing.assert_array_equal(scores.scores, [[0.4, np.nan], [np.nan, 0.3]])
    assert made.superseded == ("r2",) and made.runs_used == ("r3", "r4")
    assert made.skipped["r1"].startswith("contract a changed since")
    assert made.skipped["r5"] == "no pass_rate (the analysis did not compute it)"
    assert system_name(Meta(None, None, "a", provider="replay")) == "replay"


def test_run_filter_terms():
    f = RunFilter.parse("model=gpt-4o* temperature=0.7")
    assert f.matches(Meta("gpt-4o-mini", 0.7, "x")) and not f.matches(Meta("gpt-4o", 0.3, "x"))
    with pytest.raises(InputError, match="FILTER: 'colour=red' is not field=pattern"):
        RunFilter.parse("colour=red")


@pytest.mark.slow
def test_from_runs_then_run_on_the_anchors_only(tmp_path):
    home = tmp_path / "home"
    install_contract(home)
    for name, add in (("add_two", 2), ("add_three", 3)):
        text = CONTRACT_TOML.replace("add_one", name).replace("x + 1", f"x + {add}")
        install_contract(
            home, text.replace("expected = 2", f"expected = {1 + add}"), f"{name}.toml"
        )
    answer = tmp_path / "answer.py"
    answer.write_text(
        "import re, sys\n"
        "k = re.search(r'x \\+ (\\d)', sys.stdin.read()).group(1)\n"
        "print(f'def f(x):\\n    return x + {k}')\n"
    )
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import sys\nsys.stdin.read()\nprint('def f(x):\\n    return x + 1')\n")
    for model, script in (("right", answer), ("wrong", wrong)):
        for contract_id in ("add_one", "add_two", "add_three"):
            done = run_cli(
                home, "run", contract_id, "--provider", "command", "--command",
                f"{sys.executable} {script}", "--model", model, "-n", "2", "--temperature", "0",
                "--no-analyze",
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
    made = run_cli(home, "bench", "import", "own", "--from-runs", "temperature=0", "--json")
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert report["version"]["n_items"] == 3 and report["version"]["n_systems"] == 2
    assert report["score"] == "pass_rate" and len(report["runs_used"]) == 6
    assert run_cli(home, "bench", "sample", "own", "--size", "2").returncode == 0
    anchors = run_cli(
        home, "run", "--anchors", "own", "--provider", "command", "--command",
        f"{sys.executable} {answer}", "--model", "fresh", "-n", "2", "--temperature", "0.2",
        "--json",
    )  # fmt: skip
    assert anchors.returncode == 0, anchors.stderr
    out = json.loads(anchors.stdout)
    assert len(out["runs"]) == 2  # the two anchor contracts only
    [estimate] = out["estimate"]["estimates"]
    assert estimate["system"] == "fresh@T0.2" and estimate["estimate"] == 1.0
    assert estimate["scored_anchors"] == 2 and estimate["scored_items"] == 2
    bad = run_cli(home, "run", "add_one", "--anchors", "own", "--provider", "command")
    assert bad.returncode == 2 and "give a CONTRACT or --anchors NAME" in bad.stderr


def test_design_arrays_on_the_anchor_columns_alone_equal_the_full_matrix():
    """Validation passes only the chosen columns with the strata sizes (a rows × N NaN matrix per
    draw made `bench validate` 60× slower at 100,000 items): both give the same estimates."""
    import numpy as np

    from skyt_tui.engine.benchmark.anchors import design_arrays

    rng = np.random.default_rng(7)
    strata = [("easy", "medium", "hard")[i % 3] for i in range(300)]
    full = rng.uniform(0, 1, size=(6, 300))
    chosen = np.sort(rng.choice(300, size=24, replace=False))
    observed = np.full_like(full, np.nan)
    observed[:, chosen] = full[:, chosen]
    sizes = {name: strata.count(name) for name in set(strata)}
    whole = design_arrays(observed, strata, 0.95)
    alone = design_arrays(full[:, chosen], [strata[i] for i in chosen], 0.95, sizes=sizes)
    for a, b in zip(whole, alone):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
