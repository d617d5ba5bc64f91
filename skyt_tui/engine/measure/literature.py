"""Metrics other studies of LLM code non-determinism report, computed from one run's samples.

Ouyang et al. (TOSEM 2024, "An Empirical Study of the Non-determinism of ChatGPT
in Code Generation") released their pipeline (github.com/CodeHero0/Nondeterminism-of-ChatGPT-in-Code-Generation,
`syntactic_similarity_OER.py`, `measurement_summary_draw_heatmap.py`); their metrics
carry their names here and are computed as that code computes them: the test pass
rate of each sample (mean, variance and largest difference across samples), the
output equivalence rate per test case counting only test cases where the common output
is a value, not an exception or a timeout (OER_ow; OER itself is a metric of every run,
`metrics.output_equivalence_rate`, defined and emitted there alone), and two
similarities of each later sample to the first one over whitespace-separated
tokens: LCS (the longest matching block difflib's `SequenceMatcher` finds, over
the first sample's token count) and LED (the raw token edit distance).
skyt-tui's own variants have names of their own: `token_block_share` and
`token_edit_share` (Python tokens, over the longer sample, both in [0, 1]).
SKYT's P_τ at several τ and the spread (population std) of d_pre/d_post come with
them. docs/metrics.md defines each with a worked example and the line of the
authors' code it follows.
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from skyt_tui.engine.measure.metrics import (
    ERROR_PREFIX,
    agreeing_tests,
    behaviour_keys,
    compared_output,
)
from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.measure.registry import DEFAULT_TAUS
from skyt_tui.engine.syntax import too_large

_SKIPPED_TOKENS = {
    tokenize.ENCODING,
    tokenize.ENDMARKER,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.COMMENT,
}
_FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")


@lru_cache(maxsize=4096)
def whitespace_tokens(code: str) -> tuple[str, ...]:
    """Ouyang et al.'s tokens: `code.split()` (syntactic_similarity_OER.py line 233,
    `code_candidates.append(code_res['code'].split())`)."""
    return tuple(code.split())


@lru_cache(maxsize=4096)
def code_tokens(code: str) -> tuple[str, ...]:
    """Python tokens of `code` without layout (newlines, indents) or comments (skyt-tui's variants).

    Code the tokenizer rejects (unbalanced brackets, a cut-off string) is split
    into words and single punctuation characters instead, so every sample has tokens.
    """
    try:
        return tuple(
            token.string
            for token in tokenize.generate_tokens(io.StringIO(code).readline)
            if token.type not in _SKIPPED_TOKENS
        )
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return tuple(_FALLBACK_TOKEN.findall(code))


def ouyang_lcs(first: Sequence[str], other: Sequence[str]) -> float:
    """Ouyang et al.'s LCS rate of one sample against the first.

    The longest matching block `SequenceMatcher(None, first, other)` finds (its default
    junk heuristic included: in a sequence of 200 tokens or more, a token making up over 1%
    of it is not used to start a match), over the first sample's token count; 0 when the
    first sample has no tokens. Their lines 197–200 (`LCS`: `find_longest_match(0,
    len(list1), 0, len(list2))`) and 244–247 (`len(LCS(...)) / len(code_candidates[0])`,
    else 0).
    """
    if not first:
        return 0.0
    match = SequenceMatcher(None, first, other).find_longest_match(0, len(first), 0, len(other))
    return match.size / len(first)


def ouyang_led(first: Sequence[str], other: Sequence[str]) -> int:
    """Ouyang et al.'s LED of one sample against the first: the token edit distance, unit costs,
    no transpositions (their line 167, `nltk.edit_distance(code_candidates[0],
    code_candidates[i])`)."""
    return int(Levenshtein.distance(list(first), list(other)))


def lcs_ratio(a: Sequence[str], b: Sequence[str]) -> float:
    """skyt-tui's block share: the longest common contiguous block of tokens (exact, no junk
    heuristic) over the longer length; 1 for two empty."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return longest_common_block(a, b) / longest


