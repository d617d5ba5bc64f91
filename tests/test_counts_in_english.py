"""Counts read as English (issue 36): "1 run", "2 runs", "0 of 1 run analysed", never "N run(s)".

Every count the product shows a person (CLI lines, errors and warnings, the app's text and
notifications) is written with `printable.counted`, which makes the noun agree with the number
and a verb after it agree too. The scan below keeps the "thing(s)" form from coming back.
"""

import ast
import re
from pathlib import Path

import pytest

from skyt_tui.engine.printable import counted

PACKAGE = Path(__file__).resolve().parents[1] / "skyt_tui"
PLURAL_IN_PARENTHESES = re.compile(r"\w\((?:s|es|ies)\)")
ALLOWED = {
    ("ui/screens/run_dialog.py", "Temperature(s)"),
}
"""Strings that may say "(s)": a form's label for a field that takes one or several values."""


@pytest.mark.parametrize(
    ("number", "noun", "extra", "said"),
    [
        (0, "run", {}, "0 runs"),
        (1, "run", {}, "1 run"),
        (2, "study", {}, "2 studies"),
        (2, "(system, contract) pair", {"verb": "have"}, "2 (system, contract) pairs have"),
        (1, "(system, contract) pair", {"verb": "have"}, "1 (system, contract) pair has"),
        (1, "held-out item", {"verb": "are"}, "1 held-out item is"),
        (0, "run", {"of": 1}, "0 of 1 run"),
        (1, "run", {"of": 3}, "1 of 3 runs"),
        (6, "run", {"of": 6}, "6 of 6 runs"),
        (1, "item", {"of": 3, "verb": "have"}, "1 of 3 items has"),
        (2, "item", {"of": 3, "verb": "have"}, "2 of 3 items have"),
        (0, "checked item", {"of": 1, "verb": "share"}, "0 of 1 checked item share"),
        (1, "checked item", {"of": 1, "verb": "share"}, "1 of 1 checked item shares"),
    ],
)
def test_a_count_agrees_with_its_noun_and_verb(number, noun, extra, said):
    assert counted(number, noun, **extra) == said


def _strings_shown(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module, f-strings' text parts included, docstrings left out
    (a string that stands alone as a statement documents; it is never shown)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    documenting = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in documenting
    ]


def test_no_string_the_product_shows_says_thing_s():
    """The form "N thing(s)" (or "thing(s)" before a list) does not come back: every string
    literal in skyt_tui, f-strings' text included, is free of it but for the named exceptions.
    The bundled examples are sample programs (some deliberately broken), not product text."""
    modules = [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "bundled" not in path.relative_to(PACKAGE).parts
    ]
    assert len(modules) > 100, "the scan sees the package"
    found = []
    for path in modules:
        where = path.relative_to(PACKAGE).as_posix()
        for line, text in _strings_shown(path):
            if PLURAL_IN_PARENTHESES.search(text) and (where, text) not in ALLOWED:
                found.append(f"skyt_tui/{where}:{line}: {text!r}")
    assert not found, "use printable.counted (or the singular/plural by the list's length):\n" + (
        "\n".join(found)
    )


def test_the_scan_finds_a_count_in_an_f_string(tmp_path):
    """The scan would see the old form, in an f-string's text after a formatted count."""
    module = tmp_path / "module.py"
    module.write_text(
        '"""A docstring may say run(s)."""\n'
        "def head(runs):\n"
        '    """So may this one: item(s)."""\n'
        '    return f"{len(runs)} run(s), newest first"\n'
    )
    assert _strings_shown(module) == [(4, " run(s), newest first")]
    assert PLURAL_IN_PARENTHESES.search(_strings_shown(module)[0][1])
