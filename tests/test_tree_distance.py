"""Normalised AST tree edit distance: worked examples, and agreement with `zss` and `apted`."""

from __future__ import annotations

import ast
import random

import pytest

from skyt_tui.engine.measure.tree_distance import (
    TREE_DISTANCE_FUNCTION,
    _children,
    node_label,
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
