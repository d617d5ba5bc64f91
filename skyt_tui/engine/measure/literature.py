"""Metrics other studies of LLM code non-determinism report, computed from one run's samples.

Ouyang et al. (TOSEM 2024, "An Empirical Study of the Non-determinism of ChatGPT
in Code Generation"): the test pass rate of each sample (mean, variance and
largest difference across samples), the output equivalence rate per test case
(OER, and OER_ow over the test cases where no sample raised or timed out),
and two token-level similarities of each sample to the first one: LCS (the
longest common block of tokens over the longer sequence) and LED (token
Levenshtein distance over the longer sequence). SKYT's P_τ at several τ and
the spread (population std) of d_pre/d_post come with them. docs/metrics.md
defines each with a worked example.
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from skyt_tui.engine.measure.metrics import agreeing_tests, behaviour_keys
from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.measure.registry import DEFAULT_TAUS

ERROR_PREFIX = "!"
"""An output key starting with this is an exception, timeout or a test that never ran."""
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
def code_tokens(code: str) -> tuple[str, ...]:
    """Python tokens of `code` without layout (newlines, indents) or comments.

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


def lcs_ratio(a: Sequence[str], b: Sequence[str]) -> float:
    """Length of the longest common contiguous block of tokens over the longer length; 1 for two empty."""
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

    A sample that never ran its tests (no pass vector) passed none of them.
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
    """OER over per-sample output rows (one key per test case, same length).

    OER: share of test cases on which every sample gives the same output (`metrics.agreeing_tests`,
    as the run's reported OER; None here when there are no test cases, 0 there).
    OER_ow: the same share counted only over test cases where no sample raised,
    timed out or did not run (None when every test case had one).
    """
    equal = agreeing_tests(outputs)
    tests = len(equal)
    normal = [not any(row[i].startswith(ERROR_PREFIX) for row in outputs) for i in range(tests)]
    n_normal = sum(normal)
    return {
        "tests": tests,
        "OER": sum(equal) / tests if tests else None,
        "OER_ow": (sum(e and ok for e, ok in zip(equal, normal)) / n_normal) if n_normal else None,
        "tests_ow": n_normal,
    }


def similarity_to_first(codes: Sequence[str]) -> dict[str, float | None]:
    """Mean LCS and LED (normalised) of each later sample against the first; None with one sample.

    Each distinct text is compared once (LLM samples often repeat each other).
    """
    if len(codes) < 2:
        return {"LCS": None, "LED": None, "LED_edits": None}
    first = code_tokens(codes[0])
    measured: dict[str, tuple[float, int, float]] = {codes[0]: (1.0, 0, 0.0)}
    lcs, led_norm, edits = [], [], []
    for code in codes[1:]:
        if code not in measured:
            tokens = code_tokens(code)
            measured[code] = (lcs_ratio(first, tokens), *led(first, tokens))
        ratio, count, share = measured[code]
        lcs.append(ratio)
        edits.append(float(count))
        led_norm.append(share)
    n = len(codes) - 1
    return {
        "LCS": math.fsum(lcs) / n,
        "LED": math.fsum(led_norm) / n,
        "LED_edits": math.fsum(edits) / n,
    }


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
    (for LCS/LED), or None to leave those out.
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
        out["OER"] = equivalence["OER"]
        out["OER_ow"] = equivalence["OER_ow"]
        out["tests"] = equivalence["tests"]
    else:
        out["OER"] = out["OER_ow"] = out["tests"] = None
    similarity = similarity_to_first(list(codes)) if codes is not None else {}
    out["LCS"] = similarity.get("LCS")
    out["LED"] = similarity.get("LED")
    for stage in ("pre", "post"):
        values = [getattr(s, f"d_{stage}") for s in samples]
        if samples and all(v is not None for v in values):
            distances = [float(v) for v in values]
            out[f"std_d_{stage}"] = spread(distances)["std"]
            out[f"P_tau_{stage}"] = p_tau(distances, taus)
        else:
            out[f"std_d_{stage}"] = None
            out[f"P_tau_{stage}"] = None
    return out
