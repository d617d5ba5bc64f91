"""The measurement room: pure functions from sample texts and verdicts to numbers (docs/metrics.md).

`normalize` (levels and signatures), `distance` (normalised Levenshtein), `tree_distance`
(AST edit distance), `records` (the per-sample facts), `metrics` (the repeatability metrics)
and `literature` (metrics of other studies).

May import: `versions` only. Nothing here touches a file.
"""
