"""Text that a sample (or any outside source) controls, made safe to show on a terminal.

An exception type, a message, a printed line or a file name can carry escape
sequences (clear the screen, set the window title, recolour, hide text with
bidirectional overrides). `printable` shows every character that is not
printable as a Python-style escape (`\\x1b`, `\\u202e`), so what reaches a table,
a log line, a notification or a widget is exactly what was sent, inert. It is
idempotent (its output is all printable) and leaves printable text untouched,
so applying it at the source and again at display changes nothing.
"""

from __future__ import annotations

import re

_JSON_UNSAFE = re.compile(
    "[\u0080-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ud800-\udfff\ufeff]"
)
"""Characters that JSON may carry raw (`ensure_ascii=False`) but a terminal may act on."""


def printable(text: object, *, multiline: bool = False) -> str:
    """`text` with control and other non-printable characters shown as escapes.

    Non-printable means what `str.isprintable` says: control characters (C0,
    DEL, C1), format characters (bidirectional overrides, zero-width joiners),
    line and paragraph separators, surrogates and unassigned code points. With
    `multiline`, newlines and tabs are kept (for program output shown as a block).
    """
    value = text if isinstance(text, str) else str(text)
    if value.isprintable():
        return value
    keep = "\n\t" if multiline else ""
    return "".join(char if char.isprintable() or char in keep else _escape(char) for char in value)


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def json_printable(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with terminal-active characters escaped.

    `json.dumps` escapes C0 controls itself; C1 controls, bidirectional
    overrides and line separators it writes raw. They are written here as
    `\\uXXXX` escapes, which decode to the same string: the JSON means the same.
    """
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def counted(
    number: int, noun: str, plural: str | None = None, *, verb: str = "", of: int | None = None
) -> str:
    """`number` and `noun` as English: "1 sample", "2 samples", "0 behaviour classes",
    "3 solution families" (the last word takes -s, -es after s/x/z/ch/sh, -ies after a
    consonant's y; `plural` gives an irregular one), and `verb` (given in the plural) agreeing
    with it: `counted(1, "item", verb="move")` is "1 item moves". With `of`, a part of a
    whole: the noun agrees with the whole and the verb with the part, `counted(1, "item",
    of=3, verb="have")` is "1 of 3 items has", `counted(0, "run", of=1)` "0 of 1 run"."""
    said = (
        f"{number} of {_noun(of, noun, plural)}" if of is not None else _noun(number, noun, plural)
    )
    if not verb:
        return said
    return f"{said} {_SINGULAR.get(verb, verb + 's') if number == 1 else verb}"


def _noun(number: int, noun: str, plural: str | None) -> str:
    if number == 1:
        return f"{number} {noun}"
    if plural is None:
        head, _, word = noun.rpartition(" ")
        if word.endswith(("s", "x", "z", "ch", "sh")):
            word += "es"
        elif word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
            word = word[:-1] + "ies"
        else:
            word += "s"
        plural = f"{head} {word}" if head else word
    return f"{number} {plural}"


_SINGULAR = {"are": "is", "have": "has", "were": "was"}
