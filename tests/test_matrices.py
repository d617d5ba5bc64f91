"""Run texts and distance matrices rebuilt from a stored run and its analysis, before and after repair."""

import numpy as np
import pytest

from skyt_tui.engine.analysis.pipeline import analyze_run
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.matrices import analysis_run_texts, run_matrices, stored_run_texts
from skyt_tui.engine.runs.run_store import SampleRecord
from tests.run_helpers import CONTRACT_ID, install_contract

CANON = "def f(x):\n    return x + 1"
SWAPPED = "def f(x):\n    return 1 + x"


def ok(index, code):
    return SampleRecord(index=index, status="ok", response=code, code=code, extraction="unfenced")


@pytest.fixture
def stored(isolated_home):
    install_contract(isolated_home)
    contract = get_contract(CONTRACT_ID)
    samples = [
        ok(0, CANON),
        ok(1, CANON + "  # same"),
        SampleRecord(index=2, status="failed", error="HTTP 500"),
        ok(3, SWAPPED),
    ]
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=contract,
        provider="openai",
        model="m",
        temperature=0.0,
        n=4,
        samples=samples,
        status=run_store.COMPLETE,
    )
    return run_store.load_run(meta.id)


def test_stored_run_matrices_match_the_analysis(stored):
    analysis = analyses.stored_analysis(stored)
    matrices = run_matrices(stored.id, "nodoc")
    # failed sample 2 has no code, so it is not in the matrix; labels keep the run's sample numbers
    assert matrices.labels == ("0", "1", "3")
    # "x + 1" → "1 + x" is two substitutions in 26 characters; the comment is gone at nodoc
    assert matrices.pre[0, 1] == 0.0 and matrices.pre[0, 2] == pytest.approx(2 / 26)
    assert np.allclose(matrices.pre, matrices.pre.T)
    assert [s.facts.d_pre for s in analysis.samples] == [0.0, 0.0, pytest.approx(2 / 26)]
    assert matrices.order == (0, 1, 2)
    texts = stored_run_texts(stored, analysis)
    assert texts.repair_ran and texts.canon_text("raw") == CANON
    # at raw the comment counts: sample 1 is 8 characters longer than the canon
    assert texts.matrix("raw")[0, 1] == pytest.approx(8 / len(CANON + "  # same"))
    if texts.n_repaired == 0:
        assert matrices.post is not None and np.array_equal(matrices.post, matrices.pre)
    else:
        assert matrices.post is not None and matrices.post[0, 2] <= matrices.pre[0, 2]


def test_no_canon_means_no_after_repair_matrix(stored, isolated_home):
    texts = stored_run_texts(
        stored,
        StoredAnalysis.from_document(
            {
                "id": stored.id,
                "level": "nodoc",
                "metrics": {"n": 1, "level": "nodoc", "tau": 0.1},
                "canon": {"status": "none"},
                "oracle": {},
                "samples": [{"index": 0, "d_pre": None, "d_post": None}],
            }
        ),
    )
    assert not texts.repair_ran and texts.matrix("nodoc", post=True) is None
    assert texts.order_by_canon() is None and texts.canon_text("nodoc") is None
    with pytest.raises(ValueError, match="unknown normalization level"):
        texts.text(0, "ast")


def test_in_memory_analysis_gives_the_same_texts(stored):
    analysis = analyze_run(analyses.run_input(stored))
    texts = analysis_run_texts(analysis)
    assert texts.labels == ("0", "1", "3")
    assert np.array_equal(texts.matrix("nodoc"), analysis.pairwise)
    assert texts.head(2).labels == ("0", "1") and len(texts.head(10)) == 3
