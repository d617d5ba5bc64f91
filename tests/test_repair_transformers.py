"""Each repair transformer on literal before/after examples, and where it must not fire."""

import textwrap

import pytest

from skyt_tui.engine.repair import TRANSFORMERS
from tests.repair_helpers import rewrite, same, sites


def src(text: str) -> str:
    return same(textwrap.dedent(text))


def test_registry_has_at_least_ten_ideas_in_a_fixed_order():
    assert len(TRANSFORMERS) >= 10
    assert list(TRANSFORMERS) == [cls.name for cls in TRANSFORMERS.values()]
    for cls in TRANSFORMERS.values():
        assert cls.summary


class TestRenameLocals:
    CANON = "def f(items):\n    total = 0\n    for item in items:\n        total += item\n    return total\n"

    def test_renames_by_role(self):
        sample = "def f(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n    return acc\n"
        assert rewrite("rename_locals", sample, self.CANON) == same(self.CANON)

    def test_never_renames_kept_names(self):
        sample = "def f(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n    return acc\n"
        out = rewrite("rename_locals", sample, self.CANON, kept={"f", "xs"})
        assert "def f(xs):" in out and "for item in xs:" in out and "total += item" in out

    def test_does_not_rename_builtins_attributes_or_imports(self):
        sample = "import math\ndef f(v):\n    return math.floor(len(v.real))\n"
        canon = "import math\ndef f(w):\n    return math.floor(len(w.real))\n"
        out = rewrite("rename_locals", sample, canon)
        assert out == same(canon)

    def test_declines_capture(self):
        # canon calls the parameter `len`; renaming would shadow the builtin the sample uses
        sample = "def f(s):\n    return len(s)\n"
        canon = "def f(len):\n    return 0\n"
        assert sites("rename_locals", sample, canon) == [1]
        with pytest.raises(Exception):  # noqa: B017 - any refusal is the behaviour under test
            rewrite("rename_locals", sample, canon)

    def test_parameter_passed_by_keyword_keeps_its_name(self):
        sample = "def g(a):\n    return a\ndef f():\n    return g(a=1)\n"
        canon = "def g(b):\n    return b\ndef f():\n    return g(1)\n"
        assert sites("rename_locals", sample, canon) == []


class TestDocstrings:
    def test_removes_docstrings(self):
        assert (
            rewrite("docstrings", '"""m"""\ndef f():\n    """d"""\n    return 1\n')
            == "def f():\n    return 1"
        )

    def test_only_docstring_becomes_pass(self):
        assert rewrite("docstrings", 'def f():\n    """d"""\n') == "def f():\n    pass"

    def test_ignores_other_strings(self):
        assert sites("docstrings", "def f():\n    x = 'a'\n    return x\n") == []


class TestTypeHints:
    def test_removes_annotations(self):
        code = "def f(a: int, *b: str, c: list = None) -> bool:\n    x: int = a\n    return x\n"
        assert rewrite("type_hints", code) == "def f(a, *b, c=None):\n    x = a\n    return x"

    def test_keeps_bare_declaration_and_module_annotations(self):
        assert (
            sites("type_hints", "x: int = 1\ndef f():\n    y: int\n    y = 2\n    return y\n") == []
        )


class TestDemoCode:
    def test_removes_prints_and_main_guard(self):
        code = "def f():\n    return 1\nprint(f())\nif __name__ == '__main__':\n    f()\n"
        assert rewrite("demo_code", code) == "def f():\n    return 1"

    def test_keeps_module_docstring_assignments_and_other_calls(self):
        assert sites("demo_code", '"""doc"""\nX = 1\ndef f():\n    return X\n') == []
        assert sites("demo_code", "import sys\nsys.setrecursionlimit(5000)\n") == []


class TestImportPlace:
    def test_moves_module_import_into_its_only_user(self):
        code = "import re\n\ndef slug(t):\n    return re.sub('a', 'b', t)\n"
        assert (
            rewrite("import_place", code)
            == "def slug(t):\n    import re\n    return re.sub('a', 'b', t)"
        )

    def test_moves_function_import_to_module(self):
        code = "def slug(t):\n    import re\n    return re.sub('a', 'b', t)\n"
        assert (
            rewrite("import_place", code)
            == "import re\n\ndef slug(t):\n    return re.sub('a', 'b', t)"
        )

    def test_not_when_two_functions_use_it_or_a_default_needs_it(self):
        assert (
            sites("import_place", "import re\ndef f():\n    return re\ndef g():\n    return re\n")
            == []
        )
        assert sites("import_place", "import math\ndef f(x=math.pi):\n    return x\n") == []


