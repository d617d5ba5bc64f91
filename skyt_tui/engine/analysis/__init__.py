"""The analysis room: one run of samples through oracle → canon → d_pre → repair → d_post → metrics
(docs/how-it-works.md, docs/canon.md).

`pipeline` is the whole analysis; `canon` is the immutable reference program per contract, its
store and the rule that picks it.

May import: `executor`, `sources`, `repair`, `probe`, `oracle`, `contracts`, `measure` and the
shared leaves.
"""
