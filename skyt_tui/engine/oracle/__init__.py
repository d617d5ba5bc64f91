"""The oracle room: does a sample meet its contract? (docs/oracle.md, docs/contracts.md)

`judge.Oracle` sends programs and test inputs to the sandbox and computes every verdict in
the parent (`plan` compiles a contract into a job and judges the frames that come back;
`verdicts` holds the outcome records and the value comparison rules; `asserts` judges check
bodies that are one assert on one call of the candidate here instead of in the checker; `constraints` checks a
contract's style rules on the syntax tree; `compliance` records, beside the verdict, whether
the program keeps the contract's coding-standard rules (`rule_checks`) and code patterns).

May import: `contracts`, `sandbox` (the only room that may), `measure.normalize` (patterns
are matched on the program as normalization formats it) and the shared leaves.
"""
