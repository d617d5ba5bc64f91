"""Code extraction from model answers: fences, prose, truncation, completion-style prompts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.sources.extract import extract_code, extract_completion, extract_for_contract

FUNC = "def f(x):\n    return x + 1"


@pytest.mark.parametrize(
    "answer, code, method",
    [
        (f"```python\n{FUNC}\n```", FUNC, "fenced"),
        (f"```py\n{FUNC}\n```", FUNC, "fenced"),
        (f"```Python3\n{FUNC}\n```", FUNC, "fenced"),
        (f"~~~python\n{FUNC}\n~~~", FUNC, "fenced"),
        (f"````\n{FUNC}\n````", FUNC, "fenced"),
        (f"Here it is:\n\n```\n{FUNC}\n```\n\nThat's all.", FUNC, "fenced"),
        # an indented fence (inside a list item) is dedented
        ("1. Code:\n   ```python\n   def f(x):\n       return x + 1\n   ```", FUNC, "fenced"),
        # the block defining the entry point wins over a usage example, even an untagged one
        (f"```\n{FUNC}\n```\nUsage:\n```python\nprint(f(2))\n```", FUNC, "fenced"),
        (f"```python\nprint(f(2))\n```\n```python\n{FUNC}\n```", FUNC, "fenced"),
        # no block defines it: the Python blocks are joined in order
        (
            "```python\nimport math\n```\n```python\ng = math.sqrt\n```",
            "import math\n\ng = math.sqrt",
            "fenced-joined",
        ),
        # other languages are ignored
        (f"```bash\npip install nothing\n```\n```python\n{FUNC}\n```", FUNC, "fenced"),
        # a fence left open (truncated answer) runs to the end
        ("```python\ndef f(x):\n    return (x +", "def f(x):\n    return (x +", "fenced"),
        # reasoning models: the think section is dropped, even if it holds a fence
        (f"<think>maybe ```python\nx = 1\n```</think>\n```python\n{FUNC}\n```", FUNC, "fenced"),
        # unfenced code is kept byte for byte
        (f"{FUNC}\n", f"{FUNC}\n", "unfenced"),
        ("# comment\n\n" + FUNC, "# comment\n\n" + FUNC, "unfenced"),
        # leading and trailing prose are cut
        (
            f"Sure! Here's the function:\n\n{FUNC}\n\nThis adds one.\nHope it helps!",
            FUNC,
            "unfenced-trimmed",
        ),
        (f"Here:\nLIMIT = 10\n{FUNC}\nDone.", f"LIMIT = 10\n{FUNC}", "unfenced-trimmed"),
    ],
)
def test_extraction_rules(answer, code, method):
    result = extract_code(answer, entry="f")
    assert (result.code, result.method) == (code, method)


def test_broken_code_is_never_cut_to_make_it_parse():
    broken = "def f(x)\n    y = x + 1\n    return y\n"
    result = extract_code("Here you go:\n" + broken, entry="f")
    assert result.code == broken.strip("\n") and result.method == "unfenced-unparsed"


def test_prose_only_and_empty_answers():
    assert extract_code("I cannot help with that.").method == "unfenced-unparsed"
    assert extract_code("I cannot help with that.").code == "I cannot help with that."
    assert (extract_code("  \n").code, extract_code("").method) == ("", "empty")


def test_crlf_answers_are_normalised():
    assert extract_code("```python\r\ndef f(x):\r\n    return x + 1\r\n```\r\n").code == FUNC


PROMPT = 'from typing import List\n\n\ndef add(xs: List[int]) -> int:\n    """Sum."""\n'


def test_completion_style_is_prompt_plus_cut_continuation():
    result = extract_completion(
        "    return sum(xs)\n\n\ndef unrelated():\n    pass\n", prompt=PROMPT, entry="add"
    )
    assert (
        result.code == PROMPT + "    return sum(xs)\n\n" and result.method == "completion-truncated"
    )


def test_completion_style_full_rewrite_keeps_prompt_imports():
    answer = "```python\ndef add(xs: List[int]) -> int:\n    return sum(xs)\n```"
    result = extract_completion(answer, prompt=PROMPT, entry="add")
    assert (
        result.code
        == "from typing import List\n\ndef add(xs: List[int]) -> int:\n    return sum(xs)"
    )
    assert result.method == "completion-full"


def test_dispatch_by_prompt_style():
    assert (
        extract_for_contract(
            "    return 1\n", prompt="def g():\n", entry="g", prompt_style="completion"
        ).code
        == "def g():\n    return 1\n"
    )
    assert (
        extract_for_contract(
            "    return 1\n", prompt="def g():\n", entry="g", prompt_style="instruction"
        ).code
        == "    return 1\n"
    )


CODES = st.sampled_from(
    [
        FUNC,
        "import math\n\ndef f(x):\n    return math.floor(x)",
        "class Stack:\n    def __init__(self):\n        self.items = []",
        "def f(x):\n    '''Doc with ``` inside a string? no.'''\n    return x",
    ]
)
PROSE = st.lists(
    st.text(
        alphabet=st.characters(whitelist_categories=("L", "Zs"), whitelist_characters=".,!?:"),
        min_size=1,
        max_size=40,
    ).filter(lambda line: line.strip() and not line.startswith((" ", "\t"))),
    max_size=3,
).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(code=CODES, before=PROSE, after=PROSE, tag=st.sampled_from(["python", "py", ""]))
def test_fenced_code_comes_back_exactly_whatever_the_prose(code, before, after, tag):
    answer = f"{before}\n```{tag}\n{code}\n```\n{after}"
    assert extract_code(answer, entry="f").code == code


@settings(max_examples=100, deadline=None)
@given(code=CODES)
def test_parseable_unfenced_code_is_returned_unchanged(code):
    assert extract_code(code).code == code