def longest_common_block(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest run of tokens found contiguous in both, in O(len a + len b).

    The value `difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match()` gives,
    which costs O(len a · len b) and more on repetitive token streams (a sample is outside
    text); here a suffix automaton of `a` is built, then `b` walked through it.
    """
    if not a or not b:
        return 0
    length: list[int] = [0]
    link: list[int] = [-1]
    moves: list[dict[str, int]] = [{}]
    last = 0
    for token in a:
        state = len(length)
        length.append(length[last] + 1)
        link.append(0)
        moves.append({})
        back = last
        while back != -1 and token not in moves[back]:
            moves[back][token] = state
            back = link[back]
        if back != -1:
            target = moves[back][token]
            if length[back] + 1 == length[target]:
                link[state] = target
            else:
                clone = len(length)
                length.append(length[back] + 1)
                link.append(link[target])
                moves.append(dict(moves[target]))
                while back != -1 and moves[back].get(token) == target:
                    moves[back][token] = clone
                    back = link[back]
                link[target] = link[state] = clone
        last = state
    best = matched = state = 0
    for token in b:
        while state and token not in moves[state]:
            state = link[state]
            matched = length[state]
        if token in moves[state]:
            state = moves[state][token]
            matched += 1
            best = max(best, matched)
    return best


def led(a: Sequence[str], b: Sequence[str]) -> tuple[int, float]:
    """Token Levenshtein distance: (edits, edits over the longer length; 0 for two empty)."""
    edits = int(Levenshtein.distance(list(a), list(b)))
    longest = max(len(a), len(b))
    return edits, (edits / longest if longest else 0.0)


def sample_pass_rates(samples: Sequence[SampleAnalysis]) -> list[float] | None:
    """Each sample's share of passed tests, in sample order; None when the oracle did not run.

    A sample that never ran its tests (no pass vector) passed none of them, as a sample without
    test outcomes has rate 0 in Ouyang et al.'s `test_case_pass_rate_among5` (lines 209–212);
    `spread` gives their per-task mean, `np.var` (population variance) and max − min
    (measurement_summary_draw_heatmap.py lines 139–141).
    """
    if not samples or all(s.pass_vector is None for s in samples):
        return None
    rates = []
    for s in samples:
        vector = s.pass_vector or ()
        rates.append(sum(vector) / len(vector) if vector else 0.0)
    return rates


def spread(values: Sequence[float]) -> dict[str, float]:
    """mean, population variance, population std and max − min of `values`."""
    n = len(values)
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / n
    return {
        "mean": mean,
        "variance": variance,
        "std": math.sqrt(variance),
        "max_diff": max(values) - min(values),
    }


def output_equivalence(outputs: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Ouyang et al.'s OER_ow over per-sample output rows (one key per test case, same length),
    and the number of test cases it (and OER) is counted over.

    OER_ow: share of the test cases on which every sample gives the same *value*: of the test
    cases on which every sample gives the same output (`metrics.agreeing_tests`, as the run's
    OER, `metrics.output_equivalence_rate`), those where all agree on an exception, a failed
    compile or load, or a timeout are not counted (their `same_output_between_5_correct`,
    lines 155–162, over the same number of test cases, line 189). None when there are no
    test cases. Their line 155 compares with
    `'timeout'` while their HumanEval harness writes `'Timeout'` (intermedia_analyze.py line 67),
    so on HumanEval their OER_ow counts a test case every sample timed out on; here a timeout
    is never a value, as that line means and as it works on their other two datasets.
    """
    equal = agreeing_tests(outputs)
    tests = len(equal)
    equal_values = [
        same and not compared_output(outputs[0][i]).startswith(ERROR_PREFIX)
        for i, same in enumerate(equal)
    ]
    return {"tests": tests, "OER_ow": sum(equal_values) / tests if tests else None}


def similarity_to_first(codes: Sequence[str]) -> dict[str, float | None]:
    """Mean over the later samples of each one's similarity to the first; None with one sample.

    `LCS` and `LED` are Ouyang et al.'s (whitespace tokens; LED in edits, not normalised):
    per task they report the mean over the 4 later samples (measurement_summary_draw_heatmap.py
    lines 162–170, `np.mean(case)`). `token_block_share` and `token_edit_share` are skyt-tui's
    (Python tokens, over the longer sample). Each distinct text is compared once (LLM samples
    often repeat each other).
    """
    names = ("LCS", "LED", "token_block_share", "token_edit_share")
    if len(codes) < 2 or not _affordable(codes):
        return dict.fromkeys(names)
    first_words = whitespace_tokens(codes[0])
    first_tokens = code_tokens(codes[0])
    measured: dict[str, tuple[float, float, float, float]] = {}
    columns: list[list[float]] = [[], [], [], []]
    for code in codes[1:]:
        if code not in measured:
            words, tokens = whitespace_tokens(code), code_tokens(code)
            measured[code] = (
                ouyang_lcs(first_words, words),
                float(ouyang_led(first_words, words)),
                lcs_ratio(first_tokens, tokens),
                led(first_tokens, tokens)[1],
            )
        for column, value in zip(columns, measured[code]):
            column.append(value)
    n = len(codes) - 1
    return {name: math.fsum(column) / n for name, column in zip(names, columns)}


MAX_TOKEN_PAIRS = 10**8
"""The largest product of token counts compared when a sample is over the parse bound
(`syntax.MAX_PROGRAM_CHARS`): difflib's matching and the token edit distance grow with it."""


def _affordable(codes: Sequence[str]) -> bool:
    """Whether every later sample can be compared with the first: always for programs within the
    parse bound (as before it); with one over it, while the token counts multiply to at most
    `MAX_TOKEN_PAIRS`. Otherwise the run's similarities are not computed (None), never computed
    over the samples that happen to be short (docs/metrics.md)."""
    first = codes[0]
    first_long = too_large(first) is not None
    for code in codes[1:]:
        if not first_long and too_large(code) is None:
            continue
        if code == first:
            continue
        if len(whitespace_tokens(first)) * len(whitespace_tokens(code)) > MAX_TOKEN_PAIRS:
            return False  # before tokenizing: the tokenizer is itself slow on megabytes
        if len(code_tokens(first)) * len(code_tokens(code)) > MAX_TOKEN_PAIRS:
            return False
    return True


def p_tau(distances: Sequence[float], taus: Iterable[float] = DEFAULT_TAUS) -> dict[str, float]:
    """P_τ = share of distances ≤ τ, for each τ (keyed by its `g` form, e.g. "0.1")."""
    n = len(distances)
    return {f"{tau:g}": (sum(d <= tau for d in distances) / n if n else 0.0) for tau in taus}


def literature_metrics(
    samples: Sequence[SampleAnalysis],
    codes: Sequence[str] | None = None,
    *,
    taus: Iterable[float] = DEFAULT_TAUS,
) -> dict[str, Any]:
    """Every metric of this module for one run; a value is None when its inputs do not exist.

    `samples` in generation order; `codes` the samples' code in the same order
    (for LCS, LED and skyt-tui's token shares), or None to leave those out. No key is a metric
    a run computes (`RunMetrics`): `P_taus_pre`/`_post` hold P_τ at each of `taus` (by τ's `g`
    form), beside the run's `P_tau_pre`/`_post` at its one τ.
    """
    samples = sorted(samples, key=lambda s: s.index)
    taus = tuple(taus)
    out: dict[str, Any] = {}
    rates = sample_pass_rates(samples)
    summary = spread(rates) if rates else None
    out["test_pass_rate_mean"] = summary["mean"] if summary else None
    out["test_pass_rate_variance"] = summary["variance"] if summary else None
    out["test_pass_rate_max_diff"] = summary["max_diff"] if summary else None
    if rates is not None:
        _, outputs = behaviour_keys(samples)
        equivalence = output_equivalence(outputs)
        out["OER_ow"] = equivalence["OER_ow"]
        out["tests"] = equivalence["tests"]
    else:
        out["OER_ow"] = out["tests"] = None
    similarity = similarity_to_first(list(codes)) if codes is not None else {}
    for name in ("LCS", "LED", "token_block_share", "token_edit_share"):
        out[name] = similarity.get(name)
    for stage in ("pre", "post"):
        values = [getattr(s, f"d_{stage}") for s in samples]
        if samples and all(v is not None for v in values):
            distances = [float(v) for v in values]
            out[f"std_d_{stage}"] = spread(distances)["std"]
            out[f"P_taus_{stage}"] = p_tau(distances, taus)
        else:
            out[f"std_d_{stage}"] = None
            out[f"P_taus_{stage}"] = None
    return out