class TestImportForm:
    def test_import_to_from(self):
        code = "import math\ndef f(x):\n    return math.sqrt(x) + math.pi\n"
        assert (
            rewrite("import_form", code)
            == "from math import sqrt, pi\n\ndef f(x):\n    return sqrt(x) + pi"
        )

    def test_from_to_import(self):
        code = "from math import sqrt\ndef f(x):\n    return sqrt(x)\n"
        assert rewrite("import_form", code) == "import math\n\ndef f(x):\n    return math.sqrt(x)"

    def test_not_when_a_name_would_collide(self):
        assert sites("import_form", "import math\ndef f(sqrt):\n    return math.sqrt(sqrt)\n") == []
        assert sites("import_form", "import math\ndef f(x):\n    return math\n") == []


class TestNestedHelper:
    NESTED = src("""
        def sort(a):
            def merge(l, r):
                return l + r
            return merge(a[:1], a[1:])
    """)
    FLAT = src("""
        def sort(a):
            return merge(a[:1], a[1:])

        def merge(l, r):
            return l + r
    """)

    def test_hoist(self):
        assert rewrite("nested_helper", self.NESTED) == self.FLAT

    def test_nest(self):
        assert rewrite("nested_helper", self.FLAT) == self.NESTED

    def test_not_when_helper_reads_outer_locals(self):
        code = "def sort(a):\n    k = 1\n    def key(x):\n        return x * k\n    return sorted(a, key=key)\n"
        assert sites("nested_helper", code) == []


class TestCompareOrder:
    def test_mirrors(self):
        assert rewrite("compare_order", "x = a < b\ny = c == d\n") == "x = b > a\ny = d == c"

    def test_not_chains_membership_or_two_calls(self):
        assert sites("compare_order", "x = a < b < c\ny = a in b\nz = f() < g()\n") == []


class TestNegatedCompare:
    def test_fold_and_unfold(self):
        assert rewrite("negated_compare", "x = not a == b\n") == "x = a != b"
        assert rewrite("negated_compare", "x = a not in b\n") == "x = not a in b"

    def test_not_order_comparisons(self):
        assert sites("negated_compare", "x = not a < b\n") == []


class TestNoneCompare:
    def test_equality_with_none_becomes_identity(self):
        assert (
            rewrite("none_compare", "x = a == None\ny = a != None\n")
            == "x = a is None\ny = a is not None"
        )

    def test_not_for_other_constants_nor_back_to_equality(self):
        assert sites("none_compare", "x = a == 0\ny = a is None\n") == []


class TestEmptyCheck:
    CODE = "def f(s):\n    stack = []\n    for c in s:\n        stack.append(c)\n    return len(stack) == 0\n"

    def test_len_zero_to_not(self):
        assert rewrite("empty_check", self.CODE).endswith("return not stack")
        assert rewrite("empty_check", self.CODE, selection={0: 1}).endswith("return stack == []")

    def test_truth_test_to_len(self):
        code = "def f():\n    stack = []\n    if stack:\n        return 1\n"
        assert "if len(stack) > 0:" in rewrite("empty_check", code)

    def test_not_without_container_evidence(self):
        assert sites("empty_check", "def f(n):\n    if not n:\n        return 1\n") == []

    def test_not_when_len_is_shadowed(self):
        assert sites("empty_check", "len = 3\ndef f():\n    s = []\n    return len(s) == 0\n") == []


class TestZeroCheck:
    def test_while_b_not_zero(self):
        code = "def gcd(a, b):\n    while b != 0:\n        a, b = b, a % b\n    return a\n"
        assert "while b:" in rewrite("zero_check", code)

    def test_not_for_containers(self):
        assert (
            sites("zero_check", "def f(s):\n    xs = []\n    if xs != 0:\n        return 1\n") == []
        )


class TestDictKeys:
    def test_drop_keys(self):
        code = "d = {'a': 1}\nx = 'a' in d.keys()\nfor k in d.keys():\n    pass\n"
        assert rewrite("dict_keys", code) == "d = {'a': 1}\nx = 'a' in d\nfor k in d:\n    pass"

    def test_not_for_unknown_objects(self):
        assert sites("dict_keys", "def f(d):\n    return 'a' in d.keys()\n") == []


