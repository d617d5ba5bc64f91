"""Normalised AST tree edit distance: worked examples, and agreement with `zss` and `apted`."""

from __future__ import annotations

import ast
import random

import pytest

from skyt_tui.engine.measure import tree_distance as tree_distance_module
from skyt_tui.engine.measure.tree_distance import (
    TREE_DISTANCE_FUNCTION,
    _children,
    node_label,
    python_tree_edit_distance,
    tree_distance,
    tree_distances_to,
    tree_edit_distance,
    tree_mean_pairwise,
    tree_of,
    tree_pairwise_matrix,
)
from tests.corpus import require

zss = pytest.importorskip("zss")
apted = pytest.importorskip("apted")


def zss_tree(node):
    tree = zss.Node(node_label(node))
    for child in _children(node):
        tree.addkid(zss_tree(child))
    return tree


def apted_tree(node):
    from apted.helpers import Tree

    tree = Tree(node_label(node))
    tree.children = [apted_tree(child) for child in _children(node)]
    return tree


def reference_distances(a: str, b: str) -> tuple[int, int]:
    root_a, root_b = ast.parse(a), ast.parse(b)
    by_zss = zss.simple_distance(zss_tree(root_a), zss_tree(root_b))
    by_apted = apted.APTED(apted_tree(root_a), apted_tree(root_b)).compute_edit_distance()
    return int(by_zss), int(by_apted)


def test_worked_example_one_relabel():
    # Module → Expr → BinOp(Name:x, Add, Constant:1): 6 nodes; x → y is one relabel: 1/6
    a, b = "x + 1", "y + 1"
    assert tree_of(a).size == 6
    assert tree_edit_distance(tree_of(a), tree_of(b)) == 1
    assert tree_distance(a, b) == pytest.approx(1 / 6)


def test_worked_example_insertion():
    # "x" is Module → Expr → Name:x (3 nodes); "f(x)" is Module → Expr → Call(Name:f, Name:x) (5 nodes).
    # Keep Module, Expr and Name:x; insert Call above Name:x and Name:f as its first child:
    # 2 edits over the larger tree's 5 nodes.
    assert tree_distance("x", "f(x)") == pytest.approx(2 / 5)


@pytest.mark.parametrize(
    ("a", "b", "nodes"),
    [
        ("from a import x", "from b import x", 3),  # the module
        ("from . import x", "from .. import x", 3),  # the relative level
        ("from .a import x", "from a import x", 3),
        ("import x as y", "import x as z", 3),  # the name it is bound to
        ("def f():\n    global a\n", "def f():\n    global b\n", 4),
        ("def f():\n    nonlocal a\n", "def f():\n    nonlocal b\n", 4),
    ],
)
def test_what_a_node_carries_is_in_its_label(a, b, nodes):
    """Node labels once left out an import's module and level, an alias's binding and the
    names of `global`/`nonlocal`: these pairs were at distance 0. One relabel each now."""
    assert tree_distance(a, b) == pytest.approx(1 / nodes)
    assert node_label(ast.parse("from ..m import x").body[0]) == "ImportFrom:m:2"
    assert node_label(ast.parse("global a, b").body[0]) == "Global:a,b"


def test_properties():
    assert tree_distance("a = 1", "a = 1") == 0.0
    assert tree_distance("def (", "def (") == 0.0  # equal unparseable texts
    assert tree_distance("def (", "a = 1") == 1.0
    texts = ["a = 1", "b = 2", "def f(x):\n    return x", "print(1, 2)"]
    for a in texts:
        for b in texts:
            assert tree_distance(a, b) == tree_distance(b, a)
            assert 0.0 <= tree_distance(a, b) <= 1.0
    assert TREE_DISTANCE_FUNCTION == "ast-ted-normalized-v2"


