"""Bounded, monotonic repair of one sample towards the canon (docs/repair.md).

Greedy search. Each round, every allowed transformer proposes candidates from
the current code: its rewrite at all sites, the subset of sites found by
adding one site at a time while the distance to the canon strictly drops, and
each site of that subset alone (fallbacks should the verifier reject the
whole). A candidate must compile and be strictly closer to the canon than the
current code at the run's level. Candidates are ranked by (distance,
transformer name, proposal order), put before the verifier in batches, and
the best one the verifier passes becomes the current code: one kept step.
Verdicts are read in rank order and only when needed, so a batch's lower
candidates run only if the ones above them fail (`candidates_checked` still
counts whole batches). Repair stops after
`max_steps` kept steps or when no candidate both improves and passes.

Only strict improvements are kept, so every step is visible in the distance,
d_post ≤ d_pre holds by construction, and the loop terminates. Repair is a
pure function of (code, canon, kept names, level, bounds, verifier answers):
no set or dict iteration order reaches a choice.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skyt_tui.engine import syntax
from skyt_tui.engine.measure.distance import distance
from skyt_tui.engine.measure.normalize import LEVELS, normalize, normalize_text
from skyt_tui.engine.repair.base import Context, Decline, Transformer, copy_tree, precheck
from skyt_tui.engine.repair.shared import Analysis

Verifier = Callable[[Sequence[str]], Sequence[bool]]

MAX_SITES = 48
"""Sites per transformer tried one by one; past that only the all-sites candidate is offered."""


@dataclass(frozen=True)
class RepairStep:
    transformer: str
    d_before: float
    d_after: float
    sites: int = 1
    """How many places the kept rewrite changed."""


@dataclass(frozen=True)
class RepairResult:
    code: str
    """The repaired program (`== input code` when no step was kept)."""
    steps: tuple[RepairStep, ...]
    d_pre: float
    d_post: float
    candidates_checked: int
    """How many candidate programs went to the verifier."""

    @property
    def changed(self) -> bool:
        return bool(self.steps)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for sample records (floats at full precision)."""
        return {
            "code": self.code,
            "steps": [
                {
                    "transformer": s.transformer,
                    "d_before": s.d_before,
                    "d_after": s.d_after,
                    "sites": s.sites,
                }
                for s in self.steps
            ],
            "d_pre": self.d_pre,
            "d_post": self.d_post,
            "candidates_checked": self.candidates_checked,
        }


@dataclass(frozen=True)
class _Candidate:
    d: float
    transformer: str
    order: int
    code: str
    sites: int


class _Measure:
    """Distance of a program to the canon at one level, memoized for one repair call."""

    def __init__(self, canon_code: str, kept_names: frozenset[str], level: str) -> None:
        self.kept_names = kept_names
        self.level = level
        self.canon_text = normalize(canon_code, kept_names).texts[level]
        self._memo: dict[str, float | None] = {}

    def __call__(self, code: str) -> float | None:
        """Distance, or None when the code does not parse (never a valid candidate)."""
        if code not in self._memo:
            text, parse_error = normalize_text(code, self.level, self.kept_names)
            self._memo[code] = None if parse_error else distance(text, self.canon_text)
        return self._memo[code]