class TestDictOrder:
    CANON = "m = {')': '(', '}': '{', ']': '['}\n"

    def test_orders_like_the_canon(self):
        code = "def f(c):\n    m = {')': '(', ']': '[', '}': '{'}\n    return c in m.values() or m[c]\n"
        out = rewrite("dict_order", code, self.CANON)
        assert "m = {')': '(', '}': '{', ']': '['}" in out

    def test_not_when_order_is_observable(self):
        code = "def f():\n    m = {')': '(', ']': '[', '}': '{'}\n    return list(m)\n"
        assert sites("dict_order", code, self.CANON) == []

    def test_not_when_entries_differ(self):
        code = "m = {'(': ')', '[': ']', '{': '}'}\nx = 'a' in m\n"
        assert sites("dict_order", code, self.CANON) == []


class TestElseAfterExit:
    def test_flatten(self):
        code = "def f(n):\n    if n < 0:\n        return 0\n    else:\n        return n\n"
        assert (
            rewrite("else_after_exit", code)
            == "def f(n):\n    if n < 0:\n        return 0\n    return n"
        )

    def test_wrap_takes_the_rest_and_makes_elif(self):
        code = "def f(n):\n    if n < 0:\n        return 0\n    if n == 1:\n        return 1\n    return n\n"
        assert rewrite("else_after_exit", code, selection={1: 0}) == (
            "def f(n):\n    if n < 0:\n        return 0\n    if n == 1:\n        return 1\n    else:\n        return n"
        )
        code = "def f(n):\n    if n < 0:\n        return 0\n    if n == 1:\n        return 1\n"
        assert rewrite("else_after_exit", code, selection={0: 0}) == (
            "def f(n):\n    if n < 0:\n        return 0\n    elif n == 1:\n        return 1"
        )

    def test_not_when_body_falls_through(self):
        assert (
            sites(
                "else_after_exit",
                "def f(n):\n    if n:\n        n += 1\n    else:\n        n -= 1\n    return n\n",
            )
            == []
        )


class TestRedundantJump:
    def test_trailing_continue_and_else_continue(self):
        code = "for c in s:\n    if c:\n        x = 1\n    else:\n        continue\n"
        assert rewrite("redundant_jump", code) == "for c in s:\n    if c:\n        x = 1"
        assert (
            rewrite("redundant_jump", "for c in s:\n    x = c\n    continue\n")
            == "for c in s:\n    x = c"
        )

    def test_final_bare_return_and_pass(self):
        assert (
            rewrite("redundant_jump", "def f():\n    x = 1\n    pass\n    return\n")
            == "def f():\n    x = 1"
        )

    def test_not_a_continue_in_the_middle(self):
        assert (
            sites("redundant_jump", "for c in s:\n    if c:\n        continue\n    x = c\n") == []
        )


class TestReturnBool:
    def test_fold(self):
        code = "def f(n):\n    if n > 1:\n        return True\n    return False\n"
        assert rewrite("return_bool", code) == "def f(n):\n    return n > 1"
        code = "def f(n):\n    if n > 1:\n        return False\n    else:\n        return True\n"
        assert rewrite("return_bool", code) == "def f(n):\n    return not n > 1"

    def test_unfold(self):
        assert rewrite("return_bool", "def f(n):\n    return n > 1\n", selection={0: 1}) == (
            "def f(n):\n    if n > 1:\n        return True\n    return False"
        )

    def test_not_for_non_bool_condition(self):
        assert (
            sites("return_bool", "def f(n):\n    if n:\n        return True\n    return False\n")
            == []
        )


class TestReturnTemp:
    def test_inline(self):
        code = "def f(text):\n    text = text.strip('-')\n    return text\n"
        assert rewrite("return_temp", code) == "def f(text):\n    return text.strip('-')"

    def test_extract_into_an_existing_local(self):
        code = "def f(text):\n    return text.strip('-')\n"
        assert (
            rewrite("return_temp", code)
            == "def f(text):\n    text = text.strip('-')\n    return text"
        )

    def test_not_for_globals_or_captured_names(self):
        assert (
            sites("return_temp", "x = 0\ndef f():\n    global x\n    x = 1\n    return x\n") == []
        )
        code = "def f():\n    y = 1\n    g = lambda: y\n    y = 2\n    return y\n"
        assert sites("return_temp", code) == []


