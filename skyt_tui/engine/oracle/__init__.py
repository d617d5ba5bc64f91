"""The oracle room: does a sample meet its contract? (docs/oracle.md, docs/contracts.md)

`judge.Oracle` sends programs and test inputs to the sandbox and computes every verdict in
the parent (`plan` compiles a contract into a job and judges the frames that come back;
`verdicts` holds the outcome records and the value comparison rules; `constraints` checks a
contract's style rules on the syntax tree).

May import: `contracts`, `sandbox` (the only room that may) and the shared leaves.
"""