def random_program(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randrange(1, 5)):
        choice = rng.randrange(4)
        name = rng.choice("abc")
        if choice == 0:
            lines.append(f"{name} = {rng.choice(['1', 'x + 1', 'f(x, 2)', '[1, 2]'])}")
        elif choice == 1:
            lines.append(f"if {name} > {rng.randrange(3)}:\n    {name} = {name} - 1")
        elif choice == 2:
            lines.append(f"for i in range({name}):\n    print(i)")
        else:
            lines.append(f"def {name}(x):\n    return x * {rng.randrange(3)}")
    return "\n".join(lines)


def test_agrees_with_zss_and_apted_on_random_programs():
    rng = random.Random(11)
    for _ in range(60):
        a, b = random_program(rng), random_program(rng)
        ours = tree_edit_distance(tree_of(a), tree_of(b))
        assert (ours, ours) == reference_distances(a, b), (a, b)


@pytest.mark.corpus
def test_agrees_with_zss_and_apted_on_real_samples():
    import json

    files = sorted(require("skyt-msr2026", "outputs").glob("*.json"))[::40]
    for path in files:
        outputs = [o for o in json.loads(path.read_text())["raw_outputs"][:4] if o]
        for a, b in zip(outputs, outputs[1:]):
            if tree_of(a) is None or tree_of(b) is None:
                continue
            ours = tree_edit_distance(tree_of(a), tree_of(b))
            assert (ours, ours) == reference_distances(a, b)


def test_matrix_and_streamed_mean_agree_with_pairs():
    texts = ["a = 1", "a = 1", "b = 2", "def f(x):\n    return x"]
    matrix = tree_pairwise_matrix(texts)
    for i, a in enumerate(texts):
        assert tree_distances_to(texts, a) == pytest.approx(list(matrix[i]))
        for j, b in enumerate(texts):
            assert matrix[i, j] == tree_distance(a, b)
    pairs = [matrix[i, j] for i in range(4) for j in range(i + 1, 4)]
    assert tree_mean_pairwise(texts) == pytest.approx(sum(pairs) / 6)