class TestTernary:
    def test_fold_and_unfold(self):
        code = "def f(c):\n    if c:\n        x = 1\n    else:\n        x = 2\n    return x\n"
        folded = "def f(c):\n    x = 1 if c else 2\n    return x"
        assert rewrite("ternary", code, selection={0: 0}) == folded
        assert rewrite("ternary", folded, selection={0: 0}) == same(code)

    def test_not_different_targets(self):
        assert sites("ternary", "if c:\n    x = 1\nelse:\n    y = 2\n") == []


class TestAugAssign:
    def test_both_ways(self):
        assert rewrite("aug_assign", "i = i + 1\n") == "i += 1"
        assert rewrite("aug_assign", "i = 0\ni -= a + b\n") == "i = 0\ni = i - (a + b)"

    def test_not_for_list_building_unknown_types_or_other_left_operand(self):
        assert sites("aug_assign", "xs = xs + [1]\nys += [2]\ni = 1 + i\n") == []
        assert sites("aug_assign", "def f(xs, ys):\n    xs = xs + ys\n    return xs\n") == []


class TestTupleAssign:
    def test_split(self):
        assert (
            rewrite("tuple_assign", "left, right = 0, len(a) - 1\n")
            == "left = 0\nright = len(a) - 1"
        )

    def test_join(self):
        assert (
            rewrite("tuple_assign", "left = 0\nright = len(a) - 1\n")
            == "left, right = (0, len(a) - 1)"
        )

    def test_not_swaps_or_dependent_values(self):
        assert sites("tuple_assign", "a, b = b, a\n") == []
        assert sites("tuple_assign", "a = 1\nb = a + 1\n") == []


class TestChainedAssign:
    def test_chained_to_tuple_or_separate(self):
        assert rewrite("chained_assign", "i = j = 0\n") == "i, j = (0, 0)"
        assert rewrite("chained_assign", "i = j = 0\n", selection={0: 1}) == "i = 0\nj = 0"
        assert rewrite("chained_assign", "i, j = 0, 0\n") == "i = j = 0"

    def test_not_mutable_values(self):
        assert sites("chained_assign", "a = b = []\nc, d = (0, 1)\n") == []


class TestRangeStart:
    def test_both_ways(self):
        assert (
            rewrite("range_start", "for i in range(0, n):\n    pass\n")
            == "for i in range(n):\n    pass"
        )
        assert (
            rewrite("range_start", "for i in range(n):\n    pass\n")
            == "for i in range(0, n):\n    pass"
        )

    def test_not_with_step_or_shadowed_range(self):
        assert sites("range_start", "for i in range(0, n, 2):\n    pass\n") == []
        assert sites("range_start", "range = list\nx = range(0, 3)\n") == []


def test_empty_check_reads_mirrored_forms():
    code = "def f():\n    s = []\n    a = 0 == len(s)\n    b = [] != s\n    if 0 < len(s):\n        return a\n"
    assert rewrite("empty_check", code) == (
        "def f():\n    s = []\n    a = not s\n    b = len(s) > 0\n    if s:\n        return a"
    )


class TestMergeIfs:
    def test_merge_and_split(self):
        code = "def f(s):\n    if not s:\n        return False\n    if s[0] != 'a':\n        return False\n    return True\n"
        merged = "def f(s):\n    if not s or s[0] != 'a':\n        return False\n    return True"
        assert rewrite("merge_ifs", code) == merged
        assert rewrite("merge_ifs", merged) == same(code)

    def test_numbering_survives_absorbed_sites(self):
        code = "def f(a, b, c):\n    if a:\n        return 0\n    if b:\n        return 0\n    if c:\n        return 0\n    return 1\n"
        assert sites("merge_ifs", code) == [1, 1]
        assert rewrite("merge_ifs", code, selection={0: 0}) == (
            "def f(a, b, c):\n    if a or b:\n        return 0\n    if c:\n        return 0\n    return 1"
        )

    def test_not_different_bodies_or_with_else(self):
        assert (
            sites(
                "merge_ifs",
                "def f(a, b):\n    if a:\n        return 0\n    if b:\n        return 1\n",
            )
            == []
        )
        assert (
            sites(
                "merge_ifs",
                "def f(a, b):\n    if a:\n        return 0\n    else:\n        pass\n    if b:\n        return 0\n",
            )
            == []
        )


