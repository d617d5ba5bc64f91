"""Normalization: the raw, format, nodoc and alpha levels, the names each keeps, and the signatures
computed from them."""

import ast
import hashlib
import keyword

from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.measure.normalize import LEVELS, NORMALIZATION_VERSION, normalize

FIB = '''
def fibonacci(n):
    """Return the nth Fibonacci number."""
    # iterative
    a, b = 0, 1
    for i in range(n):
        a, b = b, a + b
    return a
'''


def test_levels_of_a_small_program():
    result = normalize(FIB, kept_names=["fibonacci", "n"])
    assert not result.parse_error
    assert result.texts["raw"] == FIB.strip()
    assert "# iterative" not in result.texts["format"]
    assert "Return the nth" in result.texts["format"]
    assert "Return the nth" not in result.texts["nodoc"]
    assert result.texts["alpha"] == (
        "def fibonacci(n):\n    v1, v2 = (0, 1)\n    for v3 in range(n):\n        v1, v2 = (v2, v1 + v2)\n    return v1"
    )
    for level in LEVELS:
        assert result.signatures[level] == hashlib.sha256(result.texts[level].encode()).hexdigest()
    assert result.version == NORMALIZATION_VERSION


def test_raw_only_normalizes_line_endings_and_outer_whitespace():
    assert normalize("\n  x = 1\r\ny = 2  \r\n\n").texts["raw"] == "x = 1\ny = 2"


def test_docstring_only_body_becomes_pass():
    result = normalize('def f():\n    """Only a docstring."""\n')
    assert result.texts["nodoc"] == "def f():\n    pass"


def test_alpha_keeps_builtins_attributes_imports_entry_and_fixed_names():
    code = (
        "import math\nfrom collections import deque\n"
        "def solve(arr, target):\n    queue = deque(arr)\n    total = len(queue)\n"
        "    return math.floor(total / 2) + queue.count(target)\n"
    )
    alpha = normalize(code, kept_names=["solve", "arr", "target"]).texts["alpha"]
    assert "def solve(arr, target):" in alpha
    assert "v1 = deque(arr)" in alpha and "v2 = len(v1)" in alpha
    assert "math.floor(v2 / 2) + v1.count(target)" in alpha


def test_alpha_keeps_method_and_class_attribute_names():
    code = (
        "class LRUCache:\n    size = 0\n    def get(self, key):\n        return self.size + key\n"
    )
    alpha = normalize(code, kept_names=["LRUCache"]).texts["alpha"]
    assert "def get(v1, v2):" in alpha and "size = 0" in alpha and "v1.size + v2" in alpha


def test_alpha_renames_keyword_arguments_with_the_parameters_they_name():
    a = normalize("def g():\n    return f(x=1)\ndef f(x):\n    return x\n").texts["alpha"]
    b = normalize("def g():\n    return f(y=1)\ndef f(y):\n    return y\n").texts["alpha"]
    assert a == b


def test_unparseable_code_gets_fallback_and_flag():
    result = normalize("def f(:\n    return  1   # note\n")
    assert result.parse_error
    assert "# note" not in result.texts["format"]
    assert result.texts["format"] == result.texts["nodoc"] == result.texts["alpha"]


def test_empty_code():
    result = normalize("")
    assert not result.parse_error
    assert all(text == "" for text in result.texts.values())
    assert result.signatures["raw"] == hashlib.sha256(b"").hexdigest()


# Property tests over small generated programs.

NAMES = st.sampled_from(["alpha", "beta", "gamma", "delta", "total", "item", "idx", "acc"])


@st.composite
def programs(draw):
    """A function with a few locals, loops and conditionals, plus its source-level variants."""
    local_names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    lines = ["def entry(n):"]
    for name in local_names:
        lines.append(f"    {name} = n + {draw(st.integers(0, 9))}")
    loop_var = draw(NAMES.filter(lambda s: s not in local_names))
    target = local_names[0]
    lines.append(f"    for {loop_var} in range(n):")
    lines.append(f"        {target} += {loop_var} * {draw(st.integers(1, 5))}")
    if draw(st.booleans()):
        lines.append(f"    if {target} > {draw(st.integers(0, 50))}:")
        lines.append(f"        return {target}")
    lines.append(f"    return {' + '.join(local_names)}")
    return "\n".join(lines) + "\n"


@st.composite
def reformatted(draw, code):
    """Same program with extra spaces, blank lines and comments."""
    out = []
    for line in code.splitlines():
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if draw(st.booleans()):
            stripped = stripped.replace(" = ", "   =  ").replace(" + ", "+")
        comment = "  # " + draw(st.text("abc xyz", max_size=8)) if draw(st.booleans()) else ""
        out.append(indent + stripped + comment)
        if draw(st.booleans()):
            out.append("")
    return "\n".join(out) + "\n"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_whitespace_and_comments_never_change_format_and_above(data):
    code = data.draw(programs())
    variant = data.draw(reformatted(code))
    a, b = normalize(code, ["entry", "n"]), normalize(variant, ["entry", "n"])
    for level in ("format", "nodoc", "alpha"):
        assert a.signatures[level] == b.signatures[level]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_renaming_locals_never_changes_alpha(data):
    code = data.draw(programs())
    tree = ast.parse(code)
    bound = sorted(
        {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id != "n"}
        - {"range"}
    )
    fresh = data.draw(
        st.lists(
            st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
                lambda s: (
                    not keyword.iskeyword(s)
                    and s not in {"n", "entry", "range"}
                    and not s.startswith("v")
                )
            ),
            min_size=len(bound),
            max_size=len(bound),
            unique=True,
        )
    )
    mapping = dict(zip(bound, fresh))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
    renamed = ast.unparse(tree)
    assert (
        normalize(code, ["entry", "n"]).texts["alpha"]
        == normalize(renamed, ["entry", "n"]).texts["alpha"]
    )


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_level_is_idempotent(data):
    code = data.draw(st.one_of(programs(), st.text(max_size=40)))
    first = normalize(code, ["entry", "n"])
    for level in LEVELS:
        again = normalize(first.texts[level], ["entry", "n"])
        assert again.texts[level] == first.texts[level]


def test_idempotent_on_real_shapes():
    samples = [
        FIB,
        "class A:\n    '''d'''\n    def m(self):\n        return [x for x in range(3)]\n",
        "x=1;y=2",
    ]
    for code in samples:
        first = normalize(code, ["fibonacci", "n"])
        for level in LEVELS:
            assert (
                normalize(first.texts[level], ["fibonacci", "n"]).texts[level] == first.texts[level]
            )


def test_a_program_over_the_parse_bound_is_its_raw_text_at_every_level():
    """Issue 36: never parsed nor tokenized (linear time), flagged so it is never the canon; its
    levels are one text, so normalizing it again gives the same."""
    import time

    from skyt_tui.engine import syntax

    code = "def f(x):\n    return x  # spare\n" * 2_000 + "\n\n"
    assert len(code) > syntax.MAX_PROGRAM_CHARS
    start = time.monotonic()
    result = normalize(code)
    assert result.parse_error
    assert set(result.texts.values()) == {code.strip()}
    assert len(set(result.signatures.values())) == 1
    assert normalize(result.texts["alpha"]).texts == result.texts
    huge = "x = 1\n" * 2_000_000
    assert normalize(huge).parse_error and time.monotonic() - start < 10
    try:
        syntax.parse(code)
    except syntax.TooLarge as exc:
        assert str(exc) == syntax.too_large(code)
    else:
        raise AssertionError("parsed a program over the bound")
    assert syntax.parse(code, max_chars=None).body  # a contract's own code: no bound
