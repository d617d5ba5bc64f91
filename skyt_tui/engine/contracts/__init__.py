"""The contracts room: what a prompt must produce and how it is judged (docs/contracts.md).

`contract` is the format and its validator, `values` Python values in TOML, `catalog` finds
contracts (bundled, the user's, a file), `describe` renders tests as lines for people,
`coding_rules` names the coding-standard rules a contract may ask for.

May import: the shared leaves (`store`, `errors`, `printable`, `syntax`) only.
"""
