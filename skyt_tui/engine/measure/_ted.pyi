from collections.abc import Sequence

def distance(
    labels_a: Sequence[int],
    leftmost_a: Sequence[int],
    keyroots_a: Sequence[int],
    labels_b: Sequence[int],
    leftmost_b: Sequence[int],
    keyroots_b: Sequence[int],
) -> int: ...
