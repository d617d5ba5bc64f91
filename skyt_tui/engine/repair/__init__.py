"""Bounded, monotonic, correctness-preserving repair of samples towards the canon (docs/repair.md).

`repair(code, canon_code, kept_names=..., verify=...)` applies small AST
transformers, one idea each (registry `TRANSFORMERS`, in a fixed order), and
keeps a step only when the result compiles, the verifier (the sandboxed oracle,
wired in by the pipeline) passes it, and it is strictly closer to the canon at
the run's level. See `pipeline.py` for the search and docs/repair.md.

May import: `measure` and the shared leaves (the verifier is handed in, so repair never
imports the oracle).
"""

from __future__ import annotations

from collections.abc import Mapping

from skyt_tui.engine.repair.aug_assign import AugAssign
from skyt_tui.engine.repair.base import Context, Decline, Transformer
from skyt_tui.engine.repair.chained_assign import ChainedAssign
from skyt_tui.engine.repair.compare_order import CompareOrder
from skyt_tui.engine.repair.demo_code import DemoCode
from skyt_tui.engine.repair.dict_keys import DictKeys
from skyt_tui.engine.repair.dict_order import DictOrder
from skyt_tui.engine.repair.docstrings import Docstrings
from skyt_tui.engine.repair.else_after_exit import ElseAfterExit
from skyt_tui.engine.repair.empty_check import EmptyCheck
from skyt_tui.engine.repair.import_form import ImportForm
from skyt_tui.engine.repair.import_place import ImportPlace
from skyt_tui.engine.repair.loop_form import LoopForm
from skyt_tui.engine.repair.merge_ifs import MergeIfs
from skyt_tui.engine.repair.negated_compare import NegatedCompare
from skyt_tui.engine.repair.nested_helper import NestedHelper
from skyt_tui.engine.repair.none_compare import NoneCompare
from skyt_tui.engine.repair.pipeline import RepairResult, RepairStep, RewriteCache, Verifier, repair
from skyt_tui.engine.repair.range_start import RangeStart
from skyt_tui.engine.repair.redundant_jump import RedundantJump
from skyt_tui.engine.repair.rename_locals import RenameLocals
from skyt_tui.engine.repair.return_bool import ReturnBool
from skyt_tui.engine.repair.return_temp import ReturnTemp
from skyt_tui.engine.repair.ternary import Ternary
from skyt_tui.engine.repair.tuple_assign import TupleAssign
from skyt_tui.engine.repair.type_hints import TypeHints
from skyt_tui.engine.repair.zero_check import ZeroCheck
from skyt_tui.engine.versions import REPAIR_VERSION  # noqa: F401 (re-exported)

_ORDERED: tuple[type[Transformer], ...] = (
    RenameLocals,
    Docstrings,
    TypeHints,
    DemoCode,
    ImportPlace,
    ImportForm,
    NestedHelper,
    CompareOrder,
    NegatedCompare,
    NoneCompare,
    EmptyCheck,
    ZeroCheck,
    DictKeys,
    DictOrder,
    ElseAfterExit,
    MergeIfs,
    RedundantJump,
    ReturnBool,
    ReturnTemp,
    Ternary,
    AugAssign,
    TupleAssign,
    ChainedAssign,
    RangeStart,
    LoopForm,
)

TRANSFORMERS: Mapping[str, type[Transformer]] = {cls.name: cls for cls in _ORDERED}

__all__ = [
    "REPAIR_VERSION",
    "TRANSFORMERS",
    "Context",
    "Decline",
    "RepairResult",
    "RepairStep",
    "RewriteCache",
    "Transformer",
    "Verifier",
    "repair",
]
