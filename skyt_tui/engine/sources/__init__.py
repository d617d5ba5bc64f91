"""The sources room: recorded samples and other projects' task definitions (docs/recorded-samples.md).

`recorded` reads any source into `RunInput`s (`run_input`), decides their contracts and
extracts every answer; `formats/` holds one reader per tool's files (SKYT, human-eval,
EvalPlus, Inspect, lm-evaluation-harness, bigcode, promptfoo, OpenAI Batch, your own
records), each recognised from content; `files` is the one bounded reader of foreign files
(`-` for standard input, JSONL, zip members); `agreement` sets a tool's verdicts beside
skyt-tui's; `importers` turns foreign task definitions into contracts, `humaneval` is the
human-eval layout, `extract` is the one rule that takes a sample's code out of a model's answer.

May import: `contracts` and the shared leaves.
"""