def test_else_after_exit_drops_only_the_final_else_of_an_elif_chain():
    code = "def f(n):\n    if n <= 0:\n        return 0\n    elif n == 1:\n        return 1\n    else:\n        a = n\n        return a\n"
    assert sites("else_after_exit", code)[0] == 2
    assert rewrite("else_after_exit", code, selection={0: 1}) == (
        "def f(n):\n    if n <= 0:\n        return 0\n    elif n == 1:\n        return 1\n    a = n\n    return a"
    )


def test_redundant_jump_adds_else_continue_ending_a_loop():
    code = "for c in s:\n    if c:\n        x = 1\n"
    assert (
        rewrite("redundant_jump", code)
        == "for c in s:\n    if c:\n        x = 1\n    else:\n        continue"
    )


def test_empty_check_not_for_a_name_that_may_hold_none():
    code = "def f(xs):\n    best = None\n    for x in xs:\n        if not best or len(best) < len(x):\n            best = x\n    return best\n"
    assert sites("empty_check", code) == []


class TestLoopForm:
    WHILE = "def f(n):\n    total = 0\n    i = 1\n    while i <= n:\n        total += i\n        i += 1\n    return total\n"
    FOR = "def f(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n    return total"

    def test_while_to_for(self):
        assert rewrite("loop_form", self.WHILE) == self.FOR

    def test_for_to_while(self):
        code = "def f(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
        assert rewrite("loop_form", code) == (
            "def f(n):\n    total = 0\n    i = 0\n    while i < n:\n        total += i\n        i += 1\n    return total"
        )

    def test_not_when_counter_is_read_after_or_continue_or_bound_changes(self):
        assert sites("loop_form", self.WHILE.replace("return total", "return total + i")) == []
        assert (
            sites(
                "loop_form",
                "def f(n):\n    for i in range(n):\n        if i:\n            continue\n        n = 1\n",
            )
            == []
        )
        assert (
            sites(
                "loop_form",
                "def f(xs):\n    i = 0\n    while i < len(xs):\n        xs.append(1)\n        i += 1\n",
            )
            == []
        )


class TestMidpoint:
    SUM = "def f(a):\n    lo, hi = 0, len(a) - 1\n    return (lo + hi) // 2\n"
    OFFSET = "def f(a):\n    lo, hi = 0, len(a) - 1\n    return lo + (hi - lo) // 2\n"

    def test_toward_the_canons_form_both_ways(self):
        assert rewrite("midpoint", "m = left + (right - left) // 2\n", self.SUM) == (
            "m = (left + right) // 2"
        )
        assert rewrite("midpoint", "m = (left + right) // 2\n", self.OFFSET) == (
            "m = left + (right - left) // 2"
        )
        # either bound may be the base of the offset form: both readings are offered
        assert sites("midpoint", "m = (left + right) // 2\n", self.OFFSET) == [2]
        assert rewrite("midpoint", "m = (left + right) // 2\n", self.OFFSET, selection={0: 1}) == (
            "m = right + (left - right) // 2"
        )

    def test_only_toward_a_form_the_canon_uses(self):
        assert sites("midpoint", "m = (lo + hi) // 2\n", self.SUM) == []
        assert sites("midpoint", "m = (lo + hi) // 2\n", "x = 1\n") == []
        both = self.SUM + "def g(lo, hi):\n    return lo + (hi - lo) // 2\n"
        assert sites("midpoint", "m = (lo + hi) // 2\n", both) == []

    def test_not_other_expressions(self):
        for code in (
            "m = lo + (hi - x) // 2\n",  # not the same lower bound
            "m = (lo + hi) // 3\n",
            "m = (lo + hi) / 2\n",
            "m = (f() + hi) // 2\n",  # a call would be evaluated twice
            "m = (lo + lo) // 2\n",
        ):
            assert sites("midpoint", code, self.OFFSET) == [], code

    @pytest.mark.parametrize(
        "lo, hi", [(0, 0), (0, 9), (-7, 3), (5, 6), (-9, -2), (2**70, 2**71 + 3)]
    )
    def test_equal_for_integers(self, lo, hi):
        assert (lo + hi) // 2 == lo + (hi - lo) // 2 == hi + (lo - hi) // 2