@functools.lru_cache(maxsize=8192)
def _compiles(code: str) -> bool:
    """Cached: the same candidates recur in repairs of one sample towards different canons."""
    try:
        compile(code, "<repair candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


class _Parsed:
    """One parse of a program, copied for each rewrite of it (copying is faster than parsing)."""

    def __init__(self, code: str) -> None:
        self.code = code
        self._tree: ast.Module | None = None
        self._error: SyntaxError | None = None
        self._counting: Analysis | None = None

    def _pristine(self) -> ast.Module:
        """`syntax.parse(code)`, never rewritten (raises its `SyntaxError` each time asked)."""
        if self._error is not None:
            raise self._error
        if self._tree is None:
            try:
                self._tree = syntax.parse(self.code)
            except SyntaxError as error:
                self._error = error
                raise
        return self._tree

    def fresh(self) -> Analysis:
        """A tree of its own, to rewrite."""
        return Analysis(copy_tree(self._pristine()), self.code)

    def counting(self) -> Analysis:
        """The tree all counting passes share: they rewrite nothing."""
        if self._counting is None:
            self._counting = self.fresh()
        return self._counting


def _apply(
    cls: type[Transformer],
    current: str,
    context: Context,
    selection: Mapping[int, int] | None,
    parsed: _Parsed | None = None,
) -> tuple[str | None, list[int]]:
    """Run one transformer on a fresh tree of `current` (`parsed`: its parse, for all the
    rewrites of one round).

    A counting pass (no selection) rewrites nothing, so all of a round's
    counting passes share one tree, and its analyses.
    """
    transformer = cls(context, selection)
    parsed = parsed if parsed is not None and parsed.code == current else _Parsed(current)
    try:
        if selection is None:
            shared = parsed.counting()
            needed = precheck(cls)
            if needed is not None and not needed & shared.node_classes():
                return None, []  # no node it rewrites: no site
        else:
            shared = parsed.fresh()
        transformer.shared = shared
        result = transformer.run(shared.tree)
        code = syntax.unparse(result) if selection is not None else None
    except (Decline, SyntaxError, RecursionError, ValueError, TypeError, AttributeError):
        return None, transformer.options
    return code, transformer.options


_RewriteKey = tuple[
    type[Transformer], str, frozenset[str], str | None, tuple[tuple[int, int], ...] | None
]


class RewriteCache:
    """Rewrites already computed, for repairs of one program towards several canons.

    A rewrite (`_apply`) is a pure function of the transformer, the current code,
    the selection and the kept names — and of the canon, for the transformers
    that read it (`Transformer.reads_canon`). The same sample recurs in many runs,
    each with its own canon, and its repairs re-derive the same rewrites: give
    them one cache (the analysis does, per distinct program). One cache per
    thread; `max_entries` bounds it (it is emptied when full).
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self.max_entries = max_entries
        self._rewrites: dict[_RewriteKey, tuple[str | None, tuple[int, ...]]] = {}
        self.hits = 0
        self.misses = 0

    def apply(
        self,
        cls: type[Transformer],
        current: str,
        context: Context,
        selection: Mapping[int, int] | None,
        canon_code: str,
        parsed: _Parsed | None = None,
    ) -> tuple[str | None, tuple[int, ...]]:
        key = (
            cls,
            current,
            context.kept_names,
            canon_code if cls.reads_canon else None,
            None if selection is None else tuple(sorted(selection.items())),
        )
        found = self._rewrites.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        code, options = _apply(cls, current, context, selection, parsed)
        if len(self._rewrites) >= self.max_entries:
            self._rewrites.clear()
        self._rewrites[key] = (code, tuple(options))
        return code, tuple(options)


Rewrite = Callable[
    [type[Transformer], str, Mapping[int, int] | None], tuple[str | None, Sequence[int]]
]


def _proposals(
    cls: type[Transformer], current: str, d_current: float, measure: _Measure, rewrite: Rewrite
) -> list[tuple[float, str, int]]:
    """(distance, code, sites) of this transformer's improving candidates, in proposal order."""
    _, options = rewrite(cls, current, None)
    if not options:
        return []
    proposals: list[tuple[float, str, int]] = []
    seen = {current}

    def consider(selection: dict[int, int]) -> float | None:
        code, _ = rewrite(cls, current, selection)
        if code is None or code in seen:
            return None
        d = measure(code)
        if d is None or d >= d_current or not _compiles(code):
            return None
        seen.add(code)
        proposals.append((d, code, len(selection)))
        return d

    consider({site: 0 for site in range(len(options))})
    if len(options) > MAX_SITES:
        return proposals
    chosen: dict[int, int] = {}
    best = d_current
    for site, count in enumerate(options):
        best_option = None
        for option in range(count):
            code, _ = rewrite(cls, current, {**chosen, site: option})
            d = measure(code) if code is not None else None
            if d is not None and d < best:
                best, best_option = d, option
        if best_option is not None:
            chosen[site] = best_option
    if chosen:
        consider(dict(chosen))
        if len(chosen) > 1:
            for site, option in chosen.items():
                consider({site: option})
    return proposals


def repair(
    code: str,
    canon_code: str,
    *,
    kept_names: frozenset[str],
    verify: Verifier,
    level: str = "nodoc",
    max_steps: int = 5,
    allowed: Sequence[str] = (),
    batch_size: int = 3,
    transformers: Mapping[str, type[Transformer]] | None = None,
    rewrites: RewriteCache | None = None,
) -> RepairResult:
    """Repair `code` towards `canon_code`; see the module docstring for the rule.

    `verify(programs)` answers, for a batch of candidate programs, whether each
    passes the oracle. The batches (`batch_size`) set `candidates_checked`;
    a batch's verdicts are read lazily, in rank order, so a program whose
    verdict is never read (the batch's best passed) is never run. `allowed` restricts the transformers by name (empty: all).
    `rewrites` shares work between repairs of the same program (see `RewriteCache`);
    the result is the same with or without it.
    """
    from skyt_tui.engine.repair import TRANSFORMERS

    registry = TRANSFORMERS if transformers is None else transformers
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    unknown = sorted(set(allowed) - set(registry))
    if unknown:
        raise ValueError(
            f"unknown repair {'transformer' if len(unknown) == 1 else 'transformers'}: "
            f"{', '.join(unknown)}; known: {', '.join(registry)}"
        )
    if max_steps < 0 or batch_size < 1:
        raise ValueError("max_steps must be >= 0 and batch_size >= 1")
    kept_names = frozenset(kept_names)
    measure = _Measure(canon_code, kept_names, level)
    d_pre = measure(code)
    try:
        canon_tree = syntax.parse(canon_code)
        syntax.parse(code)
    except SyntaxError:
        canon_tree = None
    if d_pre is None or canon_tree is None or normalize(canon_code, kept_names).parse_error:
        d = (
            d_pre
            if d_pre is not None
            else distance(normalize(code, kept_names).texts[level], measure.canon_text)
        )
        return RepairResult(code=code, steps=(), d_pre=d, d_post=d, candidates_checked=0)
    context = Context(canon=canon_tree, kept_names=kept_names)
    parsed: list[_Parsed] = [_Parsed(code)]

    def parsed_of(current: str) -> _Parsed:
        if parsed[0].code != current:
            parsed[0] = _Parsed(current)
        return parsed[0]

    if rewrites is None:

        def rewrite(
            cls: type[Transformer], current: str, selection: Mapping[int, int] | None
        ) -> tuple[str | None, Sequence[int]]:
            return _apply(cls, current, context, selection, parsed_of(current))
    else:

        def rewrite(
            cls: type[Transformer], current: str, selection: Mapping[int, int] | None
        ) -> tuple[str | None, Sequence[int]]:
            return rewrites.apply(cls, current, context, selection, canon_code, parsed_of(current))

    active = [(name, cls) for name, cls in registry.items() if not allowed or name in allowed]
    verdicts: dict[str, bool | None] = {}
    """Programs put before the verifier; None until their verdict is first read."""

    def read(programs: Sequence[str]) -> None:
        """Fetch the verdicts not yet known of `programs` (already put before the verifier)."""
        unknown = list(dict.fromkeys(p for p in programs if verdicts[p] is None))
        if unknown:
            answers = list(verify(unknown))
            if len(answers) != len(unknown):
                raise ValueError(
                    f"verifier answered {len(answers)} verdicts for {len(unknown)} programs"
                )
            for program, answer in zip(unknown, answers):
                verdicts[program] = bool(answer)

    steps: list[RepairStep] = []
    current, d_current = code, d_pre
    checked = 0
    while len(steps) < max_steps and d_current > 0:
        candidates: list[_Candidate] = []
        for name, cls in active:
            for order, (d, candidate_code, sites) in enumerate(
                _proposals(cls, current, d_current, measure, rewrite)
            ):
                candidates.append(_Candidate(d, name, order, candidate_code, sites))
        candidates.sort(key=lambda c: (c.d, c.transformer, c.order))
        read([c.code for c in candidates if c.code in verdicts])
        unique: list[_Candidate] = []
        seen_codes: set[str] = set()
        for candidate in candidates:
            if candidate.code not in seen_codes and verdicts.get(candidate.code) is not False:
                seen_codes.add(candidate.code)
                unique.append(candidate)
        accepted = None
        for start in range(0, len(unique), batch_size):
            batch = unique[start : start + batch_size]
            for c in batch:
                if c.code not in verdicts:
                    verdicts[c.code] = None
                    checked += 1
            for c in batch:  # the first passing one, verdicts read in rank order
                read([c.code])
                if verdicts[c.code]:
                    accepted = c
                    break
            if accepted is not None:
                break
        if accepted is None:
            break
        steps.append(RepairStep(accepted.transformer, d_current, accepted.d, accepted.sites))
        current, d_current = accepted.code, accepted.d
    return RepairResult(
        code=current, steps=tuple(steps), d_pre=d_pre, d_post=d_current, candidates_checked=checked
    )
