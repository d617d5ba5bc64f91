"""The versions (and the default τ) that key every stored result, in one light module.

Canons, cached analyses and run reports record these; a change to one marks
what was stored under the old value as stale. They live here, apart from the
code they version, so that reading a store (the terminal app's first screen,
`runs list`) does not import the sandbox, the repair transformers or numpy.
The modules that own them re-export them under the same names.
"""

from __future__ import annotations

NORMALIZATION_VERSION = "1"
LEVELS = ("raw", "format", "nodoc", "alpha")
"""The normalization levels, weakest first (docs/how-it-works.md)."""
DISTANCE_FUNCTION = "levenshtein-normalized-v1"
TREE_DISTANCE_FUNCTION = "ast-ted-normalized-v2"
DISTANCE_FUNCTIONS = {"levenshtein": DISTANCE_FUNCTION, "tree": TREE_DISTANCE_FUNCTION}
"""The distances a run can be measured with (`analyze --distance`), each with its version."""
DEFAULT_DISTANCE = "levenshtein"
ORACLE_VERSION = "5"
"""5: the tests a run that ran out of time left without a result run again in up to four runs side
by side (`oracle.judge.RERUN_CHUNKS`), not in one run after another. 4: a check body that is one
assert on one call of the candidate is judged in the parent (`oracle.asserts`, verdicts
unchanged); verdicts decided early for callers that read only the verdict (`Verdict.unrun`).
3: a test after a timeout runs again in a fresh process (issue 25); pass thresholds as SKYT
applies them."""
REPAIR_VERSION = "2"
"""2: the midpoint transformer; a candidate that breaks a coding rule the sample kept is refused."""
PROBE_VERSION = "probe-4"
"""Names the probe's generation, counting rule and comparison (docs/probe.md); bump when any of
them changes. 4: inputs from the signature's types and the docstring's calls, boundary values
and extrapolations of the examples."""
ANALYSIS_VERSION = "3"
"""How a run's samples become its analysis; part of every cached analysis's key.
3: the 95% intervals of the shares (R_raw, R_sig, R_behavioral, R_anchor, pass_rate) are
Wilson score intervals, and a resample's R_pairwise counts only pairs of different samples;
before, percentile intervals of the resampled statistic, which for a modal share could lie
wholly above the value, and for a share of 0 or 1 was that point.
2: every sample that produced code is counted, whatever its length (issue 36; before, a
program over 50,000 characters was left out of N and of every rate)."""
CANON_VERSION = "1"
"""Version of how a canon is chosen and stored; part of every cached analysis's key."""
DEFAULT_TAU = 0.10
DEFAULT_LEVEL = "nodoc"


def distance_version(level: str = DEFAULT_LEVEL, distance: str = DEFAULT_DISTANCE) -> str:
    """DISTANCE_VERSION names the level and the function, e.g. `nodoc/levenshtein-normalized-v1`."""
    if level not in LEVELS:
        raise ValueError(f"unknown distance level {level!r}; choose one of {', '.join(LEVELS)}")
    if distance not in DISTANCE_FUNCTIONS:
        raise ValueError(
            f"unknown distance {distance!r}; choose one of {', '.join(DISTANCE_FUNCTIONS)}"
        )
    return f"{level}/{DISTANCE_FUNCTIONS[distance]}"
