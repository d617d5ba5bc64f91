"""The measurement room: pure functions from sample texts and verdicts to numbers (docs/metrics.md).

`normalize` (levels and signatures), `scoping` (Python's scoping of a program's names, which
normalization's `alpha` level and repair's renames share), `distance` (normalised Levenshtein),
`tree_distance` (AST edit distance; its Zhang–Shasha compiled in `_ted.c`, the optional C
extension `_ted`, with a pure-Python fallback), `distance_kind` (a distance by its kind,
`levenshtein` or `tree`, and what depends on the kind), `records` (the per-sample facts),
`metrics` (the repeatability metrics),
`literature` (metrics of other studies) and `registry` (every metric's name, direction,
description and views, defined once; what reports, studies, the CLI and the app list).

May import: the leaves `versions` and `syntax` only, no room. Nothing here touches a file.
"""