def test_analyze_with_tree_distance_records_its_version(tmp_path, capsys):
    """`analyze --distance tree`: R_pairwise is 1 − the mean tree distance, the version says so."""
    import json

    from skyt_tui.cli import main

    codes = ["x + 1", "x + 1", "y + 1"]
    source = tmp_path / "samples.jsonl"
    source.write_text(
        "".join(json.dumps({"contract_id": "c", "model": "m", "code": c}) + "\n" for c in codes)
    )
    assert main(["analyze", str(source), "--no-oracle", "--distance", "tree", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["distance"] == "nodoc/ast-ted-normalized-v2"
    metrics = out["runs"][0]["metrics"]
    assert metrics["versions"]["distance"] == "nodoc/ast-ted-normalized-v2"
    # pairs: (0,1) 0, (0,2) 1/6, (1,2) 1/6 → mean 1/9
    assert metrics["R_pairwise"] == pytest.approx(1 - 1 / 9)


def test_tree_distance_is_part_of_the_analysis_cache_key():
    from skyt_tui.engine.runs.analyses import analysis_versions

    assert analysis_versions("nodoc")["distance"] == "nodoc/levenshtein-normalized-v1"
    assert analysis_versions("nodoc", "tree")["distance"] == "nodoc/ast-ted-normalized-v2"
    with pytest.raises(ValueError, match="unknown distance"):
        analysis_versions("nodoc", "cosine")


# --- the compiled Zhang–Shasha (_ted.c) and its pure-Python fallback ---------------------------


def test_the_compiled_implementation_is_built_and_used():
    """`pip install -e .` builds the extension (setup.py); the fallback is for installs that cannot."""
    assert tree_distance_module.implementation() == tree_distance_module.COMPILED
    assert tree_distance_module._compiled is not None


def test_compiled_and_python_agree_on_random_programs():
    rng = random.Random(29)
    for _ in range(200):
        a, b = tree_of(random_program(rng)), tree_of(random_program(rng))
        assert tree_edit_distance(a, b) == python_tree_edit_distance(a, b)
        assert tree_edit_distance(b, a) == python_tree_edit_distance(b, a)


@pytest.mark.corpus
def test_compiled_python_zss_and_apted_agree_on_real_samples():
    """Distinct real SKYT programs, in pairs across contracts and within one: all four the same."""
    import json

    files = sorted(require("skyt-msr2026", "outputs").glob("*_temp1.0_*.json"))[::6]
    texts = []
    for path in files:
        texts += [o for o in json.loads(path.read_text())["raw_outputs"][:3] if o]
    texts = [t for t in dict.fromkeys(texts) if tree_of(t) is not None]
    assert len(texts) >= 12
    rng = random.Random(5)
    for _ in range(40):
        a, b = rng.sample(texts, 2)
        compiled = tree_edit_distance(tree_of(a), tree_of(b))
        assert compiled == python_tree_edit_distance(tree_of(a), tree_of(b))
        assert (compiled, compiled) == reference_distances(a, b)


def test_the_compiled_function_refuses_malformed_trees():
    compiled = tree_distance_module._compiled
    good = tree_of("x + 1")
    args = (good.labels, good.leftmost, good.keyroots)
    assert compiled.distance(*args, *args) == 0
    bad_trees = [
        (good.labels, good.leftmost[:-1], good.keyroots),  # sizes disagree
        (good.labels, (0, 5, 0, 0, 0, 0), good.keyroots),  # a leftmost leaf after its node
        (good.labels, good.leftmost, (5, 1)),  # keyroots not ascending
        (good.labels, good.leftmost, (1, 9)),  # keyroot past the tree
        (good.labels, good.leftmost, (1,)),  # the root is not a keyroot
        ((0, 1, 2), (0, 1, 1), (0, 2)),  # the root's leftmost leaf is not node 0
        (
            (0, 1, 2, 3, 4),
            (0, 1, 0, 1, 0),
            (3, 4),
        ),  # keyroot 3's range holds node 2, which starts at 0
        ((0, 1, 2), (0, 1, 0), (1, 2)),  # valid: leaves 0 and 1 under the root 2
    ]
    for labels, leftmost, keyroots in bad_trees[:7]:
        with pytest.raises(ValueError, match="tree"):
            compiled.distance(labels, leftmost, keyroots, *args)
        with pytest.raises(ValueError, match="tree"):
            compiled.distance(*args, labels, leftmost, keyroots)
    assert compiled.distance(*bad_trees[7], *bad_trees[7]) == 0
    with pytest.raises(TypeError):
        compiled.distance("abc", good.leftmost, good.keyroots, *args)
    with pytest.raises(TypeError):
        compiled.distance(*args)
    assert compiled.distance((), (), (), *args) == good.size  # an empty tree: insert every node


def test_the_fallback_gives_the_same_analysis_and_says_so(tmp_path, capsys, monkeypatch):
    """Without the extension, `analyze --distance tree` prints the same JSON and a note on stderr."""
    import json

    from skyt_tui.cli import main

    codes = [
        "def f(x):\n    return x + 1",
        "def f(y):\n    return y + 1",
        "def g(x):\n    return 2",
    ]
    source = tmp_path / "samples.jsonl"
    source.write_text(
        "".join(json.dumps({"contract_id": "c", "model": "m", "code": c}) + "\n" for c in codes)
    )
    command = ["analyze", str(source), "--no-oracle", "--distance", "tree", "--json"]
    assert main(command) == 0
    compiled = capsys.readouterr()
    assert "pure-Python" not in compiled.err
    tree_of.cache_clear()
    monkeypatch.setattr(tree_distance_module, "_compiled", None)
    assert tree_distance_module.implementation() == tree_distance_module.PURE_PYTHON
    assert main(command) == 0
    fallback = capsys.readouterr()
    assert fallback.out == compiled.out
    assert "note: tree distance: the compiled Zhang–Shasha" in fallback.err
    assert "pure-Python" in fallback.err
    assert main(command[:-3] + ["--json"]) == 0  # Levenshtein: no note
    assert "pure-Python" not in capsys.readouterr().err
